/* filter_batch.h — what `clstencil filter` shares between its single-image path (cmd_filter.c)
 * and its batches (filter_batch.c): the parsed command line, one image read and filtered, its
 * result written, the output check and the memory budget a batch's writer holds part of. */
#ifndef CLS_TOOLS_FILTER_BATCH_H
#define CLS_TOOLS_FILTER_BATCH_H

#include "filter_devices.h"
#include "filter_run.h"
#include "image_io.h"

#include <stdint.h>

typedef struct filter_args {
    const char *input, *output;
    const char **inputs; /* a batch's (room for argc entries) */
    size_t input_count;
    int batch, has_build;
    const char *format; /* --format: a batch's output extension, or NULL */
    const char **input_texts; /* --input NAME=FILE, as given */
    size_t input_text_count;
    const char **op_texts; /* --op and --combine in order */
    char *op_combines;     /* per text: 1 for a --combine */
    size_t op_count;
    int has_type;
    image_compression compression; /* --compression, or DEFAULT: the input's */
    filter_devices devices;        /* --device naming several: a batch's images and a large image's
                                      bands are spread over them (plan.device is the first) */
    filter_plan plan;
} filter_args;

/* Times of one image, for -v. */
typedef struct image_times {
    double read_ms, filter_ms, write_ms;
} image_times;

/* What filter_read_and_filter returns for a TIFF into a TIFF too large for the memory: filter it
 * with filter_stream_run instead (nothing was printed). */
enum { FILTER_IN_BANDS = -2 };

/* Reads INPUT and filters it into *out (through SESSION in a batch, opened at the first image;
 * else a run of its own), checking OUTPUT's format for it. Prints what went wrong and returns its
 * exit code; on EXIT_OK_ the caller writes *out and frees it. */
int filter_read_and_filter(const filter_args *args, filter_session **session, const char *input,
                           const char *output, cls_host_image *out, image_times *times);
/* Writes OUT to OUTPUT (atomically: nothing is left behind on failure). EXIT_OK_, or EXIT_OUTPUT
 * with the message in ERROR; prints nothing, so a writer thread may call it. */
int filter_write_result(const char *output, const cls_host_image *out, char *error, size_t error_size,
                        image_times *times);
/* Whether OUTPUT can be written (format, folder) and, with IMAGE, hold such an image; prints why
 * not and returns the exit code. */
int filter_check_output(const char *path, const cls_host_image *image);
/* The exit code of an image_read failure (IMAGE_ERR_*). */
int filter_input_exit_code(int image_status);
/* The host memory a batch lane's writer holds while the next image is read and filtered (0: none): the
 * budget of that image is less by as much. */
void filter_budget_hold(uint64_t bytes);
/* The number of lanes (devices) of a batch that share the memory budget, each a part (1: one). */
void filter_budget_share(size_t lanes);

/* `filter IN... -o DIR`: every image of the batch, one context and one pipeline; the exit code. */
int filter_batch_run(filter_args *args);

#endif
