/* filter_stream.h — `clstencil filter` on an image read, filtered and written a band of rows at a
 * time (a TIFF or a PGM/PPM/PNM/PFM, either way): one larger than the memory the run may use, and
 * one large enough that overlapping the three pays. */
#ifndef CLS_TOOLS_FILTER_STREAM_H
#define CLS_TOOLS_FILTER_STREAM_H

#include "filter_image.h"

#include <stdint.h>

/* Filters INPUT into OUTPUT (written atomically, as image_write does) holding
 * one band of rows of the input and of the output at a time within HOST_BUDGET bytes: every page,
 * the tags and compression carried as for a whole image, the same bytes as a run in one piece.
 * Prints what went wrong and returns the exit code. */
int filter_stream_run(const filter_args *args, const char *input, const char *output, uint64_t host_budget);
/* Whether one image that fits the memory goes through the bands all the same: one that can, of
 * at least FILTER_STREAM_MIN_BYTES of pixels, whose reading, filtering and writing then overlap
 * (8192^2 f32 TIFF on 2 cores: 0.44-0.51 s instead of 0.71-0.74 in one piece). */
int filter_stream_pays(const filter_args *args, const char *input, const char *output);

enum {
    FILTER_STREAM_MIN_BYTES = 16 << 20,
    FILTER_STREAM_MAX_BUDGET = 200 << 20, /* the bands' memory at most: 8192^2 f32 in 16 bands */
};

#endif
