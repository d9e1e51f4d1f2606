/* extremum_check.h — what the tests of rectangles' minima and maxima share: every border mode, the
 * definition (the extremum over the window, with the CPU reference's border indexing) and a
 * deterministic image with repeats and NaN pixels, u8 rows with a pitch and offset (u8_rows.h), a
 * filter of an operator's text. */
#ifndef CLS_TEST_EXTREMUM_CHECK_H
#define CLS_TEST_EXTREMUM_CHECK_H

#include <math.h>
#include <stddef.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/u8_rows.h"

static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                     CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT, CLS_BORDER_UNDEFINED};

/* The minimum (maximum) over the fw x fh rectangle around (x, y) of IN (w x h), started from
 * +INFINITY (-INFINITY), NaN skipped; outside the image the border mode's pixel or VALUE. */
static double extremum_at(const double *in, int w, int h, int x, int y, int fw, int fh, int maximum, cls_border border,
                          double value)
{
    double best = maximum ? -INFINITY : INFINITY;
    for (int dy = -fh / 2; dy <= fh / 2; ++dy)
        for (int dx = -fw / 2; dx <= fw / 2; ++dx) {
            const long px = ref_border_index(border, x + dx, w), py = ref_border_index(border, y + dy, h);
            const double v = px < 0 || py < 0 ? value : in[py * w + px];
            best = maximum ? fmax(best, v) : fmin(best, v);
        }
    return best;
}

/* A deterministic image of w x h pixels of TYPE into `pixels` and as doubles into `values`: a
 * spread of values with repeats and, in floats, a NaN in about one pixel of 13. */
static void make_image(cls_pixel_type type, unsigned w, unsigned h, unsigned seed, void *pixels, double *values)
{
    for (unsigned k = 0; k < w * h; ++k) {
        seed = seed * 1103515245u + 12345u;
        double v = (double)((seed >> 16) % 1000) - 300.0;
        if (type == CLS_PIXEL_U8) v = (seed >> 16) % 256;
        if (type == CLS_PIXEL_U16) v = (seed >> 12) % 65536;
        if ((type == CLS_PIXEL_F32 || type == CLS_PIXEL_F16) && (seed >> 8) % 13 == 0) v = NAN;
        ref_store(type, v, (unsigned char *)pixels + k * ref_pixel_size(type));
        values[k] = ref_to_output(type, v); /* what the pixel holds */
    }
}

/* The output pixel at k of TYPE, as a double. */
static double pixel_of(cls_pixel_type type, const void *pixels, size_t k)
{
    const ref_image image = {(const unsigned char *)pixels + k * ref_pixel_size(type), 1, 1, 0, type};
    return ref_read(&image, 0, 0);
}

/* A filter on DEVICE (a context) for the operator TEXT in BORDER (constant: VALUE) from IN to OUT pixels; a
 * failure fails the test (cmocka.h comes first). */
static cls_filter *create_operator_filter(cls_context *device, const char *text, cls_border border, float value, cls_pixel_type in, cls_pixel_type out)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.border_value = value;
    spec.input_type = in;
    spec.output_type = out;
    cls_filter *filter = NULL;
    if (cls_filter_create(device, &spec, &filter) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_operator_release(op);
    return filter;
}

#endif
