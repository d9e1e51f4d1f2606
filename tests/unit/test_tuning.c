/* test_tuning.c — the tuning database's text without a device: size classes, parsing (and its
 * errors with file and line), lookup by exact and nearest size class, rewriting one section of a
 * file, the operator hash that ignores exactly the knobs the tuner chooses, its explicit
 * description, stale key formats counted, and every shipped result still found under the
 * operator hash of its description. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "tuning.h"

#define HASH_A "0123456789abcdef"
#define HASH_B "fedcba9876543210"

static const char TWO_CLASSES[] =
    "; shipped results\n"
    "[sm_90 " HASH_A " 9]\n"
    "description = gaussian:3 clamp\n"
    "key = 2\n"
    "partition = isp-block\ninput = global\ngroup = 32x4\nrows = 8\ncols = 1\nkernel_us = 12.5\nsize = 512x512\n"
    "\n"
    "[sm_90 " HASH_A " 12]\n"
    "key = 2\n"
    "partition = naive\ninput = local\ngroup = 64x2\nrows = 4\ncols = 2\n";

static void size_classes(void **state)
{
    (void)state;
    assert_int_equal(cls_size_class(512, 512), 9);
    assert_int_equal(cls_size_class(4096, 4096), 12);
    assert_int_equal(cls_size_class(4096, 1024), 11); /* geometric mean 2048 */
    assert_int_equal(cls_size_class(1920, 1080), 10); /* 1440: log2 10.49 */
    assert_int_equal(cls_size_class(1, 1), 1);
    assert_int_equal(cls_size_class(0, 64), 0);
    /* a volume's: the geometric mean of its three sides */
    assert_int_equal(cls_tuning_size_class(512, 512, 512), 9);
    assert_int_equal(cls_tuning_size_class(1024, 1024, 128), 9);
    assert_int_equal(cls_tuning_size_class(512, 512, 64), 8);
    assert_int_equal(cls_tuning_size_class(256, 256, 256), 8);
    assert_int_equal(cls_tuning_size_class(2048, 2048, 1), 11); /* one slice: the image's */
    assert_int_equal(cls_tuning_size_class(2048, 2048, 0), 11);
    assert_int_equal(cls_tuning_size_class(0, 64, 64), 0);
}

static void parse_and_find(void **state)
{
    (void)state;
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, TWO_CLASSES, "shipped.ini"), CLS_OK);
    assert_int_equal(table.count, 2);
    int exact = -1;
    const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", HASH_A, 9, &exact);
    assert_non_null(e);
    assert_int_equal(exact, 1);
    assert_string_equal(e->description, "gaussian:3 clamp");
    assert_int_equal(e->tuning.partition, CLS_PARTITION_ISP_BLOCK);
    assert_int_equal(e->tuning.input_path, CLS_INPUT_GLOBAL);
    assert_int_equal(e->tuning.group_width, 32);
    assert_int_equal(e->tuning.group_height, 4);
    assert_int_equal(e->tuning.rows_per_item, 8);
    assert_int_equal(e->tuning.width, 512);
    assert_true(e->tuning.kernel_us == 12.5);
    /* the nearest class, the larger on a tie, the largest for an unknown size */
    assert_int_equal(cls_tuning_table_find(&table, "sm_90", HASH_A, 10, &exact)->size_class, 9);
    assert_int_equal(exact, 0);
    assert_int_equal(cls_tuning_table_find(&table, "sm_90", HASH_A, 11, NULL)->size_class, 12);
    assert_int_equal(cls_tuning_table_find(&table, "sm_90", HASH_A, 0, &exact)->size_class, 12);
    assert_int_equal(exact, 0);
    /* another operator or architecture was never tuned */
    assert_null(cls_tuning_table_find(&table, "sm_90", HASH_B, 12, NULL));
    assert_null(cls_tuning_table_find(&table, "sm_80", HASH_A, 12, NULL));
    cls_tuning_table_free(&table);
}

static void later_files_override(void **state)
{
    (void)state;
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, TWO_CLASSES, "shipped.ini"), CLS_OK);
    assert_int_equal(cls_tuning_table_parse(&table,
                                            "[sm_90 " HASH_A " 12]\nkey = 2\npartition = isp-warp\ninput = global\n"
                                            "group = 128x1\nrows = 1\ncols = 1\n",
                                            "user.ini"),
                     CLS_OK);
    assert_int_equal(table.count, 2);
    const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", HASH_A, 12, NULL);
    assert_int_equal(e->tuning.partition, CLS_PARTITION_ISP_WARP);
    assert_int_equal(e->tuning.group_width, 128);
    cls_tuning_table_free(&table);
}

static void expect_error(const char *text, const char *message)
{
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, TWO_CLASSES, "shipped.ini"), CLS_OK);
    assert_int_equal(cls_tuning_table_parse(&table, text, "user.ini"), CLS_ERR_PARSE);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' lacks '%s'", cls_last_error(), message);
    assert_int_equal(table.count, 2); /* nothing of a malformed file is used */
    assert_int_equal(cls_tuning_table_find(&table, "sm_90", HASH_A, 12, NULL)->tuning.partition, CLS_PARTITION_NAIVE);
    cls_tuning_table_free(&table);
}

static void malformed_files_name_file_and_line(void **state)
{
    (void)state;
    static const char complete[] = "partition = naive\ninput = global\ngroup = 32x4\nrows = 1\ncols = 1\n";
    char text[512];
    expect_error("[sm_90 0123 12]\npartition = naive\n", "user.ini:2: section [sm_90 0123 12] is not");
    expect_error("[sm_90 " HASH_A " 12]\npartition = auto\n", "user.ini:2: 'partition' must be naive");
    expect_error("[sm_90 " HASH_A " 12]\nrows = 12\n", "user.ini:2: 'rows' must be 1 to 8, 16, 32, 64, 128, 256 or 512");
    expect_error("[sm_90 " HASH_A " 12]\ngroup = 32\n", "user.ini:2: 'group' must be WxH");
    expect_error("[sm_90 " HASH_A " 12]\nsize = 512x512x0\n", "user.ini:2: 'size' must be WxH or WxHxD");
    expect_error("[sm_90 " HASH_A " 12]\nwarps = 4\n", "user.ini:2: unknown key 'warps'");
    expect_error("[sm_90 " HASH_A " 12]\nisp_check = -1\n", "user.ini:2: 'isp_check' must be a check cost");
    expect_error("\n[sm_90 " HASH_A " 12]\npartition = naive\n", "user.ini:2: section [sm_90 " HASH_A " 12] needs");
    snprintf(text, sizeof text, "[sm_90 " HASH_B " 7]\n%snot ini\n", complete);
    expect_error(text, "user.ini:7: ");
    /* 256 or 512 rows: a volume's slices, refused for an image's size (or none) */
    expect_error("[sm_90 " HASH_A " 12]\npartition = naive\ninput = global\ngroup = 32x4\nrows = 256\ncols = 1\n"
                 "size = 4096x4096\n",
                 "user.ini:1: section [sm_90 " HASH_A " 12] walks 256 slices, which only a volume's size takes");
}

static void replace_one_section(void **state)
{
    (void)state;
    cls_tuning_entry entry = {.arch = "sm_90", .operator_hash = HASH_A, .size_class = 9,
                              .description = "gaussian:3 clamp",
                              .tuning = {CLS_TUNING_INIT, CLS_PARTITION_ISP_WARP, CLS_INPUT_LOCAL, 64, 4, 2, 1, 7.5,
                                         512, 512}};
    char *text = cls_tuning_text_replace(TWO_CLASSES, &entry);
    assert_non_null(text);
    assert_non_null(strstr(text, "; shipped results\n")); /* comments stay */
    assert_null(strstr(text, "group = 32x4"));            /* the old section went */
    assert_non_null(strstr(text, "[sm_90 " HASH_A " 12]\nkey = 2\npartition = naive")); /* the other stays */
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, text, "rewritten"), CLS_OK);
    assert_int_equal(table.count, 2);
    const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", HASH_A, 9, NULL);
    assert_int_equal(e->tuning.partition, CLS_PARTITION_ISP_WARP);
    assert_int_equal(e->tuning.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(e->tuning.group_width, 64);
    assert_true(e->tuning.kernel_us == 7.5);
    free(text);
    /* a new section is appended; an empty file gets just it */
    entry.size_class = 10;
    text = cls_tuning_text_replace(NULL, &entry);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "[sm_90 " HASH_A " 10]\n", 26), 0);
    cls_tuning_table_free(&table);
    assert_int_equal(cls_tuning_table_parse(&table, text, "new"), CLS_OK);
    assert_int_equal(table.count, 1);
    cls_tuning_table_free(&table);
    free(text);
}

/* A volume's result keeps its depth: "size = WxHxD" written and read back. */
static void volume_sizes_round_trip(void **state)
{
    (void)state;
    cls_tuning_entry entry = {.arch = "sm_90", .operator_hash = HASH_A, .size_class = 9,
                              .description = "gaussian3d:13,2 clamp",
                              .tuning = {CLS_TUNING_INIT, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_LOCAL, 32, 16, 64, 4, 700.0,
                                         512, 512, .depth = 256}};
    char *text = cls_tuning_text_replace(NULL, &entry);
    assert_non_null(strstr(text, "size = 512x512x256\n"));
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, text, "volume"), CLS_OK);
    const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", HASH_A, 9, NULL);
    assert_int_equal(e->tuning.width, 512);
    assert_int_equal(e->tuning.depth, 256);
    assert_int_equal(e->tuning.rows_per_item, 64);
    cls_tuning_table_free(&table);
    free(text);
}

static void operator_hash_ignores_the_tuned_knobs(void **state)
{
    (void)state;
    static const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    char base[17], other[17];
    assert_int_equal(cls_operator_hash(&spec, base), CLS_OK);
    assert_int_equal(strlen(base), 16);
    cls_spec tuned = spec;
    tuned.partition = CLS_PARTITION_ISP_WARP;
    tuned.input_path = CLS_INPUT_LOCAL;
    tuned.group_width = 64;
    tuned.group_height = 2;
    tuned.rows_per_item = 8;
    tuned.cols_per_item = 2;
    tuned.expected_width = tuned.expected_height = 512;
    assert_int_equal(cls_operator_hash(&tuned, other), CLS_OK);
    assert_string_equal(base, other);
    cls_spec changed = spec;
    changed.border = CLS_BORDER_MIRROR;
    assert_int_equal(cls_operator_hash(&changed, other), CLS_OK);
    assert_string_not_equal(base, other);
    changed = spec;
    changed.bake_coefficients = 1;
    assert_int_equal(cls_operator_hash(&changed, other), CLS_OK);
    assert_string_not_equal(base, other);
    changed = spec;
    changed.mask_width = 4; /* an invalid spec (even width) has no hash */
    assert_int_equal(cls_operator_hash(&changed, other), CLS_ERR_INVALID_ARGUMENT);
}

/* A result keyed in another format (no key line: the first format) is not used but counted, with
 * the first file that had one, for the context's warning. */
static void stale_results_are_counted(void **state)
{
    (void)state;
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, TWO_CLASSES, "shipped.ini"), CLS_OK);
    assert_int_equal(table.stale, 0);
    assert_int_equal(cls_tuning_table_parse(&table,
                                            "[sm_90 " HASH_B " 12]\npartition = naive\ninput = global\n"
                                            "group = 32x4\nrows = 1\ncols = 1\n\n"
                                            "[sm_90 " HASH_B " 9]\nkey = 1\npartition = naive\ninput = global\n"
                                            "group = 32x4\nrows = 1\ncols = 1\n",
                                            "old.ini"),
                     CLS_OK);
    assert_int_equal(table.stale, 2);
    assert_string_equal(table.stale_location, "old.ini");
    assert_null(cls_tuning_table_find(&table, "sm_90", HASH_B, 12, NULL));
    assert_non_null(cls_tuning_table_find(&table, "sm_90", HASH_A, 12, NULL));
    cls_tuning_table_free(&table);
}

/* The operator's description names its format and every field but the tuned knobs. */
static void operator_description_is_explicit(void **state)
{
    (void)state;
    static const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    spec.border = CLS_BORDER_CONSTANT;
    spec.border_value = 1.0f;
    spec.partition = CLS_PARTITION_ISP_WARP;
    char *text = NULL;
    assert_int_equal(cls_operator_description(&spec, &text), CLS_OK);
    assert_non_null(strstr(text, "operator-v2;mask=3x3;masks=1;border=constant;value=3f800000;in=f32;out=f32;"));
    assert_non_null(strstr(text, ";coefficients=literals;values=3f80000040000000"));
    assert_null(strstr(text, "partition"));
    assert_null(strstr(text, "region"));
    free(text);
}

/* An ISP calibration is a section of its own name (not an operator's) with the check cost. */
static void isp_calibrations_round_trip(void **state)
{
    (void)state;
    cls_tuning_entry entry = {.arch = "sm_90", .size_class = 12, .description = "ISP calibration",
                              .tuning = {CLS_TUNING_INIT, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_GLOBAL, 32, 2, 8, 2,
                                         57.2, 4096, 4096},
                              .calibrated = 1, .isp_check = 1.725};
    cls_isp_calibration_hash(CLS_BORDER_CLAMP, entry.operator_hash);
    char mirror[17];
    cls_isp_calibration_hash(CLS_BORDER_MIRROR, mirror);
    assert_string_not_equal(entry.operator_hash, mirror);
    char *text = cls_tuning_text_replace(TWO_CLASSES, &entry);
    assert_non_null(text);
    assert_non_null(strstr(text, "isp_check = 1.725\n"));
    cls_tuning_table table = {0};
    assert_int_equal(cls_tuning_table_parse(&table, text, "rewritten"), CLS_OK);
    const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", entry.operator_hash, 0, NULL);
    assert_non_null(e);
    assert_true(e->calibrated);
    assert_true(e->isp_check == 1.725);
    assert_false(cls_tuning_table_find(&table, "sm_90", HASH_A, 12, NULL)->calibrated); /* tuning results are not */
    cls_tuning_table_free(&table);
    free(text);
}

static void shipped_results_parse(void **state)
{
    (void)state;
    cls_tuning_table table = {0};
    for (size_t i = 0; i < cls_embedded_tuning_count; ++i)
        if (cls_tuning_table_parse(&table, cls_embedded_tuning[i].text, cls_embedded_tuning[i].name) != CLS_OK)
            fail_msg("%s", cls_last_error());
    size_t sm90 = 0;
    for (size_t i = 0; i < table.count; ++i) sm90 += strcmp(table.entries[i].arch, "sm_90") == 0;
    assert_true(sm90 >= 10); /* gaussian 3x3 and 5x5 in the five border modes */
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b) { /* and the H100's ISP calibration */
        char hash[17];
        cls_isp_calibration_hash((cls_border)b, hash);
        const cls_tuning_entry *e = cls_tuning_table_find(&table, "sm_90", hash, 0, NULL);
        if (!e || !e->calibrated) fail_msg("no shipped sm_90 ISP calibration of %s", cls_border_name((cls_border)b));
        assert_true(e->isp_check > 0.5 && e->isp_check < 10.0);
    }
    cls_tuning_table_free(&table);
}

/* Every shipped tuning result is still found: its description ("gaussian:3,0.8 clamp") parsed as
 * an operator and a border mode hashes to its section's name, so a change of the operator key's
 * format cannot orphan the shipped file silently. */
static void shipped_results_still_found(void **state)
{
    (void)state;
    cls_tuning_table table = {0};
    for (size_t i = 0; i < cls_embedded_tuning_count; ++i)
        assert_int_equal(cls_tuning_table_parse(&table, cls_embedded_tuning[i].text, cls_embedded_tuning[i].name), CLS_OK);
    size_t checked = 0;
    for (size_t i = 0; i < table.count; ++i) {
        const cls_tuning_entry *e = &table.entries[i];
        if (e->calibrated) continue;
        char text[sizeof e->description];
        snprintf(text, sizeof text, "%s", e->description);
        char *space = strrchr(text, ' ');
        if (!space) fail_msg("[%s %s] description '%s' is not 'OPERATOR BORDER'", e->arch, e->operator_hash, text);
        *space = '\0';
        cls_border border;
        cls_operator *op = NULL;
        if (cls_border_parse(space + 1, &border) != CLS_OK || cls_operator_parse(text, &op) != CLS_OK)
            fail_msg("[%s %s] description '%s': %s", e->arch, e->operator_hash, e->description, cls_last_error());
        cls_spec spec = *cls_operator_spec(op);
        spec.border = border;
        char hash[17];
        assert_int_equal(cls_operator_hash(&spec, hash), CLS_OK);
        if (strcmp(hash, e->operator_hash) != 0)
            fail_msg("shipped entry [%s %s %u] (%s) is orphaned: its operator hashes to %s now; regenerate the file "
                     "with clstencil tune", e->arch, e->operator_hash, e->size_class, e->description, hash);
        cls_operator_release(op);
        ++checked;
    }
    assert_true(checked >= 5); /* sm_90's gaussian:3 in each border mode */
    cls_tuning_table_free(&table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_classes),
        cmocka_unit_test(parse_and_find),
        cmocka_unit_test(later_files_override),
        cmocka_unit_test(malformed_files_name_file_and_line),
        cmocka_unit_test(replace_one_section),
        cmocka_unit_test(volume_sizes_round_trip),
        cmocka_unit_test(operator_hash_ignores_the_tuned_knobs),
        cmocka_unit_test(isp_calibrations_round_trip),
        cmocka_unit_test(stale_results_are_counted),
        cmocka_unit_test(operator_description_is_explicit),
        cmocka_unit_test(shipped_results_still_found),
        cmocka_unit_test(shipped_results_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
