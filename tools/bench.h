/* bench.h — the parts of `clstencil bench` shared by its files: what one benchmark configuration
 * is (bench_case), what measuring it gives (bench_result), the named suites and custom grids that
 * make lists of configurations (bench_suites.c), the measurement on the device (bench_measure.c,
 * memoized in bench_memo.c), the table, CSV, JSON and SVG reports (bench_report.c), tune's and
 * --model-check's parts (tune.c, model_check.c). The command lines are in bench_options.h. */
#ifndef CLS_TOOLS_BENCH_H
#define CLS_TOOLS_BENCH_H

#include <clstencil_tuning.h>
#include <stddef.h>
#include <stdio.h>

enum {
    BENCH_MAX_STAGES = 8,           /* operators of one configuration */
    BENCH_MAX_OUTPUTS = 4,          /* images one configuration writes */
    BENCH_DEFAULT_RUNS = 21,        /* timed runs; the median is reported */
    BENCH_MIN_RUNS = 20,            /* the least a timing median is taken over */
    BENCH_DEFAULT_WARMUP = 3,       /* untimed runs first */
    BENCH_SHORT_RUNS = 2,           /* --short: runs whose outputs are checked, untimed */
    BENCH_SHORT_WIDTH = 64,         /* --short: the image size */
    BENCH_SHORT_HEIGHT = 48,
    TUNE_MAX_GROUP_WIDTH = 256,     /* the work-group shapes tune explores by default */
    TUNE_MAX_GROUP_HEIGHT = 16,
    TUNE_MAX_GROUP_ITEMS = 512,
};

/* How the stages of a configuration are connected. */
typedef enum bench_layout {
    BENCH_CHAIN,    /* each stage reads the previous stage's output (a pipeline); one output */
    BENCH_PARALLEL  /* every stage reads the input and writes its own output (Scharr x and y) */
} bench_layout;

/* What a configuration changes in the operators' own specs. */
typedef struct bench_knobs {
    cls_partition partition;
    cls_input_path input_path;
    cls_separable separable;       /* built-in weighted sums only (not operator bodies) */
    cls_method method;             /* the same */
    unsigned rows, cols;           /* outputs per work-item; 0 or 1: one; weighted sums only */
    unsigned group_width, group_height; /* 0 x 0: auto */
    int bake;                      /* -1: the operator's own choice; else a CLS_COEFFICIENTS_ value */
    int fold;                      /* fold equal baked taps */
    cls_region_code region_code;   /* AUTO: the build goal's */
    int merge;                     /* BENCH_PARALLEL: all stages' masks in one multi-mask kernel */
    /* Pinned work-group shapes, one per filter, replacing group_width x group_height: a row's
     * naive twin keeps the shapes the row resolved to, so only the partition changes. */
    int groups_pinned;
    unsigned pinned_groups[BENCH_MAX_STAGES][2];
} bench_knobs;

/* One row of a benchmark: operators, how they are run, border and image size. The operator
 * texts point to strings that outlive the case (argv, literals or a plan's pool). */
typedef struct bench_case {
    const char *application;   /* geometric means group by it: "gaussian", "sobel", ... */
    const char *label;         /* the operator column: "gaussian:3", "night", "scharr:x+y,5" */
    const char *variant;       /* the variant column: "naive", "isp+model", "+local", ... */
    const char *ops[BENCH_MAX_STAGES];
    size_t op_count;
    bench_layout layout;
    bench_knobs knobs;
    cls_border border;
    float border_value;
    unsigned width, height;
    unsigned depth; /* a volume's slices (0: an image) */
} bench_case;

/* The pixels of a case's image or volume. */
size_t bench_case_pixels(const bench_case *c);

/* A growable list of cases and the strings they point to. */
typedef struct bench_plan {
    bench_case *cases;
    size_t count, capacity;
    char **strings;
    size_t string_count, string_capacity;
} bench_plan;

void bench_plan_init(bench_plan *plan);
void bench_plan_free(bench_plan *plan);
/* Appends a copy of *c; 0 when out of memory. */
int bench_plan_add(bench_plan *plan, const bench_case *c);
/* A printf-formatted string owned by the plan (NULL when out of memory). */
const char *bench_plan_string(bench_plan *plan, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The knobs of an operator run as it is: auto everything, the operator's mask storage. */
void bench_knobs_init(bench_knobs *knobs);
/* The knobs of the reference a configuration's outputs are checked against: the plain global
 * variant (naive partition, global input, not separated, one output per work-item, auto
 * work-group, the operator's own mask storage, one mask per kernel). */
void bench_knobs_plain(bench_knobs *knobs);
/* A text naming everything that decides a configuration's result (not its labels); the memo
 * key of measurements. Returns a plan string. */
const char *bench_case_key(bench_plan *plan, const bench_case *c);
struct bench_result;
/* Pins c's work-group shapes to those a measurement of it resolved (when it has them). */
void bench_case_pin_groups(bench_case *c, const struct bench_result *result);

/* ---------------------------------------------------------------- suites and grids */

typedef struct bench_size { unsigned width, height, depth; } bench_size; /* depth 0: an image */

/* The suites' defaults that the command line may replace. */
typedef struct bench_axes {
    const bench_size *sizes;
    size_t size_count;
    const cls_border *borders;
    size_t border_count;
} bench_axes;

/* The named suites: "isp", "hipacc", "filters". Returns 0 for an unknown name. */
int bench_suite_known(const char *name);
/* The suite's default sizes and borders (the pointers are static). */
void bench_suite_axes(const char *name, bench_axes *axes);
/* Appends the suite's cases over the given sizes and borders; 0 when out of memory. */
int bench_suite_cases(const char *name, const bench_axes *axes, bench_plan *plan);
/* The ISP paper's geometric-mean speedup over naive for an application and variant of the isp
 * suite, or 0 when the paper has none. */
double bench_suite_paper_speedup(const char *suite, const char *application, const char *variant);
/* Whether a suite's rows are compared with naive by default (isp: its geometric means). */
int bench_suite_compares_naive(const char *name);

/* A custom grid: one pipeline of operators under every combination of the listed knobs. */
typedef struct bench_grid {
    const char *label;         /* the operator column: the --op texts joined by "+" */
    const char *ops[BENCH_MAX_STAGES];
    size_t op_count;
    bench_axes axes;
    float border_value;
    const cls_partition *partitions; size_t partition_count;
    const cls_input_path *inputs; size_t input_count;
    const cls_separable *separables; size_t separable_count;
    const cls_method *methods; size_t method_count;
    const unsigned *rows; size_t rows_count;
    const unsigned *cols; size_t cols_count;
    const bench_size *groups; size_t group_count; /* {0, 0}: auto */
    int bake, fold;
    cls_region_code region_code;
} bench_grid;

/* Appends the grid's cases (sizes, then borders, then the knobs, outermost first); 0 when out
 * of memory. */
int bench_grid_cases(const bench_grid *grid, bench_plan *plan);

/* ---------------------------------------------------------------- measurement */

typedef enum bench_outcome {
    BENCH_OK = 0,
    BENCH_UNSUPPORTED, /* the device cannot run this variant (no images, ...): not a failure */
    BENCH_ERROR,       /* creating or running it failed */
    BENCH_MISMATCH     /* --short: its outputs differ from the plain global variant's */
} bench_outcome;

typedef struct bench_result {
    bench_outcome outcome;
    cls_status status;          /* the library's status when it failed */
    char note[320];             /* why it is unsupported or failed, or where it mismatched */
    double kernel_us, copy_us;  /* medians */
    double bytes;               /* the bytes a perfect implementation moves: read the input,
                                 * write the outputs, and each intermediate image once each way */
    cls_partition partition;    /* what the first filter resolved to */
    cls_input_path input_path;
    unsigned group_width, group_height;
    unsigned rows, cols;        /* outputs per work-item the first filter resolved to */
    cls_separable separable;    /* how the first filter applies its mask */
    cls_method method;          /* and computes its sum */
    unsigned registers;         /* per work-item of the first filter's build; 0 if unknown */
    size_t filter_count;        /* the filters built, and the shape each resolved to */
    unsigned groups[BENCH_MAX_STAGES][2];
    unsigned output_count;
    float *outputs[BENCH_MAX_OUTPUTS]; /* when outputs were kept: width x height each */
} bench_result;

typedef struct bench_env {
    cls_context *context;
    int runs, warmup;
    int keep_outputs;    /* read the outputs back into bench_result.outputs */
    /* The input image of the current size: deterministic values in [0, 1). */
    unsigned width, height;
    cl_mem input;
    float *host_input;
} bench_env;

/* Creates the context on the selected device (NULL: CLSTENCIL_DEVICE or the default). */
cls_status bench_env_init(bench_env *env, const char *device, int runs, int warmup, int keep_outputs);
void bench_env_free(bench_env *env);
/* The spec of a case's operator `filter` (its stages' index) under the case's knobs. */
void bench_apply_knobs(const bench_case *c, size_t filter, cls_spec *spec);
/* Builds and runs one configuration; every failure is in the result, never fatal. */
void bench_measure(bench_env *env, const bench_case *c, bench_result *result);
void bench_result_free(bench_result *result);
/* The median of count values (sorts them). */
double bench_median(double *values, int count);
/* Compares result's outputs with reference's within a float tolerance; on the first
 * difference writes where it is into note and returns 0. */
int bench_outputs_match(const bench_result *result, const bench_result *reference, unsigned width,
                        unsigned height, char *note, size_t note_size);

/* ---------------------------------------------------------------- measurements, memoized */

/* Each configuration is measured once: the naive twin of a row or its reference may be another
 * row of the same run. A measurement is also found under its resolved key (the work-group shapes
 * `auto` chose, pinned), which is how a twin finds its naive row. Start from {0}. */
typedef struct bench_memo {
    struct bench_memo_entry *entries;
    size_t count, capacity;
} bench_memo;

/* The measurement of c, taken now or found; NULL when out of memory. */
const bench_result *bench_memo_measure(bench_env *env, bench_plan *plan, bench_memo *m, const bench_case *c);
/* Frees the measurements (after their last use). */
void bench_memo_free(bench_memo *m);

/* ---------------------------------------------------------------- reports */

/* One printed row: its case, its measurement and, when compared, naive's. */
typedef struct bench_row {
    const bench_case *c;
    const bench_result *result;
    const bench_result *naive;  /* NULL when not compared */
} bench_row;

typedef struct bench_report {
    const char *suite;          /* NULL for a custom grid */
    const cls_device_caps *device;
    int runs, warmup;
    int check;                  /* --short: outputs checked, not timed */
    int compare;                /* a naive column */
    int label_width, variant_width; /* the table's operator and variant columns */
    int plot_threads;           /* the SVG plots kernel time against work-items per group (tune) */
    bench_row *rows;
    size_t count;
} bench_report;

/* The effective bandwidth of a result in GB/s, and speedup over naive (0 when unknown). */
double bench_row_gbps(const bench_row *row);
double bench_row_speedup(const bench_row *row);
/* The terminal table, printed row by row: header, one row, then the geometric means. */
void bench_table_header(FILE *out, const bench_report *report);
void bench_table_row(FILE *out, const bench_report *report, const bench_row *row);
void bench_table_geomeans(FILE *out, const bench_report *report);
/* The files; each returns 0 after printing why it failed. */
int bench_write_csv(const bench_report *report, const char *path);
int bench_write_json(const bench_report *report, const char *path);
/* Draws through gnuplot when it is on PATH, else prints a note; fails only when gnuplot does. */
int bench_write_svg(const bench_report *report, const char *path);

/* ---------------------------------------------------------------- --model-check (model_check.c) */

/* Operators (each its own case) x sizes x borders, explored over every partition x groups. */
typedef struct model_check_grid {
    const char *const *ops; size_t op_count;
    const bench_size *sizes; size_t size_count;
    const cls_border *borders; size_t border_count;
    float border_value;
    const bench_size *groups; size_t group_count;
    const char *csv_path;     /* NULL: no CSV */
} model_check_grid;

enum { BENCH_PAIR_ROUNDS = 5 }; /* alternate timings of each of two configurations */

/* The case of base with every knob explicit: t's input path, rows and columns, the partition
 * and work-group shape given. */
bench_case bench_explicit_case(const bench_case *base, const cls_tuning *t, cls_partition partition, bench_size group);
/* a and b timed alternately BENCH_PAIR_ROUNDS times: the median of each one's medians (negative
 * when one did not run); registers (may be NULL) receives each build's registers. */
void bench_time_pair(bench_env *env, const bench_case *a, const bench_case *b, double *a_us, double *b_us,
                     unsigned registers[2]);

/* Fills the lists left empty with the models issue's grid (80 cases). */
void model_check_defaults(model_check_grid *grid);
/* Prints a row per case and the summary; returns the command's exit code (3 when a case did
 * not run). */
int model_check_run(bench_env *env, const model_check_grid *grid);
/* --calibrate-isp (isp_calibration.c): times naive against isp-block of the grid's first operator
 * (default gaussian:5) at its first size (default 4096x4096) for every border (default all but
 * undefined), at the models' configuration, and stores the check cost each implies
 * (cls_isp_calibrate). Returns the command's exit code. */
int isp_calibration_run(bench_env *env, const model_check_grid *grid);

/* ---------------------------------------------------------------- tune (tune.c) */

/* The work-group shapes tune explores on a device by default: widths of the SIMD width times a
 * power of two up to TUNE_MAX_GROUP_WIDTH, heights 1 to TUNE_MAX_GROUP_HEIGHT (powers of two), at
 * most TUNE_MAX_GROUP_ITEMS work-items, within the device's limits. Returns how many (<= max). */
size_t tune_group_shapes(const cls_device_caps *device, bench_size *shapes, size_t max);
/* Progress on stderr: a bar on a terminal, a line per tenth otherwise. */
void tune_progress(size_t done, size_t total, const bench_case *c);
/* The report's rows fastest first (failed and unsupported ones last) into ranked; returns how
 * many were timed. */
size_t tune_rank(const bench_report *report, bench_row *ranked);
/* The spec `auto` will be asked for: the case's operator with its border and mask storage
 * (*op owns what the spec points to; release it). */
cls_status tune_spec(const bench_case *c, cls_operator **op, cls_spec *spec);
/* Stores a row's configuration in the user's tuning database (cls_tuning_store). */
cls_status tune_store(const bench_env *env, const bench_row *best);

#endif
