/* spread.c — one host image through several filters of one spec, each built on a context of its
 * own (a device each): the rows to compute split into bands, a band a filter and a thread, each
 * band sent with the rows its mask reaches above and below (in repeat mode wrapped from the
 * opposite edge), so that every device computes its rows as the whole image would, and writing
 * only its own rows of the output. */
#include "host.h"

#include "error.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One band: its filter, output rows [y0, y1) of the image and what its thread reports. */
typedef struct band {
    cls_filter *filter;
    const unsigned char *input;
    unsigned char *output;
    const cls_image_desc *image;
    size_t y0, y1, reach;
    int repeat;
    pthread_t thread;
    int started;
    cls_status status;
    char message[512];
} band;

/* Input rows [first, last) of the image into a packed buffer, rows outside it wrapped around. */
static void gather_rows(const band *b, long first, long last, size_t row_bytes, unsigned char *to)
{
    const cls_image_desc *image = b->image;
    const long height = (long)image->height;
    const size_t pitch = image->input_row_pitch;
    for (long v = first; v < last; ++v) {
        const long row = ((v % height) + height) % height;
        memcpy(to + (size_t)(v - first) * row_bytes, b->input + image->input_offset + (size_t)row * pitch, row_bytes);
    }
}

/* Band B on its filter: its input rows (the image's own, or wrapped ones in a buffer of the band's)
 * as an image whose region of interest is the band's rows; a host run copies only those rows of
 * the output in and out, so the bands beside it are left to their own threads. */
static void *run_band(void *argument)
{
    band *b = argument;
    const cls_image_desc *image = b->image;
    const size_t in_bytes = image->width * cls_pixel_size(cls_filter_spec(b->filter)->input_type);
    long first = (long)b->y0 - (long)b->reach, last = (long)(b->y1 + b->reach);
    const int wrap = b->repeat && (first < 0 || last > (long)image->height);
    if (!wrap) {
        first = first > 0 ? first : 0;
        last = last < (long)image->height ? last : (long)image->height;
    }
    const size_t rows = (size_t)(last - first);
    unsigned char *wrapped = wrap ? malloc(rows * in_bytes) : NULL;
    if (wrap && !wrapped) {
        b->status = CLS_ERR_OUT_OF_MEMORY;
        snprintf(b->message, sizeof b->message, "out of memory for a band of %zu rows", rows);
        return NULL;
    }
    if (wrap) gather_rows(b, first, last, in_bytes, wrapped);
    const cls_image_desc band_image = {
        CLS_IMAGE_DESC_INIT,
        .width = image->width,
        .height = rows,
        .input_row_pitch = wrap ? in_bytes : image->input_row_pitch,
        .output_row_pitch = image->output_row_pitch,
        .roi_x = image->roi_x,
        .roi_y = b->y0 - (size_t)first,
        .roi_width = image->roi_width ? image->roi_width : image->width,
        .roi_height = b->y1 - b->y0,
    };
    const unsigned char *source = wrap ? wrapped : b->input + image->input_offset + (size_t)first * image->input_row_pitch;
    unsigned char *target = b->output + image->output_offset + (size_t)first * image->output_row_pitch;
    b->status = cls_filter_run_host(b->filter, source, target, &band_image);
    if (b->status != CLS_OK) snprintf(b->message, sizeof b->message, "%s", cls_last_error());
    free(wrapped);
    return NULL;
}

/* Whether SPEC is of FIRST's kind: pixel types, mask size and border (the caller's promise is the rest). */
static int same_kind(const cls_spec *first, const cls_spec *spec)
{
    return spec->input_type == first->input_type && spec->output_type == first->output_type &&
           spec->mask_width == first->mask_width && spec->mask_height == first->mask_height &&
           cls_spec_border_on(spec, CLS_AXIS_X) == cls_spec_border_on(first, CLS_AXIS_X) &&
           cls_spec_border_on(spec, CLS_AXIS_Y) == cls_spec_border_on(first, CLS_AXIS_Y) &&
           spec->border_value == first->border_value;
}

cls_status cls_filter_run_host_spread(cls_filter *const *filters, size_t count, const void *input, void *output,
                                      const cls_image_desc *described)
{
    if (!filters || !count || !input || !output)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filters, their count or an image pointer is NULL or 0");
    if (count > CLS_MAX_SPREAD) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%zu filters: at most %d", count, CLS_MAX_SPREAD);
    cls_image_desc image;
    cls_status status = cls_image_desc_read(described, &image);
    if (status != CLS_OK) return status;
    for (size_t k = 0; k < count; ++k) {
        if (!filters[k]) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter %zu is NULL", k);
        if (cls_filter_output_count(filters[k]) != 1)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter %zu writes %u outputs; a spread run writes one", k,
                            cls_filter_output_count(filters[k]));
        if (!same_kind(cls_filter_spec(filters[0]), cls_filter_spec(filters[k])))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "filter %zu differs from filter 0 (pixel types, mask size or border): a spread run "
                            "takes filters of one spec, a device each", k);
    }
    const cls_spec *spec = cls_filter_spec(filters[0]);
    if (image.depth > 1 || cls_spec_is_volume(spec))
        return cls_fail(CLS_ERR_UNSUPPORTED, "a spread run splits the rows of one image: run a volume (depth %zu, "
                        "mask depth %u) on one filter", image.depth, spec->mask_depth);
    /* packed rows and a whole region of interest spelled out, for the bands */
    if (!image.input_row_pitch) image.input_row_pitch = image.width * cls_pixel_size(spec->input_type);
    if (!image.output_row_pitch) image.output_row_pitch = image.width * cls_pixel_size(spec->output_type);
    const size_t y0 = image.roi_height ? image.roi_y : 0;
    const size_t rows = image.roi_height ? image.roi_height : image.height;
    if (image.roi_height && (image.roi_y > image.height || rows > image.height - image.roi_y))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the region of interest's rows %zu to %zu lie outside the %zu rows",
                        image.roi_y, image.roi_y + rows, image.height);
    if (count > rows) count = rows ? rows : 1; /* no band without a row */
    band bands[CLS_MAX_SPREAD];
    for (size_t k = 0; k < count; ++k) {
        bands[k] = (band){.filter = filters[k], .input = input, .output = output, .image = &image,
                          .y0 = y0 + rows * k / count, .y1 = y0 + rows * (k + 1) / count,
                          .reach = spec->mask_height / 2, .repeat = cls_spec_border_on(spec, CLS_AXIS_Y) == CLS_BORDER_REPEAT};
        if (k > 0) bands[k].started = pthread_create(&bands[k].thread, NULL, run_band, &bands[k]) == 0;
    }
    run_band(&bands[0]);
    for (size_t k = 1; k < count; ++k)
        if (bands[k].started)
            pthread_join(bands[k].thread, NULL);
        else
            run_band(&bands[k]); /* no thread: here, after the others */
    for (size_t k = 0; k < count; ++k)
        if (bands[k].status != CLS_OK)
            return cls_fail(bands[k].status, "band %zu (rows %zu to %zu): %s", k, bands[k].y0, bands[k].y1,
                            bands[k].message);
    return CLS_OK;
}
