/* test_pipeline_graph.c — pipelines as graphs on the default device: named stages reading earlier
 * images, element-wise stages of several images (unsharp masking, a difference of Gaussians,
 * max and hypot of two branches), two and five input images, a region of interest on the output, the
 * buffers an intermediate image needs, and every refusal (unknown or reserved names, an image
 * nobody reads, a stage reading an undefined border's unwritten pixels, a bad expression). The
 * oracle is the CPU reference's weighted sums combined in double here, every pixel checked,
 * borders included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 37, H = 29 };

static cls_context *context;
static float a[W * H], b[W * H];

static int setup(void **state)
{
    (void)state;
    for (int k = 0; k < W * H; ++k) {
        a[k] = (float)((k * 37) % 101) / 101.0f - 0.25f;
        b[k] = (float)((k * 13) % 53) / 53.0f;
    }
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* The spec of OPERATOR in BORDER, f32 in and out. */
static cls_spec spec_of(const char *text, cls_border border, cls_operator **op)
{
    if (cls_operator_parse(text, op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(*op);
    spec.border = border;
    return spec;
}

/* OPERATOR applied to IN on the CPU, in BORDER. */
static void reference(const char *text, cls_border border, const float *in, double *out)
{
    cls_operator *op;
    const cls_spec spec = spec_of(text, border, &op);
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, spec.coefficients, (int)spec.mask_width, (int)spec.mask_height, border,
                                 0.0f, out),
                     0);
    cls_operator_release(op);
}

static void add_stage(cls_pipeline *p, const char *name, const char *text, cls_border border, const char *from)
{
    cls_operator *op;
    const cls_spec spec = spec_of(text, border, &op);
    if (cls_pipeline_add_stage(p, name, &spec, from) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_operator_release(op);
}

static void check(const float *got, const double *expected, const char *what)
{
    for (int k = 0; k < W * H; ++k)
        if (!ref_f32_close(got[k], expected[k]))
            fail_msg("%s: pixel (%d, %d) is %.9g, expected %.9g", what, k % W, k / W, (double)got[k], expected[k]);
}

static const cls_image_desc whole = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};

/* input + 1.5 (input - gaussian(input)) in one pipeline, in every border mode that writes every
 * pixel; one intermediate image (the blur) at a time. */
static void unsharp_masking(void **state)
{
    (void)state;
    for (int border = CLS_BORDER_CLAMP; border <= CLS_BORDER_CONSTANT; ++border) {
        cls_pipeline *p;
        assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
        add_stage(p, "blur", "gaussian:5", (cls_border)border, "input");
        assert_int_equal(cls_pipeline_add_elementwise(p, "sharp", "input + 1.5f * (input - blur)", CLS_PIXEL_F32),
                         CLS_OK);
        assert_int_equal(cls_pipeline_stage_count(p), 2);
        assert_int_equal(cls_pipeline_input_count(p), 1);
        assert_string_equal(cls_pipeline_stage_name(p, 1), "sharp");
        assert_null(cls_pipeline_stage(p, 1));
        assert_string_equal(cls_pipeline_stage_expression(p, 1), "input + 1.5f * (input - blur)");
        assert_int_equal(cls_pipeline_intermediate_count(p), 1);
        unsigned rx, ry;
        cls_pipeline_reach(p, &rx, &ry);
        assert_int_equal(rx, 2);
        float out[W * H];
        assert_int_equal(cls_pipeline_run_host(p, a, out, &whole), CLS_OK);
        double blur[W * H], expected[W * H];
        reference("gaussian:5", (cls_border)border, a, blur);
        for (int k = 0; k < W * H; ++k) expected[k] = a[k] + 1.5 * (a[k] - blur[k]);
        check(out, expected, cls_border_name((cls_border)border));
        cls_pipeline_release(p);
    }
}

/* Two branches of one input joined: a difference of Gaussians, and the gradient magnitude of
 * two derivative stages after a shared blur (three images alive at once at most). */
static void branches_join(void **state)
{
    (void)state;
    cls_pipeline *p;
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    add_stage(p, "smooth", "gaussian:3", CLS_BORDER_MIRROR, NULL);
    add_stage(p, "gx", "sobel:x", CLS_BORDER_MIRROR, "smooth");
    add_stage(p, "gy", "sobel:y", CLS_BORDER_MIRROR, "smooth");
    assert_int_equal(cls_pipeline_add_elementwise(p, NULL, "hypot(gx, gy)", CLS_PIXEL_F32), CLS_OK);
    assert_string_equal(cls_pipeline_stage_name(p, 3), "stage4");
    assert_int_equal(cls_pipeline_intermediate_count(p), 3);
    /* three whole f32 images between the stages; the stages' single kernels keep nothing */
    assert_int_equal(cls_pipeline_device_bytes(p, W, H, 1), 3 * W * H * sizeof(float));
    unsigned rx, ry;
    cls_pipeline_reach(p, &rx, &ry);
    assert_int_equal(rx, 2);
    assert_int_equal(ry, 2);
    float out[W * H];
    assert_int_equal(cls_pipeline_run_host(p, a, out, &whole), CLS_OK);
    double smooth[W * H], gx[W * H], gy[W * H], expected[W * H];
    reference("gaussian:3", CLS_BORDER_MIRROR, a, smooth);
    float smooth_f[W * H];
    for (int k = 0; k < W * H; ++k) smooth_f[k] = (float)smooth[k];
    reference("sobel:x", CLS_BORDER_MIRROR, smooth_f, gx);
    reference("sobel:y", CLS_BORDER_MIRROR, smooth_f, gy);
    for (int k = 0; k < W * H; ++k) expected[k] = hypot(gx[k], gy[k]);
    check(out, expected, "hypot of two branches");
    cls_pipeline_release(p);

    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    add_stage(p, "fine", "gaussian:3,0.8", CLS_BORDER_REPEAT, "input");
    add_stage(p, "coarse", "gaussian:7,1.6", CLS_BORDER_REPEAT, "input");
    assert_int_equal(cls_pipeline_add_elementwise(p, "dog", "fine - coarse", CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_run_host(p, a, out, &whole), CLS_OK);
    double fine[W * H], coarse[W * H];
    reference("gaussian:3,0.8", CLS_BORDER_REPEAT, a, fine);
    reference("gaussian:7,1.6", CLS_BORDER_REPEAT, a, coarse);
    for (int k = 0; k < W * H; ++k) expected[k] = fine[k] - coarse[k];
    check(out, expected, "difference of Gaussians");
    cls_pipeline_release(p);
}

/* Two input images: max(a, b) then a box filter of it, and a stencil stage on the second input
 * whose result is written into a region of interest of a u8 output. */
static void two_inputs(void **state)
{
    (void)state;
    cls_pipeline *p;
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    assert_int_equal(cls_pipeline_add_input(p, "a", CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_add_input(p, "b", CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_add_elementwise(p, "brightest", "max(a, b)", CLS_PIXEL_F32), CLS_OK);
    add_stage(p, "smooth", "box:3", CLS_BORDER_CLAMP, NULL);
    const void *inputs[2] = {a, b};
    float out[W * H];
    assert_int_equal(cls_pipeline_run_host(p, a, out, &whole), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "reads 2 input images, 1 given"));
    assert_int_equal(cls_pipeline_run_host_inputs(p, 2, inputs, out, &whole), CLS_OK);
    float brightest[W * H];
    for (int k = 0; k < W * H; ++k) brightest[k] = a[k] > b[k] ? a[k] : b[k];
    double expected[W * H];
    reference("box:3", CLS_BORDER_CLAMP, brightest, expected);
    check(out, expected, "box of max(a, b)");
    cls_pipeline_release(p);

    /* An element-wise last stage writes only the region of interest, as u8 (rounded, saturated). */
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    assert_int_equal(cls_pipeline_add_input(p, "a", CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_add_input(p, "b", CLS_PIXEL_F32), CLS_OK);
    add_stage(p, "blurred", "gaussian:3", CLS_BORDER_MIRROR101, "b");
    assert_int_equal(cls_pipeline_add_elementwise(p, "scaled", "255.0f * (blurred - a)", CLS_PIXEL_U8), CLS_OK);
    unsigned char small[W * H];
    memset(small, 7, sizeof small);
    const cls_image_desc roi = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .roi_x = 3, .roi_y = 4,
                                .roi_width = 20, .roi_height = 11};
    assert_int_equal(cls_pipeline_run_host_inputs(p, 2, inputs, small, &roi), CLS_OK);
    double blurred[W * H];
    reference("gaussian:3", CLS_BORDER_MIRROR101, b, blurred);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const int inside = x >= 3 && x < 23 && y >= 4 && y < 15;
            const double v = 255.0 * ((double)(float)blurred[y * W + x] - a[y * W + x]);
            const double want = !inside ? 7 : v <= 0 ? 0 : v >= 255 ? 255 : nearbyint(v);
            if (fabs(small[y * W + x] - want) > (inside ? 1 : 0))
                fail_msg("u8 (%d, %d) is %d, expected %g", x, y, small[y * W + x], want);
        }
    cls_pipeline_release(p);
}

/* Five inputs: more than the context keeps buffers for (the output and four inputs), so the
 * last goes through a buffer of the call. */
static void five_inputs(void **state)
{
    (void)state;
    cls_pipeline *p;
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    static const char *const names[] = {"p", "q", "r", "s", "t"};
    for (int k = 0; k < 5; ++k) assert_int_equal(cls_pipeline_add_input(p, names[k], CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_add_elementwise(p, "four", "p + 2 * q + 4 * r + 8 * s", CLS_PIXEL_F32), CLS_OK);
    assert_int_equal(cls_pipeline_add_elementwise(p, "all", "four - 16 * t", CLS_PIXEL_F32), CLS_OK);
    static float images[5][W * H];
    const void *inputs[5];
    for (int k = 0; k < 5; ++k) {
        for (int i = 0; i < W * H; ++i) images[k][i] = (float)((i * (k + 3)) % 17);
        inputs[k] = images[k];
    }
    float out[W * H];
    for (int round = 0; round < 2; ++round) { /* the second run reuses the context's buffers */
        assert_int_equal(cls_pipeline_run_host_inputs(p, 5, inputs, out, &whole), CLS_OK);
        for (int i = 0; i < W * H; ++i)
            assert_true(out[i] == images[0][i] + 2 * images[1][i] + 4 * images[2][i] + 8 * images[3][i] -
                                       16 * images[4][i]);
    }
    cls_pipeline_release(p);
}

static void refused(cls_status status, const char *message)
{
    assert_int_equal(status, CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s', not '%s'", cls_last_error(), message);
}

static void refusals(void **state)
{
    (void)state;
    cls_pipeline *p;
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    cls_operator *op;
    cls_spec spec = spec_of("box:3", CLS_BORDER_CLAMP, &op);
    refused(cls_pipeline_add_elementwise(p, "e", "1.0f", CLS_PIXEL_F32), "add the inputs first");
    assert_int_equal(cls_pipeline_add_stage(p, "blur", &spec, NULL), CLS_OK);
    refused(cls_pipeline_add_input(p, "late", CLS_PIXEL_F32), "declare the inputs first");
    refused(cls_pipeline_add_stage(p, "blur", &spec, NULL), "already has an image named 'blur'");
    refused(cls_pipeline_add_stage(p, "x", &spec, "nothing"), "reads 'nothing', which is no image");
    refused(cls_pipeline_add_stage(p, "cls_x", &spec, NULL), "names starting with cls_ are reserved");
    refused(cls_pipeline_add_stage(p, "float", &spec, NULL), "a word of OpenCL C");
    refused(cls_pipeline_add_stage(p, "9a", &spec, NULL), "no name for an image");
    refused(cls_pipeline_add_elementwise(p, "d", "input - blurr", CLS_PIXEL_F32), "reads 'blurr', which is no image");
    refused(cls_pipeline_add_elementwise(p, "d", "input; }", CLS_PIXEL_F32), "one expression of images");
    refused(cls_pipeline_add_elementwise(p, "d", "(input", CLS_PIXEL_F32), "leaves a bracket open");
    refused(cls_pipeline_add_elementwise(p, "d", "2.0f", CLS_PIXEL_F32), "reads no image");
    cls_spec u8_in = spec;
    u8_in.input_type = CLS_PIXEL_U8;
    refused(cls_pipeline_add_stage(p, "typed", &u8_in, "blur"), "stage 'typed' reads u8 but 'blur' holds f32");
    /* A stage nobody reads is refused at the launch: its result would be lost. */
    assert_int_equal(cls_pipeline_add_stage(p, "unused", &spec, "input"), CLS_OK);
    assert_int_equal(cls_pipeline_add_stage(p, "last", &spec, "input"), CLS_OK);
    float out[W * H];
    refused(cls_pipeline_run_host(p, a, out, &whole), "stage 'blur' is read by no later stage");
    assert_int_equal(cls_pipeline_intermediate_count(p), 0);
    cls_pipeline_release(p);

    /* Nothing may read an undefined border's unwritten pixels. */
    assert_int_equal(cls_pipeline_create(context, &p), CLS_OK);
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(cls_pipeline_add_stage(p, "rough", &spec, NULL), CLS_OK);
    refused(cls_pipeline_add_elementwise(p, "d", "input - rough", CLS_PIXEL_F32),
            "stage 'rough' has the undefined border");
    cls_pipeline_release(p);
    cls_operator_release(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsharp_masking),
        cmocka_unit_test(branches_join),
        cmocka_unit_test(two_inputs),
        cmocka_unit_test(five_inputs),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
