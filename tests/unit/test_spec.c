/* test_spec.c — spec defaults, border/partition/type names and aliases, one test per
 * validation error, and the canonical key's independence from how the struct was filled. */
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

static char *key_of(const cls_spec *spec)
{
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, 0, 0), CLS_OK);
    char *key = cls_kernel_key(&config);
    cls_kernel_config_free(&config);
    assert_non_null(key);
    return key;
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
