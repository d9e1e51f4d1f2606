/* bench_options.h — the command lines of `clstencil bench` and `clstencil tune`: their options
 * parsed and checked (bench_options.c), the plan of configurations they give, and the files a
 * report is written to. */
#ifndef CLS_TOOLS_BENCH_OPTIONS_H
#define CLS_TOOLS_BENCH_OPTIONS_H

#include "bench.h"

enum { BENCH_MAX_LIST = 32 }; /* items of one comma-separated list */

typedef struct bench_options {
    const char *suite;
    int check;
    const char *ops[BENCH_MAX_STAGES];
    size_t op_count;
    char label[1024];
    bench_size sizes[BENCH_MAX_LIST];
    size_t size_count;
    cls_border borders[BENCH_MAX_LIST];
    size_t border_count;
    float border_value;
    cls_partition partitions[BENCH_MAX_LIST];
    size_t partition_count;
    cls_input_path inputs[BENCH_MAX_LIST];
    size_t input_count;
    cls_separable separables[BENCH_MAX_LIST];
    size_t separable_count;
    cls_method methods[BENCH_MAX_LIST];
    size_t method_count;
    unsigned rows[BENCH_MAX_LIST], cols[BENCH_MAX_LIST];
    size_t rows_count, cols_count;
    bench_size groups[BENCH_MAX_LIST];
    size_t group_count;
    int bake, fold;
    cls_region_code region_code;
    int grid_options; /* an option that only a custom grid takes was given */
    int runs, warmup;
    int compare;
    const char *csv, *json, *svg, *device;
    int tune;     /* clstencil tune */
    int model_check; /* bench --model-check */
    int calibrate_isp; /* bench --calibrate-isp */
    int cold;     /* bench --cold */
    int transfers; /* bench --transfers */
    int no_store; /* tune --no-store */
    int quiet;    /* tune -q: no progress */
} bench_options;

enum { BENCH_OPTIONS_HELP = 2 }; /* bench_parse_options saw -h or --help */

/* Parses argv (argv[0] is the command's name) for bench (tune 0) or tune (tune 1), fills
 * defaults and checks the combination: 1, BENCH_OPTIONS_HELP, or 0 after saying what is wrong. */
int bench_parse_options(bench_options *o, int tune, int argc, char **argv);
/* The suite's or the grid's configurations; 0 when out of memory. */
int bench_build_plan(const bench_options *o, bench_plan *plan);
/* bench --cold: build and kernel times per operator and border (bench_cold.c); the exit code. */
int bench_cold(const bench_options *o);
/* bench --transfers: host-device copies from ordinary and pinned memory (bench_transfers.c). */
int bench_transfers(const bench_options *o);
/* Whether the --csv, --json and --svg files can be written, checked before any device work:
 * EXIT_OK_, or EXIT_OUTPUT after a message naming the file. */
int bench_check_report_files(const bench_options *o);
/* The --csv, --json and --svg files of a report; 0 when one failed (after saying why). */
int bench_write_files(const bench_report *report, const bench_options *o);

#endif
