/* test_low_rank.c — masks of rank 2 and 3 as separable low-rank pairs (cls_spec.separable =
 * CLS_SEPARABLE_LOW_RANK) against the C reference in every border mode the variant takes, on a
 * region of interest with offsets and padded rows and on u8 pixels (with the terms' device memory,
 * cls_filter_device_bytes); and the masks it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/context_fixture.h"

#define SENTINEL -7.0f
enum { W = 41, H = 29, PITCH = 45, IN_OFFSET = 3, OUT_OFFSET = 2, MW = 15, MH = 11 };

/* A difference of Gaussians (rank 2) or that plus a ramp's outer product (rank 3). */
static void fill_mask(float *mask, unsigned rank)
{
    for (unsigned j = 0; j < MH; ++j)
        for (unsigned i = 0; i < MW; ++i) {
            const float x = (float)i - MW / 2, y = (float)j - MH / 2;
            mask[j * MW + i] = expf(-(x * x + y * y) / 4.5f) / 14.1f - expf(-(x * x + y * y) / 18.0f) / 56.5f +
                               (rank > 2 ? 0.01f * x * (y + 2) * (y + 2) : 0.0f);
        }
}

static cls_filter *make(const float *mask, cls_border border, cls_pixel_type type)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = MW;
    spec.mask_height = MH;
    spec.coefficients = mask;
    spec.border = border;
    spec.border_value = 0.75f;
    spec.input_type = spec.output_type = type;
    spec.separable = CLS_SEPARABLE_LOW_RANK;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    assert_int_equal(cls_filter_separable(filter), CLS_SEPARABLE_LOW_RANK);
    return filter;
}

/* Every border mode but undefined, ranks 2 and 3, the whole image and a region of an image at an
 * offset in its buffer with padded rows: only the region written, within 1e-5. */
static void every_border_and_region(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT,
                                         CLS_BORDER_CONSTANT};
    static float in[IN_OFFSET + PITCH * H], out[OUT_OFFSET + PITCH * H];
    for (unsigned k = 0; k < IN_OFFSET + PITCH * H; ++k) in[k] = (float)((k * 13) % 29) / 29.0f + 0.5f;
    const ref_image image = {in + IN_OFFSET, W, H, PITCH * sizeof(float), CLS_PIXEL_F32};
    static const struct { unsigned x, y, w, h; } rois[] = {{0, 0, W, H}, {5, 3, 20, 11}, {36, 20, 5, 9}};
    double expected[W * H];
    float mask[MW * MH];
    for (unsigned rank = 2; rank <= 3; ++rank) {
        fill_mask(mask, rank);
        for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
            ref_stencil(&image, mask, MW, MH, borders[b], 0.75f, expected);
            cls_filter *filter = make(mask, borders[b], CLS_PIXEL_F32);
            assert_int_equal(cls_filter_kernel_count(filter), 2 * rank + 1);
            for (size_t r = 0; r < sizeof rois / sizeof rois[0]; ++r) {
                for (unsigned k = 0; k < OUT_OFFSET + PITCH * H; ++k) out[k] = SENTINEL;
                const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                             .input_row_pitch = PITCH * sizeof(float), .output_row_pitch = PITCH * sizeof(float),
                                             .input_offset = IN_OFFSET * sizeof(float), .output_offset = OUT_OFFSET * sizeof(float),
                                             .roi_x = rois[r].x, .roi_y = rois[r].y, .roi_width = rois[r].w, .roi_height = rois[r].h};
                if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
                for (unsigned k = OUT_OFFSET; k < OUT_OFFSET + PITCH * H; ++k) {
                    const unsigned x = (k - OUT_OFFSET) % PITCH, y = (k - OUT_OFFSET) / PITCH;
                    const int inside = x >= rois[r].x && x < rois[r].x + rois[r].w && y >= rois[r].y && y < rois[r].y + rois[r].h;
                    if (!inside && out[k] != SENTINEL) fail_msg("element %u outside region %zu was written", k, r);
                    if (inside && !(fabs(out[k] - expected[y * W + x]) <= 1e-5))
                        fail_msg("rank %u %s region %zu: (%u, %u) is %.9g, the reference %.9g", rank,
                                 cls_border_name(borders[b]), r, x, y, (double)out[k], expected[y * W + x]);
                }
            }
            cls_filter_release(filter);
        }
    }
}

/* u8 pixels: within one unit of the reference's rounding. */
static void u8_pixels(void **state)
{
    (void)state;
    float mask[MW * MH];
    fill_mask(mask, 2);
    for (unsigned k = 0; k < MW * MH; ++k) mask[k] *= 40.0f;
    unsigned char in[W * H], out[W * H];
    for (unsigned k = 0; k < W * H; ++k) in[k] = (unsigned char)((k * 31) % 256);
    double expected[W * H];
    const ref_image image = {in, W, H, 0, CLS_PIXEL_U8};
    ref_stencil(&image, mask, MW, MH, CLS_BORDER_MIRROR101, 0.75f, expected);
    cls_filter *filter = make(mask, CLS_BORDER_MIRROR101, CLS_PIXEL_U8);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    /* the two pairs' terms, an f32 image each, are what a launch keeps besides its images */
    assert_int_equal(cls_filter_device_bytes(filter, W, H, 1), 2 * W * H * sizeof(float));
    for (unsigned k = 0; k < W * H; ++k)
        if (fabs(out[k] - ref_to_output(CLS_PIXEL_U8, expected[k])) > 1.0)
            fail_msg("pixel %u is %u, the reference %g", k, out[k], ref_to_output(CLS_PIXEL_U8, expected[k]));
    cls_filter_release(filter);
}

/* A mask of full rank, one of rank 1 and the undefined border are refused, naming why. */
static void refusals(void **state)
{
    (void)state;
    float mask[MW * MH];
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = MW;
    spec.mask_height = MH;
    spec.coefficients = mask;
    spec.separable = CLS_SEPARABLE_LOW_RANK;
    cls_filter *filter = NULL;
    for (unsigned k = 0; k < MW * MH; ++k) mask[k] = (float)((k * 37) % 23) - 11.0f;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not of rank 4 or less"));
    for (unsigned k = 0; k < MW * MH; ++k) mask[k] = (float)(1 + k % MW) * (float)(1 + k / MW);
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "rank 1"));
    fill_mask(mask, 2);
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_null(filter);
    cls_separable separable;
    assert_int_equal(cls_separable_parse("low-rank", &separable), CLS_OK);
    assert_int_equal(separable, CLS_SEPARABLE_LOW_RANK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_border_and_region), cmocka_unit_test(u8_pixels),
                                       cmocka_unit_test(refusals)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
