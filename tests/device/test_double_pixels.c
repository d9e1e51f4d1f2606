/* test_double_pixels.c — f64 pixels (CLS_PIXEL_F64) on the default device: a weighted sum with
 * negative taps computed in double, every border mode, naive and isp-block, baked and runtime
 * coefficients, f64 in and out, f32 in and f64 out, f64 in and u16 out (rounded and saturated), on
 * values whose float32 rounding the comparison would see (1e-12 relative against the CPU
 * reference, which sums in double); every pixel, borders included. And the refusals: f64 with an
 * operator body, the FFT method, several outputs per work-item. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 41, H = 23 };

static double input64[W * H];
static float input32[W * H];
static cls_context *context;
static const float mask[15] = {-0.5f, 1.0f, -0.25f, 2.0f, 3.5f, 2.0f, -0.25f, 1.0f, -0.5f, 0.125f, 7.0f, -3.0f, 0.1f, 0.2f, 0.3f};

static int setup(void **state)
{
    (void)state;
    unsigned seed = 11;
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        input64[k] = ((double)(seed >> 8) / (1 << 24) - 0.5) * 1e4 + 1.0 / 3.0; /* not float32 values */
        input32[k] = (float)input64[k];
    }
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* A 5 x 3 weighted sum from INPUT of TYPE to the spec's output type against the reference. */
static void check(cls_spec spec, const void *input, cls_pixel_type type)
{
    spec.input_type = type;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK)
        fail_msg("%s %s: %s", cls_border_name(spec.border), cls_partition_name(spec.partition), cls_last_error());
    static unsigned char out[W * H * 8];
    static double expected[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
    const ref_image image = {input, W, H, 0, type};
    assert_int_equal(ref_stencil(&image, mask, 5, 3, spec.border, spec.border_value, expected), 0);
    for (unsigned y = 0; y < H; ++y)
        for (unsigned x = 0; x < W; ++x) {
            const size_t k = (size_t)y * W + x;
            const double got = ref_load(spec.output_type, out + k * cls_pixel_size(spec.output_type));
            const double want = ref_to_output(spec.output_type, expected[k]);
            const double tolerance = spec.output_type == CLS_PIXEL_F64 ? 1e-12 * (fabs(want) + 1.0) : 0.0;
            if (!(fabs(got - want) <= tolerance))
                fail_msg("%s %s %s -> %s: (%u, %u) is %.17g, expected %.17g", cls_border_name(spec.border),
                         cls_partition_name(spec.partition), cls_pixel_type_name(type),
                         cls_pixel_type_name(spec.output_type), x, y, got, want);
        }
    cls_filter_release(filter);
}

static void sums_in_double_in_every_border_mode(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT,
                                         CLS_BORDER_CONSTANT};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = 5;
        spec.mask_height = 3;
        spec.coefficients = mask;
        spec.border = borders[b];
        spec.border_value = -1234.5f;
        spec.output_type = CLS_PIXEL_F64;
        spec.partition = b % 2 ? CLS_PARTITION_NAIVE : CLS_PARTITION_ISP_BLOCK;
        spec.bake_coefficients = (int)(b % 2);
        spec.build_goal = CLS_BUILD_FIRST_RESULT;
        check(spec, input64, CLS_PIXEL_F64);
        check(spec, input32, CLS_PIXEL_F32);
        spec.output_type = CLS_PIXEL_U16;
        check(spec, input64, CLS_PIXEL_F64);
    }
}

static void refusals_name_what_double_does_not_take(void **state)
{
    (void)state;
    cls_operator *median = NULL;
    assert_int_equal(cls_operator_parse("median:3", &median), CLS_OK);
    cls_spec spec = *cls_operator_spec(median);
    spec.input_type = spec.output_type = CLS_PIXEL_F64;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not with an operator body"));
    cls_operator_release(median);
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.input_type = CLS_PIXEL_F64;
    spec.method = CLS_METHOD_FFT;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not with the FFT method"));
    spec.method = CLS_METHOD_AUTO;
    spec.rows_per_item = 4;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not with several outputs per work-item"));
    assert_null(filter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_in_double_in_every_border_mode),
        cmocka_unit_test(refusals_name_what_double_does_not_take),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
