/* test_spec.c — spec defaults, border/partition/type/input-path/separable names and aliases, one
 * test per validation error, the canonical key's independence from how the struct was filled
 * and its dependence on every kernel variant, and the splitting of separable masks. */
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

static void expect_invalid(const cls_spec *spec, const char *message_part)
{
    assert_int_equal(cls_spec_validate(spec), CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), message_part)) fail_msg("message '%s' lacks '%s'", cls_last_error(), message_part);
}

static void defaults_are_valid(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    assert_int_equal(spec.border, CLS_BORDER_CLAMP);
    assert_int_equal(spec.partition, CLS_PARTITION_AUTO);
}

static void border_aliases(void **state)
{
    (void)state;
    static const struct { const char *name; cls_border border; } cases[] = {
        {"undefined", CLS_BORDER_UNDEFINED}, {"clamp", CLS_BORDER_CLAMP}, {"Replicate", CLS_BORDER_CLAMP},
        {"NEAREST", CLS_BORDER_CLAMP},       {"edge", CLS_BORDER_CLAMP},  {"mirror", CLS_BORDER_MIRROR},
        {"reflect", CLS_BORDER_MIRROR},      {"Symmetric", CLS_BORDER_MIRROR},
        {"mirror101", CLS_BORDER_MIRROR101}, {"reflect101", CLS_BORDER_MIRROR101},
        {"REFLECT_101", CLS_BORDER_MIRROR101}, {"repeat", CLS_BORDER_REPEAT}, {"wrap", CLS_BORDER_REPEAT},
        {"periodic", CLS_BORDER_REPEAT},     {"constant", CLS_BORDER_CONSTANT}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cls_border border = CLS_BORDER_UNDEFINED;
        assert_int_equal(cls_border_parse(cases[i].name, &border), CLS_OK);
        assert_int_equal(border, cases[i].border);
    }
    assert_string_equal(cls_border_name(CLS_BORDER_MIRROR101), "mirror101");
}

static void unknown_border_name(void **state)
{
    (void)state;
    cls_border border;
    assert_int_equal(cls_border_parse("bounce", &border), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "unknown border mode 'bounce'"));
    assert_non_null(strstr(cls_last_error(), "mirror101"));
    assert_int_equal(cls_border_parse(NULL, &border), CLS_ERR_INVALID_ARGUMENT);
}

static void partition_and_type_names(void **state)
{
    (void)state;
    cls_partition partition;
    assert_int_equal(cls_partition_parse("ISP-Warp", &partition), CLS_OK);
    assert_int_equal(partition, CLS_PARTITION_ISP_WARP);
    assert_int_equal(cls_partition_parse("isp", &partition), CLS_ERR_INVALID_ARGUMENT);
    cls_pixel_type type;
    assert_int_equal(cls_pixel_type_parse("u16", &type), CLS_OK);
    assert_int_equal(type, CLS_PIXEL_U16);
    assert_int_equal(cls_pixel_size(type), 2);
    assert_int_equal(cls_pixel_type_parse("f64", &type), CLS_ERR_INVALID_ARGUMENT);
}

static void even_mask_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.mask_width = 4;
    expect_invalid(&spec, "mask width 4 is invalid");
}

static void zero_mask_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.mask_height = 0;
    expect_invalid(&spec, "mask height 0 is invalid");
}

static void too_large_mask_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.mask_width = 65;
    expect_invalid(&spec, "between 1 and 63");
}

static void missing_coefficients_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.coefficients = NULL;
    expect_invalid(&spec, "coefficients are missing");
}

static void nan_coefficient_rejected(void **state)
{
    (void)state;
    float mask[9] = {1, 1, 1, 1, NAN, 1, 1, 1, 1};
    cls_spec spec = valid_spec();
    spec.coefficients = mask;
    expect_invalid(&spec, "column 1, row 1 is not finite");
}

static void infinite_coefficient_rejected(void **state)
{
    (void)state;
    float mask[9] = {1, 1, 1, 1, 1, 1, 1, 1, -INFINITY};
    cls_spec spec = valid_spec();
    spec.coefficients = mask;
    expect_invalid(&spec, "column 2, row 2 is not finite");
}

static void bad_enum_values_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.border = (cls_border)17;
    expect_invalid(&spec, "not a cls_border value");
    spec = valid_spec();
    spec.partition = (cls_partition)9;
    expect_invalid(&spec, "not a cls_partition value");
    spec = valid_spec();
    spec.output_type = (cls_pixel_type)5;
    expect_invalid(&spec, "not a cls_pixel_type value");
}

static void non_finite_border_value_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.border = CLS_BORDER_CONSTANT;
    spec.border_value = NAN;
    expect_invalid(&spec, "constant border value is not finite");
}

static void half_given_group_shape_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.group_width = 32;
    expect_invalid(&spec, "give both sides");
    spec.group_height = 1024;
    expect_invalid(&spec, "more than 4096 work-items");
}

static void input_path_and_separable_names(void **state)
{
    (void)state;
    cls_input_path path = CLS_INPUT_AUTO;
    assert_int_equal(cls_input_path_parse("Local", &path), CLS_OK);
    assert_int_equal(path, CLS_INPUT_LOCAL);
    assert_int_equal(cls_input_path_parse("image", &path), CLS_OK);
    assert_int_equal(path, CLS_INPUT_IMAGE);
    assert_string_equal(cls_input_path_name(CLS_INPUT_GLOBAL), "global");
    assert_int_equal(cls_input_path_parse("texture", &path), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "unknown input path 'texture'"));
    cls_separable separable = CLS_SEPARABLE_AUTO;
    assert_int_equal(cls_separable_parse("TWO-PASS", &separable), CLS_OK);
    assert_int_equal(separable, CLS_SEPARABLE_TWO_PASS);
    assert_string_equal(cls_separable_name(CLS_SEPARABLE_SINGLE_PASS), "single-pass");
    assert_int_equal(cls_separable_parse("three-pass", &separable), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "single-pass"));
}

static void bad_variant_enum_values_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.input_path = (cls_input_path)4;
    expect_invalid(&spec, "input path 4 is not a cls_input_path value");
    spec = valid_spec();
    spec.separable = (cls_separable)7;
    expect_invalid(&spec, "separable variant 7 is not a cls_separable value");
}

static void bad_cols_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.cols_per_item = 3;
    expect_invalid(&spec, "columns per work-item 3 is not 1, 2, 4 or 8");
    spec.cols_per_item = 16;
    expect_invalid(&spec, "columns per work-item 16");
}

static void cols_need_weighted_sum_and_border(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.cols_per_item = 2;
    spec.border = CLS_BORDER_UNDEFINED;
    expect_invalid(&spec, "border mode other than undefined");
    spec.border = CLS_BORDER_CLAMP;
    spec.body = "OUT = IN(0, 0);";
    expect_invalid(&spec, "built-in weighted sum");
}

static void half_given_vectors_rejected(void **state)
{
    (void)state;
    static const float row[3] = {1, 2, 1};
    cls_spec spec = valid_spec();
    spec.row_coefficients = row;
    expect_invalid(&spec, "give both row and column coefficients, or neither");
    spec.row_coefficients = NULL;
    spec.column_coefficients = row;
    expect_invalid(&spec, "give both row and column coefficients, or neither");
}

static void vectors_replace_coefficients(void **state)
{
    (void)state;
    static const float row[5] = {1, 4, 6, 4, 1}, column[3] = {1, 2, 1};
    cls_spec spec = valid_spec();
    spec.mask_width = 5;
    spec.coefficients = NULL;
    spec.row_coefficients = row;
    spec.column_coefficients = column;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
}

static void non_finite_vector_rejected(void **state)
{
    (void)state;
    const float good[3] = {1, 2, 1}, bad_row[3] = {1, NAN, 1}, bad_column[3] = {1, 2, INFINITY};
    cls_spec spec = valid_spec();
    spec.coefficients = NULL;
    spec.row_coefficients = bad_row;
    spec.column_coefficients = good;
    expect_invalid(&spec, "row coefficient at column 1, row 0 is not finite");
    spec.row_coefficients = good;
    spec.column_coefficients = bad_column;
    expect_invalid(&spec, "column coefficient at column 0, row 2 is not finite");
}

static void too_many_masks_rejected(void **state)
{
    (void)state;
    float masks[5 * 9] = {0};
    cls_spec spec = valid_spec();
    spec.coefficients = masks;
    spec.mask_count = 5;
    expect_invalid(&spec, "mask count 5 is more than 4");
}

static void vectors_give_one_mask(void **state)
{
    (void)state;
    static const float row[3] = {1, 2, 1};
    cls_spec spec = valid_spec();
    spec.coefficients = NULL;
    spec.row_coefficients = spec.column_coefficients = row;
    spec.mask_count = 2;
    expect_invalid(&spec, "row and column coefficients give one mask, not 2");
}

static void non_finite_coefficient_of_second_mask_rejected(void **state)
{
    (void)state;
    float masks[18];
    for (int k = 0; k < 18; ++k) masks[k] = 1.0f;
    masks[9 + 5] = NAN; /* mask 1, column 2, row 1 */
    cls_spec spec = valid_spec();
    spec.coefficients = masks;
    spec.mask_count = 2;
    expect_invalid(&spec, "column 2, row 1 of mask 1 is not finite");
}

static void body_takes_no_masks_or_epilogue(void **state)
{
    (void)state;
    float masks[18] = {0};
    cls_spec spec = valid_spec();
    spec.coefficients = masks;
    spec.body = "OUT = IN(0, 0);";
    spec.mask_count = 2;
    expect_invalid(&spec, "an operator body computes its own output");
    spec.mask_count = 1;
    spec.epilogue = "r0 * 2.0f";
    expect_invalid(&spec, "no mask count or epilogue");
}

static void empty_epilogue_rejected(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.epilogue = "";
    expect_invalid(&spec, "the epilogue is empty");
}

static void fold_needs_bake(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.fold_equal_taps = 1;
    expect_invalid(&spec, "folding equal taps needs baked coefficients");
    spec.bake_coefficients = 1;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
}

static void separable_needs_one_weighted_sum(void **state)
{
    (void)state;
    float masks[18];
    for (int k = 0; k < 18; ++k) masks[k] = 1.0f;
    const cls_separable variants[2] = {CLS_SEPARABLE_SINGLE_PASS, CLS_SEPARABLE_TWO_PASS};
    for (int v = 0; v < 2; ++v) {
        cls_spec spec = valid_spec();
        spec.separable = variants[v];
        assert_int_equal(cls_spec_validate(&spec), CLS_OK);
        spec.body = "OUT = IN(0, 0);";
        expect_invalid(&spec, "needs the built-in weighted sum of one mask");
        spec = valid_spec();
        spec.separable = variants[v];
        spec.coefficients = masks;
        spec.mask_count = 2;
        expect_invalid(&spec, "needs the built-in weighted sum of one mask");
        spec = valid_spec();
        spec.separable = variants[v];
        spec.epilogue = "fabs(r0)";
        expect_invalid(&spec, "needs the built-in weighted sum of one mask");
    }
}

static void single_pass_takes_no_other_variant(void **state)
{
    (void)state;
    for (int k = 0; k < 4; ++k) {
        cls_spec spec = valid_spec();
        spec.separable = CLS_SEPARABLE_SINGLE_PASS;
        if (k == 0) spec.cols_per_item = 2;
        if (k == 1) spec.input_path = CLS_INPUT_LOCAL;
        if (k == 2) spec.input_path = CLS_INPUT_IMAGE;
        if (k == 3) spec.bake_coefficients = spec.fold_equal_taps = 1;
        expect_invalid(&spec, "separable single-pass stages its own row sums");
    }
    cls_spec spec = valid_spec(); /* rows and the undefined border are fine */
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.rows_per_item = 4;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.rows_per_item = 1;
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
}

static void two_pass_needs_a_border(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    spec.border = CLS_BORDER_UNDEFINED;
    expect_invalid(&spec, "separable two-pass cannot leave border pixels unwritten");
}

static void non_separable_mask_rejected(void **state)
{
    (void)state;
    float laplace[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    const cls_separable variants[2] = {CLS_SEPARABLE_SINGLE_PASS, CLS_SEPARABLE_TWO_PASS};
    for (int v = 0; v < 2; ++v) {
        cls_spec spec = valid_spec();
        spec.coefficients = laplace;
        spec.separable = variants[v];
        expect_invalid(&spec, "is not separable");
    }
    cls_spec spec = valid_spec(); /* not separated: fine */
    spec.coefficients = laplace;
    spec.separable = CLS_SEPARABLE_NONE;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
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
    spec.body = "OUT = IN(0, 0);";
    assert_int_equal(resolved_rows(&spec), 1);
    spec = valid_spec();
    static const float row[3] = {1, 2, 1};
    spec.coefficients = NULL;
    spec.row_coefficients = spec.column_coefficients = row;
    spec.separable = CLS_SEPARABLE_TWO_PASS; /* its passes resolve their own rows */
    assert_int_equal(resolved_rows(&spec), 1);
}

static void key_ignores_what_does_not_change_the_kernel(void **state)
{
    (void)state;
    float a[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0}, b[9] = {-0.0f, 1, 0, 1, -4, 1, 0, 1, -0.0f};
    cls_spec first = valid_spec(), second;
    first.coefficients = a;
    memset(&second, 0x5a, sizeof second); /* garbage everywhere, then filled field by field */
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
    enum { N = 9 };
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

/* |mask(i, j) - column[j] * row[i]| within the documented tolerance everywhere. */
static void assert_reproduces(const float *mask, unsigned w, unsigned h, const float *row, const float *column)
{
    float largest = 0.0f;
    for (unsigned k = 0; k < w * h; ++k) largest = fmaxf(largest, fabsf(mask[k]));
    for (unsigned j = 0; j < h; ++j)
        for (unsigned i = 0; i < w; ++i) {
            const double residual = fabs((double)mask[j * w + i] - (double)column[j] * row[i]);
            if (residual > (double)CLS_SEPARABLE_TOLERANCE * largest)
                fail_msg("(%u, %u): %g vs %g x %g", i, j, (double)mask[j * w + i], (double)column[j], (double)row[i]);
        }
}

static void separate_gaussian(void **state)
{
    (void)state;
    enum { W = 7, H = 5 };
    float gx[W], gy[H], mask[W * H], row[W], column[H];
    for (int i = 0; i < W; ++i) gx[i] = expf(-(float)((i - 3) * (i - 3)) / (2.0f * 1.3f * 1.3f));
    for (int j = 0; j < H; ++j) gy[j] = expf(-(float)((j - 2) * (j - 2)) / (2.0f * 0.9f * 0.9f)) / 3.1f;
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) mask[j * W + i] = gy[j] * gx[i];
    assert_int_equal(cls_mask_separate(mask, W, H, row, column), CLS_OK);
    assert_reproduces(mask, W, H, row, column);
    for (int i = 0; i < W; ++i) /* row proportional to gx */
        assert_true(fabsf(row[i] / row[3] - gx[i] / gx[3]) < 1e-6f);
    for (int j = 0; j < H; ++j)
        assert_true(fabsf(column[j] / column[2] - gy[j] / gy[2]) < 1e-6f);
}

static void separate_sobel(void **state)
{
    (void)state;
    const float sobel[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1}; /* [1 2 1]^T x [-1 0 1] */
    float row[3], column[3];
    assert_int_equal(cls_mask_separate(sobel, 3, 3, row, column), CLS_OK);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) assert_true(column[j] * row[i] == sobel[j * 3 + i]);
    assert_true(row[1] == 0.0f && row[2] == -row[0] && row[0] != 0.0f);
    assert_true(column[0] == column[2] && column[1] == 2.0f * column[0]);
}

static void separate_rank_two_fails(void **state)
{
    (void)state;
    const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 2}; /* one coefficient off a rank-1 mask */
    float row[3], column[3];
    assert_int_equal(cls_mask_separate(mask, 3, 3, row, column), CLS_ERR_INVALID_ARGUMENT);
    const char *message = cls_last_error();
    if (!strstr(message, "not separable") || !strstr(message, "column 2, row 2") || !strstr(message, "differs"))
        fail_msg("message '%s' does not name the residual", message);
    assert_int_equal(cls_mask_separate(NULL, 3, 3, row, column), CLS_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_valid),
        cmocka_unit_test(border_aliases),
        cmocka_unit_test(unknown_border_name),
        cmocka_unit_test(partition_and_type_names),
        cmocka_unit_test(even_mask_rejected),
        cmocka_unit_test(zero_mask_rejected),
        cmocka_unit_test(too_large_mask_rejected),
        cmocka_unit_test(missing_coefficients_rejected),
        cmocka_unit_test(nan_coefficient_rejected),
        cmocka_unit_test(infinite_coefficient_rejected),
        cmocka_unit_test(bad_enum_values_rejected),
        cmocka_unit_test(non_finite_border_value_rejected),
        cmocka_unit_test(half_given_group_shape_rejected),
        cmocka_unit_test(key_ignores_what_does_not_change_the_kernel),
        cmocka_unit_test(key_changes_with_the_kernel),
        cmocka_unit_test(input_path_and_separable_names),
        cmocka_unit_test(bad_variant_enum_values_rejected),
        cmocka_unit_test(bad_cols_rejected),
        cmocka_unit_test(cols_need_weighted_sum_and_border),
        cmocka_unit_test(half_given_vectors_rejected),
        cmocka_unit_test(vectors_replace_coefficients),
        cmocka_unit_test(non_finite_vector_rejected),
        cmocka_unit_test(too_many_masks_rejected),
        cmocka_unit_test(vectors_give_one_mask),
        cmocka_unit_test(non_finite_coefficient_of_second_mask_rejected),
        cmocka_unit_test(body_takes_no_masks_or_epilogue),
        cmocka_unit_test(empty_epilogue_rejected),
        cmocka_unit_test(fold_needs_bake),
        cmocka_unit_test(separable_needs_one_weighted_sum),
        cmocka_unit_test(single_pass_takes_no_other_variant),
        cmocka_unit_test(two_pass_needs_a_border),
        cmocka_unit_test(non_separable_mask_rejected),
        cmocka_unit_test(key_changes_with_every_variant),
        cmocka_unit_test(key_of_auto_is_key_of_its_resolution),
        cmocka_unit_test(key_of_vectors_is_key_of_the_full_mask),
        cmocka_unit_test(separate_gaussian),
        cmocka_unit_test(default_rows_apply_where_coarsening_can),
        cmocka_unit_test(separate_sobel),
        cmocka_unit_test(separate_rank_two_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
