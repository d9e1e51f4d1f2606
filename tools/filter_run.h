/* filter_run.h — the device side of `clstencil filter`: one pipeline of stages run over every
 * channel plane of a host image, with optional timings (shared by cmd_filter.c and filter_run.c). */
#ifndef CLS_TOOLS_FILTER_RUN_H
#define CLS_TOOLS_FILTER_RUN_H

#include "image_io.h"

#include <clstencil.h>
#include <stdint.h>

/* One --op: a parsed operator, or the Night filter (op == NULL). */
typedef struct filter_op {
    const char *text; /* as given on the command line */
    cls_operator *op;
} filter_op;

typedef struct filter_plan {
    const filter_op *ops;
    size_t op_count;
    cls_border border;
    float border_value;
    cls_pixel_type output_type; /* the input's type is the image's */
    const char *device;         /* a selector as for CLSTENCIL_DEVICE, or NULL */
    cls_build_goal build_goal;  /* --build: first result (the default) or fastest kernel */
    int verbose;                /* timings and build details on stderr */
    uint64_t memory_available;  /* bytes the process may use (memory_budget.c); UINT64_MAX: no limit */
} filter_plan;

/* Filters every channel plane of IN (of every page of a stack) through one pipeline into OUT,
 * which the caller allocated with IN's size, channels and pages and the plan's output type. Prints what went wrong and returns
 * an exit code (EXIT_OK_, EXIT_USAGE, EXIT_NO_DEVICE or EXIT_FAILURE_). */
int filter_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out);

#endif
