/* test_spec.c — spec defaults, border/partition/type/input-path/separable names and aliases, and
 * one test per validation error (generator/spec.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "struct_size.h"
#include "support/valid_spec.h"

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
    assert_int_equal(cls_pixel_type_parse("f64", &type), CLS_OK);
    assert_int_equal(cls_pixel_size(type), 8);
    assert_int_equal(cls_pixel_type_parse("f128", &type), CLS_ERR_INVALID_ARGUMENT);
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
    spec.output_type = (cls_pixel_type)6;
    expect_invalid(&spec, "not a cls_pixel_type value");
}

static void double_pixels_take_the_plain_weighted_sum(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.output_type = CLS_PIXEL_F64;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    expect_invalid(&spec, "not with a separable or low-rank form");
    spec = valid_spec();
    spec.input_type = CLS_PIXEL_F64;
    spec.input_path = CLS_INPUT_LOCAL;
    expect_invalid(&spec, "not with the local or image input path");
    spec = valid_spec();
    spec.input_type = CLS_PIXEL_F64;
    spec.cols_per_item = 2;
    expect_invalid(&spec, "not with several outputs per work-item");
    spec = valid_spec();
    spec.output_type = CLS_PIXEL_F64;
    spec.mask_count = 2;
    static float two[18];
    spec.coefficients = two;
    expect_invalid(&spec, "not with several masks or an epilogue");
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

/* The counts that the spec, the tuning file and clstencil bench all accept: a volume's slices
 * go to 512, an image's rows to 128. */
static void block_counts_are_one_rule(void **state)
{
    (void)state;
    for (unsigned n = 0; n <= 1024; ++n) {
        const int rows = (n >= 1 && n <= 8) || n == 16 || n == 32 || n == 64 || n == 128;
        const int cols = n == 1 || n == 2 || n == 4 || n == 8;
        assert_int_equal(cls_rows_per_item_valid(n), rows);
        assert_int_equal(cls_volume_slices_valid(n), rows || n == 256 || n == 512);
        assert_int_equal(cls_cols_per_item_valid(n), cols);
    }
    cls_spec spec = valid_spec();
    spec.rows_per_item = 12;
    expect_invalid(&spec, "rows per work-item 12 is not 1 to 8, 16, 32, 64 or 128");
    spec.rows_per_item = 256;
    expect_invalid(&spec, "rows per work-item 256 is not 1 to 8, 16, 32, 64 or 128");
    spec.mask_depth = 1; /* a volume's walk */
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.rows_per_item = 1024;
    expect_invalid(&spec, "slices per work-item 1024 is not 1 to 8, 16, 32, 64, 128, 256 or 512");
}

static void blocks_need_a_border_and_bodies_no_streaming(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.cols_per_item = 2;
    spec.border = CLS_BORDER_UNDEFINED;
    expect_invalid(&spec, "border mode other than undefined");
    spec.border = CLS_BORDER_CLAMP;
    spec.body = "OUT = IN(0, 0);"; /* a body per output of the block */
    spec.rows_per_item = 8;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.rows_per_item = 16;
    expect_invalid(&spec, "an operator body takes 1 to 8");
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

/* A spec filled by a host gets the rules of operator bodies and one-expression epilogues. */
static void bodies_and_epilogues_follow_the_rules(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.body = "float cls_x = IN(0, 0); OUT = cls_x;";
    expect_invalid(&spec, "reserved");
    spec.body = "float x = IN(0, 0); OUT = x;"; /* the body's own x */
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.body = "OUT = IN(5, 0);";
    expect_invalid(&spec, "window");
    spec.body = "OUT = IN(1, -1);";
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec = valid_spec();
    spec.mask_count = 1;
    spec.epilogue = "r0; } kernel void evil() {";
    expect_invalid(&spec, "one expression");
    spec.epilogue = "r0 */ + 1";
    expect_invalid(&spec, "one expression");
    spec.epilogue = "r0\x01";
    expect_invalid(&spec, "printable ASCII");
    spec.epilogue = "fabs(r0)";
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
}

static void fold_needs_bake(void **state)
{
    (void)state;
    cls_spec spec = valid_spec();
    spec.fold_equal_taps = 1;
    expect_invalid(&spec, "folding equal taps needs the coefficients baked as literals");
    spec.bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    expect_invalid(&spec, "folding equal taps needs the coefficients baked as literals");
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
        if (k == 1) spec.input_path = CLS_INPUT_LOCAL, spec.fold_equal_taps = spec.bake_coefficients = 1;
        if (k == 2) spec.input_path = CLS_INPUT_IMAGE;
        if (k == 3) spec.bake_coefficients = spec.fold_equal_taps = 1;
        expect_invalid(&spec, "separable single-pass computes its own row sums");
    }
    /* on the local input path it stages its group's input rows: streaming, 4 columns, one-row groups */
    for (int k = 0; k < 4; ++k) {
        cls_spec spec = valid_spec();
        spec.separable = CLS_SEPARABLE_SINGLE_PASS;
        spec.input_path = CLS_INPUT_LOCAL;
        if (k == 0) spec.cols_per_item = 2;
        if (k == 1) spec.rows_per_item = 8;
        if (k == 2) spec.group_width = 32, spec.group_height = 2;
        if (k == 3) spec.border = CLS_BORDER_UNDEFINED;
        expect_invalid(&spec, "stages the group's input rows");
    }
    cls_spec staged = valid_spec();
    staged.separable = CLS_SEPARABLE_SINGLE_PASS;
    staged.input_path = CLS_INPUT_LOCAL;
    assert_int_equal(cls_spec_validate(&staged), CLS_OK);
    cls_spec spec = valid_spec(); /* rows, columns where it streams, and the undefined border are fine */
    spec.separable = CLS_SEPARABLE_SINGLE_PASS;
    spec.rows_per_item = 4;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.rows_per_item = 64;
    spec.cols_per_item = 4;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.cols_per_item = 1;
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

/* A program built against the first header has a smaller cls_spec: the function cls_spec_init
 * fills that layout's bytes only, and cls_spec_init_sized the caller's size, zeroing what the
 * library does not know; the library reads either back with method auto. */
static void init_fills_the_callers_size_only(void **state)
{
    (void)state;
    union {
        cls_spec spec;
        unsigned char bytes[sizeof(cls_spec) + 16];
    } buffer;
    const size_t first = CLS_SPEC_FIRST_SIZE;
    memset(buffer.bytes, 0xa5, sizeof buffer.bytes);
    (cls_spec_init)(&buffer.spec);
    assert_int_equal(buffer.spec.struct_size, first);
    for (size_t k = first; k < sizeof buffer.bytes; ++k) assert_int_equal(buffer.bytes[k], 0xa5);
    cls_spec copy;
    assert_int_equal(cls_spec_read(&buffer.spec, &copy), CLS_OK);
    assert_int_equal(copy.method, CLS_METHOD_AUTO);
    assert_int_equal(copy.mask_width, 3);
    memset(buffer.bytes, 0xa5, sizeof buffer.bytes);
    cls_spec_init_sized(&buffer.spec, sizeof(cls_spec) + 8); /* a newer header's larger struct */
    assert_int_equal(buffer.spec.struct_size, sizeof(cls_spec) + 8);
    for (size_t k = sizeof(cls_spec); k < sizeof(cls_spec) + 8; ++k) assert_int_equal(buffer.bytes[k], 0);
    assert_int_equal(buffer.bytes[sizeof(cls_spec) + 8], 0xa5);
    static const float mask[9] = {0, 1, 0, 1, 1, 1, 0, 1, 0};
    buffer.spec.coefficients = mask;
    if (cls_spec_validate(&buffer.spec) != CLS_OK) fail_msg("%s", cls_last_error());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_valid),
        cmocka_unit_test(init_fills_the_callers_size_only),
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
        cmocka_unit_test(input_path_and_separable_names),
        cmocka_unit_test(bad_variant_enum_values_rejected),
        cmocka_unit_test(bad_cols_rejected),
        cmocka_unit_test(block_counts_are_one_rule),
        cmocka_unit_test(blocks_need_a_border_and_bodies_no_streaming),
        cmocka_unit_test(half_given_vectors_rejected),
        cmocka_unit_test(vectors_replace_coefficients),
        cmocka_unit_test(non_finite_vector_rejected),
        cmocka_unit_test(too_many_masks_rejected),
        cmocka_unit_test(vectors_give_one_mask),
        cmocka_unit_test(non_finite_coefficient_of_second_mask_rejected),
        cmocka_unit_test(body_takes_no_masks_or_epilogue),
        cmocka_unit_test(empty_epilogue_rejected),
        cmocka_unit_test(bodies_and_epilogues_follow_the_rules),
        cmocka_unit_test(fold_needs_bake),
        cmocka_unit_test(separable_needs_one_weighted_sum),
        cmocka_unit_test(single_pass_takes_no_other_variant),
        cmocka_unit_test(two_pass_needs_a_border),
        cmocka_unit_test(double_pixels_take_the_plain_weighted_sum),
        cmocka_unit_test(non_separable_mask_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
