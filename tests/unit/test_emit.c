/* test_emit.c — properties of the generated source without a device: with separate regions every
 * region is labelled and holds exactly the checks of the sides it touches, naive checks
 * everything, baked masks skip zero taps, large baked masks unroll only the body region, window
 * rows are aligned vector loads where the window starts on the vector width, a border region's
 * taps check only the side they face, streaming regions prefetch; the body region apart (AUTO's)
 * has four copies of the sums, the body's unchecked; rows of outputs store as vectors where they
 * can; generation is deterministic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "support/folded_source.h"

static char *generate(cls_border border, cls_partition partition, int bake, const float *mask, unsigned w,
                      unsigned h)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.region_code = CLS_REGION_CODE_SEPARATE; /* the nine regions these tests look into */
    spec.mask_width = w;
    spec.mask_height = h;
    spec.coefficients = mask;
    spec.bake_coefficients = bake;
    spec.border = border;
    spec.partition = partition;
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    return source;
}

/* Counts occurrences of word in [begin, end). */
static int count_in(const char *begin, const char *end, const char *word)
{
    int count = 0;
    for (const char *p = strstr(begin, word); p && p < end; p = strstr(p + 1, word)) ++count;
    return count;
}

/* Whether word occurs in the kernel itself (after the border helper functions). */
static int kernel_contains(const char *source, const char *word)
{
    const char *kernel = strstr(source, "__kernel");
    return kernel && strstr(kernel, word) != NULL;
}

/* The text of region `label` up to the next region comment (or the end). */
static void region_span(const char *source, const char *label, const char **begin, const char **end)
{
    char marker[64];
    snprintf(marker, sizeof marker, "/* Region %s:", label);
    *begin = strstr(source, marker);
    if (!*begin) fail_msg("region %s is not labelled", label);
    *end = strstr(*begin + 1, "/* Region ");
    if (!*end) *end = *begin + strlen(*begin);
}

static void each_region_checks_only_its_sides(void **state)
{
    (void)state;
    static const struct { const char *label; int lo_x, hi_x, lo_y, hi_y, both; } regions[] = {
        {"TL", 1, 0, 1, 0, 0}, {"T", 0, 0, 1, 0, 0}, {"TR", 0, 1, 1, 0, 0},
        {"L", 1, 0, 0, 0, 0},  {"Body", 0, 0, 0, 0, 0}, {"R", 0, 1, 0, 0, 0},
        {"BL", 1, 0, 0, 1, 0}, {"B", 0, 0, 0, 1, 0}, {"BR", 0, 1, 0, 1, 0},
        {"Fallback", 0, 0, 0, 0, 1}};
    static const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    const cls_border index_modes[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                      CLS_BORDER_REPEAT};
    for (size_t m = 0; m < 4; ++m) {
        char *source = generate(index_modes[m], CLS_PARTITION_ISP_BLOCK, 0, mask, 3, 3);
        for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
            const char *begin, *end;
            region_span(source, regions[r].label, &begin, &end);
            assert_int_equal(count_in(begin, end, "border_lo(x") > 0, regions[r].lo_x);
            assert_int_equal(count_in(begin, end, "border_hi(x") > 0, regions[r].hi_x);
            assert_int_equal(count_in(begin, end, "border_lo(y") > 0, regions[r].lo_y);
            assert_int_equal(count_in(begin, end, "border_hi(y") > 0, regions[r].hi_y);
            assert_int_equal(count_in(begin, end, "border_both(") == 2, regions[r].both);
            /* partial groups are guarded exactly where a right or bottom side is */
            const int guarded = count_in(begin, end, "outside the region computed") > 0;
            assert_int_equal(guarded, regions[r].hi_x || regions[r].hi_y || regions[r].both);
        }
        free(source);
    }
}

static void constant_mode_selects_the_border_value(void **state)
{
    (void)state;
    static const float mask[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    char *source = generate(CLS_BORDER_CONSTANT, CLS_PARTITION_ISP_BLOCK, 0, mask, 3, 3);
    const char *begin, *end;
    /* a border tap loads a clamped (inside) pixel and selects the border value when outside */
    region_span(source, "TR", &begin, &end);
    assert_true(count_in(begin, end, "const int row_inside = inside_lo(y + j - HALF_H, height);") == 1);
    assert_true(count_in(begin, end, "const long row = (long)border_lo(y + j - HALF_H, height)") == 1);
    assert_true(count_in(begin, end, "select(border_value, (float)input[row + border_hi(x + i - HALF_W, width)], "
                                     "row_inside && inside_hi(x + i - HALF_W, width))") == 1);
    region_span(source, "Body", &begin, &end);
    assert_int_equal(count_in(begin, end, "inside_"), 0);
    assert_int_equal(count_in(begin, end, "select("), 0);
    free(source);
}

static void naive_checks_every_side_of_every_tap(void **state)
{
    (void)state;
    static const float mask[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    char *source = generate(CLS_BORDER_MIRROR, CLS_PARTITION_NAIVE, 0, mask, 3, 3);
    assert_false(kernel_contains(source, "/* Region"));
    assert_false(kernel_contains(source, "border_lo("));
    assert_false(kernel_contains(source, "border_hi("));
    assert_true(kernel_contains(source, "border_both(x + i - HALF_W, width)"));
    assert_true(kernel_contains(source, "border_both(y + j - HALF_H, height)"));
    free(source);
}

static void isp_warp_refines_by_warp(void **state)
{
    (void)state;
    static const float mask[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    char *source = generate(CLS_BORDER_CLAMP, CLS_PARTITION_ISP_WARP, 0, mask, 3, 3);
    assert_non_null(strstr(source, "#define SIMD_WIDTH 32"));
    assert_non_null(strstr(source, "Warp-grained refinement"));
    free(source);
}

static void baked_mask_skips_zero_taps(void **state)
{
    (void)state;
    static const float laplace[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    char *source = generate(CLS_BORDER_CLAMP, CLS_PARTITION_ISP_BLOCK, 1, laplace, 3, 3);
    const char *begin, *end;
    region_span(source, "Body", &begin, &end);
    assert_int_equal(count_in(begin, end, "sum +="), 5);
    assert_int_equal(count_in(begin, end, "-4.0f * "), 1);
    assert_null(strstr(source, "mask[j"));
    free(source);
}

/* A 9x9 baked mask over rows x cols outputs per work-item, with `nonzero` of its taps non-zero. */
static char *generate_block(unsigned rows, unsigned cols, unsigned nonzero)
{
    float mask[81] = {0};
    for (unsigned k = 0; k < nonzero; ++k) mask[k] = (float)(k + 1) / 64.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.region_code = CLS_REGION_CODE_SEPARATE; /* the nine regions these tests look into */
    spec.mask_width = spec.mask_height = 9;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_MIRROR;
    spec.partition = CLS_PARTITION_ISP_BLOCK;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    return source;
}

static void large_baked_mask_unrolls_only_the_body(void **state)
{
    (void)state;
    /* 81 taps x 8 rows x 4 columns = 2,592 multiply-adds > CLS_UNROLL_LIMIT: border regions loop */
    char *source = generate_block(8, 4, 81);
    assert_non_null(strstr(source, "__constant float baked_mask[MASKS * MASK_W * MASK_H] = {"));
    static const char *const borders[] = {"Fallback", "TL", "T", "TR", "L", "R", "BL", "B", "BR"};
    const char *begin, *end;
    for (size_t r = 0; r < sizeof borders / sizeof borders[0]; ++r) {
        region_span(source, borders[r], &begin, &end);
        assert_int_equal(count_in(begin, end, "#pragma unroll 1"), 2);
        assert_int_equal(count_in(begin, end, "+= baked_mask[tap] * v;"), 1);
    }
    region_span(source, "Body", &begin, &end);
    assert_int_equal(count_in(begin, end, "baked_mask"), 0);
    assert_int_equal(count_in(begin, end, "sum[0][7][1] += "), 81);
    free(source);
    /* 81 x 8 x 1, 81 x 8 x 2 and 60 non-zero taps x 8 x 4 stay within it: every region unrolled */
    const unsigned within[][3] = {{8, 1, 81}, {8, 2, 81}, {8, 4, 40}};
    for (size_t k = 0; k < sizeof within / sizeof within[0]; ++k) {
        source = generate_block(within[k][0], within[k][1], within[k][2]);
        assert_null(strstr(source, "baked_mask"));
        assert_null(strstr(source, "#pragma unroll"));
        free(source);
    }
}

/* The source of a 9x9 (half width 4) or 13x13 (6) mask, `rows` x `cols` outputs per work-item. */
static char *generate_window(unsigned size, unsigned rows, unsigned cols, int unaligned_input)
{
    float mask[169];
    for (unsigned k = 0; k < size * size; ++k) mask[k] = (float)(k + 1) / 256.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.region_code = CLS_REGION_CODE_SEPARATE; /* the nine regions these tests look into */
    spec.mask_width = spec.mask_height = size;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_CLAMP;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    config.unaligned_input = unaligned_input;
    char *source = cls_emit_source(&config);
    assert_non_null(source);
    cls_kernel_config_free(&config);
    return source;
}

static void window_rows_load_aligned_vectors(void **state)
{
    (void)state;
    /* 9x9 with 4 columns: each row of the 12-pixel window is three float4 loads from x - 4 */
    char *source = generate_window(9, 2, 4, 0);
    assert_non_null(strstr(source, "const float4 v0_0 = *(__global const float4 *)(input + row + x - 4);"));
    assert_non_null(strstr(source, "const float4 v0_8 = *(__global const float4 *)(input + row + x + 4);"));
    assert_null(strstr(source, "vload"));
    free(source);
    /* 13x13 with 4 columns: the window starts at x - 6, a multiple of 2 only: float2 loads */
    source = generate_window(13, 2, 4, 0);
    assert_non_null(strstr(source, "const float2 v0_14 = *(__global const float2 *)(input + row + x + 8);"));
    assert_null(strstr(source, "const float4"));
    free(source);
    /* the fallback for rows that start anywhere: vloadN, no vector pointers */
    source = generate_window(9, 2, 4, 1);
    assert_non_null(strstr(source, "const float8 v0_0 = vload8(0, input + row + x - 4);"));
    assert_null(strstr(source, "*(__global const float"));
    free(source);
    /* a 3x3 window starts at x - 1: never aligned */
    source = generate_window(3, 2, 2, 0);
    assert_null(strstr(source, "*(__global const float"));
    free(source);
}

/* The source of a baked 3x3 mask (or two), 2 x `cols` outputs per work-item, output `type`. */
static char *generate_store(unsigned cols, cls_pixel_type type, unsigned masks)
{
    static const float mask[18] = {1, 2, 1, 2, 4, 2, 1, 2, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 3;
    spec.mask_count = masks;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_CLAMP;
    spec.output_type = type;
    spec.rows_per_item = 2;
    spec.cols_per_item = cols;
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    return source;
}

/* A row of 2 or 4 f32 outputs of one mask is one vector store behind a test that all of them lie
 * in the region and the address is aligned; anything else is stored one by one. */
static void rows_of_outputs_store_as_vectors(void **state)
{
    (void)state;
    char *source = generate_store(4, CLS_PIXEL_F32, 1);
    assert_non_null(strstr(source, "if (x + COLS <= roi.s2 && ((ulong)(row_out + x) & 15) == 0) {"));
    assert_non_null(strstr(source, "*(__global float4 *)(row_out + x) = (float4)(sum[0][k][0], sum[0][k][1], "
                                   "sum[0][k][2], sum[0][k][3]);"));
    assert_non_null(strstr(source, "for (int l = 0; l < COLS && x + l < roi.s2; ++l) {")); /* the rest */
    free(source);
    source = generate_store(2, CLS_PIXEL_F32, 1);
    assert_non_null(strstr(source, "& 7) == 0) {"));
    assert_non_null(strstr(source, "*(__global float2 *)(row_out + x) = (float2)(sum[0][k][0], sum[0][k][1]);"));
    free(source);
    const struct { unsigned cols; cls_pixel_type type; unsigned masks; } scalar[] = {
        {1, CLS_PIXEL_F32, 1}, {4, CLS_PIXEL_U8, 1}, {4, CLS_PIXEL_F32, 2}};
    for (size_t c = 0; c < sizeof scalar / sizeof scalar[0]; ++c) {
        source = generate_store(scalar[c].cols, scalar[c].type, scalar[c].masks);
        assert_null(strstr(source, "row_out"));
        free(source);
    }
}

/* The separable single pass streaming two columns a work-item reads its rows in aligned pairs,
 * which start before the window where the half width is odd (15x15: at x - 8, one pixel early). */
static void streaming_single_pass_loads_aligned_pairs(void **state)
{
    (void)state;
    float row[15], mask[225];
    for (unsigned i = 0; i < 15; ++i) row[i] = (float)(i + 1);
    for (unsigned k = 0; k < 225; ++k) mask[k] = row[k % 15] * row[k / 15];
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 15;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_CLAMP;
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.rows_per_item = 64;
    spec.cols_per_item = 2;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    assert_int_equal(cls_kernel_chunk_origin(&config), -1);
    char *source = cls_emit_source(&config);
    assert_non_null(source);
    assert_non_null(strstr(source, "const float2 v14_0 = *(__global const float2 *)(input + row + x - 8);"));
    assert_non_null(strstr(source, "px[0] = v14_0.s1;")); /* window column 0 is the pair's second */
    assert_null(strstr(source, "__local"));
    free(source);
    config.unaligned_input = 1; /* rows that start anywhere: from the window's first column */
    assert_int_equal(cls_kernel_chunk_origin(&config), 0);
    cls_kernel_config_free(&config);
}

/* On a record that inlines bodies by force (PoCL), FOR_WINDOW unrolls its columns, and its rows
 * too where the unrolled text stays small: a short body over 3x3, not a long one over 5x5. */
static void bodies_unroll_their_window_where_the_record_inlines(void **state)
{
    (void)state;
    static float ones[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    char long_body[700];
    snprintf(long_body, sizeof long_body, "/* %0600d */\nfloat s = 0.0f;\nFOR_WINDOW(dx, dy) s += IN(dx, dy);\nOUT = s;\n", 0);
    const struct { const char *body; unsigned side; int fold_fully, pragmas; } cases[] = {
        {"float s = 0.0f;\nFOR_WINDOW(dx, dy) s += IN(dx, dy);\nOUT = s;\n", 3, 1, 2},
        {long_body, 5, 1, 1},
        {"float s = 0.0f;\nFOR_WINDOW(dx, dy) s += IN(dx, dy);\nOUT = s;\n", 3, 0, 0}, /* GPUs: as written */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.coefficients = ones;
        spec.body = cases[c].body;
        spec.border = CLS_BORDER_CLAMP;
        char *source = folded_source(&spec, cases[c].fold_fully);
        const char *begin = strstr(source, "#define FOR_WINDOW"), *end = begin ? strstr(begin, "#define OUT") : NULL;
        assert_non_null(end);
        assert_int_equal(count_in(begin, end, "_Pragma(\"unroll\")"), cases[c].pragmas);
        free(source);
    }
}

/* An operator body runs in four regions on every record (each inlines its own copy of the body):
 * the body unchecked, left, right, and one copy for every other border group. */
static void bodies_run_in_four_regions(void **state)
{
    (void)state;
    static float ones[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int fold_fully = 0; fold_fully <= 1; ++fold_fully) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = 5;
        spec.coefficients = ones;
        spec.body = "float s = 0.0f;\nFOR_WINDOW(dx, dy) s += IN(dx, dy);\nOUT = s;\n";
        spec.border = CLS_BORDER_MIRROR101;
        spec.partition = CLS_PARTITION_ISP_WARP;
        char *source = folded_source(&spec, fold_fully);
        assert_non_null(strstr(source, "/* Region Body: checks no side. */"));
        assert_non_null(strstr(source, "/* Region L: checks left. */"));
        assert_non_null(strstr(source, "/* Region R: checks right. */"));
        assert_non_null(strstr(source, "/* Regions T, B, the corners and the fallback"));
        assert_null(strstr(source, "Region TL"));
        assert_int_equal(count_in(source, source + strlen(source), "sum = cls_operator_"), 4);
        free(source);
    }
}

/* FAST_EXP2 in a body that names it: one PTX instruction where the limits say the compiler takes
 * inline PTX, exp2 elsewhere; a body that does not name it gets neither. */
static void fast_exp2_is_ptx_where_the_compiler_takes_it(void **state)
{
    (void)state;
    static float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 3;
    spec.coefficients = ones;
    spec.border = CLS_BORDER_CLAMP;
    for (int ptx = 0; ptx <= 1; ++ptx)
        for (int named = 0; named <= 1; ++named) {
            spec.body = named ? "OUT = FAST_EXP2(IN(0, 0));" : "OUT = exp2(IN(0, 0));";
            cls_generation_limits limits = cls_generation_limits_default();
            limits.inline_ptx = (unsigned)ptx;
            cls_kernel_config config;
            assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
            char *source = cls_emit_source(&config);
            cls_kernel_config_free(&config);
            assert_non_null(source);
            assert_true((strstr(source, "__asm__(\"ex2.approx.ftz.f32") != NULL) == (named && ptx));
            assert_true((strstr(source, "#define FAST_EXP2(x) exp2(x)") != NULL) == (named && !ptx));
            free(source);
        }
}

/* A body that names value_t gets it as a float where it runs without lanes: 2-D with one column,
 * and every body of volumes. */
static void value_t_is_a_float_outside_lanes(void **state)
{
    (void)state;
    static float ones[27];
    for (unsigned k = 0; k < 27; ++k) ones[k] = 1.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = spec.mask_depth = 3;
    spec.coefficients = ones;
    spec.bake_coefficients = 0;
    spec.border = CLS_BORDER_CLAMP;
    spec.body = "value_t v = IN(0, 0, 0);\nOUT = v;";
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    assert_non_null(strstr(source, "typedef float value_t;"));
    free(source);
    spec.mask_depth = 0;
    spec.body = "value_t v = IN(0, 0);\nOUT = v;";
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    assert_non_null(strstr(source, "typedef float value_t;"));
    free(source);
}

/* A body in value_t with several columns runs in lanes: value_t a vector of them, one vector load
 * where the work-item's windows lie inside, each lane bordered elsewhere, vector stores; in
 * floats, or with one column, value_t is a float and the regions are ISP's. */
static void lane_bodies_load_and_store_vectors(void **state)
{
    (void)state;
    const struct { const char *body; unsigned cols; int lanes; } cases[] = {
        {"value_t v = IN(-1, 0);\nOUT = fmax(v, IN(1, 0));", 8, 1},
        {"value_t v = IN(-1, 0);\nOUT = fmax(v, IN(1, 0));", 1, 0},
        {"float v = IN(-1, 0);\nOUT = fmax(v, IN(1, 0));", 8, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        static const float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        cls_spec spec;
        cls_spec_init(&spec);
        spec.coefficients = ones;
        spec.border = CLS_BORDER_MIRROR;
        spec.cols_per_item = cases[c].cols;
        spec.body = cases[c].body;
        char *source = NULL;
        assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
        const int lanes = cases[c].lanes, in_value_t = strstr(cases[c].body, "value_t") != NULL;
        assert_int_equal(strstr(source, "typedef float8 value_t;") != NULL, lanes);
        assert_int_equal(strstr(source, "typedef float value_t;") != NULL, in_value_t && !lanes);
        assert_int_equal(strstr(source, "return vload8(0, input + (long)(y + clamp(dy, -HALF_H, HALF_H)) * input_pitch + x + "
                                        "clamp(dx, -HALF_W, HALF_W));") != NULL, lanes);
        assert_int_equal(strstr(source, "border_both(x + clamp(dx, -HALF_W, HALF_W) + 7, width)") != NULL, lanes);
        assert_int_equal(strstr(source, "vstore8(sum[k], 0, line);") != NULL, lanes);
        assert_int_equal(strstr(source, "Region Body") == NULL, lanes);
        free(source);
    }
}

/* A border region checks only the taps that face its side: the work-item's own pixel lies inside
 * the image. Coarsened, the taps past the last output column (row) fold fully. */
static void taps_check_only_the_side_they_face(void **state)
{
    (void)state;
    static const struct { const char *label, *checked, *unchecked; } regions[] = {
        {"L", "border_lo(x - 4, width)", "border_lo(x + "}, {"L", "border_lo(x - 1, width)", "border_lo(x, "},
        {"R", "border_both(x + 1, width)", "border_both(x - "}, {"R", "border_both(x + 5, width)", "border_both(x, "},
        {"T", "border_lo(y - 4, height)", "border_lo(y + "}, {"T", "border_lo(y - 1, height)", "border_lo(y, "},
        {"B", "border_both(y + 1, height)", "border_both(y - "}, {"B", "border_both(y + 5, height)", "border_both(y, "}};
    char *source = generate_window(9, 2, 2, 0); /* 9x9, 2 rows x 2 columns, clamp */
    for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
        const char *begin, *end;
        region_span(source, regions[r].label, &begin, &end);
        assert_true(count_in(begin, end, regions[r].checked) > 0);
        assert_int_equal(count_in(begin, end, regions[r].unchecked), 0);
    }
    const char *begin, *end;
    region_span(source, "L", &begin, &end);
    assert_true(count_in(begin, end, "input[row + x + 5]") > 0);
    free(source);
}

/* A streaming kernel loads the next input row during the multiply-adds in every region but the
 * fallback (whose indices may fold any distance). */
static void streaming_regions_prefetch(void **state)
{
    (void)state;
    static const char *const prefetching[] = {"TL", "T", "TR", "L", "Body", "R", "BL", "B", "BR"};
    char *source = generate_window(13, 64, 4, 0);
    for (size_t r = 0; r < sizeof prefetching / sizeof prefetching[0]; ++r) {
        const char *begin, *end;
        region_span(source, prefetching[r], &begin, &end);
        assert_int_equal(count_in(begin, end, "into next */"), 1);
    }
    const char *begin, *end;
    region_span(source, "Fallback", &begin, &end);
    assert_int_equal(count_in(begin, end, "into next */"), 0);
    free(source);
}

static void generation_is_deterministic(void **state)
{
    (void)state;
    static const float mask[25] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};
    char *a = generate(CLS_BORDER_REPEAT, CLS_PARTITION_ISP_WARP, 1, mask, 5, 5);
    char *b = generate(CLS_BORDER_REPEAT, CLS_PARTITION_ISP_WARP, 1, mask, 5, 5);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "25.0f * "));
    free(a);
    free(b);
}

/* The body apart (AUTO): four regions, the body unchecked, left and right checking their side, the
 * rest every side (folding fully, or in mirror101 mode once where that suffices). */
static void body_apart_has_four_regions(void **state)
{
    (void)state;
    float mask[25];
    for (unsigned k = 0; k < 25; ++k) mask[k] = (float)(k + 1) / 64.0f;
    static const struct { cls_border border; const char *fold; } modes[] = {
        {CLS_BORDER_CLAMP, "border_both(x"}, {CLS_BORDER_CONSTANT, "border_both(x"}, {CLS_BORDER_MIRROR, "border_both(x"},
        {CLS_BORDER_MIRROR101, "border_any(x"}, {CLS_BORDER_REPEAT, "border_both(x"}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = 5;
        spec.coefficients = mask;
        spec.bake_coefficients = 1;
        spec.border = modes[m].border;
        spec.partition = CLS_PARTITION_ISP_WARP;
        spec.rows_per_item = 2;
        spec.cols_per_item = 4;
        char *source = NULL;
        assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
        const char *end = source + strlen(source);
        const char *body = strstr(source, "/* Region Body: checks no side. */");
        const char *left = strstr(source, "/* Region L: checks left. */");
        const char *right = strstr(source, "/* Region R: checks right. */");
        const char *rest = strstr(source, "/* Regions T, B, the corners and the fallback");
        assert_true(body && left && right && rest && body < left && left < right && right < rest);
        assert_int_equal(count_in(source, end, "/* Region"), 4);
        assert_int_equal(count_in(body, left, "border_"), 0);
        assert_true(count_in(left, right, "border_lo(x") > 0);
        assert_int_equal(count_in(left, right, "(y"), count_in(left, right, "(long)(y")); /* y unchecked */
        assert_true(count_in(right, rest, "(x") > 0);
        assert_true(count_in(rest, end, modes[m].fold) > 0);
        /* 25 taps x 2 x 4 outputs in each copy, and the store: a row's four as one vector, else
         * one by one */
        assert_int_equal(count_in(source, end, "sum[0]"), 4 * 200 + 4 + 1);
        free(source);
    }
    /* A record that asks for the full fold (PoCL's: its vectorizer gives up on border_any's branch). */
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 5;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_MIRROR101;
    char *source = folded_source(&spec, 1);
    assert_null(strstr(source, "border_any"));
    assert_non_null(strstr(strstr(source, "/* Regions T, B, the corners and the fallback"), "border_both(x"));
    free(source);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_region_checks_only_its_sides),
        cmocka_unit_test(body_apart_has_four_regions),
        cmocka_unit_test(constant_mode_selects_the_border_value),
        cmocka_unit_test(naive_checks_every_side_of_every_tap),
        cmocka_unit_test(isp_warp_refines_by_warp),
        cmocka_unit_test(baked_mask_skips_zero_taps),
        cmocka_unit_test(large_baked_mask_unrolls_only_the_body),
        cmocka_unit_test(window_rows_load_aligned_vectors),
        cmocka_unit_test(rows_of_outputs_store_as_vectors),
        cmocka_unit_test(streaming_single_pass_loads_aligned_pairs),
        cmocka_unit_test(bodies_unroll_their_window_where_the_record_inlines),
        cmocka_unit_test(bodies_run_in_four_regions),
        cmocka_unit_test(taps_check_only_the_side_they_face),
        cmocka_unit_test(streaming_regions_prefetch),
        cmocka_unit_test(generation_is_deterministic),
        cmocka_unit_test(lane_bodies_load_and_store_vectors),
        cmocka_unit_test(value_t_is_a_float_outside_lanes),
        cmocka_unit_test(fast_exp2_is_ptx_where_the_compiler_takes_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
