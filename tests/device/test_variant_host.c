/* test_variant_host.c — the host side of the kernel variants on the default device: filters with
 * several outputs (the output list, its errors, pipelines refusing them, offsets and regions of
 * interest), the epilogue, columns per work-item, separable two-pass filters (regions of
 * interest, images smaller than the mask, u8 through the image path) and the image input path
 * (its limits and its copies of packed and pitched buffers), each against the CPU reference.
 *
 * Every build is a compilation on the device, so the default run builds representatives and runs
 * every region, offset and image size on each: two outputs in clamp and constant; columns 2 and 8;
 * two-pass on regions of interest in clamp, mirror101 and constant and on images smaller than the
 * mask in the folding modes (mirror, mirror101, repeat); u8 two-pass through the image path in
 * constant; the image path in clamp (the sampler's own mode) from f32 and u8, and in the other
 * borders alternately from f32 (mirror, repeat) and u8 (mirror101, constant). CLS_TEST_EXHAUSTIVE=1
 * builds every border, column count and pixel type of every test. */
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

static cls_context *context;
static const float box3[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static int setup(void **state)
{
    (void)state;
    if (cls_context_create(NULL, &context) != CLS_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", cls_last_error());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

#define SENTINEL -7.0f
static const float sobel_xy[18] = {-1, 0, 1, -2, 0, 2, -1, 0, 1, /* x */ -1, -2, -1, 0, 0, 0, 1, 2, 1 /* y */};

/* Deterministic test pixels in [0.5, 1.5). */
static void fill_input(float *in, size_t count)
{
    for (size_t k = 0; k < count; ++k) in[k] = (float)((k * 13) % 29) / 29.0f + 0.5f;
}

static void fill_sentinel(float *out, size_t count)
{
    for (size_t k = 0; k < count; ++k) out[k] = SENTINEL;
}

/* Region (x, y, w, h) of an image; w == 0 means the whole image. */
typedef struct region { unsigned x, y, w, h; } region;

static int in_region(region r, unsigned x, unsigned y)
{
    return r.w == 0 || (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);
}

/* out (pitch floats per row, image from `offset`) holds expected inside the region and the
 * sentinel everywhere else, padding and offset included. */
static void check_output(const float *out, size_t offset, size_t pitch, unsigned width, unsigned height, region r,
                         const double *expected, const char *what)
{
    for (size_t k = 0; k < offset; ++k)
        if (out[k] != SENTINEL)
            fail_msg("%s: element %zu before the image's offset was written (%.9g)", what, k, (double)out[k]);
    for (unsigned y = 0; y < height; ++y)
        for (unsigned x = 0; x < pitch; ++x) {
            const float got = out[offset + y * pitch + x];
            if (x < width && in_region(r, x, y)) {
                if (!ref_f32_close(got, expected[y * width + x]))
                    fail_msg("%s: pixel (%u, %u) is %.9g, expected %.9g", what, x, y, (double)got,
                             expected[y * width + x]);
            } else if (got != SENTINEL) {
                fail_msg("%s: pixel (%u, %u) outside the region was written (%.9g)", what, x, y, (double)got);
            }
        }
}

static void expect_message(const char *part)
{
    if (!strstr(cls_last_error(), part)) fail_msg("'%s' lacks '%s'", cls_last_error(), part);
}

static cls_filter *make_sobel_pair(cls_border border, const char *epilogue)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = sobel_xy;
    spec.mask_count = 2;
    spec.epilogue = epilogue;
    spec.border = border;
    spec.border_value = 0.5f;
    spec.group_width = 8;
    spec.group_height = 4;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
    return filter;
}

static void output_count_follows_masks_and_epilogue(void **state)
{
    (void)state;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    cls_filter *one = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &one), CLS_OK);
    cls_filter *two = make_sobel_pair(CLS_BORDER_CLAMP, NULL);
    cls_filter *fused = make_sobel_pair(CLS_BORDER_CLAMP, "hypot(r0, r1)");
    assert_int_equal(cls_filter_output_count(one), 1);
    assert_int_equal(cls_filter_output_count(two), 2);
    assert_int_equal(cls_filter_output_count(fused), 1);
    assert_int_equal(cls_filter_output_count(NULL), 0);
    cls_filter_release(one);
    cls_filter_release(two);
    cls_filter_release(fused);
}

static cl_mem new_buffer(size_t bytes)
{
    cl_int error;
    cl_mem buffer = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, bytes, NULL, &error);
    assert_int_equal(error, CL_SUCCESS);
    return buffer;
}

static void several_outputs_refused_by_the_one_output_calls(void **state)
{
    (void)state;
    cls_filter *filter = make_sobel_pair(CLS_BORDER_CLAMP, NULL);
    cl_mem buffer = new_buffer(256);
    const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = 8, .height = 8};
    assert_int_equal(cls_filter_enqueue(filter, buffer, buffer, &image, 0, NULL, NULL), CLS_ERR_INVALID_ARGUMENT);
    expect_message("use cls_filter_enqueue_outputs");
    float in[64] = {0}, out[64] = {0};
    assert_int_equal(cls_filter_run_host(filter, in, out, &image), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_filter_run_host_outputs");
    clReleaseMemObject(buffer);
    cls_filter_release(filter);
}

static void output_list_errors(void **state)
{
    (void)state;
    cls_filter *filter = make_sobel_pair(CLS_BORDER_CLAMP, NULL);
    cl_mem big = new_buffer(256), small = new_buffer(64);
    const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = 8, .height = 8};
    const cl_mem one[1] = {big}, with_null[2] = {big, NULL}, with_small[2] = {big, small};
    assert_int_equal(cls_filter_enqueue_outputs(filter, big, 1, one, &image, 0, NULL, NULL), CLS_ERR_INVALID_ARGUMENT);
    expect_message("the filter writes 2 outputs (mask count 2); 1 given");
    assert_int_equal(cls_filter_enqueue_outputs(filter, big, 2, NULL, &image, 0, NULL, NULL), CLS_ERR_INVALID_ARGUMENT);
    expect_message("the list of outputs is NULL");
    assert_int_equal(cls_filter_enqueue_outputs(filter, big, 2, with_null, &image, 0, NULL, NULL),
                     CLS_ERR_INVALID_ARGUMENT);
    expect_message("output 1 buffer is NULL");
    assert_int_equal(cls_filter_enqueue_outputs(filter, big, 2, with_small, &image, 0, NULL, NULL),
                     CLS_ERR_INVALID_ARGUMENT);
    expect_message("output 1 buffer holds 64 bytes; the image needs 256");
    float in[64] = {0}, out[64] = {0};
    void *const host_one[1] = {out}, *const host_null[2] = {out, NULL};
    assert_int_equal(cls_filter_run_host_outputs(filter, in, 1, host_one, &image), CLS_ERR_INVALID_ARGUMENT);
    expect_message("the filter writes 2 outputs");
    assert_int_equal(cls_filter_run_host_outputs(filter, in, 2, host_null, &image), CLS_ERR_INVALID_ARGUMENT);
    expect_message("output 1 image pointer is NULL");
    clReleaseMemObject(big);
    clReleaseMemObject(small);
    cls_filter_release(filter);
}

static void pipeline_refuses_a_stage_with_several_outputs(void **state)
{
    (void)state;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = sobel_xy;
    spec.mask_count = 2;
    cls_pipeline *pipeline = NULL;
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_ERR_INVALID_ARGUMENT);
    expect_message("stage 'stage1' writes 2 outputs");
    assert_int_equal(cls_pipeline_stage_count(pipeline), 0);
    spec.epilogue = "hypot(r0, r1)"; /* one output: a stage like any other */
    assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_OK);
    cls_pipeline_release(pipeline);
}

static void two_outputs_match_the_reference(void **state)
{
    (void)state;
    enum { W = 13, H = 9, PITCH = 15, IN_OFFSET = 3, OUT_OFFSET = 2 };
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR101, CLS_BORDER_CONSTANT};
    static const region regions[] = {{0, 0, 0, 0}, {3, 2, 8, 5}};
    float in[IN_OFFSET + PITCH * H], out[2][OUT_OFFSET + PITCH * H];
    double expected[2][W * H];
    fill_input(in, IN_OFFSET + PITCH * H);
    const ref_image image = {in + IN_OFFSET, W, H, PITCH * sizeof(float), CLS_PIXEL_F32};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        if (!cls_test_pick((unsigned)b, 2)) continue; /* default: clamp and constant */
        cls_filter *filter = make_sobel_pair(borders[b], NULL);
        for (int m = 0; m < 2; ++m)
            assert_int_equal(ref_stencil(&image, sobel_xy + 9 * m, 3, 3, borders[b], 0.5f, expected[m]), 0);
        for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
            fill_sentinel(out[0], OUT_OFFSET + PITCH * H);
            fill_sentinel(out[1], OUT_OFFSET + PITCH * H);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                         .input_row_pitch = PITCH * sizeof(float),
                                         .output_row_pitch = PITCH * sizeof(float),
                                         .input_offset = IN_OFFSET * sizeof(float),
                                         .output_offset = OUT_OFFSET * sizeof(float), .roi_x = regions[r].x,
                                         .roi_y = regions[r].y, .roi_width = regions[r].w,
                                         .roi_height = regions[r].h};
            void *const outputs[2] = {out[0], out[1]};
            assert_int_equal(cls_filter_run_host_outputs(filter, in, 2, outputs, &desc), CLS_OK);
            check_output(out[0], OUT_OFFSET, PITCH, W, H, regions[r], expected[0], "sobel x");
            check_output(out[1], OUT_OFFSET, PITCH, W, H, regions[r], expected[1], "sobel y");
        }
        cls_filter_release(filter);
    }
}

static void epilogue_combines_two_masks(void **state)
{
    (void)state;
    enum { W = 11, H = 7 };
    float in[W * H], out[W * H];
    double gx[W * H], gy[W * H], expected[W * H];
    fill_input(in, W * H);
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, sobel_xy, 3, 3, CLS_BORDER_MIRROR, 0.0f, gx), 0);
    assert_int_equal(ref_stencil(&image, sobel_xy + 9, 3, 3, CLS_BORDER_MIRROR, 0.0f, gy), 0);
    for (int k = 0; k < W * H; ++k) expected[k] = hypot(gx[k], gy[k]);
    cls_filter *filter = make_sobel_pair(CLS_BORDER_MIRROR, "hypot(r0, r1)");
    fill_sentinel(out, W * H);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
    check_output(out, 0, W, W, H, (region){0, 0, 0, 0}, expected, "sobel magnitude");
    cls_filter_release(filter);
}

static void columns_per_item_cover_every_pixel(void **state)
{
    (void)state;
    enum { W = 37, H = 13 };
    static const unsigned cols[] = {2, 4, 8};
    /* whole packed rows too: the run copies none of the output in (a band of a spread run) */
    static const region regions[] = {{0, 0, 0, 0}, {3, 2, 29, 9}, {0, 4, W, 5}};
    float in[W * H], out[W * H];
    double expected[W * H];
    fill_input(in, W * H);
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, box3, 3, 3, CLS_BORDER_REPEAT, 0.0f, expected), 0);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; ++c) {
        if (!cls_test_pick((unsigned)c, 2)) continue; /* default: 2 and 8 */
        cls_spec spec;
        cls_spec_init(&spec);
        spec.coefficients = box3;
        spec.border = CLS_BORDER_REPEAT;
        spec.cols_per_item = cols[c];
        spec.group_width = 4;
        spec.group_height = 2;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
        for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
            fill_sentinel(out, W * H);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .roi_x = regions[r].x,
                                         .roi_y = regions[r].y,
                                         .roi_width = regions[r].w, .roi_height = regions[r].h};
            assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
            check_output(out, 0, W, W, H, regions[r], expected, "columns per item");
        }
        cls_filter_release(filter);
    }
}

/* A separable two-pass filter of column x row (given as the two vectors). */
static cls_filter *make_two_pass(const float *row, unsigned width, const float *column, unsigned height,
                                 cls_border border, float border_value)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = width;
    spec.mask_height = height;
    spec.coefficients = NULL;
    spec.row_coefficients = row;
    spec.column_coefficients = column;
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    spec.border = border;
    spec.border_value = border_value;
    spec.group_width = 8;
    spec.group_height = 4;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
    return filter;
}

static void outer_product(const float *row, unsigned width, const float *column, unsigned height, float *mask)
{
    for (unsigned j = 0; j < height; ++j)
        for (unsigned i = 0; i < width; ++i) mask[j * width + i] = column[j] * row[i];
}

static const cls_border all_defined_borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                                 CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};

static void two_pass_on_a_region_of_interest(void **state)
{
    (void)state;
    enum { W = 37, H = 23, PITCH = 41, IN_OFFSET = 5, OUT_OFFSET = 3 };
    /* positive and lopsided: a flipped axis shows; no cancellation to blur f32 rounding */
    static const float row[5] = {0.1f, 0.2f, 0.3f, 0.25f, 0.15f}, column[3] = {0.125f, 0.25f, 0.625f};
    static const region regions[] = {{0, 0, 0, 0}, {5, 3, 20, 11}, {30, 17, 7, 6}, {0, 22, W, 1}};
    float mask[15], in[IN_OFFSET + PITCH * H], out[OUT_OFFSET + PITCH * H];
    double expected[W * H];
    outer_product(row, 5, column, 3, mask);
    fill_input(in, IN_OFFSET + PITCH * H);
    const ref_image image = {in + IN_OFFSET, W, H, PITCH * sizeof(float), CLS_PIXEL_F32};
    for (size_t b = 0; b < sizeof all_defined_borders / sizeof all_defined_borders[0]; ++b) {
        if (!cls_test_pick((unsigned)b, 2)) continue; /* default: clamp, mirror101 and constant */
        const cls_border border = all_defined_borders[b];
        assert_int_equal(ref_stencil(&image, mask, 5, 3, border, 0.25f, expected), 0);
        cls_filter *filter = make_two_pass(row, 5, column, 3, border, 0.25f);
        const char *source = cls_filter_source(filter);
        const char *second = strstr(source, "the column pass");
        assert_non_null(second);
        assert_non_null(strstr(source, "clstencil_filter"));
        assert_non_null(strstr(second, "clstencil_filter"));
        for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
            fill_sentinel(out, OUT_OFFSET + PITCH * H);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                         .input_row_pitch = PITCH * sizeof(float),
                                         .output_row_pitch = PITCH * sizeof(float),
                                         .input_offset = IN_OFFSET * sizeof(float),
                                         .output_offset = OUT_OFFSET * sizeof(float), .roi_x = regions[r].x,
                                         .roi_y = regions[r].y, .roi_width = regions[r].w,
                                         .roi_height = regions[r].h};
            assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
            check_output(out, OUT_OFFSET, PITCH, W, H, regions[r], expected, cls_border_name(border));
        }
        cls_filter_release(filter);
    }
}

static void two_pass_on_an_image_smaller_than_the_mask(void **state)
{
    (void)state;
    static const float row[7] = {1, 2, 3, 4, 5, 6, 7}, column[5] = {1, 3, 5, 2, 1};
    static const struct { unsigned w, h; } sizes[] = {{3, 2}, {1, 1}, {6, 4}, {2, 9}};
    float mask[35];
    outer_product(row, 7, column, 5, mask);
    for (size_t b = 0; b < sizeof all_defined_borders / sizeof all_defined_borders[0]; ++b) {
        const cls_border border = all_defined_borders[b];
        /* default: the modes that fold the window back into the image, again and again when the
         * image is smaller than the mask */
        if (!cls_test_exhaustive() && border != CLS_BORDER_MIRROR && border != CLS_BORDER_MIRROR101 &&
            border != CLS_BORDER_REPEAT)
            continue;
        cls_filter *filter = make_two_pass(row, 7, column, 5, border, -0.75f);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            const unsigned w = sizes[s].w, h = sizes[s].h;
            float in[64], out[64];
            double expected[64];
            fill_input(in, w * h);
            fill_sentinel(out, w * h);
            const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
            assert_int_equal(ref_stencil(&image, mask, 7, 5, border, -0.75f, expected), 0);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
            assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
            check_output(out, 0, w, w, h, (region){0, 0, 0, 0}, expected, cls_border_name(border));
        }
        cls_filter_release(filter);
    }
}

static void two_pass_through_the_image_path_from_u8(void **state)
{
    (void)state;
    enum { W = 29, H = 17, PITCH = 32, IN_OFFSET = 6 };
    static const float row[3] = {0.25f, 0.5f, 0.125f}, column[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.3f};
    static const cls_border borders[] = {CLS_BORDER_MIRROR, CLS_BORDER_CONSTANT};
    const region roi = {4, 3, 21, 12};
    if (!cls_context_device(context)->image_support) skip();
    unsigned char in[IN_OFFSET + PITCH * H];
    float mask[15], out[W * H];
    double expected[W * H];
    for (size_t k = 0; k < sizeof in; ++k) in[k] = (unsigned char)((k * 37) % 251);
    outer_product(row, 3, column, 5, mask);
    const ref_image image = {in + IN_OFFSET, W, H, PITCH, CLS_PIXEL_U8};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        if (!cls_test_pick((unsigned)b + 1, 2)) continue; /* default: constant (40, in u8 units) */
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = 3;
        spec.mask_height = 5;
        spec.coefficients = mask;
        spec.separable = CLS_SEPARABLE_TWO_PASS;
        spec.input_path = CLS_INPUT_IMAGE;
        spec.input_type = CLS_PIXEL_U8;
        spec.cols_per_item = 2;
        spec.border = borders[b];
        spec.border_value = 40.0f;
        spec.group_width = 8;
        spec.group_height = 4;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
        assert_int_equal(ref_stencil(&image, mask, 3, 5, borders[b], 40.0f, expected), 0);
        fill_sentinel(out, W * H);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .input_row_pitch = PITCH,
                                     .input_offset = IN_OFFSET,
                                     .roi_x = roi.x, .roi_y = roi.y, .roi_width = roi.w, .roi_height = roi.h};
        assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
        check_output(out, 0, W, W, H, roi, expected, cls_border_name(borders[b]));
        cls_filter_release(filter);
    }
}

static cls_status make_image_filter(cls_border border, cls_pixel_type input_type, cls_filter **filter)
{
    static const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.input_path = CLS_INPUT_IMAGE;
    spec.border = border;
    spec.border_value = 0.25f;
    spec.input_type = input_type;
    spec.group_width = 8;
    spec.group_height = 4;
    return cls_filter_create(context, &spec, filter);
}

static void image_path_oversize_image_or_no_support(void **state)
{
    (void)state;
    const cls_device_caps *caps = cls_context_device(context);
    cls_filter *filter = NULL;
    if (!caps->image_support) {
        assert_int_equal(make_image_filter(CLS_BORDER_CLAMP, CLS_PIXEL_F32, &filter), CLS_ERR_UNSUPPORTED);
        assert_null(filter);
        expect_message(caps->name);
        return;
    }
    assert_int_equal(make_image_filter(CLS_BORDER_CLAMP, CLS_PIXEL_F32, &filter), CLS_OK);
    const size_t width = caps->image2d_max_width + 1;
    float *in = calloc(width, sizeof(float)), *out = calloc(width, sizeof(float));
    assert_non_null(in);
    assert_non_null(out);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = width, .height = 1};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_UNSUPPORTED);
    expect_message("exceeds the largest 2-D image");
    free(in);
    free(out);
    cls_filter_release(filter);
}

static void image_path_matches_the_reference(void **state)
{
    (void)state;
    enum { W = 19, H = 11, PITCH = 23, IN_OFFSET = 4 };
    static const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    static const cls_pixel_type types[] = {CLS_PIXEL_F32, CLS_PIXEL_U8};
    if (!cls_context_device(context)->image_support) skip();
    unsigned char pitched[(IN_OFFSET + PITCH * H) * 4], packed[W * H * 4];
    float out[W * H];
    double expected[W * H];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        const size_t size = cls_pixel_size(types[t]);
        const double scale = types[t] == CLS_PIXEL_F32 ? 97.0 : 1.0;
        for (size_t k = 0; k < IN_OFFSET + PITCH * H; ++k)
            ref_store(types[t], (double)((k * 37) % 251) / scale, pitched + k * size);
        for (size_t y = 0; y < H; ++y)
            memcpy(packed + y * W * size, pitched + (IN_OFFSET + y * PITCH) * size, W * size);
        const ref_image image = {packed, W, H, 0, types[t]};
        for (size_t b = 0; b < sizeof all_defined_borders / sizeof all_defined_borders[0]; ++b) {
            /* default: clamp (the sampler's own) from both types; the other borders from f32
             * (mirror, repeat) or u8 (mirror101, constant) in turn */
            if (b != 0 && !cls_test_pick((unsigned)(b + t + 1), 2)) continue;
            const cls_border border = all_defined_borders[b];
            cls_filter *filter = NULL;
            if (make_image_filter(border, types[t], &filter) != CLS_OK)
                fail_msg("creating the %s image filter: %s", cls_pixel_type_name(types[t]), cls_last_error());
            assert_int_equal(ref_stencil(&image, mask, 3, 3, border, 0.25f, expected), 0);
            /* Packed rows are copied straight into the image; pitched rows (with an offset) go
             * through the packed intermediate buffer. */
            const cls_image_desc packed_desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
            const cls_image_desc pitched_desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                                 .input_row_pitch = PITCH * size,
                                                 .input_offset = IN_OFFSET * size};
            fill_sentinel(out, W * H);
            assert_int_equal(cls_filter_run_host(filter, packed, out, &packed_desc), CLS_OK);
            check_output(out, 0, W, W, H, (region){0, 0, 0, 0}, expected, cls_border_name(border));
            fill_sentinel(out, W * H);
            assert_int_equal(cls_filter_run_host(filter, pitched, out, &pitched_desc), CLS_OK);
            check_output(out, 0, W, W, H, (region){0, 0, 0, 0}, expected, cls_border_name(border));
            cls_filter_release(filter);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_count_follows_masks_and_epilogue),
        cmocka_unit_test(several_outputs_refused_by_the_one_output_calls),
        cmocka_unit_test(output_list_errors),
        cmocka_unit_test(pipeline_refuses_a_stage_with_several_outputs),
        cmocka_unit_test(two_outputs_match_the_reference),
        cmocka_unit_test(epilogue_combines_two_masks),
        cmocka_unit_test(columns_per_item_cover_every_pixel),
        cmocka_unit_test(two_pass_on_a_region_of_interest),
        cmocka_unit_test(two_pass_on_an_image_smaller_than_the_mask),
        cmocka_unit_test(two_pass_through_the_image_path_from_u8),
        cmocka_unit_test(image_path_oversize_image_or_no_support),
        cmocka_unit_test(image_path_matches_the_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
