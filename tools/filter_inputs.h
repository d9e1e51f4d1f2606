/* filter_inputs.h — the images `clstencil filter --input NAME=FILE` reads beside IN: a pipeline's
 * further inputs, each of IN's size, channels, pages and pixel type. */
#ifndef CLS_TOOLS_FILTER_INPUTS_H
#define CLS_TOOLS_FILTER_INPUTS_H

#include "filter_image.h"

/* Reads every --input of ARGS into *inputs (*count of them; NULL and 0 when there are none),
 * checked against IN. Prints what went wrong and returns its exit code: the reader's for a file
 * that is missing, unreadable or corrupt, 6 for one that does not match IN. */
int filter_inputs_read(const filter_args *args, const cls_host_image *in, filter_input **inputs, size_t *count);
void filter_inputs_free(filter_input *inputs, size_t count);
/* The exit code of an image_read failure (IMAGE_ERR_*), for IN's and the --input images' alike. */
int filter_input_exit_code(int image_status);

#endif
