/* bench_options.c — the command lines of `clstencil bench` and `clstencil tune` (see
 * bench_options.h): comma-separated lists of sizes, borders and knobs, the operators, the checks
 * of what goes together, and the files a report is written to. */
#include "bench_options.h"
#include "cli.h"
#include "commands.h"
#include "user_operator.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Splits a comma-separated list and parses each item into array[*count]; 0 on a bad item. */
typedef int (*item_parser)(const char *item, void *array, size_t index);

static int parse_list(const char *text, item_parser parse, void *array, size_t *count)
{
    *count = 0;
    char item[64];
    for (const char *p = text;;) {
        const size_t length = strcspn(p, ",");
        if (length == 0 || length >= sizeof item || *count == BENCH_MAX_LIST) return 0;
        memcpy(item, p, length);
        item[length] = '\0';
        if (!parse(item, array, (*count)++)) return 0;
        if (p[length] == '\0') return 1;
        p += length + 1;
    }
}

static int parse_size_item(const char *item, void *array, size_t index)
{
    bench_size *s = &((bench_size *)array)[index];
    char *end;
    const unsigned long side = strtoul(item, &end, 10);
    if (*end == '\0' && side > 0 && side < 65536) {
        s->width = s->height = (unsigned)side;
        return 1;
    }
    const char *third = strchr(item, 'x') ? strchr(strchr(item, 'x') + 1, 'x') : NULL;
    if (!third) return parse_size(item, &s->width, &s->height);
    char flat[32]; /* WxHxD: a volume */
    if ((size_t)(third - item) >= sizeof flat) return 0;
    memcpy(flat, item, (size_t)(third - item));
    flat[third - item] = '\0';
    s->depth = (unsigned)strtoul(third + 1, &end, 10);
    return *end == '\0' && s->depth > 0 && s->depth < 65536 && parse_size(flat, &s->width, &s->height);
}

static int parse_group_item(const char *item, void *array, size_t index)
{
    bench_size *s = &((bench_size *)array)[index];
    if (strcmp(item, "auto") == 0) return s->width = s->height = 0, 1;
    return parse_size(item, &s->width, &s->height);
}

static int parse_border_item(const char *item, void *array, size_t index)
{
    return cls_border_parse(item, &((cls_border *)array)[index]) == CLS_OK;
}

static int parse_partition_item(const char *item, void *array, size_t index)
{
    return cls_partition_parse(item, &((cls_partition *)array)[index]) == CLS_OK;
}

static int parse_input_item(const char *item, void *array, size_t index)
{
    return cls_input_path_parse(item, &((cls_input_path *)array)[index]) == CLS_OK;
}

static int parse_method_item(const char *item, void *array, size_t index)
{
    return cls_method_parse(item, &((cls_method *)array)[index]) == CLS_OK;
}

static int parse_separable_item(const char *item, void *array, size_t index)
{
    return cls_separable_parse(item, &((cls_separable *)array)[index]) == CLS_OK;
}

/* Rows or columns per work-item: a count that `valid` accepts, or auto (0). */
static int parse_blocking(const char *item, unsigned *out, int (*valid)(unsigned))
{
    if (strcmp(item, "auto") == 0) return *out = 0, 1;
    char *end;
    const unsigned long value = strtoul(item, &end, 10);
    *out = (unsigned)value;
    return *end == '\0' && value == *out && valid(*out);
}

static int parse_rows_item(const char *item, void *array, size_t index)
{
    return parse_blocking(item, &((unsigned *)array)[index], cls_volume_slices_valid);
}

static int parse_cols_item(const char *item, void *array, size_t index)
{
    return parse_blocking(item, &((unsigned *)array)[index], cls_cols_per_item_valid);
}

static int parse_count(const char *text, int least, int *out)
{
    char *end;
    const long value = strtol(text, &end, 10);
    *out = (int)value;
    return *end == '\0' && value >= least && value <= 100000;
}

static int parse_float(const char *text, float *out)
{
    char *end;
    *out = strtof(text, &end);
    return end != text && *end == '\0' && isfinite(*out);
}

/* The Night filter's stages (a-trous 3, 5, 9, 17, then tone mapping). */
static const char *const NIGHT[] = {"atrous:1", "atrous:2", "atrous:4", "atrous:8", "tonemap"};

#define COMMAND(o) ((o)->tune ? "tune" : "bench")

static int add_op(bench_options *o, const char *text)
{
    const int night = strcmp(text, "night") == 0;
    const size_t adds = night ? sizeof NIGHT / sizeof NIGHT[0] : 1;
    if (o->op_count + adds > BENCH_MAX_STAGES) {
        fprintf(stderr, "clstencil %s: at most %d stages\n", COMMAND(o), BENCH_MAX_STAGES);
        return 0;
    }
    /* The label names an operator as the library does: "convolve:9x9", not its 81 values. */
    cls_operator *op = NULL;
    int read_failed = 0;
    if (!night && command_operator_parse(text, &op, &read_failed) != CLS_OK) {
        if (!read_failed) fprintf(stderr, "clstencil %s: --op %s: %s\n", COMMAND(o), text, cls_last_error());
        return 0;
    }
    for (size_t i = 0; i < adds; ++i) o->ops[o->op_count++] = night ? NIGHT[i] : text;
    const size_t used = strlen(o->label);
    snprintf(o->label + used, sizeof o->label - used, "%s%s", used ? "+" : "", night ? text : cls_operator_name(op));
    cls_operator_release(op);
    return 1;
}

static void options_init(bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->bake = -1;
    o->runs = -1;
    o->warmup = -1;
}

/* Options with a value; returns 0 for a bad value or an unknown option, after saying why. */
static int parse_valued(bench_options *o, const cli_parser *parser, const char *name, const char *value)
{
    int ok = 1, grid = 1;
    if (strcmp(name, "--suite") == 0) ok = bench_suite_known(o->suite = value), grid = 0;
    else if (strcmp(name, "--op") == 0) return add_op(o, value);
    else if (strcmp(name, "--size") == 0 || strcmp(name, "--sizes") == 0)
        ok = parse_list(value, parse_size_item, o->sizes, &o->size_count), grid = 0;
    else if (strcmp(name, "--border") == 0 || strcmp(name, "--borders") == 0)
        ok = parse_list(value, parse_border_item, o->borders, &o->border_count), grid = 0;
    else if (strcmp(name, "--value") == 0) ok = parse_float(value, &o->border_value);
    else if (strcmp(name, "--partition") == 0) ok = parse_list(value, parse_partition_item, o->partitions, &o->partition_count);
    else if (strcmp(name, "--input") == 0) ok = parse_list(value, parse_input_item, o->inputs, &o->input_count);
    else if (strcmp(name, "--separable") == 0) ok = parse_list(value, parse_separable_item, o->separables, &o->separable_count);
    else if (strcmp(name, "--method") == 0) /* a grid's list, or --cold's one method */
        ok = parse_list(value, parse_method_item, o->methods, &o->method_count), grid = 0;
    else if (strcmp(name, "--rows") == 0) ok = parse_list(value, parse_rows_item, o->rows, &o->rows_count);
    else if (strcmp(name, "--cols") == 0) ok = parse_list(value, parse_cols_item, o->cols, &o->cols_count);
    else if (strcmp(name, "--wg") == 0) ok = parse_list(value, parse_group_item, o->groups, &o->group_count);
    else if (strcmp(name, "--runs") == 0) ok = parse_count(value, 1, &o->runs), grid = 0;
    else if (strcmp(name, "--warmup") == 0) ok = parse_count(value, 0, &o->warmup), grid = 0;
    else if (strcmp(name, "--compare") == 0) ok = (o->compare = strcmp(value, "naive") == 0), grid = 0;
    else if (strcmp(name, "--csv") == 0) o->csv = value, grid = 0;
    else if (strcmp(name, "--json") == 0) o->json = value, grid = 0;
    else if (strcmp(name, "--svg") == 0) o->svg = value, grid = 0;
    else if (strcmp(name, "--device") == 0) note_device_option(o->device = value), grid = 0;
    else {
        fprintf(stderr, "clstencil %s: unknown option '%s'\n", COMMAND(o), name);
        return 0;
    }
    o->grid_options |= grid;
    return ok ? 1 : cli_bad_value(parser, name, value);
}

#define BORDERS "a comma-separated list of undefined, clamp, mirror, mirror101, repeat, constant"
#define SIZES "a comma-separated list of N, WxH or WxHxD (a volume)"

/* bench's and tune's options (one table: each command refuses the other's in finish_options);
 * the flags (no value) come after the valued ones. */
static const cli_option OPTIONS[] = {
    {"--suite", 0, "isp, hipacc or filters"}, {"--op", 0, "an operator (clstencil(1) lists them) or night"},
    {"--size", 's', SIZES}, {"--sizes", 0, SIZES}, {"--border", 'b', BORDERS}, {"--borders", 0, BORDERS},
    {"--value", 0, "a finite number"},
    {"--partition", 0, "a comma-separated list of naive, isp-block, isp-warp, auto"},
    {"--input", 0, "a comma-separated list of auto, global, local, image"},
    {"--separable", 0, "a comma-separated list of auto, none, single-pass, two-pass"},
    {"--method", 0, "a comma-separated list of auto, direct, fft"},
    {"--rows", 0, "a comma-separated list of auto, 1 to 8, 16, 32, 64, 128 (a volume's slices: 256, 512 too)"},
    {"--cols", 0, "a comma-separated list of auto, 1, 2, 4, 8"},
    {"--wg", 0, "a comma-separated list of WxH or auto"},
    {"--runs", 'r', "a whole number, at least 20 for a timing median, at least 1 with bench --short"},
    {"--warmup", 0, "a whole number, at least 0"}, {"--compare", 0, "naive"}, {"--csv", 0, "a file"},
    {"--json", 0, "a file"}, {"--svg", 0, "a file"}, {"--device", 'd', "P:D, gpu, cpu, accelerator or a name part"},
    {"--short", 0, NULL}, {"--no-store", 0, NULL}, {"--model-check", 0, NULL}, {"--calibrate-isp", 0, NULL},
    {"--bake", 0, NULL}, {"--runtime-mask", 0, NULL}, {"--argument-mask", 0, NULL}, {"--shared-regions", 0, NULL},
    {"--separate-regions", 0, NULL}, {"--body-apart-regions", 0, NULL}, {"--fold", 0, NULL}, {"--cold", 0, NULL}, {"--transfers", 0, NULL}, {"--quiet", 'q', NULL},
};

static void parse_flag(bench_options *o, const char *name)
{
    if (strcmp(name, "--short") == 0) o->check = 1;
    else if (strcmp(name, "--no-store") == 0) o->no_store = 1;
    else if (strcmp(name, "--model-check") == 0) o->model_check = 1;
    else if (strcmp(name, "--calibrate-isp") == 0) o->calibrate_isp = 1;
    else if (strcmp(name, "--cold") == 0) o->cold = 1;
    else if (strcmp(name, "--transfers") == 0) o->transfers = 1;
    else if (strcmp(name, "--quiet") == 0) o->quiet = 1;
    else o->grid_options = 1;
    if (strcmp(name, "--bake") == 0) o->bake = 1;
    if (strcmp(name, "--runtime-mask") == 0) o->bake = 0;
    if (strcmp(name, "--argument-mask") == 0) o->bake = 2;
    if (strcmp(name, "--shared-regions") == 0) o->region_code = CLS_REGION_CODE_SHARED;
    if (strcmp(name, "--separate-regions") == 0) o->region_code = CLS_REGION_CODE_SEPARATE;
    if (strcmp(name, "--body-apart-regions") == 0) o->region_code = CLS_REGION_CODE_BODY_APART;
    if (strcmp(name, "--fold") == 0) o->fold = 1;
}

/* 1 when a list names `auto` (0 in rows, AUTO in the enums, 0x0 in shapes). */
static int lists_name_auto(const bench_options *o)
{
    int any = 0;
    for (size_t i = 0; i < o->partition_count; ++i) any |= o->partitions[i] == CLS_PARTITION_AUTO;
    for (size_t i = 0; i < o->input_count; ++i) any |= o->inputs[i] == CLS_INPUT_AUTO;
    for (size_t i = 0; i < o->rows_count; ++i) any |= o->rows[i] == 0;
    for (size_t i = 0; i < o->group_count; ++i) any |= o->groups[i].width == 0;
    return any;
}

/* Whether tune's one operator is a volume's (its mask has a depth). */
static int tunes_a_volume(const bench_options *o)
{
    cls_operator *op = NULL;
    const int volume = cls_operator_parse(o->ops[0], &op) == CLS_OK && cls_operator_spec(op)->mask_depth > 0;
    cls_operator_release(op);
    return volume;
}

/* tune of a volume's operator: on a volume, over work-group shapes and the slices a work-item
 * walks (--rows), which are what `auto` takes from a volume's result; the rest stays auto. */
static int finish_volume_tune_options(bench_options *o)
{
    if (o->partition_count || o->input_count || o->cols_count) {
        fprintf(stderr, "clstencil tune: a volume's operator is tuned over --wg and --rows (the slices a work-item "
                        "walks); its partition, input path and columns are the device's policy\n");
        return 0;
    }
    if (!o->size_count || !o->sizes[0].depth) {
        fprintf(stderr, "clstencil tune: a volume's operator is tuned on a volume: --size WxHxD\n");
        return 0;
    }
    static const unsigned slices[] = {8, 16, 32, 64, 128, 256, 512}; /* 8: the shortest walk auto takes */
    o->partitions[0] = CLS_PARTITION_AUTO, o->partition_count = 1;
    o->inputs[0] = CLS_INPUT_AUTO, o->input_count = 1;
    o->cols[0] = 0, o->cols_count = 1;
    if (!o->rows_count) memcpy(o->rows, slices, sizeof slices), o->rows_count = sizeof slices / sizeof slices[0];
    return 1;
}

/* tune: one operator, size and border; explicit choices, the exploration's defaults. */
static int finish_tune_options(bench_options *o)
{
    if (o->suite || o->check || o->compare || o->op_count != 1 || o->size_count > 1 || o->border_count > 1) {
        fprintf(stderr, "clstencil tune: one --op, at most one --size and one --border; no --suite, --short or "
                        "--compare\n");
        return 0;
    }
    if (lists_name_auto(o)) {
        fprintf(stderr, "clstencil tune: auto is what tune fills in; give explicit --partition, --input, --rows "
                        "and --wg values\n");
        return 0;
    }
    if (tunes_a_volume(o)) return finish_volume_tune_options(o);
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    static const cls_input_path inputs[] = {CLS_INPUT_GLOBAL, CLS_INPUT_LOCAL};
    static const unsigned rows[] = {1, 2, 4, 8}, cols[] = {1, 2};
    if (!o->partition_count) memcpy(o->partitions, partitions, sizeof partitions), o->partition_count = 3;
    if (!o->input_count) memcpy(o->inputs, inputs, sizeof inputs), o->input_count = 2;
    if (!o->rows_count) memcpy(o->rows, rows, sizeof rows), o->rows_count = 4;
    if (!o->cols_count) memcpy(o->cols, cols, sizeof cols), o->cols_count = 2;
    /* group_count 0: every shape of the device, once it is known (run_tune). */
    return 1;
}

/* bench's own modes, which tune does not take (one option table serves both commands). */
static int refuse_bench_modes_in_tune(const bench_options *o)
{
    const char *option = o->cold ? "--cold" : o->model_check ? "--model-check" : o->transfers ? "--transfers"
                         : o->calibrate_isp ? "--calibrate-isp" : NULL;
    if (!o->tune || !option) return 1;
    fprintf(stderr, "clstencil tune: %s is an option of clstencil bench; tune does not take it\n", option);
    return 0;
}

/* Fills what was not given and checks the combination; 0 after saying what is wrong. */
static int finish_options(bench_options *o)
{
    if (!refuse_bench_modes_in_tune(o)) return 0;
    if (o->tune && !finish_tune_options(o)) return 0;
    if (o->model_check && o->calibrate_isp) {
        fprintf(stderr, "clstencil bench: --model-check and --calibrate-isp are separate runs\n");
        return 0;
    }
    if (o->calibrate_isp && (o->op_count > 1 || o->size_count > 1 || o->group_count)) {
        fprintf(stderr, "clstencil bench: --calibrate-isp takes one --op (default gaussian:5) and one size "
                        "(default 4096x4096)\n");
        return 0;
    }
    if (o->model_check || o->calibrate_isp) {
        if (o->suite || o->check || o->compare || o->partition_count || o->input_count || o->separable_count ||
            o->method_count || o->rows_count || o->cols_count || o->bake >= 0 || o->fold || o->region_code || lists_name_auto(o)) {
            fprintf(stderr, "clstencil bench: --model-check and --calibrate-isp take --op, --sizes, --borders, "
                            "--value, --wg (explicit shapes, --model-check only) and the run options\n");
            return 0;
        }
        if (o->runs < 0) o->runs = BENCH_DEFAULT_RUNS;
        if (o->warmup < 0) o->warmup = BENCH_DEFAULT_WARMUP;
        if (o->runs < BENCH_MIN_RUNS)
            fprintf(stderr, "clstencil bench: --runs %d: a timing median needs at least %d runs\n", o->runs, BENCH_MIN_RUNS);
        return o->runs >= BENCH_MIN_RUNS;
    }
    if (o->transfers) {
        if (o->tune || o->suite || o->check || o->compare || o->op_count || o->size_count > 1 || o->border_count ||
            o->grid_options || o->method_count || o->model_check || o->calibrate_isp || o->cold || o->csv || o->json ||
            o->svg) {
            fprintf(stderr, "clstencil bench: --transfers takes one --size, --runs, --warmup and --device\n");
            return 0;
        }
        if (!o->size_count) o->sizes[0] = (bench_size){4096, 4096, 0}, o->size_count = 1;
        if (o->runs < 0) o->runs = BENCH_DEFAULT_RUNS;
        if (o->warmup < 0) o->warmup = BENCH_DEFAULT_WARMUP;
        if (o->runs < BENCH_MIN_RUNS)
            fprintf(stderr, "clstencil bench: --runs %d: a timing median needs at least %d runs\n", o->runs, BENCH_MIN_RUNS);
        return o->runs >= BENCH_MIN_RUNS;
    }
    if (o->cold && (o->tune || o->suite || o->check || o->compare || o->size_count > 1 || o->grid_options ||
                    o->model_check || o->calibrate_isp || o->csv || o->json || o->svg || o->method_count > 1)) {
        fprintf(stderr, "clstencil bench: --cold takes --op (each measured on its own), one --size, --borders, "
                        "one --method, --runs, --warmup and --device\n");
        return 0;
    }
    if (o->suite && o->method_count) {
        fprintf(stderr, "clstencil %s: --method applies to --op grids and --cold, not to suites\n", COMMAND(o));
        return 0;
    }
    if (o->tune && o->method_count) {
        fprintf(stderr, "clstencil tune: --method is an option of clstencil bench (tune searches direct kernels)\n");
        return 0;
    }
    if (!o->tune && o->quiet) {
        fprintf(stderr, "clstencil bench: --quiet is an option of clstencil tune\n");
        return 0;
    }
    if (!o->tune && o->no_store) {
        fprintf(stderr, "clstencil %s: --no-store is an option of clstencil tune\n", COMMAND(o));
        return 0;
    }
    if (!o->suite && o->op_count == 0) {
        fprintf(stderr, "clstencil %s: give %s--op OPERATOR\n", COMMAND(o), o->tune ? "" : "--suite NAME or ");
        return 0;
    }
    if (o->suite && o->op_count) {
        fprintf(stderr, "clstencil %s: give --suite or --op, not both\n", COMMAND(o));
        return 0;
    }
    if (o->suite && o->grid_options) {
        fprintf(stderr, "clstencil %s: --partition, --input, --separable, --method, --rows, --cols, --wg, --bake, "
                        "--runtime-mask, --argument-mask, --fold, --shared-regions, --separate-regions, --body-apart-regions and --value apply to --op grids, not to suites\n", COMMAND(o));
        return 0;
    }
    if (o->runs < 0) o->runs = o->check ? BENCH_SHORT_RUNS : BENCH_DEFAULT_RUNS;
    if (o->warmup < 0) o->warmup = o->check ? 0 : BENCH_DEFAULT_WARMUP;
    if (!o->check && o->runs < BENCH_MIN_RUNS) {
        fprintf(stderr, "clstencil %s: --runs %d: a timing median needs at least %d runs\n", COMMAND(o), o->runs, BENCH_MIN_RUNS);
        return 0;
    }
    if (o->check && o->size_count == 0) o->sizes[0] = (bench_size){BENCH_SHORT_WIDTH, BENCH_SHORT_HEIGHT, 0}, o->size_count = 1;
    if (!o->suite) {
        if (!o->size_count) o->sizes[0] = (bench_size){4096, 4096, 0}, o->size_count = 1;
        if (!o->border_count) o->borders[0] = CLS_BORDER_CLAMP, o->border_count = 1;
        if (!o->partition_count) o->partitions[0] = CLS_PARTITION_AUTO, o->partition_count = 1;
        if (!o->input_count) o->inputs[0] = CLS_INPUT_AUTO, o->input_count = 1;
        if (!o->separable_count) o->separables[0] = CLS_SEPARABLE_AUTO, o->separable_count = 1;
        if (!o->method_count) o->methods[0] = CLS_METHOD_AUTO, o->method_count = 1;
        if (!o->rows_count) o->rows[0] = 0, o->rows_count = 1; /* auto: the device's policy */
        if (!o->cols_count) o->cols[0] = 0, o->cols_count = 1; /* auto */
        if (!o->group_count && !o->tune) o->groups[0] = (bench_size){0, 0, 0}, o->group_count = 1;
    }
    if (bench_suite_compares_naive(o->suite)) o->compare = 1;
    if (o->check) o->compare = 0; /* nothing is timed */
    return 1;
}

int bench_parse_options(bench_options *o, int tune, int argc, char **argv)
{
    options_init(o);
    o->tune = tune;
    cli_parser parser;
    cli_init(&parser, tune ? "clstencil tune" : "clstencil bench", OPTIONS, sizeof OPTIONS / sizeof OPTIONS[0], argc,
             argv);
    const char *value;
    for (int found; (found = cli_next(&parser, &value)) != CLI_END;) {
        if (found == CLI_HELP) return BENCH_OPTIONS_HELP;
        if (found == CLI_POSITIONAL)
            fprintf(stderr, "clstencil %s: unexpected argument '%s' (options only)\n", COMMAND(o), value);
        if (found < 0) return 0;
        const char *name = OPTIONS[found].name;
        if (!OPTIONS[found].value) parse_flag(o, name);
        else if (!parse_valued(o, &parser, name, value)) return 0;
    }
    return finish_options(o);
}

int bench_build_plan(const bench_options *o, bench_plan *plan)
{
    bench_axes axes;
    if (o->suite) bench_suite_axes(o->suite, &axes);
    if (o->size_count) axes.sizes = o->sizes, axes.size_count = o->size_count;
    if (o->border_count) axes.borders = o->borders, axes.border_count = o->border_count;
    if (o->suite) return bench_suite_cases(o->suite, &axes, plan);
    bench_grid grid = {.label = o->label, .op_count = o->op_count, .axes = axes, .border_value = o->border_value,
                       .partitions = o->partitions, .partition_count = o->partition_count,
                       .inputs = o->inputs, .input_count = o->input_count,
                       .separables = o->separables, .separable_count = o->separable_count,
                       .methods = o->methods, .method_count = o->method_count,
                       .rows = o->rows, .rows_count = o->rows_count, .cols = o->cols, .cols_count = o->cols_count,
                       .groups = o->groups, .group_count = o->group_count, .bake = o->bake, .fold = o->fold,
                       .region_code = o->region_code};
    memcpy(grid.ops, o->ops, sizeof grid.ops);
    return bench_grid_cases(&grid, plan);
}

/* Whether a report file can be written: a new one is created and removed again, an existing one
 * opened for writing without being truncated. 0 after a message naming the option and the file. */
static int report_file_writable(const char *command, const char *option, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const int created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "clstencil %s: %s %s: cannot be written: %s\n", command, option, path, strerror(errno));
        return 0;
    }
    close(fd);
    if (created) unlink(path);
    return 1;
}

int bench_check_report_files(const bench_options *o)
{
    const char *const options[] = {"--csv", "--json", "--svg"};
    const char *const paths[] = {o->csv, o->json, o->svg};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; ++i)
        if (paths[i] && !report_file_writable(COMMAND(o), options[i], paths[i])) return EXIT_OUTPUT;
    return EXIT_OK_;
}

int bench_write_files(const bench_report *report, const bench_options *o)
{
    int ok = 1;
    if (o->csv) ok &= bench_write_csv(report, o->csv);
    if (o->json) ok &= bench_write_json(report, o->json);
    if (o->svg) ok &= bench_write_svg(report, o->svg);
    return ok;
}
