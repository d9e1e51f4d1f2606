/* test_bench_output.c — `clstencil bench` files read back: the JSON (parsed with json-c) has
 * one row per configuration of the grid with the documented fields, timings where measured and
 * null where not, speedups when compared with naive; the CSV has a header and one record per
 * row, with the same number of fields in each (quoted fields included); --short writes check
 * rows without timings. Usage: test_bench_output PATH-TO-CLSTENCIL */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *command_path;
static char folder[64];

/* Runs clstencil with the arguments; returns its exit status. */
static int run(const char *arguments)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' %s > '%s/stdout.txt' 2>&1", command_path, arguments, folder);
    const int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    return path;
}

static json_object *member(json_object *object, const char *key, json_type type)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(object, key, &value)) fail_msg("member '%s' is missing", key);
    if (!json_object_is_type(value, type))
        fail_msg("member '%s' has type %s, expected %s", key, json_type_to_name(json_object_get_type(value)),
                 json_type_to_name(type));
    return value;
}

static json_object *read_json(const char *name)
{
    json_object *root = json_object_from_file(path_of(name));
    if (!root) fail_msg("%s is not JSON", path_of(name));
    return root;
}

/* The fields of a CSV record (RFC 4180 quoting), counted; *end moves past the record. */
static int csv_fields(const char **text, char fields[][128], int max)
{
    int count = 0;
    const char *p = *text;
    for (;;) {
        char value[128];
        size_t length = 0;
        if (*p == '"') {
            for (++p; *p && !(*p == '"' && p[1] != '"'); ++p) {
                if (*p == '"') ++p;
                if (length + 1 < sizeof value) value[length++] = *p;
            }
            if (*p == '"') ++p;
        } else {
            for (; *p && *p != ',' && *p != '\n'; ++p)
                if (length + 1 < sizeof value) value[length++] = *p;
        }
        value[length] = '\0';
        if (count < max) strcpy(fields[count], value);
        ++count;
        if (*p != ',') break;
        ++p;
    }
    if (*p == '\n') ++p;
    *text = p;
    return count;
}

static char *read_text(const char *name)
{
    FILE *in = fopen(path_of(name), "rb");
    if (!in) fail_msg("cannot read %s", path_of(name));
    static char text[1 << 16];
    const size_t size = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[size] = '\0';
    return text;
}

static int setup(void **state)
{
    (void)state;
    strcpy(folder, "/tmp/cls-bench-test-XXXXXX");
    return mkdtemp(folder) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    return system(command) == 0 ? 0 : -1;
}

/* A 2 x 2 grid (sizes x borders) of a two-stage pipeline, compared with naive. */
static void timing_rows_in_json_and_csv(void **state)
{
    (void)state;
    char arguments[512];
    snprintf(arguments, sizeof arguments,
             "bench --op gaussian:3,0.8 --op box:3 --sizes 64x48,32 --borders clamp,constant --compare naive "
             "--runs 20 --warmup 1 --csv '%s/out.csv' --json '%s/out.json'",
             folder, folder);
    assert_int_equal(run(arguments), 0);

    json_object *root = read_json("out.json");
    assert_string_equal(json_object_get_string(member(root, "mode", json_type_string)), "timing");
    assert_int_equal(json_object_get_int(member(root, "runs", json_type_int)), 20);
    assert_int_equal(json_object_get_int(member(root, "warmup", json_type_int)), 1);
    member(member(root, "device", json_type_object), "name", json_type_string);
    json_object *rows = member(root, "rows", json_type_array);
    assert_int_equal(json_object_array_length(rows), 4);
    static const char *const borders[4] = {"clamp", "constant", "clamp", "constant"};
    static const int widths[4] = {64, 64, 32, 32};
    for (size_t i = 0; i < 4; ++i) {
        json_object *row = json_object_array_get_idx(rows, i);
        assert_string_equal(json_object_get_string(member(row, "operator", json_type_string)), "gaussian:3,0.8+box:3");
        assert_int_equal(json_object_array_length(member(row, "operators", json_type_array)), 2);
        assert_string_equal(json_object_get_string(member(row, "border", json_type_string)), borders[i]);
        assert_int_equal(json_object_get_int(member(row, "width", json_type_int)), widths[i]);
        assert_string_equal(json_object_get_string(member(row, "outcome", json_type_string)), "ok");
        const double kernel = json_object_get_double(member(row, "kernel_us", json_type_double));
        const double copy = json_object_get_double(member(row, "copy_us", json_type_double));
        const double naive = json_object_get_double(member(row, "naive_us", json_type_double));
        const double speedup = json_object_get_double(member(row, "speedup", json_type_double));
        assert_true(kernel > 0 && copy > 0 && naive > 0);
        assert_true(json_object_get_double(member(row, "effective_gbps", json_type_double)) > 0);
        assert_true(fabs(json_object_get_double(member(row, "ratio", json_type_double)) - kernel / copy) < 1e-6 * kernel / copy);
        assert_true(fabs(speedup - naive / kernel) < 1e-6 * speedup);
        member(row, "chosen_partition", json_type_string);
    }
    member(root, "geomeans", json_type_array);
    json_object_put(root);

    const char *text = read_text("out.csv");
    char fields[40][128];
    const int columns = csv_fields(&text, fields, 40);
    assert_true(columns >= 20);
    assert_string_equal(fields[2], "operator");
    int records = 0;
    while (*text) {
        assert_int_equal(csv_fields(&text, fields, 40), columns);
        assert_string_equal(fields[2], "gaussian:3,0.8+box:3"); /* quoted: it holds a comma */
        ++records;
    }
    assert_int_equal(records, 4);
}

/* --short checks outputs: rows say ok and carry no timings. */
static void check_rows_have_no_timings(void **state)
{
    (void)state;
    char arguments[512];
    snprintf(arguments, sizeof arguments,
             "bench --op laplace:5 --short --partition naive,isp-block,isp-warp --borders mirror101,repeat "
             "--json '%s/check.json'",
             folder);
    assert_int_equal(run(arguments), 0);
    json_object *root = read_json("check.json");
    assert_string_equal(json_object_get_string(member(root, "mode", json_type_string)), "check");
    json_object *rows = member(root, "rows", json_type_array);
    assert_int_equal(json_object_array_length(rows), 6);
    for (size_t i = 0; i < 6; ++i) {
        json_object *row = json_object_array_get_idx(rows, i);
        assert_string_equal(json_object_get_string(member(row, "outcome", json_type_string)), "ok");
        assert_int_equal(json_object_get_int(member(row, "width", json_type_int)), 64);
        assert_int_equal(json_object_get_int(member(row, "height", json_type_int)), 48);
        member(row, "kernel_us", json_type_null);
    }
    json_object_put(root);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-TO-CLSTENCIL\n", argv[0]);
        return 2;
    }
    command_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timing_rows_in_json_and_csv),
        cmocka_unit_test(check_rows_have_no_timings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
