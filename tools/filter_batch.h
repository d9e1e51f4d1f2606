/* filter_batch.h — `clstencil filter IN... -o DIR`: a batch of images through one pipeline a
 * device (filter_batch.c). */
#ifndef CLS_TOOLS_FILTER_BATCH_H
#define CLS_TOOLS_FILTER_BATCH_H

#include "filter_image.h"

/* `filter IN... -o DIR`: every image of the batch, one context and one pipeline; the exit code. */
int filter_batch_run(filter_args *args);

#endif
