/* filter_strips.h — `clstencil filter` on an image larger than the device holds: the plane in
 * horizontal strips, each filtered as an image of its own with the rows its outputs reach. */
#ifndef CLS_TOOLS_FILTER_STRIPS_H
#define CLS_TOOLS_FILTER_STRIPS_H

#include "image_io.h"

#include <clstencil.h>
#include <stdint.h>

/* The output rows of a strip whose device buffers fit BUDGET bytes in all and MAX_ALLOC in one
 * buffer (two sets of input and output strips, and PIPELINE's own buffers for a strip:
 * cls_pipeline_device_bytes), each strip uploaded with REACH rows above and below; 0 when not
 * even one row fits. */
size_t filter_strip_rows(const cls_host_image *in, const cls_host_image *out, const cls_pipeline *pipeline, unsigned reach,
                         uint64_t budget, uint64_t max_alloc);

/* What a strip run adds up: profiled milliseconds, per stage and in all. */
typedef struct strip_timings {
    double *stage_ms; /* one per pipeline stage */
    double kernel_ms, transfer_ms;
    size_t strips;    /* strips per plane */
} strip_timings;

/* Filters every plane of IN into OUT through PIPELINE, STRIP_ROWS output rows at a time, a
 * strip's copies overlapping the kernels of the strip before: each strip goes to the device with
 * the rows the pipeline reaches above and below it (in repeat mode
 * wrapped from the opposite edge; at the image's edge, none: the kernels' border handling applies
 * there), and its own rows of the result come back. The same bits as one piece. Prints what went
 * wrong and returns an exit code. */
int filter_strips_run(cls_pipeline *pipeline, cls_context *context, cls_border border, const cls_host_image *in,
                      cls_host_image *out, size_t strip_rows, strip_timings *t);

#endif
