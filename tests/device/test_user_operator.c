/* test_user_operator.c — user-written operator bodies on the default device: a weighted sum
 * written by hand equals the CPU reference, a window maximum (not a convolution) equals a CPU
 * maximum over the border-mapped window, on every pixel, and a weighted sum that writes a column of
 * outputs (OUT_AT) equals the reference too, as do the same bodies written in value_t run in
 * lanes (8, 4 or 2 adjacent outputs a work-item as one vector, a width of 37 that no vector
 * divides); and a compile error comes back with the build log pointing at the body's own line.
 *
 * The default run builds the weighted sum and the window maximum in every border mode with both
 * mask sizes (3x3, 7x7), the partition and the baking of the mask rotating: each mode meets both
 * bakings and, over the two bodies, every partition, and every pair of partition, size and baking
 * meets; the bodies whose subject is their names or their column of outputs take one size per
 * mode.
 * CLS_TEST_EXHAUSTIVE=1 runs the full product of border mode, size, partition and baking for
 * both bodies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"

enum { W = 37, H = 23 };

static cls_context *context;
static float input[W * H];

static int setup(void **state)
{
    (void)state;
    for (int k = 0; k < W * H; ++k) input[k] = (float)((k * 17) % 41) / 41.0f + 0.25f;
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

static const char *weighted_sum = "float total = 0.0f;\n"
                                  "FOR_WINDOW(dx, dy) total += MASK(dx, dy) * IN(dx, dy);\n"
                                  "OUT = total;\n";
/* The same sum through the names the generated kernel uses for its own variables: the body runs
 * in a function of its own, so they are the body's. */
static const char *weighted_sum_own_names = "float sum = 0.0f, input = 0.0f, output = 1.0f;\n"
                                            "int roi = 0;\n"
                                            "FOR_WINDOW(dx, dy) {\n"
                                            "    const float x = IN(dx, dy), mask = MASK(dx, dy);\n"
                                            "    sum += mask * x;\n"
                                            "}\n"
                                            "float width = sum * output;\n"
                                            "OUT = width + input + roi;\n";
/* The same sum for a column of ROWS outputs at once (OUT_AT), reading below the body's pixel. */
static const char *weighted_sum_column = "for (int k = 0; k < ROWS; ++k) {\n"
                                         "    float total = 0.0f;\n"
                                         "    FOR_WINDOW(dx, dy) total += MASK(dx, dy) * IN(dx, dy + k);\n"
                                         "    OUT_AT(k) = total;\n"
                                         "}\n";
static const char *window_maximum = "float best = -INFINITY;\n"
                                    "FOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\n"
                                    "OUT = best;\n";
/* The same three in value_t: bodies that run in lanes. */
static const char *weighted_sum_lanes = "value_t total = 0.0f;\n"
                                        "FOR_WINDOW(dx, dy) total += MASK(dx, dy) * IN(dx, dy);\n"
                                        "OUT = total;\n";
static const char *weighted_sum_column_lanes = "for (int k = 0; k < ROWS; ++k) {\n"
                                               "    value_t total = 0.0f;\n"
                                               "    FOR_WINDOW(dx, dy) total += MASK(dx, dy) * IN(dx, dy + k);\n"
                                               "    OUT_AT(k) = total;\n"
                                               "}\n";
static const char *window_maximum_lanes = "value_t best = -INFINITY;\n"
                                          "FOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\n"
                                          "OUT = best;\n";

/* The window maximum on the CPU, through the reference's border mapping. */
static double cpu_maximum(int x, int y, int n, cls_border border, float value)
{
    double best = -INFINITY;
    for (int dy = -n / 2; dy <= n / 2; ++dy)
        for (int dx = -n / 2; dx <= n / 2; ++dx) {
            const long xx = ref_border_index(border, x + dx, W), yy = ref_border_index(border, y + dy, H);
            const double v = xx < 0 || yy < 0 ? (double)value : (double)input[yy * W + xx];
            best = fmax(best, v);
        }
    return best;
}

/* Whether the default run builds this case of body `maximum` (0 or 1): per border mode and
 * size one partition and baking, rotating with the mode, the size and the body; a body whose
 * subject is not the window (EVERY_SIZE 0) one size per mode, alternating. */
static int picked(int maximum, int every_size, int border, int s, int p, int bake)
{
    if (cls_test_exhaustive()) return 1;
    const int i = border + s;
    return (every_size || s == border % 2) && p == (i + maximum) % 3 && bake == i % 2;
}

/* Blocks of outputs per work-item by partition (none where the border is undefined): a call of
 * the body per output, or in lanes a call per row of vectors. */
static const unsigned block_rows[] = {1, 4, 2}, block_cols[] = {1, 2, 1}, lane_cols[] = {8, 4, 2};

static void run_body(const char *body, int maximum, int every_size, int lanes)
{
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    static const unsigned sizes[] = {3, 7};
    int checked = 0;
    for (int border = CLS_BORDER_UNDEFINED; border <= CLS_BORDER_CONSTANT; ++border)
        for (int s = 0; s < 2; ++s) {
            const unsigned n = sizes[s];
            float mask[49];
            for (unsigned k = 0; k < n * n; ++k) mask[k] = (float)(1 + k % 4) / (float)(3 * n * n);
            double expected[W * H];
            const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
            ref_stencil(&image, mask, (int)n, (int)n, (cls_border)border, 0.125f, expected);
            for (int p = 0; p < 3; ++p)
                for (int bake = 0; bake < 2; ++bake) {
                    if (!picked(maximum, every_size, border, s, p, bake)) continue;
                    cls_spec spec;
                    cls_spec_init(&spec);
                    spec.mask_width = spec.mask_height = n;
                    spec.coefficients = mask;
                    spec.bake_coefficients = bake;
                    spec.border = (cls_border)border;
                    spec.border_value = 0.125f;
                    spec.partition = partitions[p];
                    spec.group_width = 16;
                    spec.group_height = 4;
                    if (border != CLS_BORDER_UNDEFINED) {
                        spec.rows_per_item = block_rows[p];
                        spec.cols_per_item = lanes ? lane_cols[p] : block_cols[p];
                    }
                    spec.body = body;
                    cls_filter *filter = NULL;
                    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
                    float out[W * H];
                    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
                    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
                    for (int y = 0; y < H; ++y)
                        for (int x = 0; x < W; ++x) {
                            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside((size_t)x, (size_t)y, W, H, (int)n, (int)n))
                                continue;
                            const double e = maximum ? cpu_maximum(x, y, (int)n, (cls_border)border, 0.125f)
                                                     : expected[y * W + x];
                            if (!ref_f32_close(out[y * W + x], e))
                                fail_msg("%s %s %ux%u bake %d: (%d, %d) is %g, expected %g",
                                         cls_border_name((cls_border)border), cls_partition_name(partitions[p]), n, n,
                                         bake, x, y, (double)out[y * W + x], e);
                            ++checked;
                        }
                    cls_filter_release(filter);
                }
        }
    /* of 58632, 9772, or 4990 with one size a mode */
    assert_true(checked > (cls_test_exhaustive() ? 50000 : every_size ? 8000 : 4000));
}

static void hand_written_weighted_sum(void **state)
{
    (void)state;
    run_body(weighted_sum, 0, 1, 0);
}

static void kernel_names_are_the_bodys_own(void **state)
{
    (void)state;
    run_body(weighted_sum_own_names, 0, 0, 0);
}

static void column_of_outputs(void **state)
{
    (void)state;
    run_body(weighted_sum_column, 0, 0, 0);
}

static void window_maximum_in_every_mode(void **state)
{
    (void)state;
    run_body(window_maximum, 1, 1, 0);
}

static void bodies_in_lanes(void **state)
{
    (void)state;
    run_body(weighted_sum_lanes, 0, 1, 1);
    run_body(weighted_sum_column_lanes, 0, 0, 1);
    run_body(window_maximum_lanes, 1, 0, 1);
}

/* A sum in lanes over u8 (rounded and saturated), u16, f16 and f32 pixels: the vectors' loads
 * and stores convert as the pixels' do, a mode each. */
static void lanes_in_pixel_types(void **state)
{
    (void)state;
    static const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const struct { cls_pixel_type in, out; cls_border border; } types[] = {
        {CLS_PIXEL_U8, CLS_PIXEL_U8, CLS_BORDER_MIRROR101}, {CLS_PIXEL_U16, CLS_PIXEL_F32, CLS_BORDER_CONSTANT},
        {CLS_PIXEL_F16, CLS_PIXEL_F16, CLS_BORDER_CLAMP}, {CLS_PIXEL_F32, CLS_PIXEL_U16, CLS_BORDER_REPEAT}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        static unsigned char in[W * H * 4], out[W * H * 4];
        static double expected[W * H];
        const size_t in_size = ref_pixel_size(types[t].in), out_size = ref_pixel_size(types[t].out);
        for (size_t k = 0; k < W * H; ++k) ref_store(types[t].in, (double)((k * 37) % 251) / 4.0, in + k * in_size);
        const ref_image image = {in, W, H, 0, types[t].in};
        ref_stencil(&image, box, 3, 3, types[t].border, 2.5f, expected);
        cls_spec spec;
        cls_spec_init(&spec);
        spec.coefficients = box;
        spec.border = types[t].border;
        spec.border_value = 2.5f;
        spec.input_type = types[t].in, spec.output_type = types[t].out;
        spec.cols_per_item = 8, spec.rows_per_item = 2;
        spec.body = weighted_sum_lanes;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
        if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
        for (size_t k = 0; k < W * H; ++k) {
            const double got = ref_load(types[t].out, out + k * out_size), want = ref_to_output(types[t].out, expected[k]);
            const int close = types[t].out == CLS_PIXEL_F32 ? ref_f32_close(got, want)
                              : types[t].out == CLS_PIXEL_F16 ? ref_f16_close(got, want)
                                                              : got == want;
            if (!close)
                fail_msg("%s -> %s, pixel %zu: %g, expected %g", cls_pixel_type_name(types[t].in),
                         cls_pixel_type_name(types[t].out), k, got, want);
        }
        cls_filter_release(filter);
    }
}

static void compile_error_points_at_the_body(void **state)
{
    (void)state;
    static const float mask[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.body = "float v = IN(0, 0);\nOUT = v +* 2;\n";
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_BUILD);
    assert_null(filter);
    if (!strstr(cls_last_error(), "operator:2:")) fail_msg("the log does not point at line 2:\n%s", cls_last_error());
    /* The kernel's own variables are out of the body's reach. */
    spec.body = "float v = IN(0, 0);\nOUT = output[0] + v;\n";
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_BUILD);
    if (!strstr(cls_last_error(), "operator:2:")) fail_msg("the log does not point at line 2:\n%s", cls_last_error());
}

static void body_without_out_is_refused(void **state)
{
    (void)state;
    static const float mask[9] = {0};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.body = "float v = IN(0, 0);";
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "never assigns OUT"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_written_weighted_sum),
        cmocka_unit_test(kernel_names_are_the_bodys_own),
        cmocka_unit_test(column_of_outputs),
        cmocka_unit_test(window_maximum_in_every_mode),
        cmocka_unit_test(bodies_in_lanes),
        cmocka_unit_test(lanes_in_pixel_types),
        cmocka_unit_test(compile_error_points_at_the_body),
        cmocka_unit_test(body_without_out_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
