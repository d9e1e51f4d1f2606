/* struct_size.c — reading and writing the public structs that carry their own size, after the
 * rule of Linux's copy_struct_from_user: a shorter caller's struct is read over defaults, a
 * longer one only when the fields this library does not know are zero. */
#include "struct_size.h"

#include "error.h"

#include <string.h>

/* How far past the library's size a caller's struct_size may reach: more is not a size. */
#define CLS_STRUCT_MAX_EXTRA 4096

const cls_struct_layout cls_spec_layout = {"cls_spec", "fill it with cls_spec_init", CLS_SPEC_FIRST_SIZE,
                                           sizeof(cls_spec)};
const cls_struct_layout cls_image_desc_layout = {"cls_image_desc", "start it with CLS_IMAGE_DESC_INIT",
                                                 CLS_IMAGE_DESC_FIRST_SIZE, sizeof(cls_image_desc)};
const cls_struct_layout cls_build_info_layout = {"cls_build_info", "start it with CLS_BUILD_INFO_INIT",
                                                 CLS_BUILD_INFO_FIRST_SIZE, sizeof(cls_build_info)};
const cls_struct_layout cls_cache_status_layout = {"cls_cache_status", "start it with CLS_CACHE_STATUS_INIT",
                                                   CLS_CACHE_STATUS_FIRST_SIZE, sizeof(cls_cache_status)};
const cls_struct_layout cls_tuning_layout = {"cls_tuning", "start it with CLS_TUNING_INIT", CLS_TUNING_FIRST_SIZE,
                                             sizeof(cls_tuning)};
const cls_struct_layout cls_device_caps_layout = {"cls_device_caps", "start it with CLS_DEVICE_CAPS_INIT",
                                                  CLS_DEVICE_CAPS_FIRST_SIZE, sizeof(cls_device_caps)};

static size_t struct_size_of(const void *caller)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    return size;
}

cls_status cls_struct_check(const cls_struct_layout *layout, const void *caller)
{
    if (!caller) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s is NULL", layout->name);
    const size_t size = struct_size_of(caller);
    if (size == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s.struct_size is 0: %s", layout->name, layout->initializer);
    if (size < layout->first_size)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s.struct_size %zu is less than its first layout's %zu bytes: %s",
                        layout->name, size, layout->first_size, layout->initializer);
    if (size > layout->size + CLS_STRUCT_MAX_EXTRA)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s.struct_size %zu is not a size (this library's is %zu): %s",
                        layout->name, size, layout->size, layout->initializer);
    return CLS_OK;
}

cls_status cls_struct_read(const cls_struct_layout *layout, const void *caller, void *copy)
{
    const cls_status status = cls_struct_check(layout, caller);
    if (status != CLS_OK) return status;
    const size_t size = struct_size_of(caller);
    const unsigned char *bytes = caller;
    for (size_t k = layout->size; k < size; ++k)
        if (bytes[k])
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s.struct_size is %zu, and fields past the %zu bytes this library knows are set: the "
                            "program was compiled against a newer clstencil header than this library (%s)",
                            layout->name, size, layout->size, cls_version());
    memcpy(copy, caller, size < layout->size ? size : layout->size);
    memcpy(copy, &layout->size, sizeof layout->size);
    return CLS_OK;
}

cls_status cls_struct_write(const cls_struct_layout *layout, void *caller, const void *copy)
{
    const cls_status status = cls_struct_check(layout, caller);
    if (status != CLS_OK) return status;
    const size_t size = struct_size_of(caller), head = sizeof size;
    unsigned char *bytes = caller;
    memcpy(bytes + head, (const unsigned char *)copy + head, (size < layout->size ? size : layout->size) - head);
    if (size > layout->size) memset(bytes + layout->size, 0, size - layout->size);
    return CLS_OK;
}
