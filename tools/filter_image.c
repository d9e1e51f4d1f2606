/* filter_image.c — one image of `clstencil filter`: the output checked before any work, the input
 * read within the run's memory budget (or handed to the bands when it is too large), its --input
 * images read beside it, filtered through a run or a batch's session, and the result written. */
#include "filter_image.h"

#include "band_io.h"
#include "commands.h"
#include "filter_inputs.h"
#include "memory_budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether OUT has a known format (exit 1 if not); with IMAGE, also whether that format can hold
 * it (exit 1) and whether OUT's folder exists (exit 7), so no device work is wasted. */
int filter_check_output(const char *path, const cls_host_image *image)
{
    char error[512];
    image_format format = image_format_of(path);
    if (format == IMAGE_FORMAT_UNKNOWN) {
        fprintf(stderr, "clstencil filter: %s: unknown output format (the extension must be " IMAGE_EXTENSIONS ")\n",
                path);
        return EXIT_USAGE;
    }
    if (format == IMAGE_FORMAT_TIFF && !image_has_tiff()) {
        fprintf(stderr, "clstencil filter: %s: this clstencil was built without TIFF support\n", path);
        return EXIT_USAGE;
    }
    if (!image) return EXIT_OK_;
    if (image_format_check(format, path, image, error, sizeof error) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s; choose another type (--type) or format\n", error);
        return EXIT_USAGE;
    }
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    struct stat st;
    const char *problem = !folder                   ? "out of memory"
                          : stat(folder, &st) != 0  ? "its folder does not exist"
                          : !S_ISDIR(st.st_mode)    ? "its folder is not a folder"
                                                    : NULL;
    if (problem) fprintf(stderr, "clstencil filter: %s: cannot be written: %s\n", path, problem);
    free(folder);
    return problem ? EXIT_OUTPUT : EXIT_OK_;
}

/* The memory budget of one run: what the process may use, the output's pixel type, and the lanes
 * (devices) of a batch that share it (filter_batch.c); set before any lane starts. */
static struct {
    uint64_t available;
    size_t lanes;
    int has_type;
    cls_pixel_type output_type;
} budget;
/* A lane's own: what its writer holds meanwhile, and whether check_memory refused its last image. */
static _Thread_local struct {
    uint64_t held;
    int refused;
} lane_budget;

void filter_budget_hold(uint64_t bytes) { lane_budget.held = bytes; }

void filter_budget_share(size_t lanes) { budget.lanes = lanes; }

void filter_budget_set(uint64_t available, int has_type, cls_pixel_type output_type)
{
    budget.available = available;
    budget.has_type = has_type;
    budget.output_type = output_type;
}

/* What an image may use now: the lane's share of the budget less what its writer holds. */
uint64_t filter_budget_left(void)
{
    const uint64_t share = budget.available / (budget.lanes > 1 ? budget.lanes : 1);
    return share > lane_budget.held ? share - lane_budget.held : 0;
}

/* image_alloc's check for the input: the input and the output on the host must fit the budget
 * (the device's copies are checked once the device is known, in filter_run). */
static int check_memory(size_t width, size_t height, size_t channels, cls_pixel_type type, const char *path,
                        char *error, size_t error_size)
{
    const uint64_t pixels = (uint64_t)width * height * channels;
    const uint64_t need = pixels * (image_sample_bytes(type) + image_sample_bytes(budget.has_type ? budget.output_type : type));
    if (need <= filter_budget_left()) return IMAGE_OK;
    lane_budget.refused = 1;
    char needed[32], available[32];
    return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path,
                      "a %zu x %zu image of %zu channel%s needs %s of memory for itself and the output, but "
                      "only %s is available (CLSTENCIL_MEMORY_MAX, else the system's available memory)",
                      width, height, channels, channels == 1 ? "" : "s", memory_format(need, needed, sizeof needed),
                      memory_format(filter_budget_left(), available, sizeof available));
}

int filter_read_and_filter(const filter_args *args, filter_session **session, const char *input,
                           const char *output, cls_host_image *out, image_times *times)
{
    cls_host_image in = {0}, shape;
    filter_input *inputs = NULL;
    size_t input_count = 0;
    char error[1024];
    int code = EXIT_OK_, status;
    filter_plan plan = args->plan;
    if (plan.memory_available != UINT64_MAX) plan.memory_available = filter_budget_left();
    image_set_alloc_check(check_memory);
    double start = wall_ms();
    lane_budget.refused = 0;
    if ((status = image_read(input, &in, error, sizeof error)) != IMAGE_OK) {
        /* Too large for the memory: it goes a band of rows at a time instead. */
        if (lane_budget.refused && filter_stream_formats(args, input, output)) {
            code = FILTER_IN_BANDS;
            goto done;
        }
        fprintf(stderr, "clstencil filter: %s (%s)\n", error, image_error_class_name(status));
        code = filter_input_exit_code(status);
        goto done;
    }
    if ((code = filter_inputs_read(args, &in, &inputs, &input_count)) != EXIT_OK_) goto done;
    plan.inputs = inputs;
    plan.input_count = input_count;
    times->read_ms = wall_ms() - start;
    if (in.meta && in.meta->narrowed_f64)
        fprintf(stderr, "clstencil filter: note: %s holds 64-bit floats, read as f32 (24-bit precision; values "
                        "beyond f32's range become infinite)\n", input);
    if (!args->has_type) plan.output_type = in.type;
    shape = in;
    shape.type = plan.output_type;
    if ((code = filter_check_output(output, &shape)) != EXIT_OK_) goto done;
    image_set_alloc_check(NULL); /* counted with the input */
    if ((status = image_alloc_pages(out, in.width, in.height, in.channels, in.pages, plan.output_type, output,
                                    error, sizeof error)) != IMAGE_OK) {
        fprintf(stderr, "clstencil filter: %s\n", error);
        code = EXIT_OUTPUT;
        goto done;
    }
    /* The input's tags (and compression) go to the output; --compression overrides. */
    out->meta = in.meta;
    in.meta = NULL;
    if (args->compression != IMAGE_COMPRESSION_DEFAULT) {
        if (!out->meta && !(out->meta = calloc(1, sizeof *out->meta))) {
            fprintf(stderr, "clstencil filter: out of memory\n");
            code = EXIT_OUTPUT;
            goto done;
        }
        out->meta->compression = args->compression;
    }
    start = wall_ms();
    if (!args->batch) code = filter_run(&plan, &in, out);
    else if (*session || (code = filter_session_open(&plan, session)) == EXIT_OK_)
        code = filter_session_run(*session, &plan, &in, out);
    times->filter_ms = wall_ms() - start;
done:
    image_set_alloc_check(NULL);
    image_free(&in);
    filter_inputs_free(inputs, input_count);
    if (code != EXIT_OK_) image_free(out);
    return code;
}

int filter_write_result(const char *output, const cls_host_image *out, char *error, size_t error_size,
                        image_times *times)
{
    const double start = wall_ms();
    const int status = image_write(output, out, error, error_size);
    times->write_ms = wall_ms() - start;
    if (status == IMAGE_OK) return EXIT_OK_;
    const size_t length = strlen(error);
    snprintf(error + length, error_size - length, " (%s)", image_error_class_name(status));
    return EXIT_OUTPUT;
}


int filter_stream_formats(const filter_args *args, const char *input, const char *output)
{
    return !args->batch && !args->input_text_count && band_io_format(input) && band_io_format(output);
}
