/* host.h — internal declarations of the program and launch stage: device discovery, selection,
 * contexts and filters. */
#ifndef CLS_HOST_H
#define CLS_HOST_H

#include "clstencil.h"

#include <pthread.h>

struct cls_device_list {
    size_t count;
    cls_device_caps *caps;
    cl_device_id *ids;
};

struct cls_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    cls_device_caps caps;
    cls_arch_record record; /* matched database record (policy defaults) */
    cls_match_level match_level;
    pthread_mutex_t programs_lock; /* guards programs */
    struct cls_program_entry *programs; /* built programs, one per source and options */
};

/* Fills the vendor-independent and vendor-specific fields of one device's record. */
cls_status cls_query_device_caps(cl_platform_id platform, cl_device_id device, unsigned platform_index,
                                 unsigned device_index, cls_device_caps *caps);
/* Normalizes the vendor from the vendor id and the platform, vendor and device names. */
cls_vendor cls_vendor_detect(cl_uint vendor_id, const char *platform_name, const char *vendor_name,
                             const char *device_name);
/* The database architecture key from the vendor fields ("sm_90", "gfx90a", "" if none). */
void cls_arch_key(cls_device_caps *caps);
/* Device selection over an array of records (the logic of cls_device_select). */
cls_status cls_select_device(const cls_device_caps *caps, size_t count, const char *selector,
                             size_t *index);
/* The device fingerprint as a given library version would compute it (cls_device_fingerprint
 * passes its own version; tests simulate an upgrade). */
void cls_fingerprint_with_version(const cls_device_caps *caps, const char *library_version, char out[17]);
/* The resolved spec of a filter (pixel types, mask, border) for pipelines. */
const cls_spec *cls_filter_spec(const cls_filter *filter);
/* The "OpenCL error name (number)" text for a cl_int. */
const char *cls_cl_error_name(cl_int error);

#endif
