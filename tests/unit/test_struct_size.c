/* test_struct_size.c — the structs that carry their own size (core/struct_size.c): struct_size 0,
 * below the first layout, exact, an older caller's read over defaults, a newer caller's accepted
 * only with its unknown fields zero, and outputs written as far as the caller's size reaches; and
 * the public entry points that refuse a struct_size of 0 with the struct's name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "clstencil_tuning.h"
#include "generator.h"
#include "struct_size.h"

/* A struct in three versions, as three libraries' headers would have it. */
typedef struct version_1 {
    size_t struct_size;
    int a, b;
} version_1;
typedef struct version_2 {
    size_t struct_size;
    int a, b;
    double c;
    int d;
} version_2;
typedef struct version_3 {
    version_2 known;
    int e;
} version_3;

/* A library of version 2, whose first layout was version 1. */
static const cls_struct_layout layout = {"test_struct", "start it with TEST_STRUCT_INIT",
                                         CLS_FIELD_END(version_1, b), sizeof(version_2)};

static const version_2 defaults = {.c = 2.5, .d = 7};

static void expect_message(const char *part)
{
    if (!strstr(cls_last_error(), part)) fail_msg("message '%s' lacks '%s'", cls_last_error(), part);
}

static void zero_size_is_refused_with_the_fix(void **state)
{
    (void)state;
    const version_2 caller = {.a = 1};
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &caller, &copy), CLS_ERR_INVALID_ARGUMENT);
    expect_message("test_struct.struct_size is 0: start it with TEST_STRUCT_INIT");
    assert_int_equal(copy.a, 0); /* untouched */
    assert_int_equal(cls_struct_read(&layout, NULL, &copy), CLS_ERR_INVALID_ARGUMENT);
    expect_message("test_struct is NULL");
}

static void size_below_the_first_layout_is_refused(void **state)
{
    (void)state;
    const version_2 caller = {.struct_size = offsetof(version_1, b), .a = 1};
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &caller, &copy), CLS_ERR_INVALID_ARGUMENT);
    expect_message("less than its first layout's 16 bytes");
    version_2 output = {.struct_size = sizeof(size_t)};
    assert_int_equal(cls_struct_write(&layout, &output, &defaults), CLS_ERR_INVALID_ARGUMENT);
    assert_true(output.d == 0 && output.struct_size == sizeof(size_t));
}

static void exact_size_is_read_as_it_is(void **state)
{
    (void)state;
    const version_2 caller = {.struct_size = sizeof caller, .a = 1, .b = 2, .c = 3.0, .d = 4};
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &caller, &copy), CLS_OK);
    assert_memory_equal(&copy, &caller, sizeof copy);
}

static void older_caller_gets_the_defaults(void **state)
{
    (void)state;
    /* a version-1 struct followed by bytes that are not its own */
    unsigned char memory[sizeof(version_2)];
    memset(memory, 0xa5, sizeof memory);
    const version_1 older = {.struct_size = sizeof older, .a = 1, .b = 2};
    memcpy(memory, &older, sizeof older);
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, memory, &copy), CLS_OK);
    assert_int_equal(copy.struct_size, sizeof(version_2));
    assert_int_equal(copy.a, 1);
    assert_int_equal(copy.b, 2);
    assert_true(copy.c == 2.5);
    assert_int_equal(copy.d, 7);
}

static void newer_caller_with_unknown_fields_zero_is_read(void **state)
{
    (void)state;
    version_3 newer;
    memset(&newer, 0, sizeof newer); /* the padding too: every byte past version 2 is zero */
    newer.known = (version_2){.struct_size = sizeof newer, .a = 1, .b = 2, .c = 3.0, .d = 4};
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &newer, &copy), CLS_OK);
    assert_int_equal(copy.struct_size, sizeof(version_2));
    assert_int_equal(copy.d, 4);
}

static void newer_caller_with_unknown_fields_set_is_refused(void **state)
{
    (void)state;
    version_3 newer;
    memset(&newer, 0, sizeof newer);
    newer.known.struct_size = sizeof newer;
    newer.known.a = 1;
    newer.e = 5;
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &newer, &copy), CLS_ERR_INVALID_ARGUMENT);
    expect_message("compiled against a newer clstencil header than this library");
    assert_int_equal(copy.a, 0);
}

static void a_size_far_past_the_library_is_refused(void **state)
{
    (void)state;
    const version_2 caller = {.struct_size = (size_t)1 << 40};
    version_2 copy = defaults;
    assert_int_equal(cls_struct_read(&layout, &caller, &copy), CLS_ERR_INVALID_ARGUMENT);
    expect_message("is not a size");
}

static void output_fits_the_caller_s_size(void **state)
{
    (void)state;
    const version_2 full = {.struct_size = sizeof full, .a = 1, .b = 2, .c = 3.0, .d = 4};
    /* an older caller: its fields written, the bytes after them left alone */
    unsigned char memory[sizeof(version_2)];
    memset(memory, 0xa5, sizeof memory);
    const version_1 older = {.struct_size = sizeof older};
    memcpy(memory, &older, sizeof older);
    assert_int_equal(cls_struct_write(&layout, memory, &full), CLS_OK);
    version_1 written;
    memcpy(&written, memory, sizeof written);
    assert_int_equal(written.struct_size, sizeof(version_1));
    assert_int_equal(written.a, 1);
    assert_int_equal(written.b, 2);
    for (size_t k = sizeof(version_1); k < sizeof memory; ++k) assert_int_equal(memory[k], 0xa5);
    /* a newer caller: every field this library knows, the others zero, its struct_size kept */
    version_3 newer = {.known = {.struct_size = sizeof newer}, .e = 9};
    assert_int_equal(cls_struct_write(&layout, &newer, &full), CLS_OK);
    assert_int_equal(newer.known.struct_size, sizeof(version_3));
    assert_true(newer.known.d == 4 && newer.known.c == 3.0);
    assert_int_equal(newer.e, 0);
}

/* ---------------------------------------------------------------- the public structs */

static float box3[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static void spec_without_struct_size_is_refused(void **state)
{
    (void)state;
    cls_spec spec;
    cls_spec_init(&spec);
    assert_int_equal(spec.struct_size, sizeof spec);
    spec.coefficients = box3;
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.struct_size = 0;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_spec.struct_size is 0: fill it with cls_spec_init");
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_spec.struct_size is 0");
    spec.struct_size = CLS_SPEC_FIRST_SIZE - 1;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_spec.struct_size");
}

static void spec_of_a_newer_header_is_read_when_its_new_fields_are_zero(void **state)
{
    (void)state;
    struct {
        cls_spec spec;
        unsigned later_field;
    } newer;
    memset(&newer, 0, sizeof newer);
    cls_spec_init(&newer.spec);
    newer.spec.struct_size = sizeof newer;
    newer.spec.coefficients = box3;
    assert_int_equal(cls_spec_validate(&newer.spec), CLS_OK);
    newer.later_field = 1;
    assert_int_equal(cls_spec_validate(&newer.spec), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_spec.struct_size");
    expect_message("newer clstencil header");
}

/* A spec of an older layout that ended before build_goal and region_code, as a library that
 * added them reads it: the fields past the caller's size hold garbage and get cls_spec_init's
 * defaults. */
static void older_spec_gets_the_spec_defaults(void **state)
{
    (void)state;
    const cls_struct_layout before_goals = {"cls_spec", "fill it with cls_spec_init", offsetof(cls_spec, build_goal),
                                            sizeof(cls_spec)};
    cls_spec older;
    cls_spec_init(&older);
    older.coefficients = box3;
    older.border = CLS_BORDER_MIRROR;
    memset(&older.build_goal, 0x5a, sizeof older - offsetof(cls_spec, build_goal));
    assert_int_equal(cls_spec_validate(&older), CLS_ERR_INVALID_ARGUMENT); /* as garbage, refused */
    older.struct_size = offsetof(cls_spec, build_goal);
    cls_spec copy;
    cls_spec_init(&copy);
    assert_int_equal(cls_struct_read(&before_goals, &older, &copy), CLS_OK);
    assert_int_equal(copy.struct_size, sizeof copy);
    assert_int_equal(copy.border, CLS_BORDER_MIRROR);
    assert_int_equal(copy.build_goal, CLS_BUILD_FASTEST_KERNEL);
    assert_int_equal(copy.region_code, CLS_REGION_CODE_AUTO);
    assert_int_equal(cls_spec_validate(&copy), CLS_OK);
}

static void caps_without_struct_size_are_refused(void **state)
{
    (void)state;
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load("", &db), CLS_OK);
    cls_device_caps caps = {CLS_DEVICE_CAPS_INIT, .vendor = CLS_VENDOR_NVIDIA, .type = CLS_DEVICE_GPU};
    assert_non_null(cls_device_db_match(db, &caps, NULL));
    char fingerprint[17];
    cls_device_fingerprint(&caps, fingerprint);
    assert_int_equal(strlen(fingerprint), 16);
    caps.struct_size = 0;
    assert_null(cls_device_db_match(db, &caps, NULL));
    expect_message("cls_device_caps.struct_size is 0: start it with CLS_DEVICE_CAPS_INIT");
    cls_device_fingerprint(&caps, fingerprint);
    assert_string_equal(fingerprint, "");
    cls_device_db_release(db);
}

static void cache_status_is_written_to_the_caller_s_size(void **state)
{
    (void)state;
    setenv("CLSTENCIL_CACHE", "off", 1);
    cls_cache_status status = {0};
    assert_int_equal(cls_cache_query(&status), CLS_ERR_INVALID_ARGUMENT);
    expect_message("cls_cache_status.struct_size is 0: start it with CLS_CACHE_STATUS_INIT");
    status = (cls_cache_status){CLS_CACHE_STATUS_INIT, .enabled = 5};
    assert_int_equal(cls_cache_query(&status), CLS_OK);
    assert_int_equal(status.struct_size, sizeof status);
    assert_int_equal(status.enabled, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_size_is_refused_with_the_fix),
        cmocka_unit_test(size_below_the_first_layout_is_refused),
        cmocka_unit_test(exact_size_is_read_as_it_is),
        cmocka_unit_test(older_caller_gets_the_defaults),
        cmocka_unit_test(newer_caller_with_unknown_fields_zero_is_read),
        cmocka_unit_test(newer_caller_with_unknown_fields_set_is_refused),
        cmocka_unit_test(a_size_far_past_the_library_is_refused),
        cmocka_unit_test(output_fits_the_caller_s_size),
        cmocka_unit_test(spec_without_struct_size_is_refused),
        cmocka_unit_test(spec_of_a_newer_header_is_read_when_its_new_fields_are_zero),
        cmocka_unit_test(older_spec_gets_the_spec_defaults),
        cmocka_unit_test(caps_without_struct_size_are_refused),
        cmocka_unit_test(cache_status_is_written_to_the_caller_s_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
