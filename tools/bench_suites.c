/* bench_suites.c — the configurations `clstencil bench` measures: the named suites that repeat
 * the references' experiments (isp, hipacc, filters), custom grids from the command line, and
 * the plan that holds them. */
#include "bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- plans */

void bench_plan_init(bench_plan *plan) { memset(plan, 0, sizeof *plan); }

void bench_plan_free(bench_plan *plan)
{
    for (size_t i = 0; i < plan->string_count; ++i) free(plan->strings[i]);
    free(plan->strings);
    free(plan->cases);
    memset(plan, 0, sizeof *plan);
}

int bench_plan_add(bench_plan *plan, const bench_case *c)
{
    if (plan->count == plan->capacity) {
        const size_t capacity = plan->capacity ? 2 * plan->capacity : 64;
        bench_case *cases = realloc(plan->cases, capacity * sizeof *cases);
        if (!cases) return 0;
        plan->cases = cases;
        plan->capacity = capacity;
    }
    plan->cases[plan->count++] = *c;
    return 1;
}

const char *bench_plan_string(bench_plan *plan, const char *format, ...)
{
    if (plan->string_count == plan->string_capacity) {
        const size_t capacity = plan->string_capacity ? 2 * plan->string_capacity : 64;
        char **strings = realloc(plan->strings, capacity * sizeof *strings);
        if (!strings) return NULL;
        plan->strings = strings;
        plan->string_capacity = capacity;
    }
    va_list args;
    va_start(args, format);
    const int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (!text) return NULL;
    va_start(args, format);
    vsnprintf(text, (size_t)length + 1, format, args);
    va_end(args);
    plan->strings[plan->string_count++] = text;
    return text;
}

void bench_knobs_init(bench_knobs *knobs)
{
    memset(knobs, 0, sizeof *knobs);
    knobs->partition = CLS_PARTITION_AUTO;
    knobs->input_path = CLS_INPUT_AUTO;
    knobs->separable = CLS_SEPARABLE_AUTO;
    knobs->method = CLS_METHOD_AUTO;
    knobs->bake = -1;
}

void bench_knobs_plain(bench_knobs *knobs)
{
    bench_knobs_init(knobs);
    knobs->partition = CLS_PARTITION_NAIVE;
    knobs->input_path = CLS_INPUT_GLOBAL;
    knobs->separable = CLS_SEPARABLE_NONE;
    knobs->method = CLS_METHOD_DIRECT;
}


const char *bench_case_key(bench_plan *plan, const bench_case *c)
{
    char ops[2048] = "";
    for (size_t i = 0; i < c->op_count; ++i) {
        strncat(ops, c->ops[i], sizeof ops - strlen(ops) - 1);
        strncat(ops, "|", sizeof ops - strlen(ops) - 1);
    }
    const bench_knobs *k = &c->knobs;
    char groups[BENCH_MAX_STAGES * 24] = "";
    for (size_t f = 0; k->groups_pinned && f < BENCH_MAX_STAGES; ++f)
        snprintf(groups + strlen(groups), sizeof groups - strlen(groups), ",%ux%u", k->pinned_groups[f][0],
                 k->pinned_groups[f][1]);
    return bench_plan_string(plan, "%s;%s%s;%s=%.9g;%ux%u;%s;%s;%s;%s;r%u;c%u;g%ux%u%s;b%d;f%d;s%d", ops,
                             c->layout == BENCH_CHAIN ? "chain" : "parallel", k->merge ? "+merge" : "",
                             cls_border_name(c->border), c->border == CLS_BORDER_CONSTANT ? (double)c->border_value : 0.0,
                             c->width, c->height, cls_partition_name(k->partition), cls_input_path_name(k->input_path),
                             cls_separable_name(k->separable), cls_method_name(k->method), k->rows, k->cols,
                             k->groups_pinned ? 0 : k->group_width, k->groups_pinned ? 0 : k->group_height, groups,
                             k->bake, k->fold, (int)k->region_code);
}

void bench_case_pin_groups(bench_case *c, const bench_result *result)
{
    if (result->outcome != BENCH_OK || result->filter_count == 0) return;
    c->knobs.groups_pinned = 1;
    memset(c->knobs.pinned_groups, 0, sizeof c->knobs.pinned_groups);
    memcpy(c->knobs.pinned_groups, result->groups, result->filter_count * sizeof result->groups[0]);
}

/* ---------------------------------------------------------------- the suites */

static const bench_size SIZES_512_TO_4096[] = {{512, 512, 0}, {1024, 1024, 0}, {2048, 2048, 0}, {4096, 4096, 0}};
static const bench_size SIZE_4096[] = {{4096, 4096, 0}};
static const cls_border FOUR_BORDERS[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
static const cls_border CLAMP_ONLY[] = {CLS_BORDER_CLAMP};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* A suite's applications and variants. */
typedef struct suite_app {
    const char *application, *label;
    const char *ops[BENCH_MAX_STAGES];
} suite_app;

typedef struct suite_variant {
    const char *name;
    bench_knobs knobs; /* bake: -1 means the operator's own */
} suite_variant;

/* ISP paper (Qiao, Teich, Hannig): Gaussian 3x3, Laplace 5x5, bilateral 13x13, Sobel x, y
 * and magnitude, and the Night filter, each naive, ISP and ISP with the model's choice. */
static const suite_app ISP_APPS[] = {
    {"gaussian", "gaussian:3", {"gaussian:3"}},
    {"laplace", "laplace:5", {"laplace:5"}},
    {"bilateral", "bilateral:3,0.1,13", {"bilateral:3,0.1,13"}},
    {"sobel", "sobel:x", {"sobel:x"}},
    {"sobel", "sobel:y", {"sobel:y"}},
    {"sobel", "sobel:mag", {"sobel:mag"}},
    {"night", "night", {"atrous:1", "atrous:2", "atrous:4", "atrous:8", "tonemap"}},
};

/* The ISP paper's geometric means of the speedup of ISP (with its model) over naive. */
static const struct {
    const char *application;
    double speedup;
} ISP_PAPER[] = {{"gaussian", 1.438}, {"laplace", 1.422}, {"bilateral", 1.355}, {"sobel", 1.877}, {"night", 1.102}};

static bench_knobs knobs_of(cls_partition partition, cls_input_path input, cls_separable separable, int bake,
                            int merge)
{
    bench_knobs knobs;
    bench_knobs_init(&knobs);
    knobs.partition = partition;
    knobs.input_path = input;
    knobs.separable = separable;
    knobs.bake = bake;
    knobs.merge = merge;
    return knobs;
}

static size_t op_count(const suite_app *app)
{
    size_t count = 0;
    while (count < BENCH_MAX_STAGES && app->ops[count]) ++count;
    return count;
}

/* Appends app x sizes x borders x variants, variants innermost (they are compared). */
static int add_suite(bench_plan *plan, const bench_axes *axes, const suite_app *apps, size_t app_count,
                     const suite_variant *variants, size_t variant_count, bench_layout layout)
{
    for (size_t a = 0; a < app_count; ++a)
        for (size_t s = 0; s < axes->size_count; ++s)
            for (size_t b = 0; b < axes->border_count; ++b)
                for (size_t v = 0; v < variant_count; ++v) {
                    bench_case c = {.application = apps[a].application, .label = apps[a].label,
                                    .variant = variants[v].name, .op_count = op_count(&apps[a]),
                                    .layout = layout, .knobs = variants[v].knobs, .border = axes->borders[b],
                                    .width = axes->sizes[s].width, .height = axes->sizes[s].height};
                    memcpy(c.ops, apps[a].ops, sizeof c.ops);
                    if (!bench_plan_add(plan, &c)) return 0;
                }
    return 1;
}

static int isp_suite(const bench_axes *axes, bench_plan *plan)
{
    const suite_variant variants[] = {
        {"naive", knobs_of(CLS_PARTITION_NAIVE, CLS_INPUT_AUTO, CLS_SEPARABLE_AUTO, -1, 0)},
        {"isp", knobs_of(CLS_PARTITION_ISP_BLOCK, CLS_INPUT_AUTO, CLS_SEPARABLE_AUTO, -1, 0)},
        {"isp+model", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_AUTO, CLS_SEPARABLE_AUTO, -1, 0)},
    };
    return add_suite(plan, axes, ISP_APPS, COUNT(ISP_APPS), variants, COUNT(variants), BENCH_CHAIN);
}

/* Hipacc (Membarth et al.), Tables II-VII: the bilateral filter 13x13, sigma_d 3, on 4096x4096
 * in every border mode; the mask in a __constant buffer, baked, and the input read through an
 * image or staged in local memory. */
static int hipacc_suite(const bench_axes *axes, bench_plan *plan)
{
    static const suite_app app[] = {{"bilateral", "bilateral:3,0.1,13", {"bilateral:3,0.1,13"}}};
    const suite_variant variants[] = {
        {"plain", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_AUTO, 0, 0)},
        {"+mask", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_AUTO, 1, 0)},
        {"+image", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_IMAGE, CLS_SEPARABLE_AUTO, 0, 0)},
        {"+local", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_LOCAL, CLS_SEPARABLE_AUTO, 0, 0)},
    };
    return add_suite(plan, axes, app, COUNT(app), variants, COUNT(variants), BENCH_CHAIN);
}

/* The practitioner's study: Scharr x and y (both, as the study times them) at 3, 5, 7 and 9,
 * with the mask in a __constant buffer unless predefined (baked, zero taps skipped). */
static int filters_suite(const bench_axes *axes, bench_plan *plan)
{
    const suite_variant variants[] = {
        {"single", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0, 0)},
        {"local", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0, 0)},
        {"separable-2pass", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_TWO_PASS, 0, 0)},
        {"separable-1pass", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 0, 0)},
        {"double", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0, 1)},
        {"predefined", knobs_of(CLS_PARTITION_AUTO, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 1, 0)},
    };
    static const unsigned sizes[] = {3, 5, 7, 9};
    for (size_t k = 0; k < COUNT(sizes); ++k) {
        suite_app app = {"scharr", bench_plan_string(plan, "scharr:x+y,%u", sizes[k]),
                         {bench_plan_string(plan, "scharr:x,%u", sizes[k]), bench_plan_string(plan, "scharr:y,%u", sizes[k])}};
        if (!app.label || !app.ops[0] || !app.ops[1] ||
            !add_suite(plan, axes, &app, 1, variants, COUNT(variants), BENCH_PARALLEL))
            return 0;
    }
    return 1;
}

int bench_suite_known(const char *name)
{
    return strcmp(name, "isp") == 0 || strcmp(name, "hipacc") == 0 || strcmp(name, "filters") == 0;
}

void bench_suite_axes(const char *name, bench_axes *axes)
{
    const int hipacc = strcmp(name, "hipacc") == 0, filters = strcmp(name, "filters") == 0;
    axes->sizes = hipacc ? SIZE_4096 : SIZES_512_TO_4096;
    axes->size_count = hipacc ? COUNT(SIZE_4096) : COUNT(SIZES_512_TO_4096);
    axes->borders = filters ? CLAMP_ONLY : FOUR_BORDERS;
    axes->border_count = filters ? COUNT(CLAMP_ONLY) : COUNT(FOUR_BORDERS);
}

int bench_suite_cases(const char *name, const bench_axes *axes, bench_plan *plan)
{
    if (strcmp(name, "isp") == 0) return isp_suite(axes, plan);
    if (strcmp(name, "hipacc") == 0) return hipacc_suite(axes, plan);
    if (strcmp(name, "filters") == 0) return filters_suite(axes, plan);
    return 0;
}

double bench_suite_paper_speedup(const char *suite, const char *application, const char *variant)
{
    if (!suite || strcmp(suite, "isp") != 0 || strcmp(variant, "isp+model") != 0) return 0;
    for (size_t i = 0; i < COUNT(ISP_PAPER); ++i)
        if (strcmp(ISP_PAPER[i].application, application) == 0) return ISP_PAPER[i].speedup;
    return 0;
}

int bench_suite_compares_naive(const char *name) { return name && strcmp(name, "isp") == 0; }

/* ---------------------------------------------------------------- custom grids */

/* "isp-block", then what differs from auto: "isp-block local rows 2 32x4 baked". */
static const char *grid_variant(bench_plan *plan, const bench_knobs *k)
{
    char text[256];
    snprintf(text, sizeof text, "%s", cls_partition_name(k->partition));
    if (k->input_path != CLS_INPUT_AUTO)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s", cls_input_path_name(k->input_path));
    if (k->separable != CLS_SEPARABLE_AUTO)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s", cls_separable_name(k->separable));
    if (k->method != CLS_METHOD_AUTO)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s", cls_method_name(k->method));
    if (k->rows) snprintf(text + strlen(text), sizeof text - strlen(text), " rows %u", k->rows);
    if (k->cols) snprintf(text + strlen(text), sizeof text - strlen(text), " cols %u", k->cols);
    if (k->group_width) snprintf(text + strlen(text), sizeof text - strlen(text), " %ux%u", k->group_width, k->group_height);
    static const char *const storages[] = {"runtime", "baked", "argument"};
    if (k->bake >= 0) snprintf(text + strlen(text), sizeof text - strlen(text), " %s", storages[k->bake % 3]);
    static const char *const region_codes[] = {"", "separate-regions", "shared-regions", "body-apart-regions"};
    if (k->region_code) snprintf(text + strlen(text), sizeof text - strlen(text), " %s", region_codes[k->region_code]);
    if (k->fold) snprintf(text + strlen(text), sizeof text - strlen(text), " fold");
    return bench_plan_string(plan, "%s", text);
}

/* The operator's name: "gaussian" for "gaussian:5,1.2", "pipeline" for several. */
static const char *grid_application(bench_plan *plan, const bench_grid *grid)
{
    if (grid->op_count != 1) return "pipeline";
    const char *text = grid->ops[0];
    return bench_plan_string(plan, "%.*s", (int)strcspn(text, ":"), text);
}

static int add_grid_case(bench_plan *plan, const bench_case *base, const bench_knobs *k)
{
    bench_case c = *base;
    c.knobs = *k;
    c.variant = grid_variant(plan, k);
    return c.variant && bench_plan_add(plan, &c);
}

int bench_grid_cases(const bench_grid *grid, bench_plan *plan)
{
    bench_case base = {.application = grid_application(plan, grid), .label = grid->label,
                       .op_count = grid->op_count, .layout = BENCH_CHAIN, .border_value = grid->border_value};
    memcpy(base.ops, grid->ops, sizeof base.ops);
    if (!base.application) return 0;
    /* The knobs' combinations, counted in mixed radix: the last list varies fastest. */
    const size_t counts[7] = {grid->partition_count, grid->input_count, grid->separable_count,
                              grid->rows_count, grid->cols_count, grid->group_count, grid->method_count};
    size_t combinations = 1;
    for (int d = 0; d < 7; ++d) combinations *= counts[d];
    bench_knobs k;
    bench_knobs_init(&k);
    k.bake = grid->fold ? 1 : grid->bake;
    k.fold = grid->fold;
    k.region_code = grid->region_code;
    for (size_t s = 0; s < grid->axes.size_count; ++s)
        for (size_t b = 0; b < grid->axes.border_count; ++b) {
            base.width = grid->axes.sizes[s].width;
            base.height = grid->axes.sizes[s].height;
            base.depth = grid->axes.sizes[s].depth;
            base.border = grid->axes.borders[b];
            for (size_t n = 0; n < combinations; ++n) {
                size_t index[7], rest = n;
                for (int d = 6; d >= 0; --d) index[d] = rest % counts[d], rest /= counts[d];
                k.partition = grid->partitions[index[0]];
                k.input_path = grid->inputs[index[1]];
                k.separable = grid->separables[index[2]];
                k.rows = grid->rows[index[3]];
                k.cols = grid->cols[index[4]];
                k.group_width = grid->groups[index[5]].width;
                k.group_height = grid->groups[index[5]].height;
                k.method = grid->methods[index[6]];
                if (!add_grid_case(plan, &base, &k)) return 0;
            }
        }
    return 1;
}
