/* filter_image.h — what `clstencil filter` does to one image, shared by its single-image path
 * (cmd_filter.c), its batches (filter_batch.c) and its bands (filter_stream.c): the parsed command
 * line, the output check, one image read and filtered, its result written, and the memory budget
 * that a batch lane's writer holds part of. */
#ifndef CLS_TOOLS_FILTER_IMAGE_H
#define CLS_TOOLS_FILTER_IMAGE_H

#include "filter_devices.h"
#include "filter_run.h"
#include "image_io.h"

#include <stdint.h>

typedef struct filter_args {
    const char *input, *output;
    const char **inputs; /* a batch's (room for argc entries) */
    size_t input_count;
    int batch, has_build, has_value;
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
/* The host memory a batch lane's writer holds while the next image is read and filtered (0: none): the
 * budget of that image is less by as much. */
void filter_budget_hold(uint64_t bytes);
/* The number of lanes (devices) of a batch that share the memory budget, each a part (1: one). */
void filter_budget_share(size_t lanes);
/* The budget of the run: the bytes the process may use, and the output's pixel type when --type
 * gives it (set once, before any image). */
void filter_budget_set(uint64_t available, int has_type, cls_pixel_type output_type);
/* What an image may use now: this lane's share of the budget less what its writer holds. */
uint64_t filter_budget_left(void);
/* Whether INPUT and OUTPUT can go through the bands: one image (not a batch, no --input) from
 * and to files of the formats band_io.h reads and writes. */
int filter_stream_formats(const filter_args *args, const char *input, const char *output);

#endif
