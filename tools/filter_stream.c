/* filter_stream.c — `clstencil filter` on an image larger than the memory the run may use, or large
 * enough that overlapping its steps pays (filter_stream.h): for every page, bands of output rows
 * are read with the rows the pipeline reaches above and below them (in repeat mode wrapped from the
 * opposite edge), filtered on the device with only the band's own rows computed (filter_bands in
 * filter_run.h), and appended to the output file. Three steps overlap: a thread reads the next band
 * while this thread filters one and another thread writes the one before, through two sets of band
 * buffers. With several devices (--device 1:0,1:1 or gpus) band I goes to device I % D, filtered by a
 * thread of that device's (the first on this one) through two sets of its own. */
#include "filter_stream.h"

#include "band_io.h"
#include "commands.h"
#include "filter_inputs.h"
#include "filter_stages.h"
#include "memory_budget.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where band I lies: its page, its output rows [y0, y1) and the input rows [first, last) it reads. */
typedef struct band_span {
    size_t page, y0, y1;
    long first, last;
} band_span;

/* One run: the open input, the bands' buffers and the steps' progress. */
typedef struct stream {
    const filter_args *args;
    band_reader *reader;
    band_writer *writer;
    cls_host_image shape, shape_out;   /* the whole image's (no pixels); shape owns the tags */
    size_t devices;                    /* D: a session and bands each */
    filter_session *sessions[FILTER_MAX_DEVICES];
    filter_bands *bands[FILTER_MAX_DEVICES];
    cls_host_image in[2 * FILTER_MAX_DEVICES], out[2 * FILTER_MAX_DEVICES]; /* band I: set_of(I) */
    size_t rows;                       /* a band's output rows (the fewest any device takes) */
    unsigned reach;                    /* the rows the pipeline reaches above and below */
    size_t band_count, per_page;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t read, filtered, written;    /* bands past each step (filtered: every band before it) */
    unsigned char *done;               /* per band: filtered (the devices finish out of order) */
    int failed;
    double read_ms, write_ms, close_ms; /* the reading and writing steps' own time, the output's close */
    int code;                          /* the exit code of the first step that failed */
    char error[1024];                  /* its message (a filter failure has printed its own) */
} stream;

static band_span span_of(const stream *st, size_t band)
{
    const size_t rows = st->rows, height = st->shape.height;
    const long reach = (long)st->reach;
    const int wrap = filter_plan_rows_border(&st->args->plan) == CLS_BORDER_REPEAT && rows < height;
    band_span s = {.page = band / st->per_page, .y0 = band % st->per_page * rows};
    s.y1 = s.y0 + rows < height ? s.y0 + rows : height;
    s.first = wrap ? (long)s.y0 - reach : (long)s.y0 > reach ? (long)s.y0 - reach : 0;
    s.last = wrap ? (long)s.y1 + reach : (long)s.y1 + reach < (long)height ? (long)s.y1 + reach : (long)height;
    return s;
}

/* Band I's set of buffers: two a device, used in turn; band I - 2D used it before. */
static size_t set_of(const stream *st, size_t band) { return band % st->devices * 2 + band / st->devices % 2; }

/* Waits until *COUNTER passes NEEDED or a step fails; 0 on failure. */
static int wait_for(stream *st, const size_t *counter, size_t needed)
{
    pthread_mutex_lock(&st->lock);
    while (!st->failed && *counter < needed) pthread_cond_wait(&st->changed, &st->lock);
    const int ok = !st->failed;
    pthread_mutex_unlock(&st->lock);
    return ok;
}

/* Counts band BAND past a step, or records the step's failure (the first one's code and message). */
static void step_done(stream *st, size_t *counter, size_t band, int code, const char *error)
{
    pthread_mutex_lock(&st->lock);
    if (code == EXIT_OK_ && counter == &st->filtered) {
        st->done[band] = 1;
        while (st->filtered < st->band_count && st->done[st->filtered]) ++st->filtered;
    } else if (code == EXIT_OK_) {
        ++*counter;
    } else if (!st->failed) {
        st->failed = 1;
        st->code = code;
        snprintf(st->error, sizeof st->error, "%s", error ? error : "");
    }
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
}

/* Input rows [first, last) of the span's page into BAND; rows outside the image wrap around it. */
static int read_band(stream *st, const band_span *s, cls_host_image *band, char *error, size_t error_size)
{
    const long height = (long)st->shape.height;
    band->height = (size_t)(s->last - s->first);
    int status = IMAGE_OK;
    for (long v = s->first; v < s->last && status == IMAGE_OK;) {
        const long row = ((v % height) + height) % height;
        const long run = height - row < s->last - v ? height - row : s->last - v;
        status = band_reader_rows(st->reader, s->page, (size_t)row, (size_t)run, band, (size_t)(v - s->first),
                                  error, error_size);
        v += run;
    }
    return status;
}

/* The reading step: band I once band I - 2D has been filtered (its input set is free). */
static void *read_bands(void *context)
{
    stream *st = context;
    char error[1024] = "";
    const size_t lag = 2 * st->devices;
    for (size_t i = 0; i < st->band_count && wait_for(st, &st->filtered, i < lag ? 0 : i - lag + 1); ++i) {
        const band_span s = span_of(st, i);
        const double start = wall_ms();
        const int status = read_band(st, &s, &st->in[set_of(st, i)], error, sizeof error);
        st->read_ms += wall_ms() - start;
        step_done(st, &st->read, i, status == IMAGE_OK ? EXIT_OK_ : filter_input_exit_code(status), error);
    }
    return NULL;
}

/* The writing step: band I once it has been filtered. */
static void *write_bands(void *context)
{
    stream *st = context;
    for (size_t i = 0; i < st->band_count && wait_for(st, &st->filtered, i + 1); ++i) {
        const band_span s = span_of(st, i);
        const double start = wall_ms();
        const int status = band_writer_rows(st->writer, &st->out[set_of(st, i)], s.y0 - (size_t)s.first, s.y1 - s.y0);
        st->write_ms += wall_ms() - start;
        step_done(st, &st->written, i, status == IMAGE_OK ? EXIT_OK_ : EXIT_OUTPUT, NULL);
    }
    return NULL;
}

/* The filtering step of one device: its bands I (I % D is the device) once each has been read
 * and band I - 2D written (its output set is free). */
typedef struct device_step {
    stream *st;
    size_t device;
    pthread_t thread;
    int started;
} device_step;

static void *filter_device(void *context)
{
    const device_step *d = context;
    stream *st = d->st;
    const size_t lag = 2 * st->devices;
    for (size_t i = d->device; i < st->band_count && wait_for(st, &st->read, i + 1) &&
                               wait_for(st, &st->written, i < lag ? 0 : i - lag + 1);
         i += st->devices) {
        const band_span s = span_of(st, i);
        cls_host_image *in = &st->in[set_of(st, i)], *out = &st->out[set_of(st, i)];
        out->height = in->height;
        const int code = filter_bands_run(st->bands[d->device], in, out, s.y0 - (size_t)s.first, s.y1 - s.y0);
        step_done(st, &st->filtered, i, code, NULL);
    }
    return NULL;
}

/* Every device's filtering step: the first on this thread, the others on threads of their own. */
static void filter_all(stream *st)
{
    device_step steps[FILTER_MAX_DEVICES];
    for (size_t k = 0; k < st->devices; ++k) {
        steps[k] = (device_step){.st = st, .device = k};
        if (k > 0 && !(steps[k].started = pthread_create(&steps[k].thread, NULL, filter_device, &steps[k]) == 0))
            step_done(st, &st->filtered, 0, EXIT_FAILURE_, "cannot start a device's filtering thread");
    }
    filter_device(&steps[0]);
    for (size_t k = 1; k < st->devices; ++k)
        if (steps[k].started) pthread_join(steps[k].thread, NULL);
}

/* image_write_through's writer: the whole run into the temporary file FD. */
static int write_stream(int fd, const char *path, void *context, char *error, size_t error_size)
{
    stream *st = context;
    int status = band_writer_open(fd, path, &st->shape_out, &st->writer, error, error_size);
    if (status != IMAGE_OK) {
        st->code = EXIT_OUTPUT;
        return status;
    }
    pthread_t reader, writer;
    const int have_reader = pthread_create(&reader, NULL, read_bands, st) == 0;
    const int have_writer = have_reader && pthread_create(&writer, NULL, write_bands, st) == 0;
    if (have_writer) filter_all(st);
    else step_done(st, &st->read, 0, EXIT_FAILURE_, "cannot start the reading and writing threads");
    if (have_writer) pthread_join(writer, NULL);
    if (have_reader) pthread_join(reader, NULL);
    char checked[512], closing[512];
    if (!st->failed && band_reader_check(st->reader, checked, sizeof checked) != IMAGE_OK)
        step_done(st, &st->read, 0, EXIT_INPUT_CORRUPT, checked);
    const double start = wall_ms();
    status = band_writer_close(st->writer, closing, sizeof closing);
    st->close_ms = wall_ms() - start;
    if (!st->failed && status != IMAGE_OK) step_done(st, &st->written, 0, EXIT_OUTPUT, closing);
    if (st->failed && st->code == EXIT_OUTPUT && !st->error[0]) snprintf(st->error, sizeof st->error, "%s", closing);
    snprintf(error, error_size, "%s", st->error);
    return st->failed ? IMAGE_ERR_WRITE : IMAGE_OK;
}

/* The input's shape and tags, and the output's shape (its type, the --compression). */
static int open_input(stream *st, const char *input)
{
    const int status = band_reader_open(input, &st->reader, &st->shape, st->error, sizeof st->error);
    if (status != IMAGE_OK) return filter_input_exit_code(status);
    /* A PGM/PPM/PFM input has no tags: a TIFF output still takes --compression */
    if (!st->shape.meta && !(st->shape.meta = calloc(1, sizeof *st->shape.meta))) {
        snprintf(st->error, sizeof st->error, "%s: out of memory", input);
        return EXIT_OUTPUT;
    }
    if (st->args->compression != IMAGE_COMPRESSION_DEFAULT) st->shape.meta->compression = st->args->compression;
    st->shape_out = st->shape; /* sharing the tags */
    if (st->args->has_type) st->shape_out.type = st->args->plan.output_type;
    return EXIT_OK_;
}

/* Band pixels in pinned memory (cls_host_alloc) on a GPU: the copies to and from the device run at
 * its full rate instead of ordinary memory's (an H200: 54 GB/s against 1.5-13). */
static void *pinned_allocate(void *context, size_t bytes)
{
    void *pixels = cls_host_alloc(context, bytes);
    if (pixels) memset(pixels, 0, bytes);
    return pixels;
}

static void pinned_release(void *context, void *pixels, size_t bytes)
{
    (void)bytes;
    cls_host_free(context, pixels);
}

/* Two sets of bands' pixels a device (every channel of one page, the band's rows and the reach
 * above and below), pinned by the device's context on a GPU. */
static int allocate_bands(stream *st)
{
    const size_t rows = st->rows + 2 * (size_t)st->reach;
    const size_t height = rows < st->shape.height ? rows : st->shape.height;
    int code = EXIT_OK_;
    for (size_t k = 0; k < st->devices && code == EXIT_OK_; ++k) {
        cls_context *context = filter_session_context(st->sessions[k]);
        const image_allocator pinned = {pinned_allocate, pinned_release, context};
        image_set_allocator(cls_context_device(context)->type == CLS_DEVICE_GPU ? &pinned : NULL);
        for (size_t set = 2 * k; set < 2 * k + 2 && code == EXIT_OK_; ++set)
            if (image_alloc(&st->in[set], st->shape.width, height, st->shape.channels, st->shape.type, st->args->input,
                            st->error, sizeof st->error) != IMAGE_OK ||
                image_alloc(&st->out[set], st->shape.width, height, st->shape.channels, st->shape_out.type,
                            st->args->output, st->error, sizeof st->error) != IMAGE_OK)
                code = EXIT_OUTPUT;
        image_set_allocator(NULL);
    }
    st->per_page = (st->shape.height + st->rows - 1) / st->rows;
    st->band_count = st->per_page * st->shape.pages;
    if (code == EXIT_OK_ && !(st->done = calloc(st->band_count, 1))) {
        snprintf(st->error, sizeof st->error, "out of memory");
        code = EXIT_OUTPUT;
    }
    return code;
}

/* A context and bands a device, each device's bands within its share of BAND_BUDGET; every device
 * takes the fewest rows any of them does. */
static int open_devices(stream *st, filter_plan *plan, uint64_t band_budget)
{
    const filter_devices *devices = &st->args->devices;
    st->devices = devices->count ? devices->count : 1;
    int code = EXIT_OK_;
    for (size_t k = 0; k < st->devices && code == EXIT_OK_; ++k) {
        if (devices->count) plan->device = devices->selectors[k];
        if ((code = filter_session_open(plan, &st->sessions[k])) == EXIT_OK_ &&
            (code = filter_bands_open(st->sessions[k], plan, &st->shape, band_budget / st->devices,
                                      &st->bands[k])) == EXIT_OK_) {
            const size_t rows = filter_bands_rows(st->bands[k]);
            if (k == 0 || rows < st->rows) st->rows = rows;
            st->reach = filter_bands_reach(st->bands[k]); /* one pipeline: the same on every device */
        }
    }
    for (size_t k = 0; k < st->devices && code == EXIT_OK_ && st->devices > 1; ++k)
        filter_bands_share(st->bands[k], st->rows, st->devices);
    return code;
}

int filter_stream_run(const filter_args *args, const char *input, const char *output, uint64_t host_budget)
{
    stream st = {.args = args, .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    filter_plan plan = args->plan;
    int code = open_input(&st, input);
    if (code == EXIT_OK_) {
        if (!args->has_type) plan.output_type = st.shape.type;
        code = filter_check_output(output, &st.shape_out);
    }
    if (host_budget > FILTER_STREAM_MAX_BUDGET) host_budget = FILTER_STREAM_MAX_BUDGET;
    const uint64_t decoding = band_reader_chunk_bytes(st.reader);
    /* Half of what is left for the bands: the rest for the program, the driver and libtiff. */
    const uint64_t band_budget = host_budget > decoding ? (host_budget - decoding) / 2 : 0;
    char error[1024] = "";
    if (code == EXIT_OK_ && (code = open_devices(&st, &plan, band_budget)) == EXIT_OK_) code = allocate_bands(&st);
    if (code == EXIT_OK_ && image_write_through(output, write_stream, &st, error, sizeof error) != IMAGE_OK) {
        code = st.code != EXIT_OK_ ? st.code : EXIT_OUTPUT;
        if (!st.error[0]) snprintf(st.error, sizeof st.error, "%s", error); /* the file's own failure */
    }
    if (code != EXIT_OK_ && st.error[0]) fprintf(stderr, "clstencil filter: %s\n", st.error);
    for (size_t k = 0; k < st.devices; ++k) filter_bands_close(st.bands[k], code == EXIT_OK_);
    if (code == EXIT_OK_ && args->plan.verbose)
        fprintf(stderr, "files:     read %.1f ms, written %.1f ms beside the filtering; the output closed (flushed to "
                        "the disk) in %.1f ms\n", st.read_ms, st.write_ms, st.close_ms);
    for (size_t set = 0; set < 2 * st.devices; ++set) { /* before the contexts: pinned memory is theirs */
        image_free(&st.in[set]);
        image_free(&st.out[set]);
    }
    for (size_t k = 0; k < st.devices; ++k) filter_session_close(st.sessions[k]);
    free(st.done);
    band_reader_close(st.reader);
    image_free(&st.shape);
    return code;
}

int filter_stream_pays(const filter_args *args, const char *input, const char *output)
{
    if (!filter_stream_formats(args, input, output)) return 0;
    band_reader *reader = NULL;
    cls_host_image shape = {0};
    char error[1024];
    const int readable = band_reader_open(input, &reader, &shape, error, sizeof error) == IMAGE_OK;
    const uint64_t bytes = readable ? (uint64_t)image_plane_bytes(&shape) * image_plane_count(&shape) : 0;
    band_reader_close(reader);
    image_free(&shape);
    return bytes >= FILTER_STREAM_MIN_BYTES; /* an unreadable input: reading it whole reports it */
}
