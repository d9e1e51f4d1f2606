/* test_streaming.c — streaming kernels (16 to 128 rows per work-item: a window of partial sums
 * walked down the strip) against the CPU reference: every border mode but undefined, every
 * partition, runtime and baked masks, one and two columns (aligned vector loads), images smaller
 * than the mask and than a strip, strips cut by the image's last row, a region of interest at an
 * odd offset, a u8 input, two masks with an epilogue, and a baked mask past CLS_UNROLL_LIMIT
 * (rolled border regions). Every pixel is compared, borders included.
 *
 * The default run builds 14 filters: each border mode builds one filter of each block (16x1 and
 * 64x2), with mask (mode + block) % 4 and partition (mode + 2 block + 1) % 3, so that every mask
 * meets both blocks and every partition both blocks, both group shapes and runtime and baked
 * masks; the rolled 19x19 mask runs under mirror101 and constant, the two masks from u8 under
 * clamp and repeat. Every filter runs on every image size. CLS_TEST_EXHAUSTIVE=1 builds the full
 * product (130 filters). A separable mask's single pass streams too, in every mode but undefined,
 * from global memory and with its group's input rows staged in local memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "generator.h" /* CLS_UNROLL_LIMIT */
#include "reference/reference.h"
#include "support/test_level.h"
#include "support/context_fixture.h"
#include "support/record_overlay.h"

/* A mask without symmetry, so that a slot fed the wrong mask row shows. */
static void fill_mask(float *mask, unsigned w, unsigned h, unsigned seed)
{
    for (unsigned k = 0; k < w * h; ++k) mask[k] = (float)(1 + (k * 7 + seed) % 11) / (float)(6 * w * h) - 0.02f;
}

static cls_filter *create(const cls_spec *spec)
{
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    return filter;
}

/* Runs the filter on a w x h f32 image (region of interest roi, 0 x 0 for all of it) and compares
 * every pixel of the region with the reference; the pixels outside it must keep their value. */
static long check_image(cls_filter *filter, const cls_spec *spec, unsigned w, unsigned h, const unsigned roi[4],
                        const char *what)
{
    float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
    double *expected = malloc(sizeof(double) * w * h);
    for (unsigned k = 0; k < w * h; ++k) in[k] = (float)((k * 29) % 37) / 37.0f + 0.5f, out[k] = -7.0f;
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    ref_stencil(&image, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height, spec->border,
                spec->border_value, expected);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .roi_x = roi[0], .roi_y = roi[1],
                                 .roi_width = roi[2],
                                 .roi_height = roi[3]};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
    const unsigned x1 = roi[2] ? roi[0] + roi[2] : w, y1 = roi[3] ? roi[1] + roi[3] : h;
    for (unsigned k = 0; k < w * h; ++k) {
        const unsigned x = k % w, y = k / w;
        const int inside = x >= roi[0] && x < x1 && y >= roi[1] && y < y1;
        const double e = inside ? expected[k] : -7.0;
        if (!ref_f32_close(out[k], e))
            fail_msg("%s, %s, %ux%u mask, rows %u, cols %u, group %ux%u, image %ux%u: (%u, %u) is %g, expected %g",
                     what, cls_border_name(spec->border), spec->mask_width, spec->mask_height, spec->rows_per_item,
                     spec->cols_per_item, spec->group_width, spec->group_height, w, h, x, y, (double)out[k], e);
    }
    free(in), free(out), free(expected);
    return (long)w * h;
}

/* Whether the default run builds mask m with block b in partition p under border mode `mode`
 * (0 for clamp to 4 for constant); see the top comment. */
static int in_default_run(unsigned mode, size_t m, size_t b, size_t p)
{
    return cls_test_exhaustive() || (m == (mode + b) % 4 && p == (mode + 2 * b + 1) % 3);
}

static void check_mode(cls_border border)
{
    const unsigned mode = (unsigned)(border - CLS_BORDER_CLAMP);
    static const unsigned masks[][2] = {{3, 3}, {5, 5}, {9, 3}, {3, 13}};
    static const unsigned images[][2] = {{1, 1}, {7, 5}, {37, 9}, {23, 41}, {97, 70}};
    static const unsigned shapes[][2] = {{16, 1}, {8, 4}};
    static const unsigned blocks[][2] = {{16, 1}, {64, 2}}; /* rows x columns per work-item */
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    static const unsigned whole[4] = {0, 0, 0, 0};
    long compared = 0;
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; ++m) {
        float mask[13 * 13];
        fill_mask(mask, masks[m][0], masks[m][1], (unsigned)m);
        for (size_t b = 0; b < 2; ++b)
            for (size_t p = 0; p < 3; ++p) {
                if (!in_default_run(mode, m, b, p)) continue;
                cls_spec spec;
                cls_spec_init(&spec);
                spec.mask_width = masks[m][0];
                spec.mask_height = masks[m][1];
                spec.coefficients = mask;
                spec.bake_coefficients = (m + b + p) % 2 == 0;
                spec.border = border;
                spec.border_value = 0.75f;
                spec.partition = partitions[p];
                spec.group_width = shapes[(m + p) % 2][0];
                spec.group_height = shapes[(m + p) % 2][1];
                spec.rows_per_item = blocks[b][0];
                spec.cols_per_item = blocks[b][1];
                cls_filter *filter = create(&spec);
                const char *what = cls_partition_name(spec.partition);
                for (size_t i = 0; i < sizeof images / sizeof images[0]; ++i)
                    compared += check_image(filter, &spec, images[i][0], images[i][1], whole, what);
                cls_filter_release(filter);
            }
    }
    assert_true(compared > (cls_test_exhaustive() ? 50000 : 16000)); /* two filters at least by default */
}

static void clamp_mode(void **state) { (void)state; check_mode(CLS_BORDER_CLAMP); }
static void mirror_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR); }
static void mirror101_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR101); }
static void repeat_mode(void **state) { (void)state; check_mode(CLS_BORDER_REPEAT); }
static void constant_mode(void **state) { (void)state; check_mode(CLS_BORDER_CONSTANT); }

/* 19x19 baked with 4 columns: 1,444 multiply-adds per input row, past CLS_UNROLL_LIMIT, so the
 * border regions loop over baked_mask; and a region of interest at an odd offset (the filter
 * then uses the unaligned loads). */
static void rolled_borders_and_region_of_interest(void **state)
{
    (void)state;
    float mask[19 * 19];
    fill_mask(mask, 19, 19, 3);
    assert_true(19 * 19 * 4 > CLS_UNROLL_LIMIT);
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        /* the default run: constant (test_coarsening rolls clamp, test_fast_builds mirror101) */
        if (!cls_test_exhaustive() && b != CLS_BORDER_CONSTANT) continue;
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = 19;
        spec.coefficients = mask;
        spec.bake_coefficients = 1;
        spec.border = (cls_border)b;
        spec.border_value = -0.5f;
        spec.partition = CLS_PARTITION_ISP_BLOCK;
        spec.group_width = 8;
        spec.group_height = 2;
        spec.rows_per_item = 16;
        spec.cols_per_item = 4;
        cls_filter *filter = create(&spec);
        assert_non_null(strstr(cls_filter_source(filter), "baked_mask"));
        static const unsigned whole[4] = {0, 0, 0, 0}, roi[4] = {3, 5, 61, 50};
        check_image(filter, &spec, 90, 77, whole, "rolled borders");
        check_image(filter, &spec, 11, 13, whole, "rolled borders, image smaller than the mask");
        check_image(filter, &spec, 90, 77, roi, "region of interest");
        cls_filter_release(filter);
    }
}

/* Sobel x and y in one streaming kernel, with the magnitude as epilogue, from a u8 input. */
static void two_masks_with_epilogue_from_u8(void **state)
{
    (void)state;
    static const float sobel[18] = {-1, 0, 1, -2, 0, 2, -1, 0, 1, -1, -2, -1, 0, 0, 0, 1, 2, 1};
    const unsigned w = 45, h = 83;
    unsigned char *in = malloc(w * h);
    float *out = malloc(sizeof(float) * w * h), *in_f = malloc(sizeof(float) * w * h);
    double *gx = malloc(sizeof(double) * w * h), *gy = malloc(sizeof(double) * w * h);
    for (unsigned k = 0; k < w * h; ++k) in[k] = (unsigned char)((k * 53) % 251), in_f[k] = in[k];
    const ref_image image = {in_f, w, h, 0, CLS_PIXEL_F32};
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        if (!cls_test_exhaustive() && b != CLS_BORDER_CLAMP && b != CLS_BORDER_REPEAT) continue;
        cls_spec spec;
        cls_spec_init(&spec);
        spec.coefficients = sobel;
        spec.mask_count = 2;
        spec.epilogue = "hypot(r0, r1)";
        spec.bake_coefficients = 1;
        spec.border = (cls_border)b;
        spec.border_value = 9.0f;
        spec.input_type = CLS_PIXEL_U8;
        spec.rows_per_item = 32;
        spec.cols_per_item = 2;
        spec.group_width = 16;
        spec.group_height = 2;
        cls_filter *filter = create(&spec);
        ref_stencil(&image, sobel, 3, 3, spec.border, 9.0f, gx);
        ref_stencil(&image, sobel + 9, 3, 3, spec.border, 9.0f, gy);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
        assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
        for (unsigned k = 0; k < w * h; ++k)
            if (!ref_f32_close(out[k], hypot(gx[k], gy[k])))
                fail_msg("%s: (%u, %u) is %g, expected %g", cls_border_name(spec.border), k % w, k / w, (double)out[k],
                         hypot(gx[k], gy[k]));
        cls_filter_release(filter);
    }
    free(in), free(out), free(in_f), free(gx), free(gy);
}

/* A separable single pass over the w x h rank-1 mask, streaming rows x cols outputs a work-item. */
static cls_spec single_pass_spec(unsigned w, unsigned h, const float *mask, cls_border border, unsigned rows,
                                 unsigned cols)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = w;
    spec.mask_height = h;
    spec.coefficients = mask;
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.border = border;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    return spec;
}

/* The filter over each of the images whole, and over a 70x97 image's region of interest at an odd
 * offset. */
static void check_images(cls_filter *filter, const cls_spec *spec, const unsigned (*images)[2], size_t count,
                         const char *what)
{
    static const unsigned whole[4] = {0, 0, 0, 0}, roi[4] = {3, 5, 41, 60};
    for (size_t i = 0; i < count; ++i) check_image(filter, spec, images[i][0], images[i][1], whole, what);
    char text[96];
    snprintf(text, sizeof text, "%s, region of interest", what);
    check_image(filter, spec, 70, 97, roi, text);
}

/* A w x h rank-1 mask without symmetry (w, h at most 13), varied by seed. */
static void rank1_mask(unsigned w, unsigned h, unsigned seed, float *mask)
{
    for (unsigned j = 0; j < h; ++j)
        for (unsigned i = 0; i < w; ++i)
            mask[j * w + i] = (float)(1 + (j * 3 + seed) % 5) / 6.0f * ((float)(1 + (i * 5 + seed) % 7) / 8.0f - 0.3f);
}

/* The separable single pass streaming: each input row's row sums fed to the window through the
 * column vector. Rank-1 masks without symmetry (square, wide, tall), literals and the buffer, one
 * and four columns, every partition, every border mode but undefined (which takes no blocks), and
 * a region of interest at an odd offset; compared with the 2-D mask's reference. */
static void separable_single_pass_streams(void **state)
{
    (void)state;
    static const unsigned masks[][2] = {{5, 5}, {13, 3}, {3, 9}};
    /* rows of 8 and 64 pixels: the aligned loads, which start before the window */
    static const unsigned images[][2] = {{1, 1}, {6, 11}, {8, 5}, {37, 9}, {64, 70}, {70, 97}};
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        const unsigned mode = (unsigned)(b - CLS_BORDER_CLAMP), m = mode % 3;
        const unsigned w = masks[m][0], h = masks[m][1];
        float mask[13 * 13];
        rank1_mask(w, h, mode, mask);
        cls_spec spec = single_pass_spec(w, h, mask, (cls_border)b, mode % 2 ? 16 : 32, mode % 2 ? 1 : 4);
        spec.bake_coefficients = mode % 2 == 0;
        spec.border_value = 0.75f;
        spec.partition = partitions[mode % 3];
        spec.group_width = mode % 2 ? 16 : 8;
        spec.group_height = mode % 2 ? 1 : 4;
        cls_filter *filter = create(&spec);
        assert_non_null(strstr(cls_filter_source(filter), "fed to the column sums in registers"));
        assert_null(strstr(cls_filter_source(filter), "__local"));
        check_images(filter, &spec, images, sizeof images / sizeof images[0], "separable single pass");
        cls_filter_release(filter);
    }
}

/* The single pass whose group stages its input rows in local memory (the local input path):
 * rank-1 masks without symmetry (half widths that are and are not multiples of 4), literals and
 * the buffer, groups narrower than the tile's sides (a work-item loading two float4s of a row),
 * every border mode but undefined, images smaller than the mask and wider than a group's tile,
 * and a region of interest at an odd offset (unaligned rows: the loads of vload4); compared with
 * the 2-D mask's reference. */
static void separable_single_pass_stages_rows(void **state)
{
    (void)state;
    static const unsigned masks[][2] = {{9, 3}, {13, 5}, {3, 7}};
    static const unsigned images[][2] = {{1, 1}, {6, 11}, {37, 9}, {70, 97}, {301, 23}};
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        const unsigned mode = (unsigned)(b - CLS_BORDER_CLAMP), m = mode % 3;
        const unsigned w = masks[m][0], h = masks[m][1];
        float mask[13 * 13];
        rank1_mask(w, h, mode, mask);
        cls_spec spec = single_pass_spec(w, h, mask, (cls_border)b, mode % 2 ? 16 : 32, 4);
        spec.input_path = CLS_INPUT_LOCAL;
        spec.bake_coefficients = mode % 2 == 0;
        spec.border_value = 0.75f;
        spec.group_width = mode % 2 ? 2 : 16;
        spec.group_height = 1;
        cls_filter *filter = create(&spec);
        assert_non_null(strstr(cls_filter_source(filter), "input rows staged in local memory"));
        check_images(filter, &spec, images, sizeof images / sizeof images[0], "staged rows");
        cls_filter_release(filter);
    }
}

/* Where the row of a staged single pass is a box's 9 taps wide or wider, its windows share their
 * middle columns, summed once without products: a box both ways, a box row over a weighted
 * column, a row alone, and a box row too narrow to share (its products kept); every border mode
 * but undefined takes one of them (all of them under CLS_TEST_EXHAUSTIVE). */
static void staged_rows_share_a_box_rows_sums(void **state)
{
    (void)state;
    static const unsigned masks[][2] = {{15, 15}, {9, 7}, {13, 1}, {5, 9}};
    static const unsigned images[][2] = {{1, 1}, {6, 11}, {37, 9}, {70, 97}, {301, 23}};
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        const unsigned mode = (unsigned)(b - CLS_BORDER_CLAMP);
        for (unsigned m = 0; m < sizeof masks / sizeof masks[0]; ++m) {
            if (!cls_test_exhaustive() && m != mode % 4) continue; /* each mask in a mode at least */
            const unsigned w = masks[m][0], h = masks[m][1];
            float mask[15 * 15];
            for (unsigned j = 0; j < h; ++j)
                for (unsigned i = 0; i < w; ++i) mask[j * w + i] = (m == 1 ? (float)(1 + j % 3) : 1.0f) / 64.0f;
            cls_spec spec = single_pass_spec(w, h, mask, (cls_border)b, 16, 4);
            spec.input_path = CLS_INPUT_LOCAL;
            spec.bake_coefficients = 1;
            spec.border_value = 0.75f;
            spec.group_width = mode % 2 ? 2 : 16;
            spec.group_height = 1;
            cls_filter *filter = create(&spec);
            const int shared = strstr(cls_filter_source(filter), "summed once") != NULL;
            assert_int_equal(shared, w >= 9);
            check_images(filter, &spec, images, sizeof images / sizeof images[0], "staged rows of a box");
            cls_filter_release(filter);
        }
    }
}

/* The staged single pass reads and writes every pixel type: integers, halves (loaded lane by lane)
 * and f32, rows aligned to four pixels (float4 loads) and not (vload4), integer outputs rounded
 * and saturated, f16 outputs within a half-precision step. */
static void staged_rows_take_every_pixel_type(void **state)
{
    (void)state;
    static const cls_pixel_type types[][2] = {{CLS_PIXEL_U8, CLS_PIXEL_U8}, {CLS_PIXEL_U16, CLS_PIXEL_F32},
                                              {CLS_PIXEL_I16, CLS_PIXEL_I16}, {CLS_PIXEL_F16, CLS_PIXEL_F16}};
    static const unsigned widths[] = {64, 70};
    const unsigned h = 37;
    float mask[9 * 3];
    rank1_mask(9, 3, 2, mask);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        cls_spec spec = single_pass_spec(9, 3, mask, t % 2 ? CLS_BORDER_MIRROR101 : CLS_BORDER_CLAMP, 16, 4);
        spec.input_path = CLS_INPUT_LOCAL;
        spec.group_width = 8;
        spec.group_height = 1;
        spec.input_type = types[t][0];
        spec.output_type = types[t][1];
        cls_filter *filter = create(&spec);
        for (size_t k = 0; k < sizeof widths / sizeof widths[0]; ++k) {
            const unsigned w = widths[k];
            const size_t in_size = cls_pixel_size(spec.input_type), out_size = cls_pixel_size(spec.output_type);
            unsigned char *in = malloc(in_size * w * h), *out = malloc(out_size * w * h);
            float *values = malloc(sizeof(float) * w * h);
            double *expected = malloc(sizeof(double) * w * h);
            for (unsigned i = 0; i < w * h; ++i) {
                const double v = (double)((i * 53) % 251) - (spec.input_type == CLS_PIXEL_I16 ? 100.0 : 0.0);
                ref_store(spec.input_type, spec.input_type == CLS_PIXEL_F16 ? v / 4.0 : v, in + i * in_size);
                values[i] = (float)ref_load(spec.input_type, in + i * in_size);
            }
            const ref_image image = {values, w, h, 0, CLS_PIXEL_F32};
            ref_stencil(&image, mask, 9, 3, spec.border, 0.0f, expected);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
            assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
            for (unsigned i = 0; i < w * h; ++i) {
                const double got = ref_load(spec.output_type, out + i * out_size);
                const double want = ref_to_output(spec.output_type, expected[i]);
                const int close = spec.output_type == CLS_PIXEL_F16   ? ref_f16_close(got, expected[i])
                                  : spec.output_type == CLS_PIXEL_F32 ? ref_f32_close(got, expected[i])
                                                                      : fabs(got - want) <= 1.0;
                if (!close)
                    fail_msg("%s -> %s, %ux%u: (%u, %u) is %g, expected %g", cls_pixel_type_name(spec.input_type),
                             cls_pixel_type_name(spec.output_type), w, h, i % w, i / w, got, want);
            }
            free(in), free(out), free(values), free(expected);
        }
        cls_filter_release(filter);
    }
}

/* The single pass loading four input rows together (a record's single_pass_ahead, set here by an
 * overlay of the device's own record): strips whose rows are not a multiple of four, the last
 * batch past the strip, one and two columns, in every border mode but undefined. */
static void single_pass_loads_rows_ahead(void **state)
{
    (void)state;
    char overlay[32];
    cls_context *ahead_context = record_overlay_context(context, "single_pass_ahead = 4\n", overlay);
    assert_non_null(ahead_context);
    static const unsigned images[][2] = {{5, 3}, {29, 35}, {64, 71}};
    static const unsigned whole[4] = {0, 0, 0, 0};
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) {
        const unsigned mode = (unsigned)(b - CLS_BORDER_CLAMP);
        const unsigned w = mode % 2 ? 7 : 3, h = mode % 2 ? 3 : 5;
        float mask[35];
        for (unsigned j = 0; j < h; ++j)
            for (unsigned i = 0; i < w; ++i) mask[j * w + i] = (float)(1 + (j * 3 + mode) % 4) * ((float)i - 1.5f);
        cls_spec spec = single_pass_spec(w, h, mask, (cls_border)b, mode % 2 ? 16 : 32, mode % 3 ? 2 : 1);
        spec.bake_coefficients = mode % 2 == 1;
        spec.border_value = -1.25f;
        spec.group_width = 16;
        spec.group_height = 2;
        cls_filter *filter = NULL;
        if (cls_filter_create(ahead_context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        assert_non_null(strstr(cls_filter_source(filter), "#define AHEAD 4"));
        for (size_t i = 0; i < sizeof images / sizeof images[0]; ++i)
            check_image(filter, &spec, images[i][0], images[i][1], whole, "four rows ahead");
        cls_filter_release(filter);
    }
    record_overlay_release(ahead_context, overlay);
}

static void unsupported_combinations_are_refused(void **state)
{
    (void)state;
    static const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box;
    spec.rows_per_item = 24;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "1 to 8, 16, 32, 64 or 128"));
    spec.rows_per_item = 32;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.input_path = CLS_INPUT_LOCAL;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "stream"));
    spec.input_path = CLS_INPUT_GLOBAL;
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    spec.separable = CLS_SEPARABLE_SINGLE_PASS; /* streams its row sums */
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.input_path = CLS_INPUT_LOCAL; /* stages its group's input rows: streaming, 4 columns */
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.cols_per_item = 2;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "4 columns a work-item"));
    spec.cols_per_item = 4;
    spec.rows_per_item = 8;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "stages the group's input rows"));
    spec.rows_per_item = 32;
    spec.cols_per_item = 0;
    spec.input_path = CLS_INPUT_GLOBAL;
    spec.separable = CLS_SEPARABLE_NONE;
    spec.cols_per_item = 16;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "columns per work-item 16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clamp_mode),
        cmocka_unit_test(mirror_mode),
        cmocka_unit_test(mirror101_mode),
        cmocka_unit_test(repeat_mode),
        cmocka_unit_test(constant_mode),
        cmocka_unit_test(rolled_borders_and_region_of_interest),
        cmocka_unit_test(two_masks_with_epilogue_from_u8),
        cmocka_unit_test(separable_single_pass_streams),
        cmocka_unit_test(single_pass_loads_rows_ahead),
        cmocka_unit_test(separable_single_pass_stages_rows),
        cmocka_unit_test(staged_rows_take_every_pixel_type),
        cmocka_unit_test(staged_rows_share_a_box_rows_sums),
        cmocka_unit_test(unsupported_combinations_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
