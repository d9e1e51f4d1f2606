/* image_geometry.c — a launch's image description read by its struct_size and checked against a
 * filter's configuration: pitches, offsets and slice pitches in whole pixels, the bytes each
 * buffer needs, the region of interest (in 3-D for volumes) and the launch geometry. */
#include "host.h"

#include "error.h"
#include "generator.h"
#include "struct_size.h"

#include <limits.h>
#include <stdint.h>

static int multiply_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b && a > (SIZE_MAX - c) / b) return 0;
    *out = a * b + c;
    return 1;
}

cls_status cls_image_desc_read(const cls_image_desc *image, cls_image_desc *copy)
{
    if (!image) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image description is NULL");
    *copy = (cls_image_desc){0};
    return cls_struct_read(&cls_image_desc_layout, image, copy);
}

/* The slices of a volume: their pitches (k: input, output), the bytes the buffers need, and the
 * slices computed. An image (depth 0 or 1) is one slice. */
static cls_status resolve_slices(const cls_kernel_config *config, const cls_image_desc *image, const size_t row[2],
                                 cls_resolved_image *r)
{
    const size_t depth = image->depth ? image->depth : 1;
    if (depth > 1 && !cls_spec_is_volume(&config->spec))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the image is a volume of %zu slices and the filter's mask is 2-D: give the mask a depth "
                        "(cls_spec.mask_depth) or filter the slices one by one", depth);
    if (depth > INT_MAX / 2)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "volume depth %zu is too large (at most %d)", depth, INT_MAX / 2);
    const int whole = image->roi_depth == 0;
    if (whole ? image->roi_z != 0 : image->roi_z >= depth || image->roi_depth > depth - image->roi_z)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the region of interest's slices %zu to %zu leave the %zu slices",
                        image->roi_z, image->roi_z + image->roi_depth, depth);
    r->depth = (unsigned)depth;
    r->roi_z = (unsigned)image->roi_z;
    r->roi_depth = whole ? (unsigned)depth : (unsigned)image->roi_depth;
    const size_t given[2] = {image->input_slice_pitch, image->output_slice_pitch};
    static const char *const names[2] = {"input", "output"};
    for (int k = 0; k < 2; ++k) {
        const size_t size = cls_pixel_size(k ? config->spec.output_type : config->spec.input_type);
        size_t slice; /* the bytes of one slice's rows */
        if (!multiply_add(r->pitch[k], image->height - 1, row[k], &slice))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image does not fit in memory addresses", names[k]);
        if (given[k] && (given[k] < slice || given[k] % size))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s slice pitch %zu bytes is smaller than a slice (%zu bytes) or not a whole number of "
                            "%zu-byte pixels", names[k], given[k], slice, size);
        if (!given[k] && !multiply_add(r->pitch[k], image->height, 0, &r->slice_pitch[k]))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image does not fit in memory addresses", names[k]);
        if (given[k]) r->slice_pitch[k] = given[k];
        size_t end;
        if (!multiply_add(r->slice_pitch[k], depth - 1, slice, &end) || !multiply_add(1, end, r->offset[k], &r->bytes[k]))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image does not fit in memory addresses", names[k]);
    }
    return CLS_OK;
}

cls_status cls_resolve_image(const cls_kernel_config *config, const cls_image_desc *image, cls_resolved_image *r)
{
    if (image->width == 0 || image->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", image->width, image->height);
    if (image->width > INT_MAX / 2 || image->height > INT_MAX / 2)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is too large (at most %d per side)",
                        image->width, image->height, INT_MAX / 2);
    const cls_spec *spec = &config->spec;
    const size_t sizes[2] = {cls_pixel_size(spec->input_type), cls_pixel_size(spec->output_type)};
    const size_t pitches[2] = {image->input_row_pitch, image->output_row_pitch};
    const size_t offsets[2] = {image->input_offset, image->output_offset};
    const size_t row[2] = {image->width * sizes[0], image->width * sizes[1]};
    static const char *const names[2] = {"input", "output"};
    for (int k = 0; k < 2; ++k) {
        r->pitch[k] = pitches[k] ? pitches[k] : row[k];
        r->offset[k] = offsets[k];
        if (r->pitch[k] < row[k])
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is smaller than a row (%zu pixels of %zu bytes)",
                            names[k], r->pitch[k], image->width, sizes[k]);
        if (r->pitch[k] % sizes[k] || r->pitch[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->pitch[k], sizes[k]);
        if (r->offset[k] % sizes[k] || r->offset[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s offset %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->offset[k], sizes[k]);
    }
    cls_status status = resolve_slices(config, image, row, r);
    if (status != CLS_OK) return status;
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    cls_launch_geometry *g = &r->geometry;
    g->width = (unsigned)image->width;
    g->height = (unsigned)image->height;
    g->roi_x = whole ? 0 : (unsigned)image->roi_x;
    g->roi_y = whole ? 0 : (unsigned)image->roi_y;
    g->roi_width = whole ? g->width : (unsigned)image->roi_width;
    g->roi_height = whole ? g->height : (unsigned)image->roi_height;
    if (!whole && (image->roi_width == 0 || image->roi_height == 0 || image->roi_x >= image->width ||
                   image->roi_y >= image->height || image->roi_width > image->width - image->roi_x ||
                   image->roi_height > image->height - image->roi_y))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "region of interest %zux%zu at (%zu, %zu) is empty or leaves the %zux%zu image",
                        image->roi_width, image->roi_height, image->roi_x, image->roi_y, image->width,
                        image->height);
    g->mask_width = spec->mask_width;
    g->mask_height = spec->mask_height;
    g->group_width = config->group_width * config->cols; /* the columns a group covers */
    g->group_height = config->group_height * config->rows; /* the rows a group covers */
    return CLS_OK;
}

