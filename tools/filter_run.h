/* filter_run.h — the device side of `clstencil filter`: one pipeline of stages run over every
 * channel plane of a host image, with optional timings (shared by cmd_filter.c and filter_run.c). */
#ifndef CLS_TOOLS_FILTER_RUN_H
#define CLS_TOOLS_FILTER_RUN_H

#include "image_io.h"

#include <clstencil.h>
#include <stdint.h>

/* One step: an --op (a parsed operator, or the Night filter: op == NULL) or a --combine (an
 * element-wise expression), with the names of filter_steps.h. */
typedef struct filter_op {
    const char *text; /* as given on the command line */
    cls_operator *op;
    char *expression; /* --combine's (owned), else NULL */
    char name[32];    /* "" when unnamed */
    char from[32];    /* "" when it reads the step before */
} filter_op;

/* An input image besides IN (--input NAME=FILE): IN's size, channels, pages and pixel type. */
typedef struct filter_input {
    const char *name;
    cls_host_image image;
} filter_input;

typedef struct filter_plan {
    const filter_op *ops;
    size_t op_count;
    const filter_input *inputs; /* --input images, read beside IN; NULL when none */
    size_t input_count;
    cls_border border;          /* along x, and along y and z unless border_y, border_z name */
    cls_border border_y, border_z; /* another mode (CLS_BORDER_SAME: border's) */
    float border_value;
    cls_pixel_type output_type; /* the input's type is the image's */
    const char *device;         /* a selector as for CLSTENCIL_DEVICE, or NULL */
    cls_build_goal build_goal;  /* --build: auto (one image's default), first result, fastest kernel or tiered */
    cls_method method;          /* --method: the weighted sums' (auto: the device's choice) */
    int verbose;                /* timings and build details on stderr */
    uint64_t memory_available;  /* bytes the process may use (memory_budget.c); UINT64_MAX: no limit */
    uint64_t max_device_memory; /* --max-device-memory: device bytes the run may use (0: the device's) */
    int batch;                  /* one of several images: -v reports the builds once, not per image */
} filter_plan;

/* Filters every channel plane of IN (of every page of a stack) through one pipeline into OUT,
 * which the caller allocated with IN's size, channels and pages and the plan's output type. Prints what went wrong and returns
 * an exit code (EXIT_OK_, EXIT_USAGE, EXIT_NO_DEVICE or EXIT_FAILURE_). */
int filter_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out);
/* Whether the plan is one volume's operator, which filter_run gives to filter_volume_run: the
 * input's pages are a volume's slices (filter_volume.c). */
int filter_plan_is_volume(const filter_plan *plan);
int filter_volume_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out);
/* What the device offers a run: its memory (or --max-device-memory), its largest buffer, and
 * whether it shares the host's memory (a CPU device); 0 when nothing is known. */
int filter_device_limits(cls_context *context, const filter_plan *plan, uint64_t *global, uint64_t *max_alloc,
                         int *shares_host);

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

/* A run of a session over an image a band of rows at a time (filter_stream.c): the pipeline is
 * the whole image's, so each band's rows come out with the same bytes as in one piece. */
typedef struct filter_bands filter_bands;
enum { FILTER_PINNED_BANDS_BYTES = 32 << 20 }; /* 16384-pixel f32 rows: 128 rows a band */
/* Takes the session's pipeline for SHAPE (the whole image, pixels not needed) and chooses the
 * band's output rows: with the rows the pipeline reaches above and below, two sets of the band's
 * input and output (every channel of one page) fit HOST_BUDGET bytes on the host (with the device's copies
 * on a device that shares the host's memory) and the device's memory; on a device apart from the
 * host's memory, whose bands are pinned (about 0.7 ms a MiB on an H200), within
 * FILTER_PINNED_BANDS_BYTES, but at least four times the rows the pipeline reaches. An exit code: 7
 * with a message when not even one row fits. */
int filter_bands_open(filter_session *session, const filter_plan *plan, const cls_host_image *shape,
                      uint64_t host_budget, filter_bands **out);
/* The band's output rows, and the rows the pipeline reaches above and below an output row. */
size_t filter_bands_rows(const filter_bands *bands);
unsigned filter_bands_reach(const filter_bands *bands);
/* The bands shared by DEVICES devices, ROWS rows each (at most filter_bands_rows): for -v. */
void filter_bands_share(filter_bands *bands, size_t rows, size_t devices);
/* Filters output rows [ROI_Y, ROI_Y + ROI_ROWS) of BAND_IN, consecutive rows of the image (every
 * channel of one page; in repeat mode wrapped around its edges), into the same rows of BAND_OUT. */
int filter_bands_run(filter_bands *bands, const cls_host_image *band_in, cls_host_image *band_out, size_t roi_y,
                     size_t roi_rows);
/* With -v and REPORT, says what ran as filter_run does; frees BANDS (NULL is fine). */
void filter_bands_close(filter_bands *bands, int report);

#endif
