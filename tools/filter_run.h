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
    uint64_t max_device_memory; /* --max-device-memory: device bytes the run may use (0: the device's) */
    int batch;                  /* one of several images: -v reports the builds once, not per image */
} filter_plan;

/* Filters every channel plane of IN (of every page of a stack) through one pipeline into OUT,
 * which the caller allocated with IN's size, channels and pages and the plan's output type. Prints what went wrong and returns
 * an exit code (EXIT_OK_, EXIT_USAGE, EXIT_NO_DEVICE or EXIT_FAILURE_). */
int filter_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out);

/* A batch's device side: one context for every image, and one pipeline per stage typing, built
 * for the first image that needs it (its pixel type, or the output's, differs from every earlier
 * build's) and kept for later images. */
typedef struct filter_session filter_session;
/* Creates the context (with -v in a batch, names the device); returns an exit code as filter_run. */
int filter_session_open(const filter_plan *plan, filter_session **out);
/* filter_run for one image of the batch, reusing the session's context and pipeline. */
int filter_session_run(filter_session *session, const filter_plan *plan, const cls_host_image *in,
                       cls_host_image *out);
/* Pipeline builds so far (1 for a batch of images of one type). */
size_t filter_session_builds(const filter_session *session);
/* The session's context (NULL before it is open). */
cls_context *filter_session_context(const filter_session *session);
/* Frees the session (NULL is fine); a tiered build still under way is waited for. */
void filter_session_close(filter_session *session);

#endif
