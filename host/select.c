/* select.c — device selection: the default (GPU, else accelerator, else CPU) or the
 * CLSTENCIL_DEVICE forms "P:D", a device type, or a name substring. */
#include "host.h"

#include "error.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int contains_case(const char *text, const char *word)
{
    const size_t length = strlen(word);
    for (; *text; ++text)
        if (strncasecmp(text, word, length) == 0) return 1;
    return 0;
}

/* "P:D" with decimal digits only. */
static int parse_index_pair(const char *text, unsigned long *platform, unsigned long *device)
{
    char *end;
    if (*text < '0' || *text > '9') return 0;
    *platform = strtoul(text, &end, 10);
    if (*end != ':' || end[1] < '0' || end[1] > '9') return 0;
    *device = strtoul(end + 1, &end, 10);
    return *end == '\0';
}

static int parse_type(const char *text, cls_device_type *type)
{
    static const struct { const char *name; cls_device_type type; } types[] = {
        {"gpu", CLS_DEVICE_GPU}, {"cpu", CLS_DEVICE_CPU}, {"accelerator", CLS_DEVICE_ACCELERATOR}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcasecmp(text, types[i].name) == 0) {
            *type = types[i].type;
            return 1;
        }
    return 0;
}

static cls_status no_match(const cls_device_caps *caps, size_t count, const char *selector)
{
    strbuf message;
    strbuf_init(&message);
    strbuf_printf(&message, "no OpenCL device matches CLSTENCIL_DEVICE '%s'; devices present:", selector);
    for (size_t i = 0; i < count; ++i)
        strbuf_printf(&message, "\n  %u:%u  %s  %s (%s, %s)", caps[i].platform_index,
                      caps[i].device_index, cls_device_type_name(caps[i].type), caps[i].name,
                      caps[i].platform_name, cls_vendor_name(caps[i].vendor));
    if (count == 0) strbuf_append(&message, " none");
    strbuf_append(&message, "\nselect with P:D (platform:device), gpu, cpu, accelerator, or part of a name");
    cls_status status = cls_fail(CLS_ERR_NO_DEVICE, "%s", strbuf_text(&message));
    strbuf_free(&message);
    return status;
}

cls_status cls_select_device(const cls_device_caps *caps, size_t count, const char *selector,
                             size_t *index)
{
    if (!selector || !*selector) { /* the default: the first GPU, else accelerator, else CPU */
        static const cls_device_type preference[] = {CLS_DEVICE_GPU, CLS_DEVICE_ACCELERATOR,
                                                     CLS_DEVICE_CPU, CLS_DEVICE_OTHER};
        for (size_t p = 0; p < sizeof preference / sizeof preference[0]; ++p)
            for (size_t i = 0; i < count; ++i)
                if (caps[i].type == preference[p]) {
                    *index = i;
                    return CLS_OK;
                }
        return no_match(caps, count, "(default)");
    }
    unsigned long platform, device;
    cls_device_type type;
    if (parse_index_pair(selector, &platform, &device)) {
        for (size_t i = 0; i < count; ++i)
            if (caps[i].platform_index == platform && caps[i].device_index == device) {
                *index = i;
                return CLS_OK;
            }
    } else if (parse_type(selector, &type)) {
        for (size_t i = 0; i < count; ++i)
            if (caps[i].type == type) {
                *index = i;
                return CLS_OK;
            }
    } else {
        for (size_t i = 0; i < count; ++i)
            if (contains_case(caps[i].name, selector) || contains_case(caps[i].platform_name, selector) ||
                contains_case(caps[i].vendor_name, selector) ||
                contains_case(cls_vendor_name(caps[i].vendor), selector)) {
                *index = i;
                return CLS_OK;
            }
    }
    return no_match(caps, count, selector);
}

cls_status cls_select_devices(const cls_device_caps *caps, size_t count, const char *selectors, size_t *indices,
                              size_t capacity, size_t *found)
{
    *found = 0;
    if (selectors && strcasecmp(selectors, "gpus") == 0) {
        for (size_t i = 0; i < count; ++i)
            if (caps[i].type == CLS_DEVICE_GPU) {
                if (*found == capacity)
                    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "'gpus' names more than %zu devices", capacity);
                indices[(*found)++] = i;
            }
        return *found ? CLS_OK : no_match(caps, count, selectors);
    }
    if (!capacity) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "no room for a device");
    if (!selectors || !strchr(selectors, ',')) {
        const cls_status status = cls_select_device(caps, count, selectors, indices);
        *found = status == CLS_OK;
        return status;
    }
    char part[256];
    for (const char *start = selectors;; ++start) {
        const size_t length = strcspn(start, ",");
        if (length == 0 || length >= sizeof part)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "device list '%s': %s", selectors,
                            length ? "a selector is too long" : "an empty selector (two commas, or one at an end)");
        if (*found == capacity)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "device list '%s' names more than %zu devices", selectors, capacity);
        memcpy(part, start, length);
        part[length] = '\0';
        const cls_status status = cls_select_device(caps, count, part, &indices[*found]);
        if (status != CLS_OK) return status;
        ++*found;
        start += length;
        if (!*start) return CLS_OK;
    }
}
