/* test_volume_bodies.c — user-written bodies of volumes (cls_operator_user_volume) on the default
 * device against the CPU reference in 3-D: a weighted sum written with FOR_WINDOW and MASK equals
 * the built-in one, a read at one offset equals that tap's delta mask, and a maximum over the window
 * equals the reference's, in every border mode, one mode per axis, volumes from 1x1x1 to
 * 23x17x13 (smaller than the window included), f32 and u16 pixels; and what a volume's body
 * refuses. */
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
#include "support/context_fixture.h"

#define SENTINEL -7.0f

static const char *const SUM_BODY = "float s = 0.0f;\n"
                                    "FOR_WINDOW(dx, dy, dz) s += MASK(dx, dy, dz) * IN(dx, dy, dz);\n"
                                    "OUT = s;\n";
static const char *const MAX_BODY = "float m = -INFINITY;\n"
                                    "FOR_WINDOW(i, j, k) m = fmax(m, IN(i, j, k));\n"
                                    "OUT = m;\n";
/* one tap: (x + 1, y - 2, z + 1); the window 3x5x3 */
static const char *const SHIFT_BODY = "OUT = IN(1, -2, 1) + 0.0f * (x + y + z + width + height + depth);";

/* The body's filter of the window W x H x D (MASK: mask), with a border mode per axis. */
static cls_filter *body_filter(const char *body, unsigned w, unsigned h, unsigned d, const float *mask,
                               const cls_border borders[3], cls_pixel_type type)
{
    cls_operator *op = NULL;
    if (cls_operator_user_volume(body, w, h, d, mask, &op) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = borders[0], spec.border_y = borders[1], spec.border_z = borders[2];
    spec.border_value = 0.25f;
    spec.input_type = spec.output_type = type;
    spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_operator_release(op);
    return filter;
}

/* FILTER on a packed volume of w x h x d against the reference of MASK reduced by REDUCTION
 * (undefined: the voxels whose window leaves the volume keep the sentinel). */
static void check(cls_filter *filter, const float *mask, unsigned mw, unsigned mh, unsigned md,
                  const cls_border borders[3], cls_reduction reduction, cls_pixel_type type, unsigned w, unsigned h,
                  unsigned d)
{
    const size_t voxels = (size_t)w * h * d;
    float *in = malloc(sizeof(float) * voxels), *out = malloc(sizeof(float) * voxels);
    uint16_t *in16 = malloc(sizeof(uint16_t) * voxels), *out16 = malloc(sizeof(uint16_t) * voxels);
    double *expected = malloc(sizeof(double) * voxels);
    assert_true(in && out && in16 && out16 && expected);
    for (size_t k = 0; k < voxels; ++k) {
        in16[k] = (uint16_t)((k * 131) % 1009);
        in[k] = type == CLS_PIXEL_U16 ? in16[k] : (float)((k * 31) % 53) / 53.0f + 0.5f;
        out[k] = SENTINEL, out16[k] = 7;
    }
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d_axes(&image, d, 0, mask, (int)mw, (int)mh, (int)md, borders, 0.25f, reduction,
                                       expected),
                     0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .depth = d};
    const int u16 = type == CLS_PIXEL_U16;
    if (cls_filter_run_host(filter, u16 ? (void *)in16 : in, u16 ? (void *)out16 : out, &desc) != CLS_OK)
        fail_msg("%s", cls_last_error());
    for (size_t k = 0; k < voxels; ++k) {
        const int unwritten = isnan(expected[k]);
        const double got = u16 ? out16[k] : out[k];
        const int ok = unwritten ? (u16 ? out16[k] == 7 : out[k] == SENTINEL)
                       : u16     ? got == ref_to_output(CLS_PIXEL_U16, expected[k])
                                 : ref_f32_close(out[k], expected[k]);
        if (!ok)
            fail_msg("%ux%ux%u body, borders %s,%s,%s, %ux%ux%u volume: voxel (%zu, %zu, %zu) is %.9g, expected %.9g",
                     mw, mh, md, cls_border_name(borders[0]), cls_border_name(borders[1]),
                     cls_border_name(borders[2]), w, h, d, k % w, k / w % h, k / w / h, got,
                     unwritten ? (double)SENTINEL : expected[k]);
    }
    free(in), free(out), free(in16), free(out16), free(expected);
}

static const unsigned volumes[][3] = {{1, 1, 1}, {4, 3, 2}, {23, 17, 13}};

static void bodies_equal_the_reference_in_every_border_mode(void **state)
{
    (void)state;
    static const cls_border modes[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                       CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
    float weights[3 * 5 * 3], shift[3 * 5 * 3] = {0};
    for (unsigned k = 0; k < 45; ++k) weights[k] = (float)((k * 7) % 13) / 13.0f - 0.3f;
    shift[((2 * 5) + 0) * 3 + 2] = 1.0f; /* dz = +1, dy = -2, dx = +1 */
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m) {
        const cls_border borders[3] = {modes[m], modes[m], modes[m]};
        const struct { const char *body; const float *mask; cls_reduction reduction; } cases[] = {
            {SUM_BODY, weights, CLS_REDUCTION_SUM}, {SHIFT_BODY, shift, CLS_REDUCTION_SUM},
            {MAX_BODY, NULL, CLS_REDUCTION_MAX}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            cls_filter *filter = body_filter(cases[c].body, 3, 5, 3, cases[c].mask, borders, CLS_PIXEL_F32);
            float ones[45];
            for (unsigned k = 0; k < 45; ++k) ones[k] = 1.0f;
            for (size_t v = 0; v < sizeof volumes / sizeof volumes[0]; ++v)
                check(filter, cases[c].mask ? cases[c].mask : ones, 3, 5, 3, borders, cases[c].reduction,
                      CLS_PIXEL_F32, volumes[v][0], volumes[v][1], volumes[v][2]);
            cls_filter_release(filter);
        }
    }
}

static void a_mode_per_axis_and_integer_voxels(void **state)
{
    (void)state;
    const cls_border borders[3] = {CLS_BORDER_CONSTANT, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT};
    float weights[27];
    for (unsigned k = 0; k < 27; ++k) weights[k] = (float)(k % 5) * 0.25f;
    for (int u16 = 0; u16 <= 1; ++u16) {
        const cls_pixel_type type = u16 ? CLS_PIXEL_U16 : CLS_PIXEL_F32;
        cls_filter *filter = body_filter(SUM_BODY, 3, 3, 3, weights, borders, type);
        for (size_t v = 0; v < sizeof volumes / sizeof volumes[0]; ++v)
            check(filter, weights, 3, 3, 3, borders, CLS_REDUCTION_SUM, type, volumes[v][0], volumes[v][1],
                  volumes[v][2]);
        cls_filter_release(filter);
    }
}

static void what_a_volume_body_refuses(void **state)
{
    (void)state;
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_user_volume("OUT = IN(0, 0, 2);", 3, 3, 3, NULL, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "IN(0, 0, 2) reads outside the 3x3x3 window"));
    assert_int_equal(cls_operator_user_volume("OUT_AT(0) = IN(0, 0, 0);", 3, 3, 3, NULL, &op),
                     CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "OUT_AT"));
    assert_int_equal(cls_operator_user_volume("OUT = IN(0, 0, 0);", 3, 3, 4, NULL, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_operator_user_volume("OUT = IN(0, 0, 0);", 3, 3, 33, NULL, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_operator_user_volume("int MASK_D = 1; OUT = 0;", 3, 3, 3, NULL, &op),
                     CLS_ERR_INVALID_ARGUMENT);
    /* a body that does not compile: the build log's line is the body's */
    assert_int_equal(cls_operator_user_volume("OUT = 1.0f;\nOUT = nonsense;", 3, 3, 3, NULL, &op), CLS_OK);
    cls_spec spec = *cls_operator_spec(op);
    spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_BUILD);
    assert_non_null(strstr(cls_last_error(), "operator:2"));
    spec.reduction = CLS_REDUCTION_MAX;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "reduction"));
    cls_operator_release(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bodies_equal_the_reference_in_every_border_mode),
        cmocka_unit_test(a_mode_per_axis_and_integer_voxels),
        cmocka_unit_test(what_a_volume_body_refuses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
