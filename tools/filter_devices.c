/* filter_devices.c — a device list of `clstencil filter --device` resolved to one "P:D" selector
 * a device (filter_devices.h), through the library's cls_device_select_list. */
#include "filter_devices.h"

#include "commands.h"

#include <clstencil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int filter_devices_named(const char *selector)
{
    if (!selector) selector = getenv("CLSTENCIL_DEVICE");
    return selector && (strchr(selector, ',') || strcasecmp(selector, "gpus") == 0);
}

int filter_devices_resolve(const char *selector, filter_devices *out)
{
    cls_device_list *list = NULL;
    size_t indices[FILTER_MAX_DEVICES], count = 0;
    cls_status status = cls_devices_query(&list);
    if (status == CLS_OK) status = cls_device_select_list(list, selector, indices, FILTER_MAX_DEVICES, &count);
    out->count = status == CLS_OK ? count : 0;
    for (size_t k = 0; k < out->count; ++k) {
        const cls_device_caps *caps = cls_device_list_get(list, indices[k]);
        snprintf(out->selectors[k], sizeof out->selectors[k], "%u:%u", caps->platform_index, caps->device_index);
    }
    cls_device_list_release(list);
    return status == CLS_OK ? EXIT_OK_ : report_failure("filter", status);
}
