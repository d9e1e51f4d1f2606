/* test_half_pixels.c — half-precision images (CLS_PIXEL_F16) on the default device: values of
 * every magnitude half holds, subnormals, infinities and NaN included, through a mask with negative
 * taps in every border mode, on the global path (naive, and isp-warp with blocks whose rows load
 * as vectors) and the local path, the image path refused; a top-hat (stages and the subtraction) half in and
 * out. f16 out is the CPU reference rounded to half within one half-precision step (the kernel
 * rounds its f32 sum), f32 out the reference within f32 rounding; every pixel, borders included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 43, H = 27 };

static uint16_t input[W * H];
static cls_context *context;
static const float mask[9] = {-0.5f, 1.0f, -0.25f, 2.0f, 3.5f, 2.0f, -0.25f, 1.0f, -0.5f};

static int setup(void **state)
{
    (void)state;
    unsigned seed = 5;
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        uint16_t bits = (uint16_t)(seed >> 12);
        if ((bits & 0x7c00) == 0x7c00 && k % 97) bits &= 0xbfff; /* a few infinities and NaN only */
        input[k] = bits;
    }
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* Whether the kernel's pixel GOT is the reference's EXPECTED sum stored as TYPE. */
static int matches(cls_pixel_type type, double got, double expected)
{
    if (type == CLS_PIXEL_F32) return isnan(expected) ? isnan(got) : ref_f32_close(got, expected);
    return ref_f16_close(got, ref_to_output(CLS_PIXEL_F16, expected));
}

/* One filter of SPEC (over the half input) against the reference's window sums of MASK. */
static void check(const cls_spec *spec, const float *weights, int size)
{
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK)
        fail_msg("%s %s: %s", cls_border_name(spec->border), cls_partition_name(spec->partition), cls_last_error());
    static unsigned char out[W * H * 4];
    static double expected[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F16};
    assert_int_equal(ref_stencil(&image, weights, size, size, spec->border, spec->border_value, expected), 0);
    for (unsigned y = 0; y < H; ++y)
        for (unsigned x = 0; x < W; ++x) {
            const size_t k = (size_t)y * W + x;
            if (spec->border == CLS_BORDER_UNDEFINED && !ref_window_inside(x, y, W, H, size, size)) continue;
            const double got = ref_load(spec->output_type, out + k * cls_pixel_size(spec->output_type));
            if (!matches(spec->output_type, got, expected[k]))
                fail_msg("%s %s input %d, %u x %u per item, -> %s: (%u, %u) is %.9g, expected %.9g",
                         cls_border_name(spec->border), cls_partition_name(spec->partition), (int)spec->input_path,
                         spec->rows_per_item, spec->cols_per_item, cls_pixel_type_name(spec->output_type), x, y, got,
                         expected[k]);
        }
    cls_filter_release(filter);
}

static cls_spec half_spec(cls_border border, cls_partition partition, cls_input_path path, unsigned rows,
                          unsigned cols, cls_pixel_type output_type)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    spec.border = border;
    spec.border_value = -7.5f;
    spec.partition = partition;
    spec.input_path = path;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    spec.input_type = CLS_PIXEL_F16;
    spec.output_type = output_type;
    return spec;
}

static void test_f16_every_border(void **state)
{
    (void)state;
    for (int b = CLS_BORDER_UNDEFINED; b <= CLS_BORDER_CONSTANT; ++b) {
        const cls_border border = (cls_border)b;
        cls_spec spec = half_spec(border, CLS_PARTITION_NAIVE, CLS_INPUT_GLOBAL, 1, 1, CLS_PIXEL_F16);
        check(&spec, mask, 3);
        const unsigned block = border == CLS_BORDER_UNDEFINED ? 1 : 2; /* blocks need a defined border */
        spec = half_spec(border, CLS_PARTITION_ISP_WARP, CLS_INPUT_GLOBAL, block, block * block, CLS_PIXEL_F16);
        check(&spec, mask, 3);
        spec = half_spec(border, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_LOCAL, 1, 1, CLS_PIXEL_F32);
        check(&spec, mask, 3);
    }
}

/* The image path refuses half input (CL_HALF_FLOAT images read wrong values on PoCL 3.1), saying
 * so; `auto` reads half input from global memory. */
static void test_f16_image_path_refused(void **state)
{
    (void)state;
    cls_spec spec = half_spec(CLS_BORDER_MIRROR101, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_IMAGE, 1, 1, CLS_PIXEL_F16);
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_UNSUPPORTED);
    assert_non_null(strstr(cls_last_error(), "does not take f16 input"));
    spec.input_path = CLS_INPUT_AUTO;
    spec.partition = CLS_PARTITION_AUTO;
    check(&spec, mask, 3);
}

/* A white top-hat over a 3x3 square, half in and out: two stages through f32 images and the
 * subtraction, which reads the half input again; every pixel against the definition. */
static void test_f16_staged_operator(void **state)
{
    (void)state;
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse("tophat:3", &op), CLS_OK);
    cls_spec spec = *cls_operator_spec(op);
    spec.border = CLS_BORDER_REPEAT;
    spec.input_type = spec.output_type = CLS_PIXEL_F16;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    static uint16_t out[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
    static double value[W * H], eroded[W * H], opened[W * H];
    for (int k = 0; k < W * H; ++k) value[k] = ref_load(CLS_PIXEL_F16, &input[k]);
    for (int pass = 0; pass < 2; ++pass) /* erosion, then dilation of its result; NaN skipped */
        for (long y = 0; y < H; ++y)
            for (long x = 0; x < W; ++x) {
                double best = pass ? -INFINITY : INFINITY;
                for (long j = -1; j <= 1; ++j)
                    for (long i = -1; i <= 1; ++i) {
                        const long px = ref_border_index(CLS_BORDER_REPEAT, x + i, W);
                        const long py = ref_border_index(CLS_BORDER_REPEAT, y + j, H);
                        const double v = (pass ? eroded : value)[py * W + px];
                        best = pass ? fmax(best, v) : fmin(best, v);
                    }
                (pass ? opened : eroded)[y * W + x] = (double)(float)best;
            }
    for (int k = 0; k < W * H; ++k) {
        const double want = ref_to_output(CLS_PIXEL_F16, (double)((float)value[k] - (float)opened[k]));
        const double got = ref_load(CLS_PIXEL_F16, &out[k]);
        if (!(isnan(want) ? isnan(got) : got == want)) fail_msg("pixel %d: %.9g, expected %.9g", k, got, want);
    }
    cls_filter_release(filter);
    cls_operator_release(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_every_border),
        cmocka_unit_test(test_f16_image_path_refused),
        cmocka_unit_test(test_f16_staged_operator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
