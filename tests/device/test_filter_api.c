/* test_filter_api.c — the filter API on the default device: auto resolution, one test per
 * launch-time validation error, structs without their struct_size, the undefined border leaving
 * border pixels untouched, runs on host images of growing and shrinking sizes through the
 * context's kept buffers, and pinned host memory (the host side of the variants is in
 * test_variant_host.c). */
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

static cls_filter *make_filter(cls_border border, unsigned gw, unsigned gh)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    spec.border = border;
    spec.group_width = gw;
    spec.group_height = gh;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    return filter;
}

static void auto_resolves_to_isp_block_and_the_record_shape(void **state)
{
    (void)state;
    cls_filter *filter = make_filter(CLS_BORDER_CLAMP, 0, 0);
    assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_ISP_BLOCK);
    unsigned w = 0, h = 0;
    cls_filter_group_shape(filter, &w, &h);
    assert_true(w > 0 && h > 0);
    assert_non_null(strstr(cls_filter_source(filter), "partition isp-block"));
    cls_filter_release(filter);
}

static void group_beyond_device_limits(void **state)
{
    (void)state;
    const cls_device_caps *caps = cls_context_device(context);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    spec.group_width = (unsigned)caps->max_work_item_sizes[0] + 1;
    spec.group_height = 1;
    cls_filter *filter = (cls_filter *)0x1;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_null(filter);
    /* devices allowing 4096-wide groups hit the library's own cap before the device's limits */
    const char *expected = spec.group_width > 4096 ? "more than 4096 work-items" : "exceeds the limits of";
    if (!strstr(cls_last_error(), expected)) fail_msg("'%s' lacks '%s'", cls_last_error(), expected);
}

static void expect_run_error(cls_image_desc image, const char *message_part)
{
    cls_filter *filter = make_filter(CLS_BORDER_CLAMP, 8, 4);
    float in[64] = {0}, out[64] = {0};
    assert_int_equal(cls_filter_run_host(filter, in, out, &image), CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), message_part)) fail_msg("'%s' lacks '%s'", cls_last_error(), message_part);
    cls_filter_release(filter);
}

static void zero_width_image(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 0, .height = 4}, "image size 0x4 is empty");
}

static void zero_height_image(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 4, .height = 0}, "image size 4x0 is empty");
}

static void input_pitch_smaller_than_a_row(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 8, .height = 4, .input_row_pitch = 16},
                     "input row pitch 16 bytes is smaller than a row");
}

static void output_pitch_smaller_than_a_row(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 8, .height = 4, .output_row_pitch = 31},
                     "output row pitch 31 bytes is smaller than a row");
}

static void pitch_not_whole_pixels(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){CLS_IMAGE_DESC_INIT, .width = 4, .height = 4, .input_row_pitch = 18},
                     "not a whole number of 4-byte pixels");
}

static void buffer_too_small(void **state)
{
    (void)state;
    cls_filter *filter = make_filter(CLS_BORDER_CLAMP, 8, 4);
    cl_int error;
    cl_mem small = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, 64, NULL, &error);
    assert_int_equal(error, CL_SUCCESS);
    cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = 8, .height = 8};
    assert_int_equal(cls_filter_enqueue(filter, small, small, &image, 0, NULL, NULL), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "input buffer holds 64 bytes; the image needs 256"));
    clReleaseMemObject(small);
    cls_filter_release(filter);
}

/* Structs not started with their initializer (struct_size 0) are refused, naming the struct. */
static void structs_without_struct_size(void **state)
{
    (void)state;
    expect_run_error((cls_image_desc){.width = 8, .height = 4},
                     "cls_image_desc.struct_size is 0: start it with CLS_IMAGE_DESC_INIT");
    cls_filter *filter = make_filter(CLS_BORDER_CLAMP, 8, 4);
    cl_int error;
    cl_mem buffer = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, 256, NULL, &error);
    assert_int_equal(error, CL_SUCCESS);
    const cls_image_desc image = {.width = 8, .height = 8};
    assert_int_equal(cls_filter_enqueue(filter, buffer, buffer, &image, 0, NULL, NULL), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "cls_image_desc.struct_size is 0"));
    clReleaseMemObject(buffer);
    cls_build_info info = {.registers = 77};
    assert_int_equal(cls_filter_build_info(filter, &info), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "cls_build_info.struct_size is 0: start it with CLS_BUILD_INFO_INIT"));
    assert_int_equal(info.registers, 77);
    info = (cls_build_info){CLS_BUILD_INFO_INIT};
    assert_int_equal(cls_filter_build_info(filter, &info), CLS_OK);
    assert_int_equal(info.struct_size, sizeof info);
    assert_true(info.work_group_size > 0);
    cls_filter_release(filter);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    spec.struct_size = 0;
    filter = (cls_filter *)0x1;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_null(filter);
    assert_non_null(strstr(cls_last_error(), "cls_spec.struct_size is 0: fill it with cls_spec_init"));
}

static void undefined_border_leaves_border_pixels(void **state)
{
    (void)state;
    cls_filter *filter = make_filter(CLS_BORDER_UNDEFINED, 8, 4);
    enum { W = 11, H = 6 };
    float in[W * H], out[W * H];
    for (int i = 0; i < W * H; ++i) in[i] = (float)i, out[i] = -1.0f;
    cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, in, out, &image), CLS_OK);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const int interior = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
            if (interior) assert_float_equal(out[y * W + x], 9.0f * in[y * W + x], 1e-3); /* linear ramp */
            else assert_float_equal(out[y * W + x], -1.0f, 0.0);
        }
    cls_filter_release(filter);
}

/* Host runs of one context reuse its device buffers: images larger, then smaller than before, a
 * pipeline's run between them, and an undefined border whose untouched pixels must come back as
 * the caller's (not as a larger earlier run's) each give the reference. */
static void host_runs_of_several_sizes(void **state)
{
    (void)state;
    cls_filter *clamp = make_filter(CLS_BORDER_CLAMP, 0, 0), *undefined = make_filter(CLS_BORDER_UNDEFINED, 0, 0);
    cls_pipeline *pipeline = NULL;
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_OK);
    static const size_t sizes[][2] = {{40, 30}, {130, 70}, {9, 5}, {64, 64}};
    float *in = malloc(130 * 70 * sizeof *in), *out = malloc(130 * 70 * sizeof *out);
    double *expected = malloc(130 * 70 * sizeof *expected);
    assert_non_null(in);
    assert_non_null(out);
    assert_non_null(expected);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const size_t w = sizes[s][0], h = sizes[s][1];
        for (size_t k = 0; k < w * h; ++k) in[k] = (float)((k * 7 + s * 13) % 23);
        const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
        for (int run = 0; run < 3; ++run) {
            const cls_border border = run == 1 ? CLS_BORDER_UNDEFINED : CLS_BORDER_CLAMP;
            assert_int_equal(ref_stencil(&image, box3, 3, 3, border, 0.0f, expected), 0);
            for (size_t k = 0; k < w * h; ++k) out[k] = -1.0f;
            if (run == 2) assert_int_equal(cls_pipeline_run_host(pipeline, in, out, &desc), CLS_OK);
            else assert_int_equal(cls_filter_run_host(run ? undefined : clamp, in, out, &desc), CLS_OK);
            for (size_t y = 0; y < h; ++y)
                for (size_t x = 0; x < w; ++x) {
                    const double want = isnan(expected[y * w + x]) ? -1.0 : expected[y * w + x];
                    if (!ref_f32_close(out[y * w + x], want))
                        fail_msg("%zux%zu run %d at (%zu, %zu): %g, expected %g", w, h, run, x, y, out[y * w + x], want);
                }
        }
    }
    free(in);
    free(out);
    free(expected);
    cls_pipeline_release(pipeline);
    cls_filter_release(clamp);
    cls_filter_release(undefined);
}

/* Pinned host memory: images in it filter like any host images; cls_host_free takes back one
 * allocation (a pointer it did not give is ignored), a second context's release frees what was
 * left in it; 0 bytes are refused with a message. */
static void pinned_host_memory(void **state)
{
    (void)state;
    enum { W = 37, H = 21 };
    float *in = cls_host_alloc(context, W * H * sizeof *in), *out = cls_host_alloc(context, W * H * sizeof *out);
    assert_non_null(in);
    assert_non_null(out);
    for (int k = 0; k < W * H; ++k) in[k] = (float)(k % 11);
    cls_filter *filter = make_filter(CLS_BORDER_MIRROR, 0, 0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
    double expected[W * H];
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, box3, 3, 3, CLS_BORDER_MIRROR, 0.0f, expected), 0);
    for (int k = 0; k < W * H; ++k) assert_true(ref_f32_close(out[k], expected[k]));
    cls_filter_release(filter);
    float unrelated = 0.0f;
    cls_host_free(context, &unrelated);
    cls_host_free(context, in);
    cls_host_free(context, out);
    assert_null(cls_host_alloc(context, 0));
    assert_non_null(strstr(cls_last_error(), "0 bytes"));
    cls_context *other = NULL;
    assert_int_equal(cls_context_create(NULL, &other), CLS_OK);
    assert_non_null(cls_host_alloc(other, 4096));
    cls_context_release(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(auto_resolves_to_isp_block_and_the_record_shape),
        cmocka_unit_test(group_beyond_device_limits),
        cmocka_unit_test(zero_width_image),
        cmocka_unit_test(zero_height_image),
        cmocka_unit_test(input_pitch_smaller_than_a_row),
        cmocka_unit_test(output_pitch_smaller_than_a_row),
        cmocka_unit_test(pitch_not_whole_pixels),
        cmocka_unit_test(buffer_too_small),
        cmocka_unit_test(structs_without_struct_size),
        cmocka_unit_test(undefined_border_leaves_border_pixels),
        cmocka_unit_test(host_runs_of_several_sizes),
        cmocka_unit_test(pinned_host_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
