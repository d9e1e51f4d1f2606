/* test_policy.c — auto's policy for one kernel (plan/policy.c): the rows and columns per
 * work-item where coarsening applies, blocks within the budget, streaming, the group shape,
 * separable passes and FFT for large masks; and that the generator applies a resolved spec without
 * deciding anything (a volume's walk: test_volume_policy.c; operator bodies: test_body_policy.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "support/policy_check.h"

/* The configuration of spec under policy, read as the planner's entrance reads it. */
static cls_status configure(const cls_kernel_policy *policy, const cls_spec *spec, cls_kernel_config *config)
{
    cls_request request;
    cls_status status = cls_request_init(&request, spec);
    if (status == CLS_OK) status = cls_policy_configure(policy, &request, config);
    cls_request_free(&request);
    return status;
}

/* The configuration under the default policy with default_rows ROWS and a SIMD width of 32. */
static cls_status configure_with_rows(cls_kernel_config *config, const cls_spec *spec, unsigned rows)
{
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = 32;
    policy.rows = rows;
    return configure(&policy, spec, config);
}

/* A streaming record's policy (PoCL's shape): 64 rows, 64x2 groups. */
static cls_kernel_policy streaming_policy(void)
{
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = 32;
    policy.rows = 64;
    policy.group_width = 64;
    policy.group_height = 2;
    return policy;
}

/* The rows a config resolves to when the spec leaves them to the policy's default of 8. */
static unsigned resolved_rows(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(configure_with_rows(&config, spec, 8), CLS_OK);
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
    assert_int_equal(configure_with_rows(&config, &spec, 64), CLS_OK);
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
    assert_int_equal(configure_with_rows(&config, &spec, default_rows), CLS_OK);
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

/* A record's wide_block_max_taps gives baked masks of at most that many taps blocks of 4 columns
 * and half the rows; larger masks, explicit shapes and records without it keep 2 columns. */
static void small_masks_take_wide_blocks_where_the_record_says(void **state)
{
    (void)state;
    float mask[7 * 7];
    for (unsigned k = 0; k < 49; ++k) mask[k] = (float)(k + 1);
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = 32;
    policy.rows = 8;
    policy.wide_block_max_taps = 25;
    /* size, spec's rows, spec's columns -> rows, columns */
    static const unsigned cases[][5] = {{3, 0, 0, 4, 4}, {5, 0, 0, 4, 4}, {7, 0, 0, 8, 2},
                                        {3, 0, 2, 8, 2}, {3, 2, 0, 2, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.mask_width = spec.mask_height = cases[c][0];
        spec.coefficients = mask;
        spec.bake_coefficients = 1;
        spec.rows_per_item = cases[c][1];
        spec.cols_per_item = cases[c][2];
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.rows, cases[c][3]);
        assert_int_equal(config.cols, cases[c][4]);
        cls_kernel_config_free(&config);
    }
    unsigned rows, cols; /* the default policy: 2 columns, the default rows */
    resolved_block(3, 9, 1, 8, &rows, &cols);
    assert_int_equal(rows, 8);
    assert_int_equal(cols, 2);
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
    assert_int_equal(configure_with_rows(&config, &spec, 64), CLS_OK);
    assert_int_equal(config.rows, 1);
    cls_kernel_config_free(&config);
    spec = valid_spec();
    spec.bake_coefficients = spec.fold_equal_taps = 1; /* folded taps do not stream */
    assert_int_equal(configure_with_rows(&config, &spec, 64), CLS_OK);
    assert_int_equal(config.rows, 1);
    cls_kernel_config_free(&config);
    /* stream_min_taps (PoCL's record: 26): smaller masks get one output per work-item. */
    cls_kernel_policy policy = streaming_policy();
    policy.stream_min_taps = 26;
    static float ones[49];
    for (unsigned k = 0; k < 49; ++k) ones[k] = 1.0f;
    const unsigned sides[] = {3, 5, 7}, expected_rows[] = {1, 1, 64}, expected_cols[] = {1, 1, CLS_STREAM_POLICY_COLS};
    for (unsigned k = 0; k < 3; ++k) {
        spec = valid_spec();
        spec.coefficients = ones;
        spec.mask_width = spec.mask_height = sides[k];
        spec.bake_coefficients = 1;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.rows, expected_rows[k]);
        assert_int_equal(config.cols, expected_cols[k]);
        /* one output per work-item: a one-row group of the default's size; streaming: the default */
        assert_int_equal(config.group_width, expected_rows[k] == 1 ? 128 : 64);
        assert_int_equal(config.group_height, expected_rows[k] == 1 ? 1 : 2);
        cls_kernel_config_free(&config);
    }
}

/* A streaming policy's masks of one row and one column (a separable mask's passes): a row at one
 * output per work-item, however many taps; a column of 9 rows or more in blocks of 8 rows and the
 * policy's stream columns, in a one-row group; a shorter column, or one from the buffer, as
 * before. */
static void a_streaming_policy_plans_rows_and_columns(void **state)
{
    (void)state;
    cls_kernel_policy policy = streaming_policy();
    policy.stream_min_taps = 26;
    static float ones[31];
    for (unsigned k = 0; k < 31; ++k) ones[k] = 1.0f;
    const struct { unsigned w, h; int bake; unsigned rows, cols, group_w, group_h; } cases[] = {
        {31, 1, 1, 1, 1, 128, 1},  {13, 1, 1, 1, 1, 128, 1}, {1, 13, 1, 8, CLS_STREAM_POLICY_COLS, 128, 1},
        {1, 31, 1, 8, CLS_STREAM_POLICY_COLS, 128, 1}, {1, 7, 1, 1, 1, 128, 1}, {1, 31, 0, 64, 1, 64, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = ones;
        spec.mask_width = cases[c].w, spec.mask_height = cases[c].h;
        spec.bake_coefficients = cases[c].bake;
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        if (config.rows != cases[c].rows || config.cols != cases[c].cols || config.group_width != cases[c].group_w ||
            config.group_height != cases[c].group_h)
            fail_msg("%ux%u (%s): %u rows x %u columns in %ux%u", cases[c].w, cases[c].h,
                     cases[c].bake ? "baked" : "buffer", config.rows, config.cols, config.group_width,
                     config.group_height);
        cls_kernel_config_free(&config);
    }
}

/* Several masks streamed keep masks x MASK_H x columns partial sums: past 104 the columns halve
 * (two 15x15 masks: 2 columns, two 13x13 masks keep 4; one 15x15 mask keeps 4). */
static void a_streaming_policy_halves_the_columns_of_several_masks(void **state)
{
    (void)state;
    cls_kernel_policy policy = streaming_policy();
    static float masks[2 * 15 * 15];
    for (unsigned k = 0; k < 2 * 15 * 15; ++k) masks[k] = (float)(k % 7) + 1.0f;
    const struct { unsigned side, count, cols; } cases[] = {{15, 2, 2}, {13, 2, CLS_STREAM_POLICY_COLS},
                                                            {15, 1, CLS_STREAM_POLICY_COLS}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = masks;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.mask_count = cases[c].count;
        spec.bake_coefficients = 1;
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.rows, 64);
        assert_int_equal(config.cols, cases[c].cols);
        cls_kernel_config_free(&config);
    }
}

/* low_rank_min_taps (81 here): a difference of Gaussians (rank 2) of that many taps runs as
 * low-rank pairs; a smaller one, and one that the spec keeps whole, as one 2-D mask. */
static void a_policy_runs_rank2_masks_as_low_rank_pairs(void **state)
{
    (void)state;
    cls_kernel_policy policy = streaming_policy();
    policy.separate_min_taps = 26;
    policy.low_rank_min_taps = 81;
    static float dog9[81], dog7[49];
    for (int j = 0; j < 9; ++j)
        for (int i = 0; i < 9; ++i) {
            const float r2 = (float)((i - 4) * (i - 4) + (j - 4) * (j - 4));
            dog9[j * 9 + i] = expf(-r2 / 2.0f) / 6.3f - expf(-r2 / 8.0f) / 25.1f;
            if (i < 7 && j < 7) {
                const float q2 = (float)((i - 3) * (i - 3) + (j - 3) * (j - 3));
                dog7[j * 7 + i] = expf(-q2 / 2.0f) / 6.3f - expf(-q2 / 8.0f) / 25.1f;
            }
        }
    const struct { const float *mask; unsigned side; cls_separable asked, expected; unsigned rank; } cases[] = {
        {dog9, 9, CLS_SEPARABLE_AUTO, CLS_SEPARABLE_LOW_RANK, 2},
        {dog7, 7, CLS_SEPARABLE_AUTO, CLS_SEPARABLE_NONE, 0},  /* 49 taps: below the policy's 81 */
        {dog9, 9, CLS_SEPARABLE_NONE, CLS_SEPARABLE_NONE, 0},  /* the spec's own choice wins */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = cases[c].mask;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.separable = cases[c].asked;
        spec.bake_coefficients = 1;
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.separable, cases[c].expected);
        if (cases[c].rank) assert_int_equal(config.rank, cases[c].rank);
        cls_kernel_config_free(&config);
    }
}

/* separate_min_taps (PoCL's record: 26): a rank-1 mask left to auto runs as two passes. */
static void a_policy_separates_large_rank1_masks(void **state)
{
    (void)state;
    cls_kernel_policy policy = streaming_policy();
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
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.separable, cases[c].expected);
        cls_kernel_config_free(&config);
    }
    cls_spec spec = valid_spec(); /* the default policy never separates */
    spec.coefficients = rank1;
    spec.mask_width = spec.mask_height = 7;
    cls_kernel_config config;
    assert_int_equal(configure_with_rows(&config, &spec, 8), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_NONE);
    cls_kernel_config_free(&config);
}

/* single_pass_min_taps (the H200's record): a rank-1 mask left to auto of that many taps runs as
 * one kernel of a row and a column pass, in blocks of rows, before two passes and before the FFT;
 * smaller masks, masks not of rank 1, columns per work-item and the spec's own choice keep the
 * 2-D mask. */
static void a_policy_runs_large_rank1_masks_in_one_separable_kernel(void **state)
{
    (void)state;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = 32;
    policy.rows = 8;
    policy.single_pass_min_taps = 121;
    policy.separate_min_taps = 26; /* two passes, where single-pass does not apply */
    policy.fft_min_taps = 300;
    static float rank1[289], random13[169], rank1_9[81];
    for (unsigned k = 0; k < 289; ++k) rank1[k] = (float)(1 + k % 17) * (float)(1 + k / 17);
    for (unsigned k = 0; k < 169; ++k) random13[k] = (float)((k * 37) % 11) - 5.0f;
    for (unsigned k = 0; k < 81; ++k) rank1_9[k] = (float)(1 + k % 9) * (float)(1 + k / 9);
    const struct { const float *mask; unsigned side, rows, cols; cls_separable expected; cls_method method; } cases[] = {
        {rank1, 17, 0, 0, CLS_SEPARABLE_SINGLE_PASS, CLS_METHOD_DIRECT}, /* 289 taps: not by FFT either */
        {rank1, 17, 4, 0, CLS_SEPARABLE_SINGLE_PASS, CLS_METHOD_DIRECT}, /* its rows given: still one kernel */
        {rank1, 17, 0, 2, CLS_SEPARABLE_NONE, CLS_METHOD_DIRECT},        /* columns per work-item: the 2-D mask */
        {random13, 13, 0, 0, CLS_SEPARABLE_NONE, CLS_METHOD_DIRECT},     /* not of rank 1 */
        {rank1_9, 9, 0, 0, CLS_SEPARABLE_TWO_PASS, CLS_METHOD_DIRECT},   /* 81 taps: two passes */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = cases[c].mask;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.rows_per_item = cases[c].rows;
        spec.cols_per_item = cases[c].cols;
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.separable, cases[c].expected);
        assert_int_equal(config.method, cases[c].method);
        if (cases[c].expected == CLS_SEPARABLE_SINGLE_PASS) assert_int_equal(config.rows, cases[c].rows ? cases[c].rows : 8);
        cls_kernel_config_free(&config);
    }
}

/* single_pass_rows, _cols and _ahead (the H200's record: 64, 2, 4): the single pass streams, its
 * row sums in registers, four rows loaded together, where four rows of its span fit in
 * CLS_AHEAD_PIXELS; else, and where the spec gives fewer rows, the row sums go through local
 * memory; streaming asked for by the spec loads one row ahead where four do not fit. */
static void a_policy_streams_the_single_pass_where_the_record_says(void **state)
{
    (void)state;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = 32;
    policy.rows = 8;
    policy.single_pass_min_taps = 121;
    policy.single_pass_rows = 64;
    policy.single_pass_cols = 2;
    policy.limits.single_pass_ahead = 4;
    static float rank1_13[169], rank1_31[961];
    for (unsigned k = 0; k < 169; ++k) rank1_13[k] = (float)(1 + k % 13) * (float)(1 + k / 13);
    for (unsigned k = 0; k < 961; ++k) rank1_31[k] = (float)(1 + k % 31) * (float)(1 + k / 31);
    const struct { const float *mask; unsigned side, asked_rows, asked_cols, rows, cols, ahead; } cases[] = {
        {rank1_13, 13, 0, 0, 64, 2, 4},  /* a span of 14: 56 pixels four rows ahead */
        {rank1_31, 31, 0, 0, 8, 1, 1},   /* a span of 32: four rows do not fit, local memory */
        {rank1_31, 31, 64, 2, 64, 2, 1}, /* streaming asked for: one row ahead */
        {rank1_13, 13, 4, 0, 4, 1, 1},   /* the spec's rows: through local memory */
        {rank1_13, 13, 64, 2, 64, 2, 4}, /* the block given back (as the models do): still one pass */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec();
        spec.coefficients = cases[c].mask;
        spec.mask_width = spec.mask_height = cases[c].side;
        spec.rows_per_item = cases[c].asked_rows;
        spec.cols_per_item = cases[c].asked_cols;
        cls_kernel_config config;
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
        assert_int_equal(config.rows, cases[c].rows);
        assert_int_equal(config.cols, cases[c].cols);
        assert_int_equal(cls_kernel_ahead_rows(&config), cases[c].ahead);
        assert_int_equal(cls_kernel_stages_row_sums(&config), cases[c].rows < CLS_STREAM_MIN_ROWS);
        assert_int_equal(cls_kernel_local_bytes(&config) > 0, cases[c].rows < CLS_STREAM_MIN_ROWS);
        char *source = cls_emit_source(&config);
        assert_non_null(source);
        assert_int_equal(strstr(source, "#define AHEAD 4") != NULL, cases[c].ahead == 4);
        free(source);
        cls_kernel_config_free(&config);
    }
}

/* fft_min_taps: a weighted sum of that many taps or more, its method left to auto, runs by FFT
 * unless it runs as separable passes; the spec's own method wins; the default policy never. */
static void a_policy_runs_large_masks_by_fft(void **state)
{
    (void)state;
    cls_kernel_policy policy = streaming_policy();
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
        assert_int_equal(configure(&policy, &spec, &config), CLS_OK);
        assert_int_equal(config.method, cases[c].expected);
        assert_int_equal(config.spec.method, cases[c].expected);
        cls_kernel_config_free(&config);
    }
    cls_spec asked = valid_spec(); /* a spec that asks something of a direct kernel keeps it */
    asked.coefficients = random21;
    asked.mask_width = asked.mask_height = 21;
    asked.rows_per_item = 16;
    cls_kernel_config direct;
    assert_int_equal(configure(&policy, &asked, &direct), CLS_OK);
    assert_int_equal(direct.method, CLS_METHOD_DIRECT);
    cls_kernel_config_free(&direct);
    cls_spec spec = valid_spec(); /* the default policy never runs by FFT */
    spec.coefficients = random21;
    spec.mask_width = spec.mask_height = 21;
    cls_kernel_config config;
    assert_int_equal(configure_with_rows(&config, &spec, 8), CLS_OK);
    assert_int_equal(config.method, CLS_METHOD_DIRECT);
    cls_kernel_config_free(&config);
}

/* The generator applies what it is given: a spec left to auto takes the plain form, never the
 * policy's rows, separation or FFT. */
static void the_generator_decides_nothing(void **state)
{
    (void)state;
    static float random21[441];
    for (unsigned k = 0; k < 441; ++k) random21[k] = (float)((k * 37) % 11) - 5.0f;
    cls_spec spec = valid_spec();
    spec.coefficients = random21;
    spec.mask_width = spec.mask_height = 21;
    spec.bake_coefficients = 1;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 0, NULL), CLS_OK);
    assert_int_equal(config.rows, 1);
    assert_int_equal(config.cols, 1);
    assert_int_equal(config.method, CLS_METHOD_DIRECT);
    assert_int_equal(config.separable, CLS_SEPARABLE_NONE);
    assert_int_equal(config.partition, CLS_PARTITION_ISP_BLOCK);
    assert_int_equal(config.group_width, CLS_FALLBACK_GROUP_WIDTH);
    assert_int_equal(config.group_height, CLS_FALLBACK_GROUP_HEIGHT);
    cls_kernel_config_free(&config);
    cls_spec resolved; /* the policy's resolution leaves nothing to auto */
    cls_kernel_policy policy = streaming_policy();
    policy.fft_min_taps = 400;
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_FFT);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_NONE);
    assert_int_equal(resolved.input_path, CLS_INPUT_GLOBAL);
    assert_int_equal(resolved.partition, CLS_PARTITION_ISP_BLOCK);
    assert_true(resolved.rows_per_item && resolved.cols_per_item && resolved.group_width && resolved.group_height);
    spec.mask_width = 0; /* an invalid spec is refused at the entrance, before any rule reads it */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_rows_apply_where_coarsening_can),
        cmocka_unit_test(a_policy_separates_large_rank1_masks),
        cmocka_unit_test(a_policy_runs_rank2_masks_as_low_rank_pairs),
        cmocka_unit_test(a_streaming_policy_halves_the_columns_of_several_masks),
        cmocka_unit_test(a_policy_runs_large_rank1_masks_in_one_separable_kernel),
        cmocka_unit_test(a_policy_runs_large_masks_by_fft),
        cmocka_unit_test(a_streaming_policy_streams_where_it_applies),
        cmocka_unit_test(a_streaming_policy_plans_rows_and_columns),
        cmocka_unit_test(a_policy_streams_the_single_pass_where_the_record_says),
        cmocka_unit_test(baked_masks_take_blocks_within_the_budget),
        cmocka_unit_test(small_masks_take_wide_blocks_where_the_record_says),
        cmocka_unit_test(blocks_cut_to_three_rows_stream),
        cmocka_unit_test(the_generator_decides_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
