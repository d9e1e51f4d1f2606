/* test_config.c — a spec applied as a kernel configuration (generator/config.c): which kernels
 * declare a register cap, and the canonical key's independence from how the struct was filled
 * and its dependence on every kernel variant. auto's policy is test_policy.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft_kernels.h"
#include "generator.h"
#include "support/valid_spec.h"

static char *key_of(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, NULL), CLS_OK);
    char *key = cls_kernel_key(&config);
    cls_kernel_config_free(&config);
    assert_non_null(key);
    return key;
}






/* The register cap: compute-bound weighted sums (81 multiply-adds or more per output) with ISP
 * regions in blocks of up to 16 outputs x masks; not naive kernels, streaming ones, larger
 * blocks, smaller or separated sums, or operator bodies. */
static unsigned register_cap_of(const cls_spec *spec)
{
    cls_kernel_config config;
    if (cls_kernel_config_init(&config, spec, 32, NULL) != CLS_OK) fail_msg("%s", cls_last_error());
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




/* A volume's separable single pass from the slice's tile whose window down z holds at most 20
 * partial sums takes the cap, built to it only where the compiler takes more; deeper windows and
 * the walk of a whole mask take none. */
static void shallow_volume_passes_take_a_cap_that_only_lowers(void **state)
{
    (void)state;
    cls_operator *shallow = NULL, *deep = NULL;
    assert_int_equal(cls_operator_parse("gaussian3d:5,1", &shallow), CLS_OK);
    assert_int_equal(cls_operator_parse("gaussian3d:7,1.5", &deep), CLS_OK);
    cls_spec spec = *cls_operator_spec(shallow);
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.input_path = CLS_INPUT_LOCAL;
    spec.cols_per_item = 4; /* 5 x 4 partial sums */
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    assert_int_equal(cls_kernel_register_cap(&config), CLS_REGISTER_CAP);
    assert_true(cls_kernel_cap_only_lowers(&config));
    cls_kernel_config_free(&config);
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    assert_non_null(strstr(source, "\n#define REGISTER_CAP 64 "));
    free(source);
    spec.cols_per_item = 8; /* 40 */
    assert_int_equal(register_cap_of(&spec), 0);
    spec.cols_per_item = 4;
    spec.separable = CLS_SEPARABLE_NONE;
    assert_int_equal(register_cap_of(&spec), 0);
    spec = *cls_operator_spec(deep); /* 7 x 4 */
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.input_path = CLS_INPUT_LOCAL;
    spec.cols_per_item = 4;
    assert_int_equal(register_cap_of(&spec), 0);
    spec = valid_spec(); /* a 2-D cap raises a lower count too */
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    assert_false(cls_kernel_cap_only_lowers(&config));
    cls_kernel_config_free(&config);
    cls_operator_release(shallow);
    cls_operator_release(deep);
}

/* A box's rank in pairs of columns takes the record's rank_register_cap, lowering only, and says
 * so in its source; one column, or a record that names none, takes no cap. */
static void volume_rank_pairs_take_the_records_cap(void **state)
{
    (void)state;
    cls_operator *median = NULL;
    assert_int_equal(cls_operator_parse("median3d:3", &median), CLS_OK);
    cls_spec spec = *cls_operator_spec(median);
    spec.cols_per_item = 2;
    cls_generation_limits limits = cls_generation_limits_default();
    limits.rank_network_taps = 125;
    limits.rank_register_cap = 80;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
    assert_int_equal(cls_kernel_register_cap(&config), 80);
    assert_true(cls_kernel_cap_only_lowers(&config));
    char *source = cls_emit_source(&config);
    assert_non_null(strstr(source, "\n#define REGISTER_CAP 80 "));
    free(source);
    cls_kernel_config_free(&config);
    spec.cols_per_item = 1;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
    assert_int_equal(cls_kernel_register_cap(&config), 0);
    cls_kernel_config_free(&config);
    spec.cols_per_item = 2;
    limits.rank_register_cap = 0; /* a record that names none */
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
    assert_int_equal(cls_kernel_register_cap(&config), 0);
    cls_kernel_config_free(&config);
    cls_operator_release(median);
}

/* A volume's separable single pass runs along y first, over its tile's columns in columns of
 * COLUMNS rows, where the record says so, the mask is at least 9 and 2 COLUMNS + 1 tall and the
 * group a whole number of COLUMNS rows tall; a maximum's rows then share their middle as its
 * columns do. */
static void tall_single_passes_run_along_y_first_where_the_record_says(void **state)
{
    (void)state;
    const struct { const char *op; unsigned cols, group_h; int record, y_first; } cases[] = {
        {"gaussian3d:13,2", 4, 16, 1, 1}, {"max3d:9", 4, 8, 1, 1},   {"max3d:9", 4, 8, 0, 0},
        {"gaussian3d:7,1.5", 4, 16, 1, 0}, {"max3d:9", 8, 16, 1, 0}, {"max3d:9", 4, 6, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cls_operator *op = NULL;
        assert_int_equal(cls_operator_parse(cases[i].op, &op), CLS_OK);
        cls_spec spec = *cls_operator_spec(op);
        spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.cols_per_item = cases[i].cols;
        spec.group_width = 32, spec.group_height = cases[i].group_h;
        cls_generation_limits limits = cls_generation_limits_default();
        limits.volume_y_first = (unsigned)cases[i].record;
        cls_kernel_config config;
        assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
        assert_int_equal(cls_volume_y_first(&config), cases[i].y_first);
        char *source = cls_emit_source(&config);
        assert_int_equal(strstr(source, "the tile's columns summed along y") != NULL, cases[i].y_first);
        if (cases[i].y_first && spec.reduction == CLS_REDUCTION_MAX)
            assert_non_null(strstr(source, "for (int d = COLUMNS; d < MASK_H; ++d) shared = fmax(shared, u[d]);"));
        /* the tiles of the slices and the group's rows of the tile's columns, or the tile's rows of sums */
        const size_t tile_h = cases[i].group_h + 2 * (spec.mask_height / 2);
        const size_t tile_float4s = (32 * cases[i].cols + 2 * (spec.mask_width / 2) + 3) / 4 + 1;
        const size_t second = cases[i].y_first ? cases[i].group_h * tile_float4s : tile_h * (32 * cases[i].cols / 4 + 1);
        assert_int_equal(cls_kernel_local_bytes(&config),
                         (tile_h * cls_volume_tile_buffers(&config) * tile_float4s + second) * 16);
        free(source);
        cls_kernel_config_free(&config);
        cls_operator_release(op);
    }
}

/* The source of OP (a volume operator; COEFFICIENTS, when given, replace its mask with a 3x3x3 one)
 * in the separable single pass, 4 columns a work-item in 32x8 groups. */
static char *single_pass_source(const char *op, const float *coefficients)
{
    cls_operator *parsed = NULL;
    assert_int_equal(cls_operator_parse(op, &parsed), CLS_OK);
    cls_spec spec = *cls_operator_spec(parsed);
    if (coefficients) spec.mask_width = spec.mask_height = spec.mask_depth = 3, spec.coefficients = coefficients;
    spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.cols_per_item = 4, spec.group_width = 32, spec.group_height = 8;
    const cls_generation_limits limits = cls_generation_limits_default();
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
    char *source = cls_emit_source(&config);
    cls_kernel_config_free(&config);
    cls_operator_release(parsed);
    return source;
}

/* A separable minimum or maximum goes along z by doubling: levels of blocks of 2, 4, 8 slices, each
 * from two of the level below, an output the top level's blocks that cover its window (3 deep:
 * blocks of 2 that ended 0 and 1 slices ago; 9: of 4, 0, 4 and 5; 15: of 8, 0 and 7). A sum, and a
 * maximum whose vector along z has a hole (the middle slice alone), keep the window of partial
 * results. */
static void separable_extrema_double_along_z(void **state)
{
    (void)state;
    static const struct { const char *op; const char *lines[3]; } cases[] = {
        {"min3d:3", {"level1[0][j] = fmin(level0[0][j], level0[1][j]);", "result[j] = fmin(result[j], level1[1][j]);", NULL}},
        {"max3d:9", {"level2[0][j] = fmax(level1[0][j], level1[2][j]);", "result[j] = fmax(result[j], level2[4][j]);",
                     "result[j] = fmax(result[j], level2[5][j]);"}},
        {"max3d:15", {"level3[0][j] = fmax(level2[0][j], level2[4][j]);", "result[j] = fmax(result[j], level3[7][j]);", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *source = single_pass_source(cases[i].op, NULL);
        assert_non_null(strstr(source, "Along z by doubling"));
        for (unsigned k = 0; k < 3 && cases[i].lines[k]; ++k) assert_non_null(strstr(source, cases[i].lines[k]));
        free(source);
    }
    float middle_slice[27];
    for (unsigned k = 0; k < 27; ++k) middle_slice[k] = k / 9 == 1 ? 1.0f : 0.0f;
    char *sum = single_pass_source("box3d:9", NULL), *holed = single_pass_source("max3d:3", middle_slice);
    assert_null(strstr(sum, "Along z by doubling"));
    assert_null(strstr(holed, "Along z by doubling"));
    assert_non_null(strstr(holed, "float sum[MASK_D][COLUMNS];"));
    free(sum);
    free(holed);
}

/* The FFT's tile kernel takes the cap, lowering only, and says so in its source. */
static void the_fft_tile_kernel_takes_a_cap_that_only_lowers(void **state)
{
    (void)state;
    float mask[25 * 25] = {0};
    mask[312] = 1.0f;
    cls_spec spec = valid_spec();
    spec.mask_width = spec.mask_height = 25;
    spec.coefficients = mask;
    spec.method = CLS_METHOD_FFT;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    assert_int_equal(cls_kernel_register_cap(&config), CLS_REGISTER_CAP);
    assert_true(cls_kernel_cap_only_lowers(&config));
    char *source = cls_fft_tile_source(&config);
    assert_non_null(strstr(source, "\n#define REGISTER_CAP 64 "));
    assert_non_null(strstr(source, "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))"));
    assert_null(strstr(source, "split_row")); /* two 64x64 tiles a group */
    free(source);
    cls_kernel_config_free(&config);
    float wide_mask[31 * 25] = {0};
    spec.mask_width = 31; /* from CLS_FFT_TILE_WIDE_MIN_MASK wide: one real tile 128 wide */
    spec.coefficients = wide_mask;
    assert_int_equal(cls_kernel_config_init(&config, &spec, 32, NULL), CLS_OK);
    source = cls_fft_tile_source(&config);
    assert_non_null(strstr(source, "split_row"));
    free(source);
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
    second.mask_depth = 0;                 /* a 2-D mask */
    second.reduction = CLS_REDUCTION_SUM;  /* a weighted sum */
    second.border_y = CLS_BORDER_CLAMP;    /* x's mode, named again */
    second.border_z = CLS_BORDER_MIRROR;   /* no z axis in a 2-D mask */
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
    enum { N = 14 };
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
    variants[12].border_y = CLS_BORDER_MIRROR; /* a mode per axis */
    variants[13].border = CLS_BORDER_MIRROR, variants[13].border_y = CLS_BORDER_CLAMP;
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
        cmocka_unit_test(compute_bound_register_blocks_take_a_cap),
        cmocka_unit_test(shallow_volume_passes_take_a_cap_that_only_lowers),
        cmocka_unit_test(volume_rank_pairs_take_the_records_cap),
        cmocka_unit_test(tall_single_passes_run_along_y_first_where_the_record_says),
        cmocka_unit_test(separable_extrema_double_along_z),
        cmocka_unit_test(the_fft_tile_kernel_takes_a_cap_that_only_lowers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
