/* filter_volume_stream.c — a volume's operator on a TIFF stack larger than the memory the run may
 * use (filter_volume.h): slabs of slices read from the file with the slices the mask reaches
 * (around the ends along a repeat z axis), filtered, and their own slices appended to the output.
 * The pages are visited in file order: the axes slower than z (in the pages' order) one value
 * after another, and within each the slabs along z, each taking a run of consecutive pages, every
 * value of the axes faster than z (volumes of their own, interleaved) for its slices. */
#include "filter_volume.h"

#include "band_io.h"
#include "commands.h"
#include "filter_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run: the files, the buffers of a slab and where the volumes lie in them. */
typedef struct volume_stream {
    const filter_args *args;
    volume_run run;
    band_reader *reader;
    band_writer *writer;
    cls_host_image shape, shape_out; /* the file's (no pixels); shape owns the tags */
    size_t slab;                     /* output slices a slab */
    size_t page_step;                /* pages from one slice to the next: the axes faster than z */
    char *in, *out;                  /* (slab + 2 reach) slices of page_step pages */
    size_t in_page, out_page;        /* bytes of one page (every sample's plane) */
    int code;                        /* the exit code of what failed */
    char error[1024];                /* its message (a filter failure has printed its own) */
} volume_stream;

/* A page of BUFFER (page K of it) as an image of the file's size, for the reader and writer. */
static cls_host_image page_of(const cls_host_image *shape, char *buffer, size_t page_bytes, size_t k)
{
    cls_host_image page = *shape;
    page.pages = 1;
    page.meta = NULL;
    page.allocator = (image_allocator){0};
    page.pixels = buffer + k * page_bytes;
    return page;
}

/* Slices [lo, hi) of the volumes from page BASE on (slice z's pages from BASE + z * page_step,
 * wrapped around the depth) into the input buffer. */
static int read_slab(volume_stream *st, size_t base, long lo, long hi)
{
    const long depth = (long)st->run.axes.slices;
    for (long k = 0; k < hi - lo; ++k) {
        const long z = ((lo + k) % depth + depth) % depth;
        for (size_t j = 0; j < st->page_step; ++j) {
            cls_host_image page = page_of(&st->shape, st->in, st->in_page, (size_t)k * st->page_step + j);
            const int status = band_reader_rows(st->reader, base + (size_t)z * st->page_step + j, 0, st->shape.height,
                                                &page, 0, st->error, sizeof st->error);
            if (status != IMAGE_OK) return filter_input_exit_code(status);
        }
    }
    return EXIT_OK_;
}

/* Output slices [z0, z1) of every volume in the slab of slices [lo, hi) (the values of the axes
 * faster than z, interleaved page by page, and the samples of each page), then their pages
 * appended to the output. */
static int filter_slab(volume_stream *st, long lo, long hi, size_t z0, size_t z1)
{
    const volume_run *run = &st->run;
    const size_t in_plane = image_plane_bytes(&st->shape), out_plane = image_plane_bytes(&st->shape_out);
    const size_t slices = (size_t)(hi - lo);
    cls_status status = CLS_OK;
    for (size_t j = 0; status == CLS_OK && j < st->page_step; ++j)
        for (size_t s = 0; status == CLS_OK && s < run->samples; ++s)
            status = volume_run_slab(run, &st->shape, st->in, (j * run->samples + s) * in_plane, st->in_page * st->page_step,
                                     st->out, (j * run->samples + s) * out_plane, st->out_page * st->page_step, slices,
                                     z0 - (size_t)lo, z1 - (size_t)lo);
    if (status != CLS_OK) return report_failure("filter", status);
    for (size_t z = z0; z < z1; ++z)
        for (size_t j = 0; j < st->page_step; ++j) {
            cls_host_image page = page_of(&st->shape_out, st->out, st->out_page, (z - (size_t)lo) * st->page_step + j);
            if (band_writer_rows(st->writer, &page, 0, st->shape.height) != IMAGE_OK) return EXIT_OUTPUT;
        }
    return EXIT_OK_;
}

/* The first page of each value of the axes slower than z, in file order. */
static size_t outer_bases(const stack_axes *a, size_t bases[], size_t capacity)
{
    size_t count = 0;
    const size_t channels = a->channel_step > a->slice_step ? a->channels : 1;
    const size_t frames = a->frame_step > a->slice_step ? a->frames : 1;
    for (size_t t = 0; t < frames; ++t)
        for (size_t c = 0; c < channels && count < capacity; ++c)
            bases[count++] = (frames > 1 ? t * a->frame_step : 0) + (channels > 1 ? c * a->channel_step : 0);
    for (size_t i = 1; i < count; ++i) /* file order: an insertion sort of a few values */
        for (size_t k = i; k > 0 && bases[k - 1] > bases[k]; --k) {
            const size_t swap = bases[k];
            bases[k] = bases[k - 1];
            bases[k - 1] = swap;
        }
    return count;
}

static int write_slabs(int fd, const char *path, void *context, char *error, size_t error_size)
{
    volume_stream *st = context;
    int status = band_writer_open(fd, path, &st->shape_out, &st->writer, error, error_size);
    if (status != IMAGE_OK) return status;
    const stack_axes *a = &st->run.axes;
    const size_t depth = a->slices, outer = a->channels * a->frames;
    size_t *bases = malloc(outer * sizeof *bases);
    int code = bases ? EXIT_OK_ : EXIT_OUTPUT;
    if (!bases) snprintf(st->error, sizeof st->error, "out of memory");
    const size_t count = bases ? outer_bases(a, bases, outer) : 0;
    for (size_t b = 0; code == EXIT_OK_ && b < count; ++b)
        for (size_t z0 = 0; code == EXIT_OK_ && z0 < depth; z0 += st->slab) {
            const size_t z1 = z0 + st->slab < depth ? z0 + st->slab : depth;
            long lo = (long)z0 - (long)st->run.reach, hi = (long)(z1 + st->run.reach);
            if (!st->run.wraps || st->slab >= depth) {
                lo = lo < 0 ? 0 : lo;
                hi = hi > (long)depth ? (long)depth : hi;
            }
            if ((code = read_slab(st, bases[b], lo, hi)) == EXIT_OK_) code = filter_slab(st, lo, hi, z0, z1);
        }
    free(bases);
    char closing[512];
    status = band_writer_close(st->writer, closing, sizeof closing);
    if (code == EXIT_OK_ && status != IMAGE_OK) snprintf(st->error, sizeof st->error, "%s", closing), code = EXIT_OUTPUT;
    if (code == EXIT_OK_ && band_reader_check(st->reader, st->error, sizeof st->error) != IMAGE_OK)
        code = EXIT_INPUT_CORRUPT;
    st->code = code;
    snprintf(error, error_size, "%s", st->error);
    return code == EXIT_OK_ ? IMAGE_OK : IMAGE_ERR_WRITE;
}

/* The output slices a slab takes: both buffers of (slab + 2 reach) slices within half the host
 * budget, and the device's copies (within the other half on a device that shares the host's
 * memory, with the program, the driver and libtiff). */
static size_t slab_of(volume_stream *st, uint64_t host_budget)
{
    const uint64_t slice = (uint64_t)(st->in_page + st->out_page) * st->page_step;
    const uint64_t reach = 2 * (uint64_t)st->run.reach, fits = host_budget / 2 / slice;
    const size_t slab = fits > reach ? (size_t)(fits - reach) : 0;
    filter_plan plan = st->args->plan;
    plan.memory_available = host_budget / 2;
    const size_t device = volume_slab_slices(&st->run, &plan, st->in_page * st->page_step, st->out_page * st->page_step,
                                             st->shape.width, st->shape.height, st->run.axes.slices, 0);
    return device < slab ? device : slab;
}

int filter_volume_stream(const filter_args *args, const char *input, const char *output, uint64_t host_budget)
{
    volume_stream st = {.args = args};
    filter_plan plan = args->plan;
    int code = EXIT_OK_;
    int status = band_reader_open(input, &st.reader, &st.shape, st.error, sizeof st.error);
    if (status != IMAGE_OK) code = filter_input_exit_code(status);
    if (code == EXIT_OK_) {
        if (args->compression != IMAGE_COMPRESSION_DEFAULT && st.shape.meta) st.shape.meta->compression = args->compression;
        if (!args->has_type) plan.output_type = st.shape.type;
        st.shape_out = st.shape; /* sharing the tags */
        st.shape_out.type = plan.output_type;
        code = filter_check_output(output, &st.shape_out);
    }
    if (code == EXIT_OK_) code = volume_run_open(&plan, &st.shape, &st.run);
    if (code == EXIT_OK_) {
        st.page_step = st.run.axes.slice_step;
        st.in_page = image_plane_bytes(&st.shape) * st.run.samples;
        st.out_page = image_plane_bytes(&st.shape_out) * st.run.samples;
        st.slab = slab_of(&st, host_budget);
        if (!st.slab) {
            snprintf(st.error, sizeof st.error, "%s: even a slab of one slice of its volumes, with the %u slices on "
                     "each side that the mask reaches, does not fit the memory the run may use", input, st.run.reach);
            code = EXIT_OUTPUT;
        }
    }
    const size_t slices = st.slab + 2 * (size_t)st.run.reach;
    if (code == EXIT_OK_ && (!(st.in = malloc(slices * st.page_step * st.in_page)) ||
                             !(st.out = malloc(slices * st.page_step * st.out_page)))) {
        snprintf(st.error, sizeof st.error, "out of memory for a slab of %zu slices", slices);
        code = EXIT_OUTPUT;
    }
    char error[1024] = "";
    const double start = wall_ms();
    if (code == EXIT_OK_ && image_write_through(output, write_slabs, &st, error, sizeof error) != IMAGE_OK) {
        code = st.code != EXIT_OK_ ? st.code : EXIT_OUTPUT;
        if (!st.error[0]) snprintf(st.error, sizeof st.error, "%s", error); /* the file's own failure */
    }
    st.run.run_ms = wall_ms() - start; /* the slabs read, filtered and written */
    if (code != EXIT_OK_ && st.error[0]) fprintf(stderr, "clstencil filter: %s\n", st.error);
    if (code == EXIT_OK_ && plan.verbose) {
        volume_run_report(&st.run, &plan, &st.shape, st.slab);
        fprintf(stderr, "files:     in slabs of %zu slices, read from and written to the files (in the run's time)\n",
                st.slab);
    }
    free(st.in);
    free(st.out);
    volume_run_close(&st.run);
    band_reader_close(st.reader);
    image_free(&st.shape);
    return code;
}
