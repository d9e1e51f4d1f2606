/* fingerprint.c — the device fingerprint that keys the binary cache: an xxHash (XXH3-64) of
 * everything whose change could make a cached binary stale. */
#include "host.h"

#include "strbuf.h"
#include "struct_size.h"

#include <stdio.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

void cls_fingerprint_with_version(const cls_device_caps *caps, const char *library_version, char out[17])
{
    strbuf text;
    strbuf_init(&text);
    /* Fields are separated by a byte that never occurs in them, so no two records collide by
     * shifting text from one field into the next. */
    strbuf_printf(&text, "%s\x1f%s\x1f%s\x1f%u\x1f%s\x1f%s\x1f%u\x1f%s", caps->platform_name,
                  caps->platform_version, caps->name, (unsigned)caps->vendor_id, caps->driver_version,
                  caps->device_version, (unsigned)caps->address_bits, library_version);
    const XXH64_hash_t hash = XXH3_64bits(strbuf_text(&text), text.length);
    strbuf_free(&text);
    snprintf(out, 17, "%016llx", (unsigned long long)hash);
}

void cls_device_fingerprint(const cls_device_caps *caps, char out[17])
{
    cls_device_caps copy = {0};
    if (cls_struct_read(&cls_device_caps_layout, caps, &copy) == CLS_OK)
        cls_fingerprint_with_version(&copy, CLS_VERSION_STRING, out);
    else
        out[0] = '\0';
}
