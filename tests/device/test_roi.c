/* test_roi.c — regions of interest and buffer offsets: only the region is written, with the
 * border handling of the whole image, for every border mode and partition, regions that touch
 * each edge or none, and buffers whose image starts at an offset with padded rows. The 9x9 mask
 * also runs with two columns per work-item, whose window rows are aligned float2 loads: layouts
 * whose rows start on even pixels take that kernel, the others its vloadN fallback.
 *
 * The default run builds, in every border mode, each mask (3x3, 9x9, 9x9 with two columns per
 * item; undefined, which cannot coarsen, the first two) in one partition, rotating with the mask
 * and the mode so that each mask meets every partition and each mode all three (undefined two);
 * every filter runs every region in both layouts. CLS_TEST_EXHAUSTIVE=1 builds every mask in
 * every partition in every mode. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"
#include "support/context_fixture.h"

enum { W = 37, H = 23, MAX_PITCH = 44, OUT_OFFSET = 3 };
#define SENTINEL -7.0f

/* The input layouts: an odd pitch and offset (no row starts on an even pixel), and an even pitch
 * and offset (rows start on even pixels where the region's x is even). */
static const struct { unsigned pitch, offset; } LAYOUTS[] = {{41, 5}, {44, 4}};

static void check_layout(cls_border border, unsigned pitch, unsigned in_offset)
{
    static const struct { unsigned x, y, w, h; } rois[] = {
        {0, 0, W, H}, {0, 0, 9, 5}, {30, 17, 7, 6}, {5, 3, 20, 11}, {1, 1, 1, 1}, {36, 0, 1, H}, {0, 22, W, 1}};
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    static const struct { unsigned size, cols; } masks[] = {{3, 1}, {9, 1}, {9, 2}};
    float in[8 + MAX_PITCH * H], out[OUT_OFFSET + MAX_PITCH * H];
    double expected[W * H];
    for (unsigned k = 0; k < in_offset + pitch * H; ++k) in[k] = (float)((k * 13) % 29) / 29.0f + 0.5f;
    const ref_image image = {in + in_offset, W, H, pitch * sizeof(float), CLS_PIXEL_F32};
    int checked = 0;
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; ++m) {
        const unsigned n = masks[m].size;
        if (masks[m].cols > 1 && border == CLS_BORDER_UNDEFINED) continue; /* coarsening needs a border */
        float mask[81];
        for (unsigned k = 0; k < n * n; ++k) mask[k] = (float)(1 + k % 3) / (float)(2 * n * n);
        ref_stencil(&image, mask, (int)n, (int)n, border, 0.25f, expected);
        for (size_t p = 0; p < 3; ++p) {
            if (!cls_test_exhaustive() && p != (m + (size_t)border) % 3) continue; /* by default one, rotating */
            cls_spec spec;
            cls_spec_init(&spec);
            spec.mask_width = spec.mask_height = n;
            spec.coefficients = mask;
            spec.bake_coefficients = masks[m].cols > 1;
            spec.cols_per_item = masks[m].cols;
            spec.rows_per_item = 1;
            spec.border = border;
            spec.border_value = 0.25f;
            spec.partition = partitions[p];
            spec.group_width = 8;
            spec.group_height = 4;
            cls_filter *filter = NULL;
            assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
            for (size_t r = 0; r < sizeof rois / sizeof rois[0]; ++r) {
                for (unsigned k = 0; k < OUT_OFFSET + pitch * H; ++k) out[k] = SENTINEL;
                const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                             .input_row_pitch = pitch * sizeof(float),
                                             .output_row_pitch = pitch * sizeof(float),
                                             .input_offset = in_offset * sizeof(float),
                                             .output_offset = OUT_OFFSET * sizeof(float),
                                             .roi_x = rois[r].x, .roi_y = rois[r].y,
                                             .roi_width = rois[r].w, .roi_height = rois[r].h};
                assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
                for (int k = 0; k < OUT_OFFSET; ++k) assert_float_equal(out[k], SENTINEL, 0.0);
                for (unsigned y = 0; y < H; ++y)
                    for (unsigned x = 0; x < pitch; ++x) {
                        const float got = out[OUT_OFFSET + y * pitch + x];
                        const int inside = x >= rois[r].x && x < rois[r].x + rois[r].w && y >= rois[r].y &&
                                           y < rois[r].y + rois[r].h;
                        const int defined = border != CLS_BORDER_UNDEFINED ||
                                            ref_window_inside(x, y, W, H, (int)n, (int)n);
                        if (!inside || !defined) {
                            if (got != SENTINEL)
                                fail_msg("%s %s %ux%u cols %u pitch %u roi %zu: pixel (%u, %u) outside the region "
                                         "was written", cls_border_name(border), cls_partition_name(partitions[p]),
                                         n, n, masks[m].cols, pitch, r, x, y);
                            continue;
                        }
                        const double e = expected[y * W + x];
                        if (!ref_f32_close(got, e))
                            fail_msg("%s %s %ux%u cols %u pitch %u roi %zu: pixel (%u, %u) is %g, expected %g",
                                     cls_border_name(border), cls_partition_name(partitions[p]), n, n,
                                     masks[m].cols, pitch, r, x, y, (double)got, e);
                        ++checked;
                    }
            }
            cls_filter_release(filter);
        }
    }
    assert_true(checked > 1000);
}

static void check_mode(cls_border border)
{
    for (size_t l = 0; l < sizeof LAYOUTS / sizeof LAYOUTS[0]; ++l) check_layout(border, LAYOUTS[l].pitch, LAYOUTS[l].offset);
}

static void undefined_mode(void **state) { (void)state; check_mode(CLS_BORDER_UNDEFINED); }
static void clamp_mode(void **state) { (void)state; check_mode(CLS_BORDER_CLAMP); }
static void mirror_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR); }
static void mirror101_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR101); }
static void repeat_mode(void **state) { (void)state; check_mode(CLS_BORDER_REPEAT); }
static void constant_mode(void **state) { (void)state; check_mode(CLS_BORDER_CONSTANT); }

static void region_outside_the_image_is_an_error(void **state)
{
    (void)state;
    static const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    float in[16] = {0}, out[16] = {0};
    cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = 4, .height = 4, .roi_x = 2, .roi_y = 0, .roi_width = 3,
                           .roi_height = 1};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "region of interest 3x1 at (2, 0)"));
    desc = (cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 4, .height = 4, .input_offset = 6};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "input offset 6 bytes is not a whole number"));
    cls_filter_release(filter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(undefined_mode), cmocka_unit_test(clamp_mode),  cmocka_unit_test(mirror_mode),
        cmocka_unit_test(mirror101_mode), cmocka_unit_test(repeat_mode), cmocka_unit_test(constant_mode),
        cmocka_unit_test(region_outside_the_image_is_an_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
