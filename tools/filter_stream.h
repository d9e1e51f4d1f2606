/* filter_stream.h — `clstencil filter` on a TIFF larger than the memory the run may use: read,
 * filtered and written a band of rows at a time. */
#ifndef CLS_TOOLS_FILTER_STREAM_H
#define CLS_TOOLS_FILTER_STREAM_H

#include "filter_batch.h"

#include <stdint.h>

/* Filters the TIFF INPUT into the TIFF OUTPUT (written atomically, as image_write does) holding
 * one band of rows of the input and of the output at a time within HOST_BUDGET bytes: every page,
 * the tags and compression carried as for a whole image, the same bytes as a run in one piece.
 * Prints what went wrong and returns the exit code. */
int filter_stream_run(const filter_args *args, const char *input, const char *output, uint64_t host_budget);

#endif
