/* cmd_bench.c — `clstencil bench`: times a named suite of the references' experiments or a
 * custom grid of one pipeline of --op stages on the device (median kernel time from OpenCL
 * profiling events next to a device copy of the same bytes), optionally against the naive
 * partition of the same configuration; --short checks the outputs of every variant against the
 * plain global variant instead of timing. The parts live in bench_*.c (see bench.h). */
#include "bench.h"
#include "commands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIST = 32 };

static int usage(FILE *out, int code)
{
    fprintf(out,
            "usage: clstencil bench --suite isp|hipacc|filters [--short] [OPTIONS]\n"
            "       clstencil bench --op OPERATOR [--op ...] [GRID OPTIONS] [OPTIONS]\n"
            "  times stencils on the device (f32): the median kernel time of %d runs after %d warm-up runs from\n"
            "  OpenCL profiling events, a device-to-device copy of the same bytes in the same run, their ratio\n"
            "  and the effective bandwidth.\n"
            "suites:\n"
            "  isp      Gaussian 3x3, Laplace 5x5, bilateral 13x13, Sobel x, y, magnitude, Night; naive, isp,\n"
            "           isp+model (auto); clamp, mirror, repeat, constant; 512^2 to 4096^2; geometric means\n"
            "  hipacc   bilateral 13x13 (sigma_d 3) at 4096^2 in every border mode: plain, +mask, +image, +local\n"
            "  filters  Scharr x and y at 3, 5, 7, 9: single, local, separable-2pass, separable-1pass, double,\n"
            "           predefined; clamp; 512^2 to 4096^2\n"
            "  --short  each suite at 64x48, %d runs, no warm-up: checks that every variant's outputs equal the\n"
            "           plain global variant's (naive partition) and exits 3 on a mismatch; times nothing\n"
            "grid options (with --op; lists are comma-separated, every combination is run):\n"
            "  --op OPERATOR          a stage (cls_operator_parse's syntax, or night); repeated: one pipeline\n"
            "  --size WxH | --sizes N|WxH,...   image sizes (default 4096x4096)\n"
            "  --border M | --borders M,...     border modes (default clamp); --value V for constant\n"
            "  --partition naive|isp-block|isp-warp|auto,...   --input auto|global|local|image,...\n"
            "  --separable auto|none|single-pass|two-pass,...  --rows auto|N,...  --cols auto|N,...  --wg WxH|auto,...\n"
            "  --bake | --runtime-mask   mask as literals or a __constant buffer (default: the operator's)\n"
            "  --fold                 baked masks: equal taps share a multiplication\n"
            "options:\n"
            "  --sizes, --borders     replace a suite's sizes and borders too\n"
            "  --runs N (at least %d), --warmup N   --device SELECTOR (as CLSTENCIL_DEVICE)\n"
            "  --compare naive        add the same configuration with partition naive, and the speedup\n"
            "  --csv FILE, --json FILE   write the rows; --svg FILE draws them with gnuplot when it is on PATH\n"
            "  --model-check          for every --op (each its own case; default Gaussian 3x3 and 5x5, Laplace\n"
            "                         5x5, bilateral 13x13, Sobel magnitude) x size (default 512^2 to 4096^2) x\n"
            "                         border (default clamp, mirror, repeat, constant): the analytic models'\n"
            "                         choice against the best of every partition x --wg shape (default every\n"
            "                         shape tune explores); the share within 5%% of the best, the geometric-mean\n"
            "                         loss and how often the ISP-versus-naive choice matches the faster\n",
            BENCH_DEFAULT_RUNS, BENCH_DEFAULT_WARMUP, BENCH_SHORT_RUNS, BENCH_MIN_RUNS);
    return code;
}

static int tune_usage(FILE *out, int code)
{
    fprintf(out,
            "usage: clstencil tune --op OPERATOR [--size WxH] [--border MODE] [GRID OPTIONS] [OPTIONS]\n"
            "  explores every combination of partition, input path, work-group shape, rows and columns per\n"
            "  work-item for one operator, image size and border on the device (median kernel time of %d runs\n"
            "  after %d warm-up runs each, as clstencil bench), prints the fastest and stores the best in the\n"
            "  user's tuning database, which `auto` consults first (exact size class, else the nearest).\n"
            "  --op OPERATOR          the operator (cls_operator_parse's syntax)\n"
            "  --size WxH             the image size (default 4096x4096); --border MODE (default clamp), --value V\n"
            "grid options (lists are comma-separated; auto is not a choice here):\n"
            "  --partition LIST       default naive,isp-block,isp-warp\n"
            "  --input LIST           default global,local\n"
            "  --rows LIST            default 1,2,4,8;   --cols LIST   default 1,2\n"
            "  --wg WxH,...           default every shape from the SIMD width up to %d wide and 1 to %d high\n"
            "                         (powers of two), at most %d work-items\n"
            "  --separable S, --bake | --runtime-mask, --fold   as clstencil bench (part of the operator)\n"
            "options:\n"
            "  --runs N (at least %d), --warmup N   --device SELECTOR (as CLSTENCIL_DEVICE)\n"
            "  --csv FILE, --json FILE   every configuration; --svg FILE kernel time against work-items per\n"
            "                         group, through gnuplot when it is on PATH\n"
            "  --no-store             print the best without storing it\n"
            "the tuning database: CLSTENCIL_TUNING_DB, else $XDG_CONFIG_HOME/clstencil/tuning.ini, else\n"
            "~/.config/clstencil/tuning.ini\n",
            BENCH_DEFAULT_RUNS, BENCH_DEFAULT_WARMUP, TUNE_MAX_GROUP_WIDTH, TUNE_MAX_GROUP_HEIGHT,
            TUNE_MAX_GROUP_ITEMS, BENCH_MIN_RUNS);
    return code;
}

/* ---------------------------------------------------------------- options */

typedef struct bench_options {
    const char *suite;
    int check;
    const char *ops[BENCH_MAX_STAGES];
    size_t op_count;
    char label[1024];
    bench_size sizes[MAX_LIST];
    size_t size_count;
    cls_border borders[MAX_LIST];
    size_t border_count;
    float border_value;
    cls_partition partitions[MAX_LIST];
    size_t partition_count;
    cls_input_path inputs[MAX_LIST];
    size_t input_count;
    cls_separable separables[MAX_LIST];
    size_t separable_count;
    unsigned rows[MAX_LIST], cols[MAX_LIST];
    size_t rows_count, cols_count;
    bench_size groups[MAX_LIST];
    size_t group_count;
    int bake, fold;
    int grid_options; /* an option that only a custom grid takes was given */
    int runs, warmup;
    int compare;
    const char *csv, *json, *svg, *device;
    int tune;     /* clstencil tune */
    int model_check; /* bench --model-check */
    int no_store; /* tune --no-store */
} bench_options;

/* Splits a comma-separated list and parses each item into array[*count]; 0 on a bad item. */
typedef int (*item_parser)(const char *item, void *array, size_t index);

static int parse_list(const char *text, item_parser parse, void *array, size_t *count)
{
    *count = 0;
    char item[64];
    for (const char *p = text;;) {
        const size_t length = strcspn(p, ",");
        if (length == 0 || length >= sizeof item || *count == MAX_LIST) return 0;
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
    return parse_size(item, &s->width, &s->height);
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

static int parse_separable_item(const char *item, void *array, size_t index)
{
    return cls_separable_parse(item, &((cls_separable *)array)[index]) == CLS_OK;
}

static int parse_blocking_item(const char *item, void *array, size_t index)
{
    if (strcmp(item, "auto") == 0) return ((unsigned *)array)[index] = 0, 1;
    char *end;
    const unsigned long value = strtoul(item, &end, 10);
    ((unsigned *)array)[index] = (unsigned)value;
    return *end == '\0' && (value == 1 || value == 2 || value == 4 || value == 8);
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
    if (!night && cls_operator_parse(text, &op) != CLS_OK) {
        fprintf(stderr, "clstencil %s: --op %s: %s\n", COMMAND(o), text, cls_last_error());
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
static int parse_valued(bench_options *o, const char *name, const char *value)
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
    else if (strcmp(name, "--rows") == 0) ok = parse_list(value, parse_blocking_item, o->rows, &o->rows_count);
    else if (strcmp(name, "--cols") == 0) ok = parse_list(value, parse_blocking_item, o->cols, &o->cols_count);
    else if (strcmp(name, "--wg") == 0) ok = parse_list(value, parse_group_item, o->groups, &o->group_count);
    else if (strcmp(name, "--runs") == 0) ok = parse_count(value, 1, &o->runs), grid = 0;
    else if (strcmp(name, "--warmup") == 0) ok = parse_count(value, 0, &o->warmup), grid = 0;
    else if (strcmp(name, "--compare") == 0) ok = (o->compare = strcmp(value, "naive") == 0), grid = 0;
    else if (strcmp(name, "--csv") == 0) o->csv = value, grid = 0;
    else if (strcmp(name, "--json") == 0) o->json = value, grid = 0;
    else if (strcmp(name, "--svg") == 0) o->svg = value, grid = 0;
    else if (strcmp(name, "--device") == 0) o->device = value, grid = 0;
    else {
        fprintf(stderr, "clstencil %s: unknown option '%s'\n", COMMAND(o), name);
        return 0;
    }
    o->grid_options |= grid;
    if (!ok) fprintf(stderr, "clstencil %s: bad value '%s' for %s\n", COMMAND(o), value, name);
    return ok;
}

static int is_flag(const char *name)
{
    return strcmp(name, "--short") == 0 || strcmp(name, "--no-store") == 0 || strcmp(name, "--model-check") == 0 || strcmp(name, "--bake") == 0 || strcmp(name, "--runtime-mask") == 0 ||
           strcmp(name, "--fold") == 0;
}

static void parse_flag(bench_options *o, const char *name)
{
    if (strcmp(name, "--short") == 0) o->check = 1;
    else if (strcmp(name, "--no-store") == 0) o->no_store = 1;
    else if (strcmp(name, "--model-check") == 0) o->model_check = 1;
    else o->grid_options = 1;
    if (strcmp(name, "--bake") == 0) o->bake = 1;
    if (strcmp(name, "--runtime-mask") == 0) o->bake = 0;
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

/* Fills what was not given and checks the combination; 0 after saying what is wrong. */
static int finish_options(bench_options *o)
{
    if (o->tune && !finish_tune_options(o)) return 0;
    if (o->model_check) {
        if (o->suite || o->check || o->compare || o->partition_count || o->input_count || o->separable_count ||
            o->rows_count || o->cols_count || o->bake >= 0 || o->fold || lists_name_auto(o)) {
            fprintf(stderr, "clstencil bench: --model-check takes --op (each its own case), --sizes, --borders, "
                            "--value, --wg (explicit shapes) and the run options\n");
            return 0;
        }
        if (o->runs < 0) o->runs = BENCH_DEFAULT_RUNS;
        if (o->warmup < 0) o->warmup = BENCH_DEFAULT_WARMUP;
        if (o->runs < BENCH_MIN_RUNS)
            fprintf(stderr, "clstencil bench: --runs %d: a timing median needs at least %d runs\n", o->runs, BENCH_MIN_RUNS);
        return o->runs >= BENCH_MIN_RUNS;
    }
    if (!o->tune && o->no_store) {
        fprintf(stderr, "clstencil %s: --no-store is an option of clstencil tune\n", COMMAND(o));
        return 0;
    }
    if (!o->suite && o->op_count == 0) return 0;
    if (o->suite && o->op_count) {
        fprintf(stderr, "clstencil %s: give --suite or --op, not both\n", COMMAND(o));
        return 0;
    }
    if (o->suite && o->grid_options) {
        fprintf(stderr, "clstencil %s: --partition, --input, --separable, --rows, --cols, --wg, --bake, "
                        "--runtime-mask, --fold and --value apply to --op grids, not to suites\n", COMMAND(o));
        return 0;
    }
    if (o->runs < 0) o->runs = o->check ? BENCH_SHORT_RUNS : BENCH_DEFAULT_RUNS;
    if (o->warmup < 0) o->warmup = o->check ? 0 : BENCH_DEFAULT_WARMUP;
    if (!o->check && o->runs < BENCH_MIN_RUNS) {
        fprintf(stderr, "clstencil %s: --runs %d: a timing median needs at least %d runs\n", COMMAND(o), o->runs, BENCH_MIN_RUNS);
        return 0;
    }
    if (o->check && o->size_count == 0) o->sizes[0] = (bench_size){BENCH_SHORT_WIDTH, BENCH_SHORT_HEIGHT}, o->size_count = 1;
    if (!o->suite) {
        if (!o->size_count) o->sizes[0] = (bench_size){4096, 4096}, o->size_count = 1;
        if (!o->border_count) o->borders[0] = CLS_BORDER_CLAMP, o->border_count = 1;
        if (!o->partition_count) o->partitions[0] = CLS_PARTITION_AUTO, o->partition_count = 1;
        if (!o->input_count) o->inputs[0] = CLS_INPUT_AUTO, o->input_count = 1;
        if (!o->separable_count) o->separables[0] = CLS_SEPARABLE_AUTO, o->separable_count = 1;
        if (!o->rows_count) o->rows[0] = 0, o->rows_count = 1; /* auto: the device's policy */
        if (!o->cols_count) o->cols[0] = 0, o->cols_count = 1; /* auto */
        if (!o->group_count && !o->tune) o->groups[0] = (bench_size){0, 0}, o->group_count = 1;
    }
    if (bench_suite_compares_naive(o->suite)) o->compare = 1;
    if (o->check) o->compare = 0; /* nothing is timed */
    return 1;
}

static int parse_options(bench_options *o, int tune, int argc, char **argv)
{
    options_init(o);
    o->tune = tune;
    for (int i = 1; i < argc; ++i) {
        if (is_flag(argv[i])) {
            parse_flag(o, argv[i]);
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "clstencil %s: %s needs a value\n", COMMAND(o), argv[i]);
            return 0;
        }
        if (!parse_valued(o, argv[i], argv[i + 1])) return 0;
        ++i;
    }
    return finish_options(o);
}

static int build_plan(const bench_options *o, bench_plan *plan)
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
                       .rows = o->rows, .rows_count = o->rows_count, .cols = o->cols, .cols_count = o->cols_count,
                       .groups = o->groups, .group_count = o->group_count, .bake = o->bake, .fold = o->fold};
    memcpy(grid.ops, o->ops, sizeof grid.ops);
    return bench_grid_cases(&grid, plan);
}

/* ---------------------------------------------------------------- measurements, memoized */

/* Each configuration is measured once: the naive twin of a row or its reference may be another
 * row of the same run. A measurement is also found under its resolved key (the work-group shapes
 * `auto` chose, pinned), which is how a twin finds its naive row. */
typedef struct memo_entry {
    const char *key;
    bench_result *result;
    int owner; /* frees the result; aliases do not */
} memo_entry;

typedef struct memo {
    memo_entry *entries;
    size_t count, capacity;
} memo;

static bench_result *memo_find(const memo *m, const char *key)
{
    for (size_t i = 0; i < m->count; ++i)
        if (strcmp(m->entries[i].key, key) == 0) return m->entries[i].result;
    return NULL;
}

static int memo_add(memo *m, const char *key, bench_result *result, int owner)
{
    if (!key) return 0;
    if (m->count == m->capacity) {
        const size_t capacity = m->capacity ? 2 * m->capacity : 64;
        memo_entry *entries = realloc(m->entries, capacity * sizeof *entries);
        if (!entries) return 0;
        m->entries = entries;
        m->capacity = capacity;
    }
    m->entries[m->count++] = (memo_entry){key, result, owner};
    return 1;
}

static const bench_result *measure(bench_env *env, bench_plan *plan, memo *m, const bench_case *c)
{
    const char *key = bench_case_key(plan, c);
    bench_result *result = key ? memo_find(m, key) : NULL;
    if (result || !key) return result;
    if (!(result = calloc(1, sizeof *result))) return NULL;
    bench_measure(env, c, result);
    if (!memo_add(m, key, result, 1)) {
        bench_result_free(result);
        free(result);
        return NULL;
    }
    bench_case resolved = *c;
    bench_case_pin_groups(&resolved, result);
    const char *resolved_key = bench_case_key(plan, &resolved);
    if (resolved_key && !memo_find(m, resolved_key)) memo_add(m, resolved_key, result, 0);
    return result;
}

static void memo_free(memo *m)
{
    for (size_t i = 0; i < m->count; ++i)
        if (m->entries[i].owner) {
            bench_result_free(m->entries[i].result);
            free(m->entries[i].result);
        }
    free(m->entries);
}

/* --short: a row's outputs against the plain global variant of its operators and border. */
static void check_row(bench_env *env, bench_plan *plan, memo *m, const bench_case *c, bench_result *result)
{
    if (result->outcome != BENCH_OK) return;
    bench_case plain = *c;
    bench_knobs_plain(&plain.knobs);
    const bench_result *reference = measure(env, plan, m, &plain);
    if (!reference) {
        result->outcome = BENCH_ERROR;
        snprintf(result->note, sizeof result->note, "out of memory");
    } else if (reference->outcome != BENCH_OK) {
        result->outcome = BENCH_ERROR;
        snprintf(result->note, sizeof result->note, "the plain global variant failed: %.250s", reference->note);
    } else if (!bench_outputs_match(result, reference, c->width, c->height, result->note, sizeof result->note)) {
        result->outcome = BENCH_MISMATCH;
    }
}

/* ---------------------------------------------------------------- output */

static int status_exit_code(cls_status status)
{
    switch (status) {
    case CLS_ERR_NO_PLATFORM:
    case CLS_ERR_NO_DEVICE: return EXIT_NO_DEVICE;
    case CLS_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    default: return EXIT_FAILURE_;
    }
}

/* One --op configuration: the two lines bench has always printed. */
static int print_single(const bench_report *report, const bench_options *o)
{
    const bench_row *row = &report->rows[0];
    const bench_result *r = row->result;
    if (r->outcome != BENCH_OK) {
        fprintf(stderr, "clstencil bench: %s%s\n", r->outcome == BENCH_UNSUPPORTED ? "unsupported: " : "", r->note);
        return status_exit_code(r->status);
    }
    printf("device %s; %ux%u f32, border %s, %zu stage(s): %s\n", report->device->name, row->c->width, row->c->height,
           cls_border_name(row->c->border), row->c->op_count, o->label);
    printf("kernel %.1f us (median of %d), copy %.1f us, ratio %.2f, effective %.0f GB/s\n", r->kernel_us, report->runs,
           r->copy_us, r->kernel_us / r->copy_us, bench_row_gbps(row));
    const double speedup = bench_row_speedup(row);
    if (report->compare && speedup > 0)
        printf("naive %.1f us (median of %d), speedup %.2f\n", row->naive->kernel_us, report->runs, speedup);
    else if (report->compare)
        printf("naive: %s\n", row->naive ? row->naive->note : "not measured");
    return EXIT_OK_;
}

static int write_files(const bench_report *report, const bench_options *o)
{
    int ok = 1;
    if (o->csv) ok &= bench_write_csv(report, o->csv);
    if (o->json) ok &= bench_write_json(report, o->json);
    if (o->svg) ok &= bench_write_svg(report, o->svg);
    return ok;
}

/* The exit code of a table: failures and mismatches fail the command, unsupported rows do not. */
static int summarize(const bench_report *report)
{
    size_t failed = 0, mismatched = 0, unsupported = 0;
    for (size_t i = 0; i < report->count; ++i) {
        const bench_outcome outcome = report->rows[i].result->outcome;
        failed += outcome == BENCH_ERROR;
        mismatched += outcome == BENCH_MISMATCH;
        unsupported += outcome == BENCH_UNSUPPORTED;
    }
    if (report->check)
        printf("\nchecked %zu configurations: %zu match the plain global variant, %zu mismatch, %zu failed, "
               "%zu unsupported\n",
               report->count, report->count - failed - mismatched - unsupported, mismatched, failed, unsupported);
    else if (failed || unsupported)
        printf("\n%zu configurations failed, %zu are unsupported on this device\n", failed, unsupported);
    if (failed || mismatched) {
        fprintf(stderr, "clstencil bench: %zu configuration(s) failed, %zu mismatched\n", failed, mismatched);
        return EXIT_FAILURE_;
    }
    return EXIT_OK_;
}

/* Measures every row (printing the table as it goes unless single), then the summary and files. */
static int run_plan(bench_env *env, bench_plan *plan, const bench_options *o)
{
    const size_t count = plan->count;
    bench_row *rows = calloc(count ? count : 1, sizeof *rows);
    bench_result *results = calloc(count ? count : 1, sizeof *results);
    memo m = {0};
    bench_report report = {.suite = o->suite, .device = cls_context_device(env->context), .runs = o->runs,
                           .warmup = o->warmup, .check = o->check, .compare = o->compare, .label_width = 8,
                           .variant_width = 7, .rows = rows};
    for (size_t i = 0; i < count; ++i) {
        const int label = (int)strlen(plan->cases[i].label), variant = (int)strlen(plan->cases[i].variant);
        report.label_width = label > report.label_width ? label : report.label_width;
        report.variant_width = variant > report.variant_width ? variant : report.variant_width;
    }
    const int single = !o->suite && count == 1 && !o->check;
    int code = EXIT_OK_;
    if (!rows || !results) code = EXIT_FAILURE_;
    if (code == EXIT_OK_ && !single) bench_table_header(stdout, &report);
    for (size_t i = 0; code == EXIT_OK_ && i < count; ++i) {
        const bench_case *c = &plan->cases[i];
        const bench_result *measured = measure(env, plan, &m, c);
        /* The naive twin: the same configuration and work-group shapes, partition naive. */
        bench_case twin = *c;
        twin.knobs.partition = CLS_PARTITION_NAIVE;
        if (measured) bench_case_pin_groups(&twin, measured);
        const bench_result *naive = o->compare && measured ? measure(env, plan, &m, &twin) : NULL;
        if (!measured || (o->compare && !naive)) {
            code = EXIT_FAILURE_;
            break;
        }
        results[i] = *measured; /* a copy: the check may mark this row only */
        if (o->check) check_row(env, plan, &m, c, &results[i]);
        rows[i] = (bench_row){c, &results[i], naive};
        report.count = i + 1;
        if (!single) bench_table_row(stdout, &report, &rows[i]);
    }
    if (code != EXIT_OK_) fprintf(stderr, "clstencil bench: out of memory\n");
    else if (single) code = print_single(&report, o);
    else {
        bench_table_geomeans(stdout, &report);
        code = summarize(&report);
    }
    if (report.count && !write_files(&report, o) && code == EXIT_OK_) code = EXIT_FAILURE_;
    memo_free(&m);
    free(rows);
    free(results);
    return code;
}

/* --model-check: the grid of the options (or the models issue's), shapes every valid one. */
static int run_model_check(bench_options *o)
{
    bench_env env;
    cls_status status = bench_env_init(&env, o->device, o->runs, o->warmup, 0);
    int code;
    if (status != CLS_OK) {
        code = report_failure("bench", status);
    } else {
        if (!o->group_count) o->group_count = tune_group_shapes(cls_context_device(env.context), o->groups, MAX_LIST);
        model_check_grid grid = {o->ops, o->op_count, o->sizes, o->size_count, o->borders, o->border_count,
                                 o->border_value, o->groups, o->group_count};
        model_check_defaults(&grid);
        code = model_check_run(&env, &grid);
    }
    bench_env_free(&env);
    return code;
}

int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0) return usage(stdout, EXIT_OK_);
    bench_options o;
    if (!parse_options(&o, 0, argc, argv)) return usage(stderr, EXIT_USAGE);
    if (o.model_check) return run_model_check(&o);
    bench_plan plan;
    bench_plan_init(&plan);
    if (!build_plan(&o, &plan)) {
        bench_plan_free(&plan);
        fprintf(stderr, "clstencil bench: out of memory\n");
        return EXIT_FAILURE_;
    }
    bench_env env;
    cls_status status = bench_env_init(&env, o.device, o.runs, o.warmup, o.check);
    const int code = status == CLS_OK ? run_plan(&env, &plan, &o) : report_failure("bench", status);
    bench_env_free(&env);
    bench_plan_free(&plan);
    return code;
}

/* ---------------------------------------------------------------- clstencil tune */

/* Measures every configuration with a progress bar, ranks them, prints the fastest and stores
 * the best; the files hold every configuration. */
static int run_tune(bench_env *env, bench_plan *plan, const bench_options *o)
{
    const size_t count = plan->count;
    bench_row *rows = calloc(count ? count : 1, sizeof *rows), *ranked = calloc(count ? count : 1, sizeof *rows);
    memo m = {0};
    bench_report report = {.device = cls_context_device(env->context), .runs = o->runs, .warmup = o->warmup,
                           .label_width = 8, .variant_width = 7, .rows = rows, .plot_threads = 1};
    int code = rows && ranked ? EXIT_OK_ : EXIT_FAILURE_;
    for (size_t i = 0; code == EXIT_OK_ && i < count; ++i) {
        tune_progress(i, count, &plan->cases[i]);
        const bench_result *measured = measure(env, plan, &m, &plan->cases[i]);
        if (!measured) code = EXIT_FAILURE_;
        else rows[report.count++] = (bench_row){&plan->cases[i], measured, NULL};
        const int variant = (int)strlen(plan->cases[i].variant);
        report.variant_width = variant > report.variant_width ? variant : report.variant_width;
    }
    if (code == EXIT_OK_) tune_progress(count, count, NULL);
    const size_t timed = code == EXIT_OK_ ? tune_rank(&report, ranked) : 0;
    if (code != EXIT_OK_) fprintf(stderr, "clstencil tune: out of memory\n");
    else if (!timed) {
        fprintf(stderr, "clstencil tune: no configuration ran (%s)\n", count ? rows[0].result->note : "none");
        code = EXIT_FAILURE_;
    } else {
        bench_report top = report;
        top.rows = ranked;
        top.count = timed < 10 ? timed : 10;
        report.label_width = top.label_width = (int)strlen(plan->cases[0].label);
        printf("the fastest %zu of %zu configurations (%zu timed):\n", top.count, count, timed);
        bench_table_header(stdout, &top);
        for (size_t i = 0; i < top.count; ++i) bench_table_row(stdout, &top, &ranked[i]);
        const cls_status status = o->no_store ? CLS_OK : tune_store(env, &ranked[0]);
        if (status != CLS_OK) code = report_failure("tune", status);
        else if (!o->no_store) printf("stored in %s: auto now uses %s\n", cls_tuning_path(), ranked[0].c->variant);
    }
    if (report.count && !write_files(&report, o) && code == EXIT_OK_) code = EXIT_FAILURE_;
    memo_free(&m);
    free(rows);
    free(ranked);
    return code;
}

int cmd_tune(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0) return tune_usage(stdout, EXIT_OK_);
    bench_options o;
    if (!parse_options(&o, 1, argc, argv)) return tune_usage(stderr, EXIT_USAGE);
    bench_env env;
    cls_status status = bench_env_init(&env, o.device, o.runs, o.warmup, 0);
    if (status != CLS_OK) {
        bench_env_free(&env);
        return report_failure("tune", status);
    }
    if (!o.group_count) o.group_count = tune_group_shapes(cls_context_device(env.context), o.groups, MAX_LIST);
    bench_plan plan;
    bench_plan_init(&plan);
    int code;
    if (!build_plan(&o, &plan)) {
        fprintf(stderr, "clstencil tune: out of memory\n");
        code = EXIT_FAILURE_;
    } else {
        code = run_tune(&env, &plan, &o);
    }
    bench_env_free(&env);
    bench_plan_free(&plan);
    return code;
}
