/* test_compositions.c — the morphological compositions (opening, closing and the top-hats) and a
 * rectangle's minimum and maximum, which run in stages (van Herk kernels from a side of 7 on), on the
 * default device through the C API:
 * a filter with a region of interest, row pitches and offsets on u8 images; the top-hats'
 * subtraction in their last van Herk pass, in every form of it; the undefined border,
 * which writes only the pixels whose window fits; a pipeline stage after another; the
 * first-result, fastest and tiered builds giving the same bits. Their stages run as stages here
 * (CLSTENCIL_MORPHOLOGY=stages; GPUs fuse two extremum stages into one kernel, which
 * test_fused_stages checks on any device). The oracle is grey erosion and dilation written here
 * from their definitions, with the CPU reference's border indexing. (scipy.ndimage checks every
 * border mode and footprint: python/tests/test_morphology_compositions.py.) */
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
#include "support/context_fixture.h"
#include "support/u8_rows.h"

enum { W = 23, H = 17 };

/* The minimum (or the maximum) of IN (W x H doubles) over the footprint CELLS (fw x fh); the
 * maximum takes the footprint reflected, as grey dilation does. Outside the image the border
 * mode's pixel, or VALUE in constant mode. */
static void extremum(const double *in, const unsigned char *cells, int fw, int fh, int maximum, cls_border border,
                     double value, double *out)
{
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            double best = maximum ? -INFINITY : INFINITY;
            for (int j = 0; j < fh; ++j)
                for (int i = 0; i < fw; ++i) {
                    if (!cells[j * fw + i]) continue;
                    const int dx = maximum ? fw / 2 - i : i - fw / 2, dy = maximum ? fh / 2 - j : j - fh / 2;
                    const long px = ref_border_index(border, x + dx, W), py = ref_border_index(border, y + dy, H);
                    const double v = px < 0 || py < 0 ? value : in[py * W + px];
                    best = maximum ? fmax(best, v) : fmin(best, v);
                }
            out[y * W + x] = best;
        }
}

/* The composition NAME ("opening", "closing", "tophat", "blackhat") of IN over the footprint. */
static void composition(const char *name, const double *in, const unsigned char *cells, int fw, int fh,
                        cls_border border, double value, double *out)
{
    double first[W * H], second[W * H];
    const int dilate_first = strcmp(name, "closing") == 0 || strcmp(name, "blackhat") == 0;
    extremum(in, cells, fw, fh, dilate_first, border, value, first);
    extremum(first, cells, fw, fh, !dilate_first, border, value, second);
    for (int k = 0; k < W * H; ++k)
        out[k] = strcmp(name, "tophat") == 0 ? in[k] - second[k] : strcmp(name, "blackhat") == 0 ? second[k] - in[k]
                                                                                              : second[k];
}

static cls_filter *create(const char *text, cls_border border, cls_pixel_type in, cls_pixel_type out,
                          cls_build_goal goal)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.input_type = in;
    spec.output_type = out;
    spec.build_goal = goal;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_operator_release(op);
    return filter;
}

/* A black top-hat of a u8 image inside larger rows (pitch, offset), written into a region of
 * interest of an output with its own pitch and offset: every pixel of the region is the
 * definition's, every byte outside it untouched. (The white top-hat differs only in the sign of
 * the difference; Python's tests run both on the whole image.) */
static void region_pitch_and_offset(void **state)
{
    (void)state;
    enum { IN_PITCH = W + 5, IN_OFFSET = 3, OUT_PITCH = W + 3, OUT_OFFSET = 2 };
    uint8_t input[IN_OFFSET + IN_PITCH * H], output[OUT_OFFSET + OUT_PITCH * H];
    double image[W * H], expected[W * H];
    make_rows_u8(input, sizeof input, 7, IN_OFFSET, IN_PITCH, W, H, image);
    static const unsigned char cross[15] = {0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0}; /* 3 wide, 5 tall */
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .input_row_pitch = IN_PITCH,
                                 .output_row_pitch = OUT_PITCH,
                                 .input_offset = IN_OFFSET, .output_offset = OUT_OFFSET,
                                 .roi_x = 3, .roi_y = 2, .roi_width = 11, .roi_height = 9};
    static const char *const names[] = {"blackhat"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
        char text[32];
        snprintf(text, sizeof text, "%s:3x5,cross", names[n]);
        cls_filter *filter = create(text, CLS_BORDER_MIRROR, CLS_PIXEL_U8, CLS_PIXEL_U8, CLS_BUILD_FIRST_RESULT);
        assert_int_equal(cls_filter_output_count(filter), 1);
        memset(output, 0xAB, sizeof output);
        assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
        composition(names[n], image, cross, 3, 5, CLS_BORDER_MIRROR, 0, expected);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const int inside = x >= 3 && x < 14 && y >= 2 && y < 11;
                const int got = output[OUT_OFFSET + y * OUT_PITCH + x];
                const int want = inside ? (int)ref_to_output(CLS_PIXEL_U8, expected[y * W + x]) : 0xAB;
                if (got != want) fail_msg("%s at (%d, %d): %d, expected %d", text, x, y, got, want);
            }
        assert_int_equal(output[0], 0xAB);
        cls_filter_release(filter);
    }
}

/* A top-hat whose last stage is a van Herk pass subtracts there (two kernels, no combination's):
 * the tile kernel, the strip walker and the lanes kernel (CLSTENCIL_VAN_HERK), and the row and
 * column passes of staged bodies whose last stage is a row or a column, each into a u8 region of
 * interest with pitches and offsets (negative differences saturate), against the definition. */
static void top_hats_subtract_in_their_last_pass(void **state)
{
    (void)state;
    enum { IN_PITCH = W + 5, IN_OFFSET = 3, OUT_PITCH = W + 3, OUT_OFFSET = 2, RX = 2, RY = 3, RW = 19, RH = 12 };
    uint8_t input[IN_OFFSET + IN_PITCH * H], output[OUT_OFFSET + OUT_PITCH * H];
    double image[W * H], first[W * H], expected[W * H];
    make_rows_u8(input, sizeof input, 11, IN_OFFSET, IN_PITCH, W, H, image);
    static unsigned char ones[33 * 7];
    memset(ones, 1, sizeof ones);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .input_row_pitch = IN_PITCH,
                                 .output_row_pitch = OUT_PITCH, .input_offset = IN_OFFSET, .output_offset = OUT_OFFSET,
                                 .roi_x = RX, .roi_y = RY, .roi_width = RW, .roi_height = RH};
    static const struct {
        const char *body;   /* a staged body, or NULL: the composition over a 7x5 rectangle */
        int white;          /* input - result, else result - input */
        int fw[2], fh[2];   /* the stages' windows */
        cls_border border;
    } cases[] = {
        {NULL, 1, {7, 7}, {5, 5}, CLS_BORDER_MIRROR},
        {NULL, 0, {7, 7}, {5, 5}, CLS_BORDER_CONSTANT},
        {"#stage 1x7 min\n#stage 33x1 max\n#combine input - result\n", 1, {1, 33}, {7, 1}, CLS_BORDER_MIRROR101},
        {"#stage 33x1 max\n#stage 1x7 min\n#combine result - input\n", 0, {33, 1}, {1, 7}, CLS_BORDER_REPEAT},
    };
    static const char *const forms[] = {"tiles", "strips", "lanes"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
        setenv("CLSTENCIL_VAN_HERK", forms[f], 1);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            cls_operator *op = NULL;
            const cls_status parsed = cases[c].body ? cls_operator_user(cases[c].body, 33, 7, NULL, &op)
                                                    : cls_operator_parse(cases[c].white ? "tophat:7x5" : "blackhat:7x5", &op);
            if (parsed != CLS_OK) fail_msg("case %zu: %s", c, cls_last_error());
            cls_spec spec = *cls_operator_spec(op);
            spec.border = cases[c].border;
            spec.border_value = 40.0f;
            spec.input_type = spec.output_type = CLS_PIXEL_U8;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("case %zu: %s", c, cls_last_error());
            assert_int_equal(cls_filter_kernel_count(filter), 2);
            memset(output, 0xAB, sizeof output);
            assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
            const int dilate_first = !cases[c].white;
            extremum(image, ones, cases[c].fw[0], cases[c].fh[0], dilate_first, cases[c].border, 40.0, first);
            extremum(first, ones, cases[c].fw[1], cases[c].fh[1], !dilate_first, cases[c].border, 40.0, expected);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const double difference = cases[c].white ? image[y * W + x] - expected[y * W + x]
                                                             : expected[y * W + x] - image[y * W + x];
                    const int inside = x >= RX && x < RX + RW && y >= RY && y < RY + RH;
                    const int got = output[OUT_OFFSET + y * OUT_PITCH + x];
                    const int want = inside ? (int)ref_to_output(CLS_PIXEL_U8, difference) : 0xAB;
                    if (got != want) fail_msg("%s, case %zu at (%d, %d): %d, expected %d", forms[f], c, x, y, got, want);
                }
            cls_filter_release(filter);
            cls_operator_release(op);
        }
    }
    unsetenv("CLSTENCIL_VAN_HERK");
}

/* The undefined border: the staged filter writes the pixels of its region of interest whose whole
 * window lies inside the image, each the clamp mode's value (which no clamped pixel reaches
 * there), and leaves every other byte alone; an image smaller than the window gets nothing. */
static void undefined_border_writes_the_interior(void **state)
{
    (void)state;
    uint8_t input[W * H], output[W * H];
    double image[W * H], expected[W * H];
    for (int k = 0; k < W * H; ++k) image[k] = input[k] = (uint8_t)((k * 89) % 251);
    unsigned char rect[35];
    memset(rect, 1, sizeof rect);
    static const unsigned char square[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    const struct {
        const char *text;
        int rx, ry; /* the reach of every stage together */
    } cases[] = {{"min:7x5", 3, 2}, {"opening:3", 2, 2}};
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .roi_x = 1, .roi_y = 0,
                                 .roi_width = 15, .roi_height = 12};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_filter *filter = create(cases[c].text, CLS_BORDER_UNDEFINED, CLS_PIXEL_U8, CLS_PIXEL_U8, CLS_BUILD_FIRST_RESULT);
        if (c == 0) extremum(image, rect, 7, 5, 0, CLS_BORDER_CLAMP, 0, expected);
        else composition("opening", image, square, 3, 3, CLS_BORDER_CLAMP, 0, expected);
        memset(output, 0xAB, sizeof output);
        assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const int written = x >= 1 && x < 16 && y < 12 && x >= cases[c].rx && x < W - cases[c].rx &&
                                    y >= cases[c].ry && y < H - cases[c].ry;
                const int want = written ? (int)ref_to_output(CLS_PIXEL_U8, expected[y * W + x]) : 0xAB;
                if (output[y * W + x] != want)
                    fail_msg("%s at (%d, %d): %d, expected %d", cases[c].text, x, y, output[y * W + x], want);
            }
        const cls_image_desc narrow = {CLS_IMAGE_DESC_INIT, .width = 2 * (size_t)cases[c].rx, .height = H};
        memset(output, 0xAB, sizeof output);
        assert_int_equal(cls_filter_run_host(filter, input, output, &narrow), CLS_OK);
        for (size_t k = 0; k < narrow.width * H; ++k) assert_int_equal(output[k], 0xAB);
        cls_filter_release(filter);
    }
}

/* max:3 then a closing in one pipeline, constant border 0.25, against the definition. */
static void pipeline_stage(void **state)
{
    (void)state;
    float input[W * H], output[W * H];
    double image[W * H], widened[W * H], expected[W * H];
    for (int k = 0; k < W * H; ++k) image[k] = input[k] = (float)((k * 37) % 101) / 101.0f;
    static const unsigned char square[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const unsigned char disk[25] = {0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0};
    extremum(image, square, 3, 3, 1, CLS_BORDER_CONSTANT, 0.25, widened);
    composition("closing", widened, disk, 5, 5, CLS_BORDER_CONSTANT, 0.25, expected);
    cls_pipeline *pipeline = NULL;
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    static const char *const stages[] = {"max:3", "closing:5,disk"};
    for (int k = 0; k < 2; ++k) {
        cls_operator *op = NULL;
        assert_int_equal(cls_operator_parse(stages[k], &op), CLS_OK);
        cls_spec spec = *cls_operator_spec(op);
        spec.border = CLS_BORDER_CONSTANT;
        spec.border_value = 0.25f;
        assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_OK);
        cls_operator_release(op);
    }
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_pipeline_run_host(pipeline, input, output, &desc), CLS_OK);
    for (int k = 0; k < W * H; ++k)
        if (output[k] != (float)expected[k]) fail_msg("pixel %d: %g, expected %g", k, output[k], expected[k]);
    cls_pipeline_release(pipeline);
}

/* Every build goal runs the same stages: the same bits; the source shows the stages, a 7x5
 * rectangle's erosion and dilation each one van Herk kernel, a 33x3 one's a row pass and a
 * column pass. */
static void build_goals_agree(void **state)
{
    (void)state;
    float input[W * H], first[W * H], other[W * H];
    for (int k = 0; k < W * H; ++k) input[k] = (float)((k * 53) % 97) / 97.0f;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    cls_filter *quick = create("opening:7x5", CLS_BORDER_REPEAT, CLS_PIXEL_F32, CLS_PIXEL_F32, CLS_BUILD_FIRST_RESULT);
    assert_int_equal(cls_filter_run_host(quick, input, first, &desc), CLS_OK);
    const char *source = cls_filter_source(quick);
    assert_non_null(strstr(source, "Stage 1 of 2: a 7x5 window over the input, into an f32 image: its minimum"));
    assert_non_null(strstr(source, "Stage 2 of 2: a 7x5 window over stage 1's f32 image, into the output: its maximum"));
    cls_filter_release(quick);
    cls_filter *wide = create("min:33x3", CLS_BORDER_REPEAT, CLS_PIXEL_F32, CLS_PIXEL_F32, CLS_BUILD_FIRST_RESULT);
    assert_non_null(strstr(cls_filter_source(wide), "Stage 1 of 2: a 33x1 window over the input"));
    assert_non_null(strstr(cls_filter_source(wide), "Stage 2 of 2: a 1x3 window over stage 1's f32 image"));
    cls_filter_release(wide);
    static const cls_build_goal goals[] = {CLS_BUILD_FASTEST_KERNEL, CLS_BUILD_TIERED};
    for (int g = 0; g < 2; ++g) {
        cls_filter *filter = create("opening:7x5", CLS_BORDER_REPEAT, CLS_PIXEL_F32, CLS_PIXEL_F32, goals[g]);
        assert_int_equal(cls_filter_wait(filter), CLS_OK);
        assert_int_equal(cls_filter_run_host(filter, input, other, &desc), CLS_OK);
        assert_memory_equal(first, other, sizeof first);
        cls_filter_release(filter);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(region_pitch_and_offset),
        cmocka_unit_test(top_hats_subtract_in_their_last_pass),
        cmocka_unit_test(undefined_border_writes_the_interior),
        cmocka_unit_test(pipeline_stage),
        cmocka_unit_test(build_goals_agree),
    };
    setenv("CLSTENCIL_MORPHOLOGY", "stages", 1);
    return cmocka_run_group_tests(tests, setup, teardown);
}
