/* test_operators_parse.c — the operator library's parser without a device: convolve's flip
 * against correlate, the Gaussian-derived masks against their formulas, footprints read from
 * mask files, the morphological compositions and the rules of staged bodies, and the refusals of
 * each, whose messages name the problem. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "rank_bodies.h"
#include "staged_body.h"

#include <unistd.h>

/* Parses TEXT, which must succeed. */
static cls_operator *parsed(const char *text)
{
    cls_operator *op = NULL;
    const cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_OK) fail_msg("'%s' was refused: %s", text, cls_last_error());
    return op;
}

/* TEXT is refused as an invalid argument with a message holding MESSAGE. */
static void refused(const char *text, const char *message)
{
    cls_operator *op = NULL;
    const cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_ERR_INVALID_ARGUMENT) fail_msg("'%s' gave %s, not CLS_ERR_INVALID_ARGUMENT", text, cls_status_name(status));
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s': '%s' lacks '%s'", text, cls_last_error(), message);
}

static void convolve_flips_and_correlate_does_not(void **state)
{
    (void)state;
    cls_operator *c = parsed("convolve:3x3,1,2,3,4,5,6,7,8,9"), *r = parsed("correlate:3x3,1,2,3,4,5,6,7,8,9");
    for (unsigned k = 0; k < 9; ++k) {
        assert_float_equal(cls_operator_spec(c)->coefficients[k], (float)(9 - k), 0);
        assert_float_equal(cls_operator_spec(r)->coefficients[k], (float)(k + 1), 0);
    }
    assert_string_equal(cls_operator_name(c), "convolve:3x3");
    assert_string_equal(cls_operator_name(r), "correlate:3x3");
    cls_operator_release(c);
    cls_operator_release(r);
    cls_operator *row = parsed("convolve:5x1,1,2,3,4,5");
    for (unsigned k = 0; k < 5; ++k) assert_float_equal(cls_operator_spec(row)->coefficients[k], (float)(5 - k), 0);
    cls_operator_release(row);
    refused("convolve:64x1,1", "expected convolve:WxH");
    refused("convolve:3x3,1,2", "exactly W*H");
}

/* The 1-D weights of derivative ORDER as the test states them: g(i) = exp(-i^2 / 2 sigma^2) / sum,
 * times 1, i / sigma^2 (the slope of a ramp comes out positive) or (i^2 - sigma^2) / sigma^4. */
static double derivative_weight(int i, int half, double sigma, unsigned order)
{
    double total = 0;
    for (int k = -half; k <= half; ++k) total += exp(-(double)(k * k) / (2 * sigma * sigma));
    const double g = exp(-(double)(i * i) / (2 * sigma * sigma)) / total, s2 = sigma * sigma;
    return order == 0 ? g : order == 1 ? i / s2 * g : (i * i - s2) / (s2 * s2) * g;
}

static void gaussian_derivatives_are_products_of_the_weights(void **state)
{
    (void)state;
    static const unsigned orders[][2] = {{1, 0}, {0, 1}, {2, 0}, {1, 2}, {0, 0}, {2, 2}};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; ++t) {
        char text[64];
        snprintf(text, sizeof text, "gaussian_d:1.3,%u,%u,7", orders[t][0], orders[t][1]);
        cls_operator *op = parsed(text);
        const cls_spec *spec = cls_operator_spec(op);
        assert_int_equal(spec->mask_width, 7);
        assert_int_equal(spec->mask_height, 7);
        assert_null(spec->body);
        for (int j = -3; j <= 3; ++j)
            for (int i = -3; i <= 3; ++i) {
                const double expected = derivative_weight(i, 3, 1.3, orders[t][0]) * derivative_weight(j, 3, 1.3, orders[t][1]);
                assert_float_equal(spec->coefficients[(j + 3) * 7 + i + 3], expected, 1e-7 + 1e-6 * fabs(expected));
            }
        cls_operator_release(op);
    }
    /* the Laplacian of Gaussian is the sum of the two second derivatives */
    cls_operator *xx = parsed("gaussian_d:1.5,2,0,9"), *yy = parsed("gaussian_d:1.5,0,2,9"), *log = parsed("log:1.5,9");
    for (unsigned k = 0; k < 81; ++k)
        assert_float_equal(cls_operator_spec(xx)->coefficients[k] + cls_operator_spec(yy)->coefficients[k],
                           cls_operator_spec(log)->coefficients[k], 1e-6);
    assert_string_equal(cls_operator_name(xx), "gaussian_d:1.5,2,0,9");
    cls_operator_release(xx);
    cls_operator_release(yy);
    cls_operator_release(log);
    /* the default window is scipy's truncate 4.0: 2 * int(4 * 1.5 + 0.5) + 1 */
    cls_operator *fallback = parsed("GAUSSIAN_D:1.5,1,1");
    assert_int_equal(cls_operator_spec(fallback)->mask_width, 13);
    assert_string_equal(cls_operator_name(fallback), "gaussian_d:1.5,1,1,13");
    cls_operator_release(fallback);
}

static void gaussian_derivative_refusals(void **state)
{
    (void)state;
    refused("gaussian_d:1,3,0", "orders 0, 1 or 2");
    refused("gaussian_d:1,0,-1", "orders 0, 1 or 2");
    refused("gaussian_d:1,0.5,1", "orders 0, 1 or 2");
    refused("gaussian_d:1,1", "expected gaussian_d:SIGMA,ORDER_X,ORDER_Y[,SIZE]");
    refused("gaussian_d:1,1,1,5,5", "expected gaussian_d:SIGMA,ORDER_X,ORDER_Y[,SIZE]");
    refused("gaussian_d:0,1,1", "SIGMA '0' is not a finite number above 0");
    refused("gaussian_d:x,1,1", "SIGMA 'x'");
    refused("gaussian_d:1,1,1,4", "the window SIZE must be odd");
    refused("gaussian_d:8,1,0", "larger than 63: give a SIZE");
    refused("gaussian_d:1e-20,2,0,3", "SIGMA is too small");
}

/* The sum of the coefficients of the operator TEXT's mask. */
static double mask_sum(const char *text)
{
    cls_operator *op = parsed(text);
    const cls_spec *spec = cls_operator_spec(op);
    const size_t taps = (size_t)spec->mask_width * spec->mask_height;
    double sum = 0;
    for (size_t k = 0; k < taps; ++k) sum += spec->coefficients[k];
    cls_operator_release(op);
    return sum;
}

static void gaussian_family_masks(void **state)
{
    (void)state;
    /* G(1) - G(2): one mask summing to 0, its centre g1(0)^2 - g2(0)^2 */
    assert_true(fabs(mask_sum("dog:1,2,9")) < 1e-6);
    /* a second derivative: almost no response to a constant (-1.9e-4 after truncation at 4 sigma, as scipy's) */
    assert_true(fabs(mask_sum("log:1.5") + 1.9226e-4) < 1e-7);
    assert_true(fabs(mask_sum("unsharp:2,0.5") - 1) < 1e-6);
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse("dog:1,2", &op), CLS_OK);
    assert_true(cls_operator_spec(op)->mask_count <= 1);
    assert_null(cls_operator_spec(op)->epilogue);
    assert_string_equal(cls_operator_name(op), "dog:1,2,17");
    double g1 = 0, g2 = 0;
    for (int i = -8; i <= 8; ++i) g1 += exp(-0.5 * i * i), g2 += exp(-0.125 * i * i);
    assert_true(fabs(cls_operator_spec(op)->coefficients[8 * 17 + 8] - (1 / (g1 * g1) - 1 / (g2 * g2))) < 1e-7);
    cls_operator_release(op);
    /* the centre of the Laplacian of Gaussian of sigma 1: 2 * (-1) * g(0)^2, g(0) = 1 / sum exp(-i^2/2) */
    assert_int_equal(cls_operator_parse("log:1,3", &op), CLS_OK);
    const double g0 = 1 / (1 + 2 * exp(-0.5));
    assert_true(fabs(cls_operator_spec(op)->coefficients[4] - (-2 * g0 * g0)) < 1e-6);
    cls_operator_release(op);
}

/* The temporary folder of the footprint files, and their names (removed at the end). */
static char folder[64] = "";
static const char *const footprint_files[] = {"l, shape.txt", "big.txt", "bad.txt", "square.txt"};

static int remove_footprints(void **state)
{
    (void)state;
    if (!folder[0]) return 0;
    for (size_t k = 0; k < sizeof footprint_files / sizeof footprint_files[0]; ++k) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", folder, footprint_files[k]);
        unlink(path);
    }
    return rmdir(folder);
}

/* A footprint file NAME (one of footprint_files) holding TEXT, in a fresh temporary folder; its
 * path in PATH. */
static void write_footprint(char path[128], const char *name, const char *text)
{
    if (!folder[0]) {
        snprintf(folder, sizeof folder, "/tmp/cls_footprints_XXXXXX");
        assert_non_null(mkdtemp(folder));
    }
    snprintf(path, 128, "%s/%s", folder, name);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    fputs(text, file);
    fclose(file);
}

/* Parses "KIND:mask:PATH" ("KIND:P,mask:PATH" when PREFIX is "percentile:P,"). */
static cls_operator *parsed_with_mask(const char *prefix, const char *path)
{
    char text[256];
    snprintf(text, sizeof text, "%smask:%s", prefix, path);
    return parsed(text);
}

static void footprints_come_from_mask_files(void **state)
{
    (void)state;
    char path[128];
    /* an L: (-1,-1) (-1,0) (-1,1) (0,1) (1,1) and the centre is not in it */
    write_footprint(path, "l, shape.txt", "# an L, drawn\n1 0 0\r\n\n1,0,0\n111\n");
    cls_operator *op = parsed_with_mask("min:", path);
    const cls_spec *spec = cls_operator_spec(op);
    assert_int_equal(spec->mask_width, 3);
    assert_int_equal(spec->mask_height, 3);
    static const float cells[9] = {1, 0, 0, 1, 0, 0, 1, 1, 1};
    for (unsigned k = 0; k < 9; ++k) assert_float_equal(spec->coefficients[k], cells[k], 0);
    assert_non_null(strstr(spec->body, "if (!(MASK(dx, dy) != 0.0f)) continue;"));
    char name[256];
    snprintf(name, sizeof name, "min:mask:%s", path);
    assert_string_equal(cls_operator_name(op), name);
    cls_operator_release(op);
    /* dilate is grey dilation: the footprint reflected; max keeps it as written */
    op = parsed_with_mask("DILATE:", path);
    assert_non_null(strstr(cls_operator_spec(op)->body, "if (!(MASK(-dx, -dy) != 0.0f)) continue;"));
    assert_non_null(strstr(cls_operator_spec(op)->body, "3x3 mask reflected (5 pixels)"));
    for (unsigned k = 0; k < 9; ++k) assert_float_equal(cls_operator_spec(op)->coefficients[k], cells[k], 0);
    snprintf(name, sizeof name, "dilate:mask:%s", path);
    assert_string_equal(cls_operator_name(op), name);
    cls_operator_release(op);
    op = parsed_with_mask("max:", path);
    assert_non_null(strstr(cls_operator_spec(op)->body, "if (!(MASK(dx, dy) != 0.0f)) continue;"));
    cls_operator_release(op);
    op = parsed_with_mask("morphgradient:", path);
    assert_non_null(strstr(cls_operator_spec(op)->body, "if (MASK(dx, dy) != 0.0f) lowest = fmin(lowest, v);"));
    assert_non_null(strstr(cls_operator_spec(op)->body, "if (MASK(-dx, -dy) != 0.0f) highest = fmax(highest, v);"));
    cls_operator_release(op);
    /* the median network loads the five pixels, row by row */
    op = parsed_with_mask("median:", path);
    const char *body = cls_operator_spec(op)->body;
    assert_non_null(strstr(body, "value_t p0 = IN(-1, -1);\nvalue_t p1 = IN(-1, 0);\nvalue_t p2 = IN(-1, 1);\n"
                                 "value_t p3 = IN(0, 1);\nvalue_t p4 = IN(1, 1);\n"));
    assert_non_null(strstr(body, "OUT = p2;"));
    cls_operator_release(op);
    /* percentile 30 of 5 pixels: rank floor(5 * 0.3) = 1 */
    op = parsed_with_mask("percentile:30,", path);
    assert_non_null(strstr(cls_operator_spec(op)->body, "OUT = p1;"));
    snprintf(name, sizeof name, "percentile:30,mask:%s", path);
    assert_string_equal(cls_operator_name(op), name);
    cls_operator_release(op);
    /* dilate of a symmetric shape is max, as before */
    op = parsed("dilate:3x5,cross");
    assert_string_equal(cls_operator_name(op), "max:3x5,cross");
    cls_operator_release(op);
    /* a large footprint: the median selects from a private array, testing the mask */
    char big[64 * 64 + 64] = "";
    for (int row = 0; row < 11; ++row) strcat(big, row == 5 ? "11111111111\n" : "10101010101\n");
    write_footprint(path, "big.txt", big);
    op = parsed_with_mask("median:", path);
    assert_non_null(strstr(cls_operator_spec(op)->body, "if (MASK(dx, dy) != 0.0f) values[count++] = IN(dx, dy);"));
    cls_operator_release(op);
}

/* "KIND:mask:PATH" of a file holding TEXT is refused with MESSAGE (which names the file). */
static void refused_file(const char *kind, const char *text, const char *message)
{
    char path[128], operator_text[256], expected[256];
    write_footprint(path, "bad.txt", text);
    snprintf(operator_text, sizeof operator_text, "%s:mask:%s", kind, path);
    snprintf(expected, sizeof expected, "footprint file %s%s", path, message);
    refused(operator_text, expected);
}

static void mask_file_refusals_name_file_and_line(void **state)
{
    (void)state;
    refused_file("min", "010\n1x1\n010\n", ", line 2: 'x' is not a cell (0 or 1)");
    refused_file("max", "010\n11\n010\n", ", line 2: 2 cells, but the first row has 3");
    refused_file("median", "000\n000\n000\n", ": no cell is 1, the footprint is empty");
    refused_file("erode", "# nothing\n\n", ": no rows of 0s and 1s in it");
    refused_file("min", "1\n1\n\x01\n", ", line 3: byte 0x01 is not a cell (0 or 1)");
    char wide[80] = "";
    for (int k = 0; k < 64; ++k) strcat(wide, "1");
    strcat(wide, "\n");
    refused_file("min", wide, ", line 1: more than 63 cells: at most 63");
    char tall[64 * 2 + 8] = "";
    for (int k = 0; k < 64; ++k) strcat(tall, "1\n");
    refused_file("min", tall, ", line 64: more than 63 rows: at most 63");
    char square[33 * 34 + 1] = "";
    for (int row = 0; row < 33; ++row) {
        for (int k = 0; k < 33; ++k) strcat(square, "1");
        strcat(square, "\n");
    }
    char path[128], text[256];
    write_footprint(path, "square.txt", square);
    snprintf(text, sizeof text, "median:mask:%s", path);
    refused(text, "holds 1089 pixels: rank filters select among at most 1024");
    refused("min:mask:/nonexistent/footprint.txt", "footprint file /nonexistent/footprint.txt: No such file or directory");
    refused("min:mask:/tmp", "footprint file /tmp: not a regular file");
    refused("percentile:mask:/tmp/x", "expected percentile:P,SIZE[,SHAPE]");
    refused("median:5,mask", "SHAPE rect (default), cross or disk");
    refused("median:5,disk,3", "expected median:SIZE[,SHAPE]");
    refused("max", "or max:mask:FILE");
}

/* The staged body of OP, split (freed by the caller). */
static cls_staged_body split(const cls_operator *op)
{
    cls_staged_body staged;
    if (cls_staged_body_split(cls_operator_spec(op), &staged) != CLS_OK) fail_msg("split: %s", cls_last_error());
    return staged;
}

static void compositions_are_two_stages(void **state)
{
    (void)state;
    static const struct {
        const char *text, *name, *first, *second;
        cls_stage_combine combine;
    } cases[] = {
        {"opening:5x3,disk", "opening:5x3,disk", "grey erosion", "grey dilation", CLS_COMBINE_NONE},
        {"CLOSING:5x3,disk", "closing:5x3,disk", "grey dilation", "grey erosion", CLS_COMBINE_NONE},
        {"tophat:5x3,disk", "tophat:5x3,disk", "grey erosion", "grey dilation", CLS_COMBINE_INPUT_MINUS_RESULT},
        {"blackhat:5x3,disk", "blackhat:5x3,disk", "grey dilation", "grey erosion", CLS_COMBINE_RESULT_MINUS_INPUT},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_operator *op = parsed(cases[c].text);
        const cls_spec *spec = cls_operator_spec(op);
        assert_string_equal(cls_operator_name(op), cases[c].name);
        /* the window both stages reach: 2W-1 x 2H-1, the footprint in its centre */
        assert_int_equal(spec->mask_width, 9);
        assert_int_equal(spec->mask_height, 5);
        assert_true(cls_body_is_staged(spec->body));
        cls_staged_body staged = split(op);
        assert_int_equal(staged.count, 2);
        assert_int_equal(staged.combine, cases[c].combine);
        assert_non_null(strstr(staged.stages[0].body, cases[c].first));
        assert_non_null(strstr(staged.stages[1].body, cases[c].second));
        const cls_footprint disk = {CLS_FOOTPRINT_DISK, 5, 3, NULL, 0};
        for (unsigned k = 0; k < 2; ++k) {
            assert_int_equal(staged.stages[k].width, 5);
            assert_int_equal(staged.stages[k].height, 3);
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -2; dx <= 2; ++dx)
                    assert_float_equal(staged.stages[k].mask[(dy + 1) * 5 + dx + 2], cls_footprint_contains(&disk, dx, dy), 0);
        }
        /* the stages' types: the input's first, f32 between, the output's last unless combined */
        cls_spec typed = *spec;
        typed.input_type = CLS_PIXEL_U8;
        typed.output_type = CLS_PIXEL_U16;
        const cls_spec first = cls_staged_stage_spec(&typed, &staged, 0), second = cls_staged_stage_spec(&typed, &staged, 1);
        assert_int_equal(first.input_type, CLS_PIXEL_U8);
        assert_int_equal(first.output_type, CLS_PIXEL_F32);
        assert_int_equal(second.input_type, CLS_PIXEL_F32);
        assert_int_equal(second.output_type, cases[c].combine ? CLS_PIXEL_F32 : CLS_PIXEL_U16);
        cls_staged_body_free(&staged);
        cls_operator_release(op);
    }
    cls_operator *largest = parsed("opening:31x1");
    assert_int_equal(cls_operator_spec(largest)->mask_width, 61);
    assert_int_equal(cls_operator_spec(largest)->mask_height, 1);
    cls_operator_release(largest);
}

/* A rectangle's extremum stages below van Herk's side run as the direct loops over the window (a
 * body stage's filter), from it on by van Herk; both fuse where the axes share a border mode and
 * the device's local memory takes the fused kernel's tile. */
static void small_rectangles_run_direct_loops(void **state)
{
    (void)state;
    cls_operator *small = parsed("opening:5x3"), *large = parsed("tophat:7x3");
    cls_spec spec = *cls_operator_spec(small);
    cls_staged_body staged = split(small);
    assert_int_equal(staged.count, 2);
    for (unsigned k = 0; k < 2; ++k) {
        assert_int_equal(staged.stages[k].kind, k ? CLS_STAGE_MAXIMUM : CLS_STAGE_MINIMUM);
        assert_true(staged.stages[k].direct && cls_stage_runs_body(&staged.stages[k]));
        assert_non_null(strstr(cls_staged_stage_spec(&spec, &staged, k).body, k ? "fmax" : "fmin"));
    }
    assert_true(cls_staged_fuses(&spec, &staged, 49152));
    cls_staged_body_free(&staged);
    spec.border_y = CLS_BORDER_REPEAT; /* a mode per axis: still two stages, which do not fuse */
    assert_int_equal(cls_staged_body_split(&spec, &staged), CLS_OK);
    assert_int_equal(staged.count, 2);
    assert_false(cls_staged_fuses(&spec, &staged, 49152));
    cls_staged_body_free(&staged);
    spec = *cls_operator_spec(large);
    staged = split(large);
    assert_int_equal(staged.count, 2);
    assert_false(staged.stages[0].direct || cls_stage_runs_body(&staged.stages[0]));
    assert_null(cls_staged_stage_spec(&spec, &staged, 0).body);
    assert_true(cls_staged_fuses(&spec, &staged, 49152));
    cls_staged_body_free(&staged);
    cls_operator_release(small);
    cls_operator_release(large);
    /* the fused kernel's tile of a 15x15 opening takes more than 32 KiB of local memory */
    cls_operator *widest = parsed("opening:15");
    spec = *cls_operator_spec(widest);
    staged = split(widest);
    assert_true(cls_staged_fuses(&spec, &staged, 49152));
    assert_false(cls_staged_fuses(&spec, &staged, 32768));
    cls_staged_body_free(&staged);
    cls_operator_release(widest);
}

static void compositions_reflect_an_asymmetric_footprint(void **state)
{
    (void)state;
    char path[128];
    write_footprint(path, "l, shape.txt", "100\n100\n111\n");
    for (int closing = 0; closing <= 1; ++closing) {
        cls_operator *op = parsed_with_mask(closing ? "closing:" : "opening:", path);
        cls_staged_body staged = split(op);
        const char *erosion = staged.stages[closing].body, *dilation = staged.stages[!closing].body;
        assert_non_null(strstr(erosion, "MASK(dx, dy) != 0.0f"));
        assert_non_null(strstr(dilation, "MASK(-dx, -dy) != 0.0f"));
        /* each stage's mask is the footprint as written */
        static const float cells[9] = {1, 0, 0, 1, 0, 0, 1, 1, 1};
        for (unsigned k = 0; k < 9; ++k) assert_float_equal(staged.stages[1].mask[k], cells[k], 0);
        cls_staged_body_free(&staged);
        cls_operator_release(op);
    }
}

static void staged_sources_and_one_kernel_refusals(void **state)
{
    (void)state;
    cls_operator *op = parsed("tophat:3,cross");
    cls_spec spec = *cls_operator_spec(op);
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 0, &source), CLS_OK);
    const char *first = strstr(source, "/* ---- Stage 1 of 2: a 3x3 window over the input, into an f32 image. */");
    const char *second = strstr(source, "/* ---- Stage 2 of 2: a 3x3 window over stage 1's f32 image, into an f32 image. */");
    const char *combination = strstr(source, "__kernel void clstencil_combine(");
    assert_true(first && second && combination && first < second && second < combination);
    assert_non_null(strstr(source, "const float difference = source - result[y * width + x];"));
    assert_null(strstr(source, "#stage"));
    cls_free(source);
    spec.output_type = CLS_PIXEL_U8;
    char *combine = cls_combine_source(CLS_COMBINE_RESULT_MINUS_INPUT, CLS_PIXEL_U16, CLS_PIXEL_U8, 1);
    assert_non_null(strstr(combine, "__global const ushort *input"));
    assert_non_null(strstr(combine, "= convert_uchar_sat_rte(difference);"));
    assert_non_null(strstr(combine, "result[y * width + x] - source"));
    free(combine);
    /* in lanes (CPU runtimes): 8 pixels of a row a work-item, vectors where all 8 are in the region */
    combine = cls_combine_source(CLS_COMBINE_INPUT_MINUS_RESULT, CLS_PIXEL_U16, CLS_PIXEL_U8, cls_combine_lanes(CLS_VAN_HERK_IN_LANES));
    assert_non_null(strstr(combine, "const int x0 = roi.x + (int)get_global_id(0) * 8,"));
    assert_non_null(strstr(combine, "const float8 difference = source - vload8(0, result + y * width + x);"));
    assert_non_null(strstr(combine, "vstore8(convert_uchar8_sat_rte(difference), 0, output + output_offset + y * output_pitch + x);"));
    assert_non_null(strstr(combine, "for (int x = x0; x < roi.z; ++x) {"));
    free(combine);
    assert_int_equal(cls_combine_lanes(CLS_VAN_HERK_STRIPS), 1);
    /* one kernel cannot run stages */
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "runs in stages"));
    /* the undefined border: the stages run with clamp, the run writes the interior only */
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    assert_int_equal(cls_generate_source(&spec, 0, &source), CLS_OK);
    assert_non_null(strstr(source, "The undefined border: the stages run with clamp"));
    assert_non_null(strstr(source, "border clamp"));
    assert_null(strstr(source, "border undefined"));
    cls_free(source);
    cls_operator_release(op);
}

/* A user body over WIDTH x HEIGHT: valid, or refused with MESSAGE. */
static void user_body(const char *body, unsigned width, unsigned height, const char *message)
{
    cls_operator *op = NULL;
    const cls_status status = cls_operator_user(body, width, height, NULL, &op);
    if (!message) {
        if (status != CLS_OK) fail_msg("refused: %s\n%s", cls_last_error(), body);
        cls_operator_release(op);
        return;
    }
    if (status != CLS_ERR_INVALID_ARGUMENT) fail_msg("accepted, not refused with '%s':\n%s", message, body);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' lacks '%s'", cls_last_error(), message);
}

static void staged_body_rules(void **state)
{
    (void)state;
    const char *two = "/* right, then down */\n#stage 3x3\nOUT = IN(1, 0);\n  # stage 3\nOUT = IN(0, 1);\n";
    user_body(two, 5, 5, NULL);
    user_body(two, 3, 5, "reach 2 columns and 2 rows from the centre, beyond the 3x5 window of the operator: its "
                         "window must be at least 5x5");
    /* a directive in a comment is none */
    user_body("/*\n#stage 3x3\n*/\nOUT = IN(0, 0);\n", 3, 3, NULL);
    user_body("// one line\n#stage 3x3\nOUT = IN(0, 0);\n#combine result - input\n/* done */\n", 3, 3, NULL);
    user_body("float a = 1.0f;\n#stage 3x3\nOUT = IN(0, 0);\n", 3, 3, "line 2: only comments may come before the first #stage");
    user_body("#stage 3x3\nOUT = IN(0, 0);\n#combine input + result\n", 3, 3,
              "line 3: #combine takes 'input - result' or 'result - input'");
    user_body("#stage 3x3\nOUT = IN(0, 0);\n#combine input - result\n#stage 1\nOUT = IN(0, 0);\n", 3, 3,
              "line 4: #combine is the last directive");
    user_body("#stage 3x3\nOUT = IN(0, 0);\n#combine input - result\nOUT = 1.0f;\n", 3, 3,
              "line 3: only comments may follow the #combine line");
    user_body("#stage 4x3\nOUT = IN(0, 0);\n", 5, 5, "line 1: #stage takes the stage's window, WxH or SIZE, with odd sides");
    user_body("#stage 3x3\nOUT = IN(0, 0);\n#stage 3x3\nOUT = IN(2, 0);\n", 5, 5, "stage 2 of 2 of the operator body:");
    char many[512] = "";
    for (int k = 0; k < 9; ++k) strcat(many, "#stage 1\nOUT = IN(0, 0);\n");
    user_body(many, 1, 1, "line 17: more than 8 stages");
}

static void composition_refusals(void **state)
{
    (void)state;
    refused("opening:33", "opening runs two stages, which reach 65x65, and windows stop at 63: sides up to 31");
    refused("tophat:3x35,cross", "sides up to 31");
    refused("closing:4", "expected closing:SIZE[,SHAPE], closing:WxH[,SHAPE] or closing:mask:FILE");
    refused("blackhat:5,oval", "SHAPE rect (default), cross or disk");
    refused("blackhat", "expected blackhat:SIZE[,SHAPE]");
    refused("tophat:mask:/nonexistent.txt", "footprint file /nonexistent.txt: No such file or directory");
}

/* Sizes, sigmas and percentiles are decimal: strtod's hexadecimal ("0x3" is 3) would let a
 * window written 0x3 pass for 3x3. Decimal exponents stay numbers. */
static void operator_numbers_are_decimal(void **state)
{
    (void)state;
    refused("opening:0x3", "expected opening:SIZE[,SHAPE]");
    refused("median:0X5", "expected median:SIZE[,SHAPE]");
    refused("gaussian:0x5", "expected gaussian:SIZE[,SIGMA]");
    refused("gaussian:5,0x1p0", "SIGMA '0x1p0' is not a finite number above 0");
    refused("box: 0x9", "expected box:SIZE");
    refused("percentile:0x32,3", "the percentile P must be a number from 0 to 100");
    refused("percentile:50", "expected percentile:P,SIZE[,SHAPE]");
    refused("gaussian3d:0x5", "expected gaussian3d:SIZE[,SIGMA]");
    cls_operator *op = parsed("gaussian:5,1.5e0");
    assert_int_equal(cls_operator_spec(op)->mask_width, 5);
    cls_operator_release(op);
    op = parsed("percentile:2.5e1,3x5");
    assert_int_equal(cls_operator_spec(op)->mask_width, 3);
    assert_int_equal(cls_operator_spec(op)->mask_height, 5);
    cls_operator_release(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(convolve_flips_and_correlate_does_not),
        cmocka_unit_test(gaussian_derivatives_are_products_of_the_weights),
        cmocka_unit_test(gaussian_derivative_refusals),
        cmocka_unit_test(gaussian_family_masks),
        cmocka_unit_test(footprints_come_from_mask_files),
        cmocka_unit_test(mask_file_refusals_name_file_and_line),
        cmocka_unit_test(compositions_are_two_stages),
        cmocka_unit_test(small_rectangles_run_direct_loops),
        cmocka_unit_test(compositions_reflect_an_asymmetric_footprint),
        cmocka_unit_test(staged_sources_and_one_kernel_refusals),
        cmocka_unit_test(staged_body_rules),
        cmocka_unit_test(composition_refusals),
        cmocka_unit_test(operator_numbers_are_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, remove_footprints);
}
