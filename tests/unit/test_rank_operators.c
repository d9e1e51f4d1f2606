/* test_rank_operators.c — the rank operators without a device: footprint shapes against their
 * definitions, every window's body within the body rules, the extremum stages and their van Herk
 * kernels, and the parser's refusals (the rank bodies' networks: test_rank_networks.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_check.h"
#include "rank_bodies.h"
#include "van_herk.h"

static void footprint_shapes(void **state)
{
    (void)state;
    const cls_footprint rect = {CLS_FOOTPRINT_RECT, 5, 3, NULL, 0}, cross = {CLS_FOOTPRINT_CROSS, 5, 3, NULL, 0},
                        disk = {CLS_FOOTPRINT_DISK, 5, 5, NULL, 0}, wide = {CLS_FOOTPRINT_DISK, 7, 3, NULL, 0},
                        point = {CLS_FOOTPRINT_DISK, 1, 1, NULL, 0}, line = {CLS_FOOTPRINT_DISK, 1, 9, NULL, 0};
    assert_int_equal(cls_footprint_count(&rect), 15);
    assert_int_equal(cls_footprint_count(&cross), 7);
    assert_int_equal(cls_footprint_count(&disk), 13); /* dx^2 + dy^2 <= 4 */
    /* x^2/9 + y^2 <= 1: the 7 pixels of the middle row and the centre column's 2 */
    assert_int_equal(cls_footprint_count(&wide), 7 + 2);
    assert_int_equal(cls_footprint_count(&point), 1);
    assert_int_equal(cls_footprint_count(&line), 9);
    assert_true(cls_footprint_contains(&disk, 2, 0));
    assert_false(cls_footprint_contains(&disk, 2, 1));
    assert_false(cls_footprint_contains(&cross, 1, 1));
    assert_false(cls_footprint_contains(&rect, 3, 0));
}

/* Every window the parser accepts gives a body within the rules (the parser validates it) and
 * within the size limit; rank filters stop at CLS_RANK_MAX_PIXELS. */
static void every_window_parses(void **state)
{
    (void)state;
    static const char *const kinds[] = {"median", "min", "max", "morphgradient", "percentile:37"};
    static const char *const shapes[] = {"rect", "cross", "disk"};
    for (unsigned w = 1; w <= CLS_MAX_MASK; w += 2)
        for (unsigned h = 1; h <= CLS_MAX_MASK; h += 2)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
                for (size_t s = 0; s < 3; ++s) {
                    if (k != 0 && (w % 4 != 1 || h % 4 != 1) && w != CLS_MAX_MASK) continue; /* min/max: a sample */
                    char text[64];
                    snprintf(text, sizeof text, "%s%s%ux%u,%s", kinds[k], strchr(kinds[k], ':') ? "," : ":", w, h, shapes[s]);
                    cls_operator *op = NULL;
                    const cls_status status = cls_operator_parse(text, &op);
                    const cls_footprint f = {(cls_footprint_shape)s, w, h, NULL, 0};
                    const int ranked = k == 0 || k == 4;
                    if (ranked && cls_footprint_count(&f) > CLS_RANK_MAX_PIXELS) {
                        assert_int_equal(status, CLS_ERR_INVALID_ARGUMENT);
                        assert_non_null(strstr(cls_last_error(), "at most 1024"));
                        continue;
                    }
                    if (status != CLS_OK) fail_msg("%s refused: %s", text, cls_last_error());
                    assert_true(strlen(cls_operator_spec(op)->body) <= CLS_BODY_MAX_BYTES);
                    cls_operator_release(op);
                }
}

/* The number of "#stage" lines of the operator's body. */
static unsigned stages_of(const char *text)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    unsigned count = 0;
    for (const char *at = cls_operator_spec(op)->body; (at = strstr(at, "#stage ")); ++at) ++count;
    cls_operator_release(op);
    return count;
}

/* The body of the operator TEXT (freed by the caller with cls_operator_release of *op). */
static const char *body_of(const char *text, cls_operator **op)
{
    if (cls_operator_parse(text, op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    return cls_operator_spec(*op)->body;
}

/* A rectangle's minimum and maximum: from a side of 7 on by van Herk/Gil-Werman, one extremum
 * stage (rows, then columns) up to 31x31, a row and a column stage beyond; below 7, more than 25
 * pixels as a row pass and a column pass of direct loops; smaller rectangles and other shapes as
 * one kernel. */
static void rectangles_separate(void **state)
{
    (void)state;
    assert_int_equal(stages_of("min:5x5"), 0);
    assert_int_equal(stages_of("max:5x1"), 0);
    assert_int_equal(stages_of("min:7x7,disk"), 0);
    assert_int_equal(stages_of("morphgradient:9"), 0);
    assert_int_equal(stages_of("min:5x3"), 0);
    assert_int_equal(stages_of("opening:5"), 2);
    assert_int_equal(stages_of("max:31x1"), 1);
    assert_int_equal(stages_of("min:7x5"), 1);
    assert_int_equal(stages_of("dilate:15"), 1);
    assert_int_equal(stages_of("dilate:31"), 1);
    assert_int_equal(stages_of("min:17x3"), 1);
    assert_int_equal(stages_of("min:33x31"), 2);
    assert_int_equal(stages_of("tophat:7x5"), 2);
    assert_int_equal(stages_of("blackhat:31x9"), 2);
    assert_int_equal(stages_of("min:63"), 2);
    assert_int_equal(stages_of("max:33x3"), 2);
    cls_operator *op = NULL;
    const char *body = body_of("max:9x7", &op);
    assert_non_null(strstr(body, "#stage 9x7 max\n"));
    assert_int_equal(cls_operator_spec(op)->mask_width, 9);
    assert_int_equal(cls_operator_spec(op)->mask_height, 7);
    assert_string_equal(cls_operator_name(op), "max:9x7,rect");
    cls_operator_release(op);
    body = body_of("erode:1x9", &op);
    assert_non_null(strstr(body, "#stage 1x9 min\n"));
    cls_operator_release(op);
    body = body_of("min:33x5", &op);
    assert_non_null(strstr(body, "#stage 33x1 min\n"));
    assert_true(strstr(body, "#stage 33x1 min") < strstr(body, "#stage 1x5 min"));
    cls_operator_release(op);
    body = body_of("min:5x3", &op); /* one kernel of direct loops */
    assert_non_null(strstr(body, "fmin"));
    cls_operator_release(op);
    body = body_of("opening:5x5", &op); /* extremum stages, run by the direct loops (staged_body.h) */
    assert_non_null(strstr(body, "#stage 5x5 min\n"));
    assert_non_null(strstr(body, "#stage 5x5 max\n"));
    cls_operator_release(op);
}

/* The source of the operator TEXT's spec in BORDER and TYPE (freed by the caller). */
static char *source_of(const char *text, cls_border border, cls_pixel_type type)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.input_type = spec.output_type = type;
    char *source = NULL;
    if (cls_generate_source(&spec, 32, &source) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_operator_release(op);
    return source;
}

/* The extremum stages' sources: a van Herk kernel each, in the stage's border mode and types. */
static void van_herk_sources(void **state)
{
    (void)state;
    char *source = source_of("min:15x15", CLS_BORDER_MIRROR101, CLS_PIXEL_U8);
    assert_non_null(strstr(source, "Stage 1 of 1: a 15x15 window over the input, into the output: its minimum"));
    assert_non_null(strstr(source, "one kernel walking down strips of the image, border mirror101"));
    assert_non_null(strstr(source, "#define EXTREME(a, b) fmin(a, b)"));
    assert_non_null(strstr(source, "__global const uchar *restrict input"));
    assert_non_null(strstr(source, "convert_uchar_sat_rte"));
    cls_free(source);
    source = source_of("max:63x63", CLS_BORDER_UNDEFINED, CLS_PIXEL_F32);
    assert_non_null(strstr(source, "Stage 1 of 2: a 63x1 window over the input, into an f32 image: its maximum"));
    assert_non_null(strstr(source, "Stage 2 of 2: a 1x63 window over stage 1's f32 image, into the output: its maximum"));
    assert_non_null(strstr(source, "the row pass, border clamp")); /* the undefined border runs as clamp */
    assert_non_null(strstr(source, "the column pass, border clamp"));
    assert_non_null(strstr(source, "#define NEUTRAL -INFINITY"));
    cls_free(source);
    source = source_of("opening:9x3", CLS_BORDER_CONSTANT, CLS_PIXEL_F32);
    assert_non_null(strstr(source, "inside_x[k] && inside_both(y, height) ? (float)row[across[k]] : border_value"));
    cls_free(source);
    /* in lanes (CPU runtimes): a window up to 31 wide by row extremes in float8s, then van Herk
     * down the columns; wider rows keep the row pass */
    cls_spec stage;
    cls_spec_init(&stage);
    stage.mask_width = 31, stage.mask_height = 11, stage.border = CLS_BORDER_CONSTANT, stage.input_type = CLS_PIXEL_F16;
    cls_van_herk_launch launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    assert_true(launch.lanes);
    assert_int_equal(launch.tile_width, CLS_VAN_HERK_LANES);
    assert_int_equal(launch.tile_height % 11, 0);
    char *lanes = cls_van_herk_source(&stage, 0, &launch);
    assert_non_null(strstr(lanes, "in lanes (each row's extreme across the window, then the columns)"));
    assert_non_null(strstr(lanes, "typedef float8 lanes_t;"));
    assert_non_null(strstr(lanes, "if (!inside_both(yy, height)) return (lanes_t)(border_value);"));
    assert_non_null(strstr(lanes, "e = EXTREME(e, (float8)(vload_half(0, line + x - HALF_W + dx), "));
    assert_non_null(strstr(lanes, "for (int i = 0; i < KH; ++i) h[i] = ROW(y0 - HALF_H + i);"));
    assert_null(strstr(lanes, "#pragma unroll\n    for (int i = 0; i < KH; ++i) h[i]")); /* 11 rows: loops */
    free(lanes);
    stage.mask_height = 7; /* a short window: its column walk unrolled */
    launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    lanes = cls_van_herk_source(&stage, 0, &launch);
    assert_non_null(strstr(lanes, "#pragma unroll\n    for (int i = 0; i < KH; ++i) h[i] = ROW(y0 - HALF_H + i);"));
    assert_non_null(strstr(lanes, "#pragma unroll\n        for (int i = 0; i < KH; ++i) v[i] = ROW("));
    free(lanes);
    stage.mask_height = 1; /* a row: its extremes alone */
    launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    lanes = cls_van_herk_source(&stage, 1, &launch);
    assert_non_null(strstr(lanes, "for (int y = y0; y < y0 + SEGMENTS && y < roi.w; ++y) STORE(ROW(y), y);"));
    free(lanes);
    stage.mask_width = 33;
    assert_false(cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES).lanes);
}

/* A spec of a W x H window of ones running BODY. */
static cls_status check_body(const char *body, unsigned width, unsigned height)
{
    static float ones[63 * 63];
    for (size_t k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = width;
    spec.mask_height = height;
    spec.coefficients = ones;
    spec.body = body;
    return cls_spec_validate(&spec);
}

/* An extremum stage's line: a window of a row, a column or a rectangle up to 63x63, min or max,
 * and comments alone after it. */
static void extremum_stage_rules(void **state)
{
    (void)state;
    assert_int_equal(check_body("#stage 63x1 min\n/* rows */\n#stage 1x63 max\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 31x63 max\n#combine input - result\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 33x3 min\n", 33, 3), CLS_OK);
    assert_int_equal(check_body("#stage 63x63 max\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 3x3 min\nOUT = IN(0, 0);\n", 3, 3), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "only comments may follow an extremum stage's line"));
    assert_int_equal(check_body("#stage 3x3 median\n", 3, 3), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "then min or max for an extremum stage"));
}

static void refused(const char *text, const char *message)
{
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse(text, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' gave '%s', not '%s'", text, cls_last_error(), message);
}

static void refusals_name_the_rule(void **state)
{
    (void)state;
    refused("median:4", "odd sides up to 63");
    refused("median:3,square", "SHAPE rect (default), cross or disk");
    refused("median:33", "holds 1089 pixels: rank filters select among at most 1024");
    refused("percentile:-1,3", "from 0 to 100");
    refused("percentile:3", "expected percentile:P,SIZE");
    refused("min:65", "odd sides up to 63");
    refused("log:8", "larger than 63: give a SIZE");
    refused("dog:1,0", "SIGMA2 '0' is not a finite number above 0");
    refused("unsharp:1,inf", "a finite AMOUNT");
    refused("unsharp:1,1e300", "AMOUNT is too large");
    refused("log:1e-150,3", "SIGMA is too small");
    refused("tonemap:-1", "tonemap:SCALE");
    refused("correlate:2x64,1", "expected correlate:WxH");
    refused("nosuch:3", "unknown operator");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(footprint_shapes),
        cmocka_unit_test(every_window_parses),
        cmocka_unit_test(refusals_name_the_rule), cmocka_unit_test(rectangles_separate),
        cmocka_unit_test(van_herk_sources),    cmocka_unit_test(extremum_stage_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
