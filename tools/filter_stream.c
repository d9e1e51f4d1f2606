/* filter_stream.c — `clstencil filter` on a TIFF larger than the memory the run may use
 * (filter_stream.h): for every page, bands of output rows are read with the rows the pipeline
 * reaches above and below them (in repeat mode wrapped from the opposite edge), filtered on the
 * device with only the band's own rows computed (filter_bands in filter_run.h), and appended to the
 * output file. The host holds one band of the input and one of the output, plus a strip or tile
 * being decoded. */
#include "filter_stream.h"

#include "commands.h"
#include "memory_budget.h"
#include "tiff_reader.h"
#include "tiff_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One run: the open input, its bands on the host and the pipeline that filters them. */
typedef struct stream {
    const filter_args *args;
    tiff_reader *reader;
    cls_host_image shape, shape_out; /* the whole image's (no pixels); shape owns the tags */
    cls_host_image band_in, band_out;
    filter_bands *bands;
    int code; /* the exit code of what failed inside the writer */
} stream;

/* Input rows [FIRST, LAST) of PAGE into the input band; rows outside the image wrap around it
 * (repeat mode). */
static int read_band(stream *st, size_t page, long first, long last, char *error, size_t error_size)
{
    const long height = (long)st->shape.height;
    st->band_in.height = st->band_out.height = (size_t)(last - first);
    int status = IMAGE_OK;
    for (long v = first; v < last && status == IMAGE_OK;) {
        const long row = ((v % height) + height) % height;
        const long run = height - row < last - v ? height - row : last - v;
        status = tiff_reader_rows(st->reader, page, (size_t)row, (size_t)run, &st->band_in, 0, (size_t)(v - first),
                                  error, error_size);
        v += run;
    }
    return status;
}

/* Every band of every page through the pipeline into the writer. */
static int filter_bands_into(stream *st, tiff_writer *writer, char *error, size_t error_size)
{
    const size_t rows = filter_bands_rows(st->bands), height = st->shape.height;
    const long reach = (long)filter_bands_reach(st->bands);
    const int wrap = st->args->plan.border == CLS_BORDER_REPEAT && rows < height;
    for (size_t page = 0; page < st->shape.pages; ++page)
        for (size_t y0 = 0; y0 < height; y0 += rows) {
            const size_t y1 = y0 + rows < height ? y0 + rows : height;
            const long first = wrap ? (long)y0 - reach : (long)y0 > reach ? (long)y0 - reach : 0;
            const long last = wrap ? (long)y1 + reach : (long)y1 + reach < (long)height ? (long)y1 + reach : (long)height;
            int status = read_band(st, page, first, last, error, error_size);
            if (status != IMAGE_OK) {
                st->code = filter_input_exit_code(status);
                return status;
            }
            if ((st->code = filter_bands_run(st->bands, &st->band_in, &st->band_out, y0 - (size_t)first, y1 - y0)) !=
                EXIT_OK_) {
                snprintf(error, error_size, "%s: not written: the filter failed", st->args->output);
                return IMAGE_ERR_WRITE;
            }
            if (tiff_writer_rows(writer, &st->band_out, 0, y0 - (size_t)first, y1 - y0) != IMAGE_OK) {
                st->code = EXIT_OUTPUT;
                return IMAGE_ERR_WRITE; /* the writer's close says why */
            }
        }
    return tiff_reader_check(st->reader, error, error_size);
}

/* image_write_through's writer: the whole run into the temporary file FD. */
static int write_stream(int fd, const char *path, void *context, char *error, size_t error_size)
{
    stream *st = context;
    tiff_writer *writer = NULL;
    int status = tiff_writer_open(fd, path, &st->shape_out, &writer, error, error_size);
    if (status != IMAGE_OK) {
        st->code = EXIT_OUTPUT;
        return status;
    }
    status = filter_bands_into(st, writer, error, error_size);
    char closing[512];
    const int closed = tiff_writer_close(writer, closing, sizeof closing);
    if (status == IMAGE_OK && closed != IMAGE_OK) {
        snprintf(error, error_size, "%s", closing);
        st->code = EXIT_OUTPUT;
        return closed;
    }
    if (status != IMAGE_OK && st->code == EXIT_OUTPUT) snprintf(error, error_size, "%s", closing);
    return status;
}

/* The input's shape and tags, the output's shape (its type, the --compression), and the bands'
 * host memory. */
static int open_input(stream *st, const char *input, char *error, size_t error_size)
{
    const int fd = open(input, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(error, error_size, "%s: cannot be opened", input);
        return EXIT_INPUT_MISSING;
    }
    const int status = tiff_reader_open(fd, input, &st->reader, &st->shape, error, error_size);
    if (status != IMAGE_OK) return filter_input_exit_code(status);
    st->shape_out = st->shape;
    if (st->args->has_type) st->shape_out.type = st->args->plan.output_type;
    if (st->args->compression != IMAGE_COMPRESSION_DEFAULT) st->shape.meta->compression = st->args->compression;
    return EXIT_OK_;
}

/* The two bands' pixels: every channel of one page, the band's rows and the reach above and below. */
static int allocate_bands(stream *st, char *error, size_t error_size)
{
    const size_t rows = filter_bands_rows(st->bands) + 2 * (size_t)filter_bands_reach(st->bands);
    const size_t height = rows < st->shape.height ? rows : st->shape.height;
    if (image_alloc(&st->band_in, st->shape.width, height, st->shape.channels, st->shape.type, st->args->input, error,
                    error_size) != IMAGE_OK ||
        image_alloc(&st->band_out, st->shape.width, height, st->shape.channels, st->shape_out.type,
                    st->args->output, error, error_size) != IMAGE_OK)
        return EXIT_OUTPUT;
    return EXIT_OK_;
}

int filter_stream_run(const filter_args *args, const char *input, const char *output, uint64_t host_budget)
{
    stream st = {.args = args};
    filter_plan plan = args->plan;
    filter_session *session = NULL;
    char error[1024] = "";
    int code = open_input(&st, input, error, sizeof error);
    /* Many bands are like a batch: the quick kernels first, the specialized ones swapped in when
     * built (the same sums either way). */
    if (!args->has_build) plan.build_goal = CLS_BUILD_TIERED;
    if (code == EXIT_OK_) {
        if (!args->has_type) plan.output_type = st.shape.type;
        code = filter_check_output(output, &st.shape_out);
    }
    const uint64_t decoding = st.reader ? tiff_reader_chunk_bytes(st.reader) : 0;
    /* Half of what is left for the bands: the rest for the program, the driver and libtiff. */
    const uint64_t band_budget = host_budget > decoding ? (host_budget - decoding) / 2 : 0;
    if (code == EXIT_OK_ && (code = filter_session_open(&plan, &session)) == EXIT_OK_ &&
        (code = filter_bands_open(session, &plan, &st.shape, band_budget, &st.bands)) == EXIT_OK_ &&
        (code = allocate_bands(&st, error, sizeof error)) == EXIT_OK_) {
        if (image_write_through(output, write_stream, &st, error, sizeof error) != IMAGE_OK)
            code = st.code != EXIT_OK_ ? st.code : EXIT_OUTPUT;
    }
    if (code != EXIT_OK_ && error[0]) fprintf(stderr, "clstencil filter: %s\n", error);
    filter_bands_close(st.bands, code == EXIT_OK_);
    filter_session_close(session);
    image_free(&st.band_in);
    image_free(&st.band_out);
    tiff_reader_close(st.reader);
    image_free(&st.shape);
    return code;
}
