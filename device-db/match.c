/* match.c — picks the database record for a device: exact device name, then architecture,
 * then vendor and type, then the generic record. Within a level the record defined last wins,
 * so the overlay's new records (read after the built-in ones) take precedence. */
#include "clstencil_tuning.h"
#include "struct_size.h"

#include <string.h>
#include <strings.h>

static int matches(const cls_arch_record *r, const cls_device_caps *caps, cls_match_level level)
{
    switch (level) {
    case CLS_MATCH_DEVICE: return r->device[0] && strcasecmp(r->device, caps->name) == 0;
    case CLS_MATCH_ARCH:
        return !r->device[0] && r->arch[0] && caps->arch[0] && strcasecmp(r->arch, caps->arch) == 0 &&
               (r->vendor == CLS_VENDOR_UNKNOWN || r->vendor == caps->vendor);
    case CLS_MATCH_VENDOR_TYPE:
        return !r->device[0] && !r->arch[0] && r->vendor != CLS_VENDOR_UNKNOWN &&
               r->vendor == caps->vendor && r->type == caps->type;
    case CLS_MATCH_GENERIC:
        return !r->device[0] && !r->arch[0] && r->vendor == CLS_VENDOR_UNKNOWN;
    }
    return 0;
}

const cls_arch_record *cls_device_db_match(const cls_device_db *db, const cls_device_caps *caller_caps,
                                           cls_match_level *level)
{
    cls_device_caps copy = {0};
    if (cls_struct_read(&cls_device_caps_layout, caller_caps, &copy) != CLS_OK) return NULL;
    const cls_device_caps *caps = &copy;
    const size_t count = cls_device_db_count(db);
    for (int l = CLS_MATCH_DEVICE; l <= CLS_MATCH_GENERIC; ++l)
        for (size_t i = count; i-- > 0;) {
            const cls_arch_record *r = cls_device_db_get(db, i);
            if (matches(r, caps, (cls_match_level)l)) {
                if (level) *level = (cls_match_level)l;
                return r;
            }
        }
    return NULL;
}

const char *cls_match_level_name(cls_match_level level)
{
    switch (level) {
    case CLS_MATCH_DEVICE: return "device";
    case CLS_MATCH_ARCH: return "architecture";
    case CLS_MATCH_VENDOR_TYPE: return "vendor+type";
    case CLS_MATCH_GENERIC: return "generic";
    }
    return "none";
}
