/* test_config.c — a spec resolved into a kernel configuration (generator/config.c): the policy's
 * rows per work-item where coarsening can apply, which kernels declare a register cap, and the
 * canonical key's independence from how the struct was filled and its dependence on every kernel
 * variant. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

static float box3[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static cls_spec valid_spec(void)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    return spec;
}

static char *key_of(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, 1, 0, 0), CLS_OK);
    char *key = cls_kernel_key(&config);
    cls_kernel_config_free(&config);
    assert_non_null(key);
    return key;
}

/* The rows a config resolves to when the spec leaves them to the policy's default of 8. */
static unsigned resolved_rows(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, 8, 0, 0), CLS_OK);
    const unsigned rows = config.rows;
    assert_int_equal(config.spec.rows_per_item, rows);
    cls_kernel_config_free(&config);
    return rows;
}

static void default_rows_apply_where_coarsening_can(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    assert_int_equal(resolved_rows(&spec), 8);
    spec.rows_per_item = 2; /* the spec's own choice wins */
    assert_int_equal(resolved_rows(&spec), 2);
    spec = valid_spec();
    spec.border = CLS_BORDER_UNDEFINED; /* cannot coarsen */
    assert_int_equal(resolved_rows(&spec), 1);
    spec = valid_spec();
    spec.body = "OUT = IN(0, 0);"; /* a body over at most 25 pixels takes the rows too */
    assert_int_equal(resolved_rows(&spec), 8);
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(resolved_rows(&spec), 1);
    static const float ones[49] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                   1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    spec = valid_spec();
    spec.body = "OUT = IN(0, 0);";
    spec.coefficients = ones;
    spec.mask_width = spec.mask_height = 7; /* more: one row (the 13x13 bilateral filter gained nothing) */
    assert_int_equal(resolved_rows(&spec), 1);
    cls_kernel_config config; /* a streaming policy (PoCL's) leaves bodies at one row */
    spec.mask_width = spec.mask_height = 3;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, 64, 0, 0), CLS_OK);
    assert_int_equal(config.rows, 1);
    cls_kernel_config_free(&config);
    spec = valid_spec();
    static const float row[3] = {1, 2, 1};
    spec.coefficients = NULL;
    spec.row_coefficients = spec.column_coefficients = row;
    spec.separable = CLS_SEPARABLE_TWO_PASS; /* its passes resolve their own rows */
    assert_int_equal(resolved_rows(&spec), 1);
}

/* Rows x columns the policy gives a baked size x size mask with `nonzero` non-zero taps. */
static void resolved_block(unsigned size, unsigned nonzero, int bake, unsigned default_rows, unsigned *rows,
                           unsigned *cols)
{
    float mask[19 * 19] = {0};
    for (unsigned k = 0; k < nonzero; ++k) mask[k] = (float)(k + 1);
    cls_spec spec = valid_spec();
    spec.mask_width = spec.mask_height = size;
    spec.coefficients = mask;
    spec.bake_coefficients = bake;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, default_rows, 0, 0), CLS_OK);
    *rows = config.rows, *cols = config.cols;
    assert_int_equal(config.spec.cols_per_item, *cols);
    cls_kernel_config_free(&config);
}

static void baked_masks_take_blocks_within_the_budget(void **state)
{
    (void)state;
    /* size, non-zero taps -> rows x 2 columns: the most rows, up to 8, with taps x rows x 2 <= 1400 */
    static const unsigned cases[][3] = {{3, 9, 8},    {7, 49, 8},    {9, 81, 8},  {9, 40, 8},
                                        {11, 121, 5}, {13, 169, 4}, {13, 100, 7}};
    unsigned rows, cols;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        resolved_block(cases[k][0], cases[k][1], 1, 8, &rows, &cols);
        assert_int_equal(cols, 2);
        assert_int_equal(rows, cases[k][2]);
        assert_true(cases[k][1] * rows * cols <= CLS_BLOCK_BUDGET);
    }
    resolved_block(9, 81, 0, 8, &rows, &cols); /* a runtime mask: rows only */
    assert_int_equal(rows, 8);
    assert_int_equal(cols, 1);
    resolved_block(9, 81, 1, 1, &rows, &cols); /* a device that does not coarsen */
    assert_int_equal(rows, 1);
    assert_int_equal(cols, 1);
}

/* Blocks that the budget cuts to three rows or fewer stream instead (64 rows of 4 columns), while
 * one input row's multiply-adds unroll (4 x taps <= CLS_UNROLL_LIMIT). */
static void blocks_cut_to_three_rows_stream(void **state)
{
    (void)state;
    /* size, non-zero taps -> rows, columns */
    static const unsigned cases[][4] = {{15, 225, 64, 4}, {17, 289, 64, 4}, {19, 361, 1, 2}};
    unsigned rows, cols;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        resolved_block(cases[k][0], cases[k][1], 1, 8, &rows, &cols);
        assert_int_equal(rows, cases[k][2]);
        assert_int_equal(cols, cases[k][3]);
    }
    assert_true(361 * CLS_STREAM_POLICY_COLS > CLS_UNROLL_LIMIT && 289 * CLS_STREAM_POLICY_COLS <= CLS_UNROLL_LIMIT);
    resolved_block(13, 169, 0, 8, &rows, &cols); /* a runtime mask keeps its rows */
    assert_int_equal(rows, 8);
}

/* The register cap: compute-bound weighted sums (81 multiply-adds or more per output) with ISP
 * regions in blocks of up to 16 outputs x masks; not naive kernels, streaming ones, larger
 * blocks, smaller or separated sums, or operator bodies. */
static unsigned register_cap_of(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, 1, 0, 0), CLS_OK);
    const unsigned cap = cls_kernel_register_cap(&config);
    cls_kernel_config_free(&config);
    return cap;
}

static void compute_bound_register_blocks_take_a_cap(void **state)
{
    (void)state;
    float mask9[81];
    for (unsigned k = 0; k < 81; ++k) mask9[k] = (float)((k * 37u) % 11u) + 1.0f; /* no zeros, not rank 1 */
    cls_spec spec = valid_spec();
    spec.mask_width = spec.mask_height = 9;
    spec.coefficients = mask9;
    spec.bake_coefficients = 1;
    spec.partition = CLS_PARTITION_ISP_WARP;
    spec.rows_per_item = 8;
    spec.cols_per_item = 2;
    assert_int_equal(register_cap_of(&spec), CLS_REGISTER_CAP);
    mask9[40] = 0.0f; /* 80 multiply-adds baked: memory-bound */
    assert_int_equal(register_cap_of(&spec), 0);
    spec.bake_coefficients = 0; /* a runtime mask multiplies every tap */
    spec.partition = CLS_PARTITION_ISP_BLOCK;
    assert_int_equal(register_cap_of(&spec), CLS_REGISTER_CAP);
    spec.partition = CLS_PARTITION_NAIVE;
    assert_int_equal(register_cap_of(&spec), 0);
    spec.partition = CLS_PARTITION_ISP_BLOCK;
    spec.cols_per_item = 4; /* 32 sums */
    assert_int_equal(register_cap_of(&spec), 0);
    spec.rows_per_item = 64; /* streaming: the window lives in registers */
    assert_int_equal(register_cap_of(&spec), 0);
    spec.rows_per_item = 1;
    spec.cols_per_item = 1;
    spec.body = "OUT = IN(0, 0);";
    assert_int_equal(register_cap_of(&spec), 0);
    spec.body = NULL;
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    assert_non_null(strstr(source, "\n#define REGISTER_CAP 64 "));
    free(source);
    for (unsigned k = 0; k < 81; ++k) mask9[k] = 1.0f;
    spec.bake_coefficients = 1;
    assert_int_equal(register_cap_of(&spec), CLS_REGISTER_CAP);
    spec.separable = CLS_SEPARABLE_SINGLE_PASS; /* 18 multiply-adds per output */
    assert_int_equal(register_cap_of(&spec), 0);
    spec = valid_spec(); /* 3x3: memory-bound */
    spec.partition = CLS_PARTITION_ISP_WARP;
    spec.rows_per_item = 8;
    spec.cols_per_item = 2;
    assert_int_equal(register_cap_of(&spec), 0);
}

/* A record whose default_rows streams (PoCL's: 64) streams where streaming applies. */
static void a_streaming_policy_streams_where_it_applies(void **state)
{
    (void)state;
    unsigned rows, cols;
    resolved_block(13, 169, 1, 64, &rows, &cols); /* baked: 64 rows of 4 columns, no block budget */
    assert_int_equal(rows, 64);
    assert_int_equal(cols, CLS_STREAM_POLICY_COLS);
    resolved_block(3, 9, 0, 64, &rows, &cols); /* a runtime mask: one column */
    assert_int_equal(rows, 64);
    assert_int_equal(cols, 1);
    cls_spec spec = valid_spec();
    cls_kernel_config config;
    spec.input_path = CLS_INPUT_LOCAL; /* streaming reads global memory: one row */
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, 64, 0, 0), CLS_OK);
    assert_int_equal(config.rows, 1);
    cls_kernel_config_free(&config);
    spec = valid_spec();
    spec.bake_coefficients = spec.fold_equal_taps = 1; /* folded taps do not stream */
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, 64, 0, 0), CLS_OK);
    assert_int_equal(config.rows, 1);
    cls_kernel_config_free(&config);
    /* stream_min_taps (PoCL's record: 26): smaller masks get one output per work-item. */
    cls_generation_policy policy = cls_generation_policy_default();
    policy.stream_min_taps = 26;
    static float ones[49];
    for (unsigned k = 0; k < 49; ++k) ones[k] = 1.0f;
    const unsigned sides[] = {3, 5, 7}, expected_rows[] = {1, 1, 64}, expected_cols[] = {1, 1, CLS_STREAM_POLICY_COLS};
    for (unsigned k = 0; k < 3; ++k) {
        spec = valid_spec();
        spec.coefficients = ones;
        spec.mask_width = spec.mask_height = sides[k];
        spec.bake_coefficients = 1;
        assert_int_equal(cls_kernel_config_init_policy(&config, &spec, 32, 64, 64, 2, &policy), CLS_OK);
        assert_int_equal(config.rows, expected_rows[k]);
        assert_int_equal(config.cols, expected_cols[k]);
        /* one output per work-item: a one-row group of the default's size; streaming: the default */
        assert_int_equal(config.group_width, expected_rows[k] == 1 ? 128 : 64);
        assert_int_equal(config.group_height, expected_rows[k] == 1 ? 1 : 2);
        cls_kernel_config_free(&config);
    }
}

/* separate_min_taps (PoCL's record: 26): a rank-1 mask left to auto runs as two passes. */
static void a_policy_separates_large_rank1_masks(void **state)
{
    (void)state;
    cls_generation_policy policy = cls_generation_policy_default();
    policy.separate_min_taps = 26;
    static float rank1[49], random7[49], rank1_5[25];
    const float row[7] = {1, 3, 6, 8, 6, 3, 1};
    for (unsigned k = 0; k < 49; ++k) {
        rank1[k] = row[k % 7] * row[k / 7];
        random7[k] = (float)((k * 37) % 11) - 5.0f;
    }
    for (unsigned k = 0; k < 25; ++k) rank1_5[k] = row[1 + k % 5] * row[1 + k / 5];
    const struct { const float *mask; unsigned side; cls_separable asked, expected; } cases[] = {
        {rank1, 7, CLS_SEPARABLE_AUTO, CLS_SEPARABLE_TWO_PASS},
        {random7, 7, CLS_SEPARABLE_AUTO, CLS_SEPARABLE_NONE},  /* not rank 1 */
        {rank1_5, 5, CLS_SEPARABLE_AUTO, CLS_SEPARABLE_NONE},  /* 25 taps: below the policy's 26 */
        {rank1, 7, CLS_SEPARABLE_NONE, CLS_SEPARABLE_NONE},    /* the spec's own choice wins */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = cases[c].mask;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.separable = cases[c].asked;
        cls_kernel_config config;
        assert_int_equal(cls_kernel_config_init_policy(&config, &spec, 32, 64, 64, 2, &policy), CLS_OK);
        assert_int_equal(config.separable, cases[c].expected);
        cls_kernel_config_free(&config);
    }
    cls_spec spec = valid_spec(); /* the default policy never separates */
    spec.coefficients = rank1;
    spec.mask_width = spec.mask_height = 7;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, 8, 0, 0), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_NONE);
    cls_kernel_config_free(&config);
}

/* fft_min_taps: a weighted sum of that many taps or more, its method left to auto, runs by FFT
 * unless it runs as separable passes; the spec's own method wins; the default policy never. */
static void a_policy_runs_large_masks_by_fft(void **state)
{
    (void)state;
    cls_generation_policy policy = cls_generation_policy_default();
    policy.fft_min_taps = 400;
    policy.separate_min_taps = 26;
    static float random21[441], random19[361], gaussian21[441];
    for (unsigned k = 0; k < 441; ++k) {
        random21[k] = (float)((k * 37) % 11) - 5.0f;
        gaussian21[k] = expf(-(float)((k % 21 - 10) * (k % 21 - 10) + (k / 21 - 10) * (k / 21 - 10)) / 50.0f);
    }
    for (unsigned k = 0; k < 361; ++k) random19[k] = (float)((k * 37) % 11) - 5.0f;
    const struct { const float *mask; unsigned side; cls_method asked, expected; } cases[] = {
        {random21, 21, CLS_METHOD_AUTO, CLS_METHOD_FFT},
        {random19, 19, CLS_METHOD_AUTO, CLS_METHOD_DIRECT},   /* 361 taps: below 400 */
        {gaussian21, 21, CLS_METHOD_AUTO, CLS_METHOD_DIRECT}, /* rank 1: separable passes instead */
        {random21, 21, CLS_METHOD_DIRECT, CLS_METHOD_DIRECT}, /* the spec's own choice wins */
        {random19, 19, CLS_METHOD_FFT, CLS_METHOD_FFT},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = cases[c].mask;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.method = cases[c].asked;
        cls_kernel_config config;
        assert_int_equal(cls_kernel_config_init_policy(&config, &spec, 32, 64, 64, 2, &policy), CLS_OK);
        assert_int_equal(config.method, cases[c].expected);
        assert_int_equal(config.spec.method, cases[c].expected);
        cls_kernel_config_free(&config);
    }
    cls_spec asked = valid_spec(); /* a spec that asks something of a direct kernel keeps it */
    asked.coefficients = random21;
    asked.mask_width = asked.mask_height = 21;
    asked.rows_per_item = 16;
    cls_kernel_config direct;
    assert_int_equal(cls_kernel_config_init_policy(&direct, &asked, 32, 64, 64, 2, &policy), CLS_OK);
    assert_int_equal(direct.method, CLS_METHOD_DIRECT);
    cls_kernel_config_free(&direct);
    cls_spec spec = valid_spec(); /* the default policy never runs by FFT */
    spec.coefficients = random21;
    spec.mask_width = spec.mask_height = 21;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, 8, 0, 0), CLS_OK);
    assert_int_equal(config.method, CLS_METHOD_DIRECT);
    cls_kernel_config_free(&config);
}

static void key_ignores_what_does_not_change_the_kernel(void **state)
{
    (void)state;
    float a[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0}, b[9] = {-0.0f, 1, 0, 1, -4, 1, 0, 1, -0.0f};
    cls_spec first = valid_spec(), second;
    first.coefficients = a;
    memset(&second, 0x5a, sizeof second); /* garbage everywhere, then filled field by field */
    second.struct_size = sizeof second;
    second.mask_width = 3;
    second.mask_height = 3;
    second.coefficients = b;
    second.bake_coefficients = 0;
    second.border = CLS_BORDER_CLAMP;
    second.border_value = 123.0f;          /* irrelevant unless constant */
    second.partition = CLS_PARTITION_AUTO; /* resolves to isp-block */
    second.group_width = 32;
    second.group_height = 4;               /* what auto resolves to */
    second.input_type = CLS_PIXEL_F32;
    second.output_type = CLS_PIXEL_F32;
    second.body = NULL;
    second.rows_per_item = 1;              /* what 0 resolves to */
    second.cols_per_item = 1;              /* what 0 resolves to */
    second.fold_equal_taps = 0;
    second.input_path = CLS_INPUT_GLOBAL;  /* what auto resolves to */
    second.separable = CLS_SEPARABLE_NONE; /* what auto resolves to */
    second.row_coefficients = second.column_coefficients = NULL;
    second.mask_count = 1;                 /* what 0 resolves to */
    second.epilogue = NULL;
    second.build_goal = CLS_BUILD_TIERED;  /* how to build, not what */
    second.region_code = CLS_REGION_CODE_BODY_APART; /* what auto resolves to */
    second.method = CLS_METHOD_DIRECT;     /* what auto resolves to without fft_min_taps */
    char *k1 = key_of(&first), *k2 = key_of(&second);
    assert_string_equal(k1, k2);
    first.bake_coefficients = second.bake_coefficients = 1; /* -0 and +0 bake alike */
    free(k1), free(k2);
    k1 = key_of(&first), k2 = key_of(&second);
    assert_string_equal(k1, k2);
    free(k1), free(k2);
}

static void key_changes_with_the_kernel(void **state)
{
    (void)state;
    cls_spec base = valid_spec();
    char *reference = key_of(&base);
    cls_spec variants[6];
    for (int i = 0; i < 6; ++i) variants[i] = base;
    variants[0].border = CLS_BORDER_MIRROR;
    variants[1].partition = CLS_PARTITION_NAIVE;
    variants[2].group_width = 16, variants[2].group_height = 8;
    variants[3].output_type = CLS_PIXEL_U8;
    variants[4].bake_coefficients = 1;
    float other[15] = {0};
    variants[5].mask_width = 5, variants[5].coefficients = other;
    for (int i = 0; i < 6; ++i) {
        char *key = key_of(&variants[i]);
        assert_string_not_equal(key, reference);
        free(key);
    }
    free(reference);
}

static void key_changes_with_every_variant(void **state)
{
    (void)state;
    static float two_masks[18] = {1, 0, -1, 2, 0, -2, 1, 0, -1, 1, 2, 1, 0, 0, 0, -1, -2, -1};
    cls_spec base = valid_spec();
    base.bake_coefficients = 1;
    enum { N = 12 };
    cls_spec variants[N];
    for (int i = 0; i < N; ++i) variants[i] = base;
    variants[0].cols_per_item = 2;
    variants[1].cols_per_item = 8;
    variants[2].coefficients = two_masks, variants[2].mask_count = 2;
    variants[3].input_path = CLS_INPUT_LOCAL;
    variants[4].input_path = CLS_INPUT_IMAGE;
    variants[5].separable = CLS_SEPARABLE_SINGLE_PASS;
    variants[6].separable = CLS_SEPARABLE_TWO_PASS;
    variants[7].epilogue = "fabs(r0)";
    variants[8].fold_equal_taps = 1;
    variants[9].bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    variants[10].region_code = CLS_REGION_CODE_SHARED;
    variants[11].region_code = CLS_REGION_CODE_SEPARATE;
    char *keys[N + 1];
    keys[N] = key_of(&base);
    for (int i = 0; i < N; ++i) keys[i] = key_of(&variants[i]);
    for (int i = 0; i <= N; ++i)
        for (int j = i + 1; j <= N; ++j)
            if (strcmp(keys[i], keys[j]) == 0) fail_msg("variants %d and %d share the key %s", i, j, keys[i]);
    /* Two masks with and without an epilogue, and two different epilogues. */
    cls_spec epilogue = variants[2];
    epilogue.epilogue = "hypot(r0, r1)";
    char *with = key_of(&epilogue);
    epilogue.epilogue = "fabs(r0) + fabs(r1)";
    char *other = key_of(&epilogue);
    assert_string_not_equal(with, keys[2]);
    assert_string_not_equal(with, other);
    free(with), free(other);
    for (int i = 0; i <= N; ++i) free(keys[i]);
}

static void key_of_auto_is_key_of_its_resolution(void **state)
{
    (void)state;
    cls_spec automatic = valid_spec(), explicit = valid_spec();
    automatic.input_path = CLS_INPUT_AUTO;
    automatic.separable = CLS_SEPARABLE_AUTO;
    automatic.cols_per_item = 0;
    automatic.mask_count = 0;
    explicit.input_path = CLS_INPUT_GLOBAL;
    explicit.separable = CLS_SEPARABLE_NONE;
    explicit.cols_per_item = 1;
    explicit.mask_count = 1;
    char *a = key_of(&automatic), *b = key_of(&explicit);
    assert_string_equal(a, b);
    free(a), free(b);
}

/* A Gaussian 5x3 given as vectors and as the full mask (products exact in float). */
static void key_of_vectors_is_key_of_the_full_mask(void **state)
{
    (void)state;
    static const float row[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
    static const float column[3] = {0.25f, 0.5f, 0.25f};
    float full[15];
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) full[j * 5 + i] = column[j] * row[i];
    const cls_separable variants[3] = {CLS_SEPARABLE_NONE, CLS_SEPARABLE_SINGLE_PASS, CLS_SEPARABLE_TWO_PASS};
    for (int v = 0; v < 3; ++v)
        for (int bake = 0; bake <= 1; ++bake) {
            cls_spec vectors = valid_spec(), mask = valid_spec();
            vectors.mask_width = mask.mask_width = 5;
            vectors.coefficients = NULL;
            vectors.row_coefficients = row;
            vectors.column_coefficients = column;
            mask.coefficients = full;
            vectors.separable = mask.separable = variants[v];
            vectors.bake_coefficients = mask.bake_coefficients = bake;
            char *a = key_of(&vectors), *b = key_of(&mask);
            assert_string_equal(a, b);
            free(a), free(b);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_ignores_what_does_not_change_the_kernel),
        cmocka_unit_test(key_changes_with_the_kernel),
        cmocka_unit_test(key_changes_with_every_variant),
        cmocka_unit_test(key_of_auto_is_key_of_its_resolution),
        cmocka_unit_test(key_of_vectors_is_key_of_the_full_mask),
        cmocka_unit_test(default_rows_apply_where_coarsening_can),
        cmocka_unit_test(a_policy_separates_large_rank1_masks),
        cmocka_unit_test(a_policy_runs_large_masks_by_fft),
        cmocka_unit_test(a_streaming_policy_streams_where_it_applies),
        cmocka_unit_test(baked_masks_take_blocks_within_the_budget),
        cmocka_unit_test(blocks_cut_to_three_rows_stream),
        cmocka_unit_test(compute_bound_register_blocks_take_a_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
