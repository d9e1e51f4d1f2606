/* struct_size.h — the public structs that carry their own size (struct_size, their first field):
 * a caller's copy of any size read into the library's layout, and the library's written back
 * into the caller's (docs/abi.md, "Structs that can grow"). */
#ifndef CLS_STRUCT_SIZE_H
#define CLS_STRUCT_SIZE_H

#include "clstencil_tuning.h"

#include <stddef.h>

/* The bytes up to the end of `field`. */
#define CLS_FIELD_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* The size of each struct's first layout, the smallest struct_size accepted: the end of the
 * layout's last field. Fields appended later leave these as they are. */
#define CLS_SPEC_FIRST_SIZE CLS_FIELD_END(cls_spec, region_code)
#define CLS_IMAGE_DESC_FIRST_SIZE CLS_FIELD_END(cls_image_desc, roi_height)
#define CLS_BUILD_INFO_FIRST_SIZE CLS_FIELD_END(cls_build_info, build_milliseconds)
#define CLS_CACHE_STATUS_FIRST_SIZE CLS_FIELD_END(cls_cache_status, misses)
#define CLS_TUNING_FIRST_SIZE CLS_FIELD_END(cls_tuning, height)
#define CLS_DEVICE_CAPS_FIRST_SIZE CLS_FIELD_END(cls_device_caps, arch)

/* How the library knows one such struct. */
typedef struct cls_struct_layout {
    const char *name;        /* "cls_image_desc", for messages */
    const char *initializer; /* how a caller sets struct_size: "start it with CLS_IMAGE_DESC_INIT" */
    size_t first_size;       /* its first layout's size */
    size_t size;             /* its size in this library: sizeof */
} cls_struct_layout;

extern const cls_struct_layout cls_spec_layout, cls_image_desc_layout, cls_build_info_layout,
    cls_cache_status_layout, cls_tuning_layout, cls_device_caps_layout;

/* Refuses a caller's struct (CLS_ERR_INVALID_ARGUMENT, the message naming the struct and the
 * fix) when it is NULL or its struct_size is 0, below the first layout, or more than a page past
 * this library's size. */
cls_status cls_struct_check(const cls_struct_layout *layout, const void *caller);
/* Reads a caller's input struct into *copy, which holds the defaults of the fields an older
 * caller lacks: the caller's struct_size bytes, up to the library's size. Bytes past the
 * library's size (a caller compiled against a newer header) must be zero, else
 * CLS_ERR_INVALID_ARGUMENT. copy->struct_size becomes the library's size; *copy is unchanged on
 * failure. */
cls_status cls_struct_read(const cls_struct_layout *layout, const void *caller, void *copy);
/* Writes the library's full struct *copy into a caller's output struct: the fields that fit its
 * struct_size, which is kept; bytes past the library's size are zeroed. Nothing is written on
 * failure. */
cls_status cls_struct_write(const cls_struct_layout *layout, void *caller, const void *copy);

#endif
