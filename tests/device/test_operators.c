/* test_operators.c — the operator library and pipelines on the default device. Each operator
 * is compared on every pixel (undefined: interior only) with the CPU reference applied to a mask
 * the test builds from the operator's definition, or with a CPU implementation (bilateral, tone
 * mapping, gradient magnitude); closed forms on ramps check the derivatives and smoothing; bad
 * operator texts are refused.
 *
 * The default run compares every operator in two border modes, the k-th operator in modes k and
 * k + 1 (mod 6), so every mode appears, with a fixed small configuration (16x4, one output per
 * item) rotating over the naive, isp-block and isp-warp partitions; auto (on CPUs a streaming
 * kernel, the slowest to build) runs in the smoothing closed form (the other closed forms run
 * naive), the tone mapping, the two-stage pipeline and the night pipeline (constant and mirror
 * modes). CLS_TEST_EXHAUSTIVE=1 runs the full product: every operator as it chooses (auto) in
 * every border mode, the closed forms in auto, and the night pipeline in every mode but
 * undefined. */
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

enum { W = 41, H = 29 };

static cls_context *context;
static float noise[W * H], ramp[W * H];

static int setup(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        noise[k] = (float)((seed >> 8) & 0xFFFF) / 65536.0f;
        ramp[k] = 0.5f * (float)(k % W) - 0.25f * (float)(k / W) + 3.0f;
    }
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* Runs operator `text` with a border on `input`; out receives W*H floats. With a partition
 * other than auto, in that partition's fixed small configuration; with auto, as the operator
 * chooses. */
static void run(const char *text, cls_border border, cls_partition partition, const float *input, float *out)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.border_value = 0.5f;
    if (partition != CLS_PARTITION_AUTO) {
        spec.partition = partition;
        spec.group_width = 16;
        spec.group_height = 4;
        spec.rows_per_item = spec.cols_per_item = 1;
    }
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK)
        fail_msg("%s %s %s: %s", text, cls_border_name(border), cls_partition_name(partition), cls_last_error());
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    for (int k = 0; k < W * H; ++k) out[k] = NAN;
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
    cls_filter_release(filter);
    cls_operator_release(op);
}

/* How the tests run operator k (numbered in the order the tests meet them): exhaustive, in
 * every border mode as the operator chooses; by default in two modes, k and k + 1 (mod 6), each
 * with its fixed small configuration, the partitions rotating so each operator meets two. */
typedef struct { cls_border border; cls_partition partition; } operator_way;

static int way_count(void) { return cls_test_exhaustive() ? CLS_BORDER_CONSTANT + 1 : 2; }

static operator_way way_of(unsigned k, int m)
{
    if (cls_test_exhaustive()) return (operator_way){(cls_border)m, CLS_PARTITION_AUTO};
    return (operator_way){(cls_border)((k + (unsigned)m) % (CLS_BORDER_CONSTANT + 1)),
                          (cls_partition)(CLS_PARTITION_NAIVE + (2 * k + (unsigned)m) % 3)};
}

/* The closed forms: as the operator chooses when exhaustive, else naive. */
static cls_partition closed_form_partition(void)
{
    return cls_test_exhaustive() ? CLS_PARTITION_AUTO : CLS_PARTITION_NAIVE;
}

static void expect_close(const char *what, cls_border border, int mask, const float *got, const double *expected)
{
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside((size_t)x, (size_t)y, W, H, mask, mask)) continue;
            const double e = expected[y * W + x], g = got[y * W + x];
            if (!(fabs(g - e) <= 1e-5 || fabs(g - e) <= 2e-5 * fabs(e)))
                fail_msg("%s, %s: (%d, %d) is %.7g, expected %.7g", what, cls_border_name(border), x, y, g, e);
        }
}

/* Compares operator `text`, the k-th, with the CPU reference of `mask` (size n) in its ways. */
static void against_mask(unsigned k, const char *text, const float *mask, int n, const float *input)
{
    float got[W * H];
    double expected[W * H];
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
    for (int m = 0; m < way_count(); ++m) {
        const operator_way way = way_of(k, m);
        run(text, way.border, way.partition, input, got);
        ref_stencil(&image, mask, n, n, way.border, 0.5f, expected);
        expect_close(text, way.border, n, got, expected);
    }
}

static void gaussian_matches_its_definition(void **state)
{
    (void)state;
    const int n = 7;
    const double sigma = 1.3;
    float mask[49];
    double row[7], total = 0;
    for (int i = 0; i < n; ++i) total += row[i] = exp(-((i - 3) * (i - 3)) / (2 * sigma * sigma));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) mask[j * n + i] = (float)(row[j] * row[i] / (total * total));
    against_mask(0, "gaussian:7,1.3", mask, n, noise);
    /* a normalized symmetric smoothing keeps a linear ramp inside the image (auto: streaming) */
    float got[W * H];
    run("gaussian:5", CLS_BORDER_CLAMP, CLS_PARTITION_AUTO, ramp, got);
    for (int y = 2; y < H - 2; ++y)
        for (int x = 2; x < W - 2; ++x) assert_float_equal(got[y * W + x], ramp[y * W + x], 1e-4);
}

static void box_keeps_a_constant_image(void **state)
{
    (void)state;
    float flat[W * H], got[W * H];
    for (int k = 0; k < W * H; ++k) flat[k] = 0.75f;
    for (int m = 0; m < way_count(); ++m) { /* the modes that read only the image */
        const operator_way way = way_of(1, m);
        if (way.border < CLS_BORDER_CLAMP || way.border > CLS_BORDER_REPEAT) continue;
        run("box:5", way.border, way.partition, flat, got);
        for (int k = 0; k < W * H; ++k) assert_float_equal(got[k], 0.75f, 1e-6);
    }
    float mask[25];
    for (int k = 0; k < 25; ++k) mask[k] = 1.0f / 25.0f;
    against_mask(1, "box:5", mask, 5, noise);
}

static void laplace_3_and_5(void **state)
{
    (void)state;
    static const float three[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    static const float five[25] = {2, 4, 4, 4, 2, 4, 0, -8, 0, 4, 4, -8, -24, -8, 4, 4, 0, -8, 0, 4, 2, 4, 4, 4, 2};
    against_mask(2, "laplace", three, 3, noise);
    against_mask(3, "laplace:5", five, 5, noise);
    /* the 3x3 Laplacian of x^2 + y^2 is 4 */
    float quadratic[W * H], got[W * H];
    for (int k = 0; k < W * H; ++k) quadratic[k] = (float)((k % W) * (k % W) + (k / W) * (k / W)) / 16.0f;
    run("laplace:3", CLS_BORDER_MIRROR, closed_form_partition(), quadratic, got);
    for (int y = 1; y < H - 1; ++y)
        for (int x = 1; x < W - 1; ++x) assert_float_equal(got[y * W + x], 4.0f / 16.0f, 1e-3);
}

/* The derivative mask of Sobel (reach 1, 1-2-1) or Scharr (reach r, 3-10-3) along x or y. */
static void derivative_mask(int scharr, int n, int along_y, float *mask)
{
    const int r = n / 2;
    memset(mask, 0, sizeof(float) * (size_t)(n * n));
    for (int k = -1; k <= 1; ++k) {
        const float w = k == 0 ? (scharr ? 10.0f : 2.0f) : (scharr ? 3.0f : 1.0f);
        if (along_y) mask[(2 * r) * n + r + k] = w, mask[0 * n + r + k] = -w;
        else mask[(r + k) * n + 2 * r] = w, mask[(r + k) * n + 0] = -w;
    }
}

static void derivatives_and_magnitudes(void **state)
{
    (void)state;
    static const struct { const char *family; int scharr, size; } cases[] = {
        {"sobel", 0, 3}, {"scharr", 1, 3}, {"scharr", 1, 5}, {"scharr", 1, 9}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const int n = cases[c].size;
        float mx[81], my[81];
        derivative_mask(cases[c].scharr, n, 0, mx);
        derivative_mask(cases[c].scharr, n, 1, my);
        char text[64];
        snprintf(text, sizeof text, "%s:x%s%.0d", cases[c].family, cases[c].scharr ? "," : "", cases[c].scharr ? n : 0);
        const unsigned k = 4 + 3 * (unsigned)c; /* operators k (x), k + 1 (y), k + 2 (magnitude) */
        against_mask(k, text, mx, n, noise);
        snprintf(text, sizeof text, "%s:y%s%.0d", cases[c].family, cases[c].scharr ? "," : "", cases[c].scharr ? n : 0);
        against_mask(k + 1, text, my, n, noise);
        /* the magnitude, in one kernel, against both derivatives on the CPU */
        snprintf(text, sizeof text, "%s:mag%s%.0d", cases[c].family, cases[c].scharr ? "," : "", cases[c].scharr ? n : 0);
        float got[W * H];
        double gx[W * H], gy[W * H], expected[W * H];
        const ref_image image = {noise, W, H, 0, CLS_PIXEL_F32};
        for (int m = 0; m < way_count(); ++m) {
            const operator_way way = way_of(k + 2, m);
            run(text, way.border, way.partition, noise, got);
            ref_stencil(&image, mx, n, n, way.border, 0.5f, gx);
            ref_stencil(&image, my, n, n, way.border, 0.5f, gy);
            for (int p = 0; p < W * H; ++p) expected[p] = hypot(gx[p], gy[p]);
            expect_close(text, way.border, n, got, expected);
        }
    }
    /* closed form: on a*x + b*y, Sobel x gives 8a and y gives 8b inside the image */
    float got[W * H];
    run("sobel:x", CLS_BORDER_CLAMP, closed_form_partition(), ramp, got);
    assert_float_equal(got[10 * W + 10], 8 * 0.5f, 1e-4);
    run("sobel:y", CLS_BORDER_CLAMP, closed_form_partition(), ramp, got);
    assert_float_equal(got[10 * W + 10], 8 * -0.25f, 1e-4);
    run("scharr:x,5", CLS_BORDER_CLAMP, closed_form_partition(), ramp, got); /* (3 + 10 + 3) * 2r * a */
    assert_float_equal(got[10 * W + 10], 16 * 4 * 0.5f, 1e-3);
    /* magnitudes whose squares pass FLT_MAX or fall below FLT_MIN: a ramp of 1e30 (1e-25) a column
     * gives 8e30 (8e-25) along x, 0 along y */
    static float steep[W * H];
    static const float slopes[] = {1e30f, 1e-25f};
    for (size_t s = 0; s < sizeof slopes / sizeof slopes[0]; ++s) {
        for (int p = 0; p < W * H; ++p) steep[p] = slopes[s] * (float)(p % W);
        run("sobel:mag", CLS_BORDER_CLAMP, closed_form_partition(), steep, got);
        assert_true(isfinite(got[10 * W + 10]));
        assert_float_equal(got[10 * W + 10] / (8 * slopes[s]), 1.0f, 1e-5);
    }
}

static double read_mapped(const float *image, int x, int y, cls_border border, int *outside)
{
    const long xx = ref_border_index(border, x, W), yy = ref_border_index(border, y, H);
    *outside = xx < 0 || yy < 0;
    return *outside ? 0.5 : image[yy * W + xx];
}

static void bilateral_matches_its_formula(void **state)
{
    (void)state;
    const double sd = 1.5, sr = 0.1;
    const int n = 7, h = 3; /* 4 * 1.5 + 1 = 7 */
    float got[W * H];
    double expected[W * H];
    for (int m = 0; m < way_count(); ++m) {
        const operator_way way = way_of(16, m);
        const cls_border border = way.border;
        run("bilateral:1.5,0.1", border, way.partition, noise, got);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                int outside;
                const double centre = read_mapped(noise, x, y, border, &outside);
                double weights = 0, total = 0;
                for (int j = -h; j <= h; ++j)
                    for (int i = -h; i <= h; ++i) {
                        const double v = read_mapped(noise, x + i, y + j, border, &outside);
                        const double w = exp(-(i * i + j * j) / (2 * sd * sd)) * exp(-(v - centre) * (v - centre) / (2 * sr * sr));
                        weights += w, total += w * v;
                    }
                expected[y * W + x] = total / weights;
            }
        expect_close("bilateral:1.5,0.1", border, n, got, expected);
    }
}

static void atrous_and_tonemap(void **state)
{
    (void)state;
    static const float w[3] = {0.25f, 0.5f, 0.25f};
    for (int d = 1, op = 17; d <= 4; d *= 2, ++op) { /* operators 17 to 19 */
        const int n = 2 * d + 1;
        float mask[81] = {0};
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) mask[j * d * n + i * d] = w[j] * w[i];
        char text[32];
        snprintf(text, sizeof text, "atrous:%d", d);
        against_mask((unsigned)op, text, mask, n, noise);
    }
    float got[W * H];
    run("tonemap", CLS_BORDER_CLAMP, CLS_PARTITION_AUTO, ramp, got);
    for (int k = 0; k < W * H; ++k) assert_float_equal(got[k], ramp[k] / (1.0f + ramp[k]), 1e-5);
}

static void pipeline_equals_stage_by_stage(void **state)
{
    (void)state;
    cls_pipeline *pipeline = NULL;
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    static const char *ops[] = {"gaussian:5,1.2", "sobel:mag"};
    for (int i = 0; i < 2; ++i) {
        cls_operator *op = NULL;
        assert_int_equal(cls_operator_parse(ops[i], &op), CLS_OK);
        cls_spec spec = *cls_operator_spec(op);
        spec.border = CLS_BORDER_MIRROR;
        assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_OK);
        cls_operator_release(op);
    }
    float chained[W * H], first[W * H], second[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_pipeline_run_host(pipeline, noise, chained, &desc), CLS_OK);
    run(ops[0], CLS_BORDER_MIRROR, CLS_PARTITION_AUTO, noise, first);
    run(ops[1], CLS_BORDER_MIRROR, CLS_PARTITION_AUTO, first, second);
    for (int k = 0; k < W * H; ++k) assert_float_equal(chained[k], second[k], 1e-6);
    cls_pipeline_release(pipeline);
}

static void night_pipeline_matches_the_cpu(void **state)
{
    (void)state;
    for (int border = CLS_BORDER_CLAMP; border <= CLS_BORDER_CONSTANT; ++border) {
        if (!cls_test_pick((unsigned)(CLS_BORDER_CONSTANT - border), 3)) continue; /* default: constant, mirror */
        cls_pipeline *pipeline = NULL;
        assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
        assert_int_equal(cls_pipeline_add_night(pipeline, (cls_border)border, CLS_PIXEL_F32, CLS_PIXEL_F32), CLS_OK);
        assert_int_equal(cls_pipeline_stage_count(pipeline), 5);
        float got[W * H], stage[W * H];
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
        assert_int_equal(cls_pipeline_run_host(pipeline, noise, got, &desc), CLS_OK);
        memcpy(stage, noise, sizeof stage);
        double result[W * H];
        static const float w[3] = {0.25f, 0.5f, 0.25f};
        for (int d = 1; d <= 8; d *= 2) {
            const int n = 2 * d + 1;
            float mask[17 * 17] = {0};
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) mask[j * d * n + i * d] = w[j] * w[i];
            const ref_image image = {stage, W, H, 0, CLS_PIXEL_F32};
            ref_stencil(&image, mask, n, n, (cls_border)border, 0.0f, result);
            for (int k = 0; k < W * H; ++k) stage[k] = (float)result[k];
        }
        for (int k = 0; k < W * H; ++k) result[k] = stage[k] / (1.0 + stage[k]);
        expect_close("night", (cls_border)border, 1, got, result);
        cls_pipeline_release(pipeline);
    }
}

/* Night on u8 in and out: the tone mapping on the 0..255 scale, so a white image stays bright
 * (255 / (1 + 1) = 127.5, rounded to even: 128) instead of the 1 the raw values would give; on
 * i16, 0..32767 (32767 / 2 = 16383.5: 16384), as the command maps it. */
static void night_pipeline_on_integers_keeps_their_scale(void **state)
{
    (void)state;
    cls_pipeline *pipeline = NULL;
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    assert_int_equal(cls_pipeline_add_night(pipeline, CLS_BORDER_CLAMP, CLS_PIXEL_U8, CLS_PIXEL_U8), CLS_OK);
    unsigned char white[W * H], got[W * H];
    memset(white, 255, sizeof white);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_pipeline_run_host(pipeline, white, got, &desc), CLS_OK);
    for (int k = 0; k < W * H; ++k) assert_int_equal(got[k], 128);
    cls_pipeline_release(pipeline);

    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    assert_int_equal(cls_pipeline_add_night(pipeline, CLS_BORDER_CLAMP, CLS_PIXEL_I16, CLS_PIXEL_I16), CLS_OK);
    short bright[W * H], got16[W * H];
    for (int k = 0; k < W * H; ++k) bright[k] = 32767;
    assert_int_equal(cls_pipeline_run_host(pipeline, bright, got16, &desc), CLS_OK);
    for (int k = 0; k < W * H; ++k) assert_int_equal(got16[k], 16384);
    cls_pipeline_release(pipeline);
}

static void bad_operator_texts(void **state)
{
    (void)state;
    static const char *texts[] = {"frobnicate:3", "gaussian:4", "gaussian:5,-1", "box", "laplace:7", "sobel:z",
                                  "sobel:x,5", "scharr:x,4", "bilateral:0,1", "bilateral:20,0.1", "atrous:0",
                                  "tonemap:0", "tonemap:1,2", "convolve:3x3,1,2", "convolve:2x64,1", ":3", ""};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        cls_operator *op = (cls_operator *)0x1;
        if (cls_operator_parse(texts[i], &op) != CLS_ERR_INVALID_ARGUMENT) fail_msg("'%s' was accepted", texts[i]);
        assert_null(op);
        assert_non_null(strstr(cls_last_error(), "operator '"));
    }
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse("convolve:3x1,1,2,1", &op), CLS_OK);
    assert_string_equal(cls_operator_name(op), "convolve:3x1");
    cls_operator_release(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaussian_matches_its_definition), cmocka_unit_test(box_keeps_a_constant_image),
        cmocka_unit_test(laplace_3_and_5),                 cmocka_unit_test(derivatives_and_magnitudes),
        cmocka_unit_test(bilateral_matches_its_formula),   cmocka_unit_test(atrous_and_tonemap),
        cmocka_unit_test(pipeline_equals_stage_by_stage),  cmocka_unit_test(night_pipeline_matches_the_cpu),
        cmocka_unit_test(night_pipeline_on_integers_keeps_their_scale),
        cmocka_unit_test(bad_operator_texts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
