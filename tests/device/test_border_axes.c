/* test_border_axes.c — a border mode per axis (cls_spec.border_y, border_z) on the default device.
 * Weighted sums against the CPU reference bordered per axis, every ordered pair of two different
 * modes with the kernel variants rotated over the pairs (every variant meets several pairs; all
 * of them under CLS_TEST_EXHAUSTIVE): ISP regions, blocks, streaming, local and image input,
 * separable passes, FFT. Operators without a weighted sum (ranks, van Herk's extremes, staged
 * compositions) against the same operator run over the image padded on the host by each axis's
 * mode, whose interior no border reaches. Volumes with a mode for each of x, y and z. And what is
 * refused: undefined on some axes only, a value that is no mode. */
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

static const cls_border modes[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT,
                                   CLS_BORDER_CONSTANT};
#define MODES (sizeof modes / sizeof modes[0])

/* The ordered pair k (0 to 19) of two different modes. */
static void pair(unsigned k, cls_border *x, cls_border *y)
{
    *x = modes[k / (MODES - 1)];
    const unsigned other = k % (MODES - 1);
    *y = modes[other >= k / (MODES - 1) ? other + 1 : other];
}

static float *image_values(unsigned width, unsigned height, unsigned depth)
{
    float *values = malloc(sizeof(float) * width * height * depth);
    assert_non_null(values);
    for (size_t k = 0; k < (size_t)width * height * depth; ++k) values[k] = (float)((k * 37) % 101) / 101.0f - 0.25f;
    return values;
}

static void run(cls_filter *filter, const float *in, float *out, unsigned width, unsigned height, unsigned depth)
{
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = width, .height = height, .depth = depth};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
}

/* ---------------------------------------------------------------- weighted sums */

typedef struct variant {
    const char *name;
    unsigned mask; /* side */
    int bake, rows, cols, rank_one;
    cls_input_path input;
    cls_partition partition;
    cls_separable separable;
    cls_method method;
    cls_region_code regions;
} variant;

#define LITERALS CLS_COEFFICIENTS_LITERALS
static const variant variants[] = {
    {"isp-block, buffer", .mask = 5, .bake = CLS_COEFFICIENTS_BUFFER},
    {"isp-block, literals, 4x2 block", .mask = 5, .bake = LITERALS, .rows = 4, .cols = 2},
    {"isp-warp, literals", .mask = 3, .bake = LITERALS, .partition = CLS_PARTITION_ISP_WARP},
    {"naive, argument", .mask = 5, .bake = CLS_COEFFICIENTS_ARGUMENT, .partition = CLS_PARTITION_NAIVE},
    {"local input, 2x2 block", .mask = 5, .bake = LITERALS, .rows = 2, .cols = 2, .input = CLS_INPUT_LOCAL},
    {"image input", .mask = 3, .bake = LITERALS, .input = CLS_INPUT_IMAGE},
    {"streaming", .mask = 5, .bake = LITERALS, .rows = 16, .cols = 4},
    {"shared regions", .mask = 5, .bake = LITERALS, .regions = CLS_REGION_CODE_SHARED},
    {"single-pass separable", .mask = 5, .bake = LITERALS, .rank_one = 1, .separable = CLS_SEPARABLE_SINGLE_PASS},
    {"single-pass separable, rows staged", .mask = 9, .bake = LITERALS, .rows = 16, .rank_one = 1,
     .input = CLS_INPUT_LOCAL, .separable = CLS_SEPARABLE_SINGLE_PASS},
    {"two-pass separable", .mask = 7, .bake = LITERALS, .rank_one = 1, .separable = CLS_SEPARABLE_TWO_PASS},
    {"fft", .mask = 9, .bake = CLS_COEFFICIENTS_BUFFER, .method = CLS_METHOD_FFT},
};
#define VARIANTS (sizeof variants / sizeof variants[0])

static void check_sum(const variant *v, cls_border x, cls_border y)
{
    const unsigned side = v->mask;
    float mask[81];
    for (unsigned j = 0; j < side; ++j)
        for (unsigned i = 0; i < side; ++i)
            mask[j * side + i] = v->rank_one ? (float)(i + 1) * (float)(side - j) / 8.0f
                                             : (float)(((j * side + i) * 7) % 13) / 13.0f - 0.3f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = side;
    spec.coefficients = mask;
    spec.bake_coefficients = v->bake;
    spec.rows_per_item = (unsigned)v->rows, spec.cols_per_item = (unsigned)v->cols;
    spec.input_path = v->input ? v->input : CLS_INPUT_GLOBAL;
    spec.partition = v->partition ? v->partition : CLS_PARTITION_ISP_BLOCK, spec.separable = v->separable;
    spec.method = v->method, spec.region_code = v->regions;
    spec.border = x, spec.border_y = y, spec.border_value = 0.75f;
    spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK)
        fail_msg("%s, %s,%s: %s", v->name, cls_border_name(x), cls_border_name(y), cls_last_error());
    static const unsigned sizes[][2] = {{37, 29}, {3, 2}};
    for (size_t s = 0; s < 2; ++s) {
        const unsigned w = sizes[s][0], h = sizes[s][1];
        if (v->separable == CLS_SEPARABLE_TWO_PASS) /* the passes' temporary image */
            assert_int_equal(cls_filter_device_bytes(filter, w, h, 1), (size_t)w * h * sizeof(float));
        float *in = image_values(w, h, 1), *out = calloc((size_t)w * h, sizeof(float));
        double *expected = malloc(sizeof(double) * w * h);
        assert_true(out && expected);
        const cls_border borders[2] = {x, y};
        const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
        assert_int_equal(ref_stencil_axes(&image, mask, (int)side, (int)side, borders, spec.border_value, expected), 0);
        run(filter, in, out, w, h, 1);
        const double tolerance = v->method == CLS_METHOD_FFT ? 1e-4 : 0.0;
        for (size_t k = 0; k < (size_t)w * h; ++k)
            if (!ref_f32_close(out[k], expected[k]) && fabs(out[k] - expected[k]) > tolerance)
                fail_msg("%s, border %s along x and %s along y, %ux%u: pixel (%zu, %zu) is %.9g, expected %.9g",
                         v->name, cls_border_name(x), cls_border_name(y), w, h, k % w, k / w, (double)out[k],
                         expected[k]);
        free(in), free(out), free(expected);
    }
    cls_filter_release(filter);
}

/* Every variant over a rotating tenth of the 20 pairs (every pair under CLS_TEST_EXHAUSTIVE). */
static void weighted_sums_match_the_reference(void **state)
{
    (void)state;
    const unsigned pairs = MODES * (MODES - 1);
    for (unsigned v = 0; v < VARIANTS; ++v)
        for (unsigned k = 0; k < pairs; ++k) {
            if (!cls_test_pick(k + v, 10)) continue;
            cls_border x, y;
            pair(k, &x, &y);
            check_sum(&variants[v], x, y);
        }
}

/* ---------------------------------------------------------------- operators by padding */

/* The image padded by `margin` pixels a side, each axis by its own mode (ref_border_index). */
static float *padded(const float *in, unsigned w, unsigned h, unsigned margin, cls_border x, cls_border y, float value)
{
    const unsigned pw = w + 2 * margin, ph = h + 2 * margin;
    float *out = malloc(sizeof(float) * pw * ph);
    assert_non_null(out);
    for (unsigned j = 0; j < ph; ++j)
        for (unsigned i = 0; i < pw; ++i) {
            const long sx = ref_border_index(x, (long)i - (long)margin, w);
            const long sy = ref_border_index(y, (long)j - (long)margin, h);
            out[j * pw + i] = sx < 0 || sy < 0 ? value : in[sy * w + sx];
        }
    return out;
}

/* OP (a one-stage operator) over IN (w x h) as a clamp-bordered run over IN padded by each axis's
 * mode: where the padding is as wide as the window, no border reaches the interior. */
static float *padded_run(const char *op_text, const float *in, unsigned w, unsigned h, cls_border x, cls_border y)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(op_text, &op) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_spec plain = *cls_operator_spec(op);
    plain.build_goal = CLS_BUILD_FASTEST_KERNEL, plain.border = CLS_BORDER_CLAMP;
    cls_filter *oracle = NULL;
    if (cls_filter_create(context, &plain, &oracle) != CLS_OK) fail_msg("%s", cls_last_error());
    const unsigned margin = plain.mask_width > plain.mask_height ? plain.mask_width : plain.mask_height;
    const unsigned pw = w + 2 * margin, ph = h + 2 * margin;
    float *wide = padded(in, w, h, margin, x, y, 0.75f), *result = calloc((size_t)pw * ph, sizeof(float));
    float *out = malloc(sizeof(float) * w * h);
    assert_true(result && out);
    run(oracle, wide, result, pw, ph, 1);
    for (unsigned j = 0; j < h; ++j) memcpy(out + j * w, result + (j + margin) * pw + margin, sizeof(float) * w);
    free(wide), free(result);
    cls_filter_release(oracle);
    cls_operator_release(op);
    return out;
}

/* OP with modes x and y against its stages (ORACLE, up to two one-stage operators, each bordering
 * the result of the one before as the staged run does) run over padded images. */
static void check_operator(const char *text, const char *const oracle[2], cls_border x, cls_border y)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.build_goal = CLS_BUILD_FASTEST_KERNEL, spec.border_value = 0.75f;
    spec.border = x, spec.border_y = y;
    cls_filter *mixed = NULL;
    if (cls_filter_create(context, &spec, &mixed) != CLS_OK)
        fail_msg("%s, %s,%s: %s", text, cls_border_name(x), cls_border_name(y), cls_last_error());
    const unsigned w = 23, h = 19;
    float *in = image_values(w, h, 1), *out = calloc((size_t)w * h, sizeof(float));
    assert_non_null(out);
    run(mixed, in, out, w, h, 1);
    float *expected = padded_run(oracle[0], in, w, h, x, y);
    if (oracle[1]) {
        float *second = padded_run(oracle[1], expected, w, h, x, y);
        free(expected);
        expected = second;
    }
    for (unsigned j = 0; j < h; ++j)
        for (unsigned i = 0; i < w; ++i)
            if (!ref_f32_close(out[j * w + i], expected[j * w + i]))
                fail_msg("%s, border %s along x and %s along y: pixel (%u, %u) is %.9g, expected %.9g", text,
                         cls_border_name(x), cls_border_name(y), i, j, (double)out[j * w + i],
                         (double)expected[j * w + i]);
    free(in), free(out), free(expected);
    cls_filter_release(mixed);
    cls_operator_release(op);
}

/* Ranks (a sorting network, sorted rows, the loop), van Herk's extremes (a rectangle runs as a
 * row stage and a column stage), staged compositions (each stage borders its input), a body. */
static void operators_match_the_padded_image(void **state)
{
    (void)state;
    static const struct { const char *name, *oracle[2]; } operators[] = {
        {"median:3", {"median:3"}}, {"median:5", {"median:5"}}, {"percentile:30,5", {"percentile:30,5"}},
        {"min:9", {"min:9"}}, {"max:5x11", {"max:5x11"}}, {"opening:5", {"min:5", "max:5"}},
        {"closing:3", {"max:3", "min:3"}}, {"bilateral:3,0.1,5", {"bilateral:3,0.1,5"}}};
    const unsigned pairs = MODES * (MODES - 1);
    for (unsigned o = 0; o < sizeof operators / sizeof operators[0]; ++o)
        for (unsigned k = 0; k < pairs; ++k) {
            if (!cls_test_pick(k + 2 * o, 10)) continue;
            cls_border x, y;
            pair(k, &x, &y);
            check_operator(operators[o].name, operators[o].oracle, x, y);
        }
}

/* ---------------------------------------------------------------- volumes */

static void check_volume(cls_spec *spec, const cls_border borders[3], const char *what)
{
    spec->border = borders[0], spec->border_y = borders[1], spec->border_z = borders[2];
    spec->border_value = 0.75f, spec->build_goal = CLS_BUILD_FASTEST_KERNEL;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK) fail_msg("%s: %s", what, cls_last_error());
    const unsigned w = 13, h = 9, d = 7;
    const size_t voxels = (size_t)w * h * d;
    float *in = image_values(w, h, d), *out = calloc(voxels, sizeof(float));
    double *expected = malloc(sizeof(double) * voxels);
    assert_true(out && expected);
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d_axes(&image, d, 0, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height,
                                       (int)spec->mask_depth, borders, spec->border_value, spec->reduction, expected),
                     0);
    run(filter, in, out, w, h, d);
    for (size_t k = 0; k < voxels; ++k)
        if (!ref_f32_close(out[k], expected[k]))
            fail_msg("%s, border %s,%s,%s: voxel (%zu, %zu, %zu) is %.9g, expected %.9g", what,
                     cls_border_name(borders[0]), cls_border_name(borders[1]), cls_border_name(borders[2]), k % w,
                     k / w % h, k / w / h, (double)out[k], expected[k]);
    free(in), free(out), free(expected);
    cls_filter_release(filter);
}

/* The walk down z (a random 3x3x3 mask), passes along the axes (a Gaussian), the maximum over a
 * box (passes) and over a cross (the walk), each with three different modes; the walks also with
 * the slice's tile in local memory and in explicit vectors (4 or 8 columns a work-item). */
static void volumes_take_a_mode_an_axis(void **state)
{
    (void)state;
    static const cls_border triples[][3] = {{CLS_BORDER_MIRROR, CLS_BORDER_CONSTANT, CLS_BORDER_REPEAT},
                                            {CLS_BORDER_CONSTANT, CLS_BORDER_MIRROR101, CLS_BORDER_CLAMP},
                                            {CLS_BORDER_REPEAT, CLS_BORDER_CLAMP, CLS_BORDER_CONSTANT}};
    float random[27], cross[27];
    for (unsigned k = 0; k < 27; ++k) {
        random[k] = (float)((k * 7) % 13) / 13.0f - 0.3f;
        cross[k] = (k % 3 == 1) + (k / 3 % 3 == 1) + (k / 9 == 1) >= 2;
    }
    for (size_t t = 0; t < sizeof triples / sizeof triples[0]; ++t) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = spec.mask_depth = 3;
        spec.coefficients = random, spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
        check_volume(&spec, triples[t], "random 3x3x3");
        spec.cols_per_item = t % 2 ? 8 : 4, spec.input_path = CLS_INPUT_LOCAL; /* the slice's tile */
        check_volume(&spec, triples[t], "random 3x3x3 from the slice's tile");
        spec.cols_per_item = t % 2 ? 4 : 8, spec.input_path = CLS_INPUT_GLOBAL; /* vectors */
        check_volume(&spec, triples[t], "random 3x3x3 in vectors");
        spec.coefficients = cross, spec.reduction = CLS_REDUCTION_MAX;
        check_volume(&spec, triples[t], "maximum over a cross in vectors");
        spec.cols_per_item = t % 2 ? 8 : 4, spec.input_path = CLS_INPUT_LOCAL;
        check_volume(&spec, triples[t], "maximum over a cross from the slice's tile");
        spec.cols_per_item = 1, spec.input_path = CLS_INPUT_AUTO;
        check_volume(&spec, triples[t], "maximum over a cross");
        static const char *const names[] = {"gaussian3d:5", "max3d:5"};
        for (size_t n = 0; n < 2; ++n) {
            cls_operator *op = NULL;
            assert_int_equal(cls_operator_parse(names[n], &op), CLS_OK);
            spec = *cls_operator_spec(op);
            check_volume(&spec, triples[t], names[n]);
            cls_operator_release(op);
        }
    }
}

/* ---------------------------------------------------------------- refusals */

static void what_is_refused(void **state)
{
    (void)state;
    static const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box;
    cls_filter *filter = NULL;
    spec.border = CLS_BORDER_UNDEFINED, spec.border_y = CLS_BORDER_CLAMP;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "undefined border"));
    spec.border = CLS_BORDER_MIRROR, spec.border_y = (cls_border)9;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "border_y 9"));
    spec.border_y = CLS_BORDER_SAME, spec.border = CLS_BORDER_SAME;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    spec.border = CLS_BORDER_REPEAT, spec.border_y = CLS_BORDER_CONSTANT, spec.border_value = NAN;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not finite"));
    assert_null(filter);
    cls_border axes[3];
    assert_int_equal(cls_border_parse_axes("reflect,nearest", axes), CLS_OK);
    assert_int_equal(axes[0], CLS_BORDER_MIRROR);
    assert_int_equal(axes[1], CLS_BORDER_CLAMP);
    assert_int_equal(axes[2], CLS_BORDER_SAME);
    assert_int_equal(cls_border_parse_axes("wrap", axes), CLS_OK);
    assert_int_equal(axes[0], CLS_BORDER_REPEAT);
    assert_int_equal(axes[1], CLS_BORDER_SAME);
    assert_int_equal(cls_border_parse_axes("clamp,mirror,wrap,constant", axes), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_border_parse_axes("clamp,", axes), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_border_parse_axes("clamp,sideways", axes), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "axis y"));
    char name[64];
    spec.border = CLS_BORDER_MIRROR, spec.border_y = CLS_BORDER_CLAMP, spec.border_z = CLS_BORDER_REPEAT;
    cls_border_axes_name(&spec, name, sizeof name);
    assert_string_equal(name, "mirror,clamp"); /* a 2-D mask: no z */
    spec.border_y = CLS_BORDER_MIRROR;
    cls_border_axes_name(&spec, name, sizeof name);
    assert_string_equal(name, "mirror");
}

/* Every axis named with x's mode is one mode: the undefined border of a staged composition and
 * of van Herk's extremes runs as without the per-axis fields (the stages clamp, the interior is
 * written). */
static void modes_named_again_are_one_mode(void **state)
{
    (void)state;
    static const char *const names[] = {"opening:3", "min:5x3"};
    for (size_t n = 0; n < 2; ++n) {
        cls_operator *op = NULL;
        assert_int_equal(cls_operator_parse(names[n], &op), CLS_OK);
        cls_spec spec = *cls_operator_spec(op);
        spec.border = spec.border_y = spec.border_z = CLS_BORDER_UNDEFINED;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s: %s", names[n], cls_last_error());
        cls_filter_release(filter);
        cls_operator_release(op);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_is_refused),
        cmocka_unit_test(modes_named_again_are_one_mode),
        cmocka_unit_test(weighted_sums_match_the_reference),
        cmocka_unit_test(operators_match_the_padded_image),
        cmocka_unit_test(volumes_take_a_mode_an_axis),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
