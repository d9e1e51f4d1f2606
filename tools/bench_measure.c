/* bench_measure.c — runs one `clstencil bench` configuration on the device: builds its filters
 * through the public API, runs them `runs` times after `warmup` untimed runs, and takes the
 * medians of the kernel time (OpenCL profiling events) and of a device-to-device copy of the
 * input's bytes enqueued in the same run. With keep_outputs it reads the outputs back, for the
 * --short check against the plain global variant. */
#include "bench.h"
#include "commands.h"
#include "user_operator.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the environment */

cls_status bench_env_init(bench_env *env, const char *device, int runs, int warmup, int keep_outputs)
{
    memset(env, 0, sizeof *env);
    env->runs = runs;
    env->warmup = warmup;
    env->keep_outputs = keep_outputs;
    const cls_status status = cls_context_create(device, &env->context);
    if (status == CLS_OK) report_context_warnings("bench", env->context);
    return status;
}

static void drop_input(bench_env *env)
{
    if (env->input) clReleaseMemObject(env->input);
    free(env->host_input);
    env->input = NULL;
    env->host_input = NULL;
    env->width = env->height = 0;
}

void bench_env_free(bench_env *env)
{
    drop_input(env);
    cls_context_release(env->context);
    env->context = NULL;
}

size_t bench_case_pixels(const bench_case *c)
{
    return (size_t)c->width * c->height * (c->depth ? c->depth : 1);
}

/* The input of width x height: the same pseudo-random values in [0, 1) on every run. */
static cl_int make_input(bench_env *env, unsigned width, unsigned height)
{
    if (env->input && env->width == width && env->height == height) return CL_SUCCESS;
    drop_input(env);
    const size_t pixels = (size_t)width * height;
    if (!(env->host_input = malloc(pixels * sizeof(float)))) return CL_OUT_OF_HOST_MEMORY;
    uint32_t state = 12345u;
    for (size_t i = 0; i < pixels; ++i) {
        state = state * 1664525u + 1013904223u;
        env->host_input[i] = (float)(state >> 8) / 16777216.0f;
    }
    cl_int error;
    env->input = clCreateBuffer(cls_context_cl(env->context), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                pixels * sizeof(float), env->host_input, &error);
    if (error != CL_SUCCESS) {
        drop_input(env);
        return error;
    }
    env->width = width;
    env->height = height;
    return CL_SUCCESS;
}

/* ---------------------------------------------------------------- one configuration's objects */

/* The filters of a configuration and the memory they read and write. */
typedef struct bench_run {
    const bench_case *c;
    bench_env *env;
    size_t filter_count;
    cls_filter *filters[BENCH_MAX_STAGES];
    unsigned outputs[BENCH_MAX_STAGES];     /* buffers each filter writes */
    int several_kernels[BENCH_MAX_STAGES]; /* kernels behind one event: timed as a span */
    cl_mem reads[BENCH_MAX_STAGES];         /* the buffer each filter reads */
    cl_mem writes[BENCH_MAX_STAGES][BENCH_MAX_OUTPUTS];
    cl_mem case_outputs[BENCH_MAX_OUTPUTS]; /* what the configuration produces */
    unsigned case_output_count;
    cl_mem temporaries[2];                  /* between the stages of a chain */
    cl_mem copy_target;
} bench_run;

static void set_failure(bench_result *result, bench_outcome outcome, cls_status status, const char *why)
{
    result->outcome = outcome;
    result->status = status;
    /* The first line only: build logs follow on the next lines. */
    snprintf(result->note, sizeof result->note, "%.*s", (int)strcspn(why, "\n"), why);
}

static void fail_library(bench_result *result, cls_status status)
{
    set_failure(result, status == CLS_ERR_UNSUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR, status, cls_last_error());
}

static void fail_opencl(bench_result *result, const char *what, cl_int error)
{
    char text[160];
    snprintf(text, sizeof text, "%s failed (OpenCL error %d)", what, (int)error);
    set_failure(result, BENCH_ERROR, CLS_ERR_OPENCL, text);
}

/* The spec of an operator under the configuration's knobs, `auto` choosing for the case's size.
 * Separation applies to built-in weighted sums only; outputs per work-item to operator bodies too
 * (one call of the body per output). */
void bench_apply_knobs(const bench_case *c, size_t filter, cls_spec *spec)
{
    const bench_knobs *k = &c->knobs;
    spec->expected_width = c->width;
    spec->expected_height = c->height;
    spec->expected_depth = c->depth;
    spec->border = c->border;
    spec->border_value = c->border_value;
    spec->partition = k->partition;
    spec->input_path = k->input_path;
    spec->group_width = k->groups_pinned ? k->pinned_groups[filter][0] : k->group_width;
    spec->group_height = k->groups_pinned ? k->pinned_groups[filter][1] : k->group_height;
    if (k->bake >= 0) spec->bake_coefficients = k->bake;
    spec->fold_equal_taps = k->fold && spec->bake_coefficients;
    if (k->region_code) spec->region_code = k->region_code;
    spec->rows_per_item = k->rows;
    spec->cols_per_item = k->cols;
    if (!spec->body) spec->separable = k->separable;
    if (!spec->body && spec->mask_count <= 1 && !spec->epilogue) spec->method = k->method;
}

/* The masks of `count` operators one after another, for one multi-mask kernel; NULL (with the
 * reason in result) when they are not built-in weighted sums of one window size. */
static float *merge_masks(cls_operator *const *ops, size_t count, bench_result *result)
{
    const cls_spec *first = cls_operator_spec(ops[0]);
    const size_t taps = (size_t)first->mask_width * first->mask_height;
    float *masks = malloc(count * taps * sizeof *masks);
    if (!masks) {
        set_failure(result, BENCH_ERROR, CLS_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; ++i) {
        const cls_spec *s = cls_operator_spec(ops[i]);
        if (s->body || s->mask_count > 1 || s->mask_width != first->mask_width || s->mask_height != first->mask_height) {
            set_failure(result, BENCH_ERROR, CLS_ERR_INVALID_ARGUMENT,
                        "merged operators need built-in weighted sums of one mask each, of one window size");
            free(masks);
            return NULL;
        }
        memcpy(masks + i * taps, s->coefficients, taps * sizeof *masks);
    }
    return masks;
}

/* One filter from the configuration's operators first..first+count-1: one operator, or several
 * merged into one multi-mask kernel. The library says CLS_ERR_UNSUPPORTED for what the device
 * cannot run (the image path without images, ...): such a row is unsupported, not failed. */
static cls_status create_filter(bench_run *run, size_t first, size_t count, bench_result *result)
{
    cls_operator *ops[BENCH_MAX_STAGES] = {NULL};
    float *masks = NULL;
    cls_status status = CLS_OK;
    int read_failed;
    for (size_t i = 0; i < count && status == CLS_OK; ++i)
        status = command_operator_parse(run->c->ops[first + i], &ops[i], &read_failed);
    if (status == CLS_OK && count > 1 && !(masks = merge_masks(ops, count, result))) status = result->status;
    const size_t f = run->filter_count;
    if (status == CLS_OK) {
        cls_spec spec = *cls_operator_spec(ops[0]);
        bench_apply_knobs(run->c, f, &spec);
        if (masks) spec.coefficients = masks, spec.mask_count = (unsigned)count, spec.method = CLS_METHOD_AUTO;
        status = cls_filter_create(run->env->context, &spec, &run->filters[f]);
    }
    if (status == CLS_OK) {
        run->several_kernels[f] = cls_filter_kernel_count(run->filters[f]) > 1;
        run->outputs[f] = cls_filter_output_count(run->filters[f]);
        run->filter_count = f + 1;
    } else if (result->outcome == BENCH_OK) {
        fail_library(result, status);
    }
    free(masks);
    for (size_t i = 0; i < count; ++i) cls_operator_release(ops[i]);
    return status;
}

static cl_mem new_buffer(bench_run *run, cl_int *error)
{
    const size_t bytes = bench_case_pixels(run->c) * sizeof(float);
    return clCreateBuffer(cls_context_cl(run->env->context), CL_MEM_READ_WRITE, bytes, NULL, error);
}

/* Connects the filters: a chain through two temporaries, or parallel filters each reading the
 * input; the last (or every) filter writes the configuration's outputs. */
static cl_int connect_filters(bench_run *run)
{
    cl_int error = CL_SUCCESS;
    const int chain = run->c->layout == BENCH_CHAIN;
    for (size_t f = 0; f < run->filter_count && error == CL_SUCCESS; ++f) {
        const int last = f + 1 == run->filter_count;
        if (chain && !last && run->outputs[f] != 1) return CL_INVALID_VALUE; /* stages pass on one image */
        run->reads[f] = chain && f > 0 ? run->writes[f - 1][0] : run->env->input;
        for (unsigned o = 0; o < run->outputs[f] && error == CL_SUCCESS; ++o) {
            if (!chain || last) {
                if (run->case_output_count == BENCH_MAX_OUTPUTS) return CL_INVALID_VALUE;
                cl_mem *out = &run->case_outputs[run->case_output_count++];
                *out = new_buffer(run, &error);
                run->writes[f][o] = *out;
            } else {
                cl_mem *temporary = &run->temporaries[f % 2];
                if (!*temporary) *temporary = new_buffer(run, &error);
                run->writes[f][o] = *temporary;
            }
        }
    }
    if (error == CL_SUCCESS) run->copy_target = new_buffer(run, &error);
    return error;
}

static void release_run(bench_run *run)
{
    for (size_t f = 0; f < run->filter_count; ++f) cls_filter_release(run->filters[f]);
    for (unsigned o = 0; o < run->case_output_count; ++o)
        if (run->case_outputs[o]) clReleaseMemObject(run->case_outputs[o]);
    for (int t = 0; t < 2; ++t)
        if (run->temporaries[t]) clReleaseMemObject(run->temporaries[t]);
    if (run->copy_target) clReleaseMemObject(run->copy_target);
}

/* ---------------------------------------------------------------- running and timing */

/* Microseconds from `from_point` of one event to the end of another; -1 when the device gives
 * no profiling information. */
static double event_span_us(cl_event from, cl_profiling_info from_point, cl_event to)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(from, from_point, sizeof start, &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS || start == 0 ||
        end < start)
        return -1;
    return (double)(end - start) / 1e3;
}

/* Enqueues filter f after the queue's earlier commands (a filter reading through an image copies
 * the buffer into its image first, outside its event). The event of a filter of several kernels
 * (two passes, stages) is its last kernel's: a 4-byte fill just before it gives, by its end, where
 * the first kernel could start. */
static cls_status enqueue_filter(bench_run *run, size_t f, cl_event *event, cl_event *before, bench_result *result)
{
    if (run->several_kernels[f]) {
        const float zero = 0.0f;
        const cl_int error = clEnqueueFillBuffer(cls_context_queue(run->env->context), run->copy_target, &zero,
                                                 sizeof zero, 0, sizeof zero, 0, NULL, before);
        if (error != CL_SUCCESS) {
            fail_opencl(result, "enqueueing the fill before a filter of several kernels", error);
            return CLS_ERR_OPENCL;
        }
    }
    const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = run->c->width, .height = run->c->height,
                                  .depth = run->c->depth};
    const cls_status status = cls_filter_enqueue_outputs(run->filters[f], run->reads[f], run->outputs[f], run->writes[f],
                                                         &image, 0, NULL, event);
    if (status != CLS_OK) fail_library(result, status);
    return status;
}

/* The times of one run's commands: the filters' sum and the copy. */
static cl_int run_times(const bench_run *run, cl_event *events, cl_event *befores, cl_event copied, double *kernel_us,
                        double *copy_us)
{
    *kernel_us = 0;
    for (size_t f = 0; f < run->filter_count; ++f) {
        const double t = befores[f] ? event_span_us(befores[f], CL_PROFILING_COMMAND_END, events[f])
                                    : event_span_us(events[f], CL_PROFILING_COMMAND_START, events[f]);
        if (t < 0) return CL_PROFILING_INFO_NOT_AVAILABLE;
        *kernel_us += t;
    }
    *copy_us = event_span_us(copied, CL_PROFILING_COMMAND_START, copied);
    return *copy_us < 0 ? CL_PROFILING_INFO_NOT_AVAILABLE : CL_SUCCESS;
}

/* One run: every filter, then the copy. */
static cls_status run_once(bench_run *run, double *kernel_us, double *copy_us, bench_result *result)
{
    cl_event events[BENCH_MAX_STAGES] = {NULL}, befores[BENCH_MAX_STAGES] = {NULL}, copied = NULL;
    cls_status status = CLS_OK;
    size_t enqueued = 0;
    for (; enqueued < run->filter_count && status == CLS_OK; ++enqueued)
        status = enqueue_filter(run, enqueued, &events[enqueued], &befores[enqueued], result);
    const size_t bytes = bench_case_pixels(run->c) * sizeof(float);
    cl_int error = CL_SUCCESS;
    if (status == CLS_OK) {
        error = clEnqueueCopyBuffer(cls_context_queue(run->env->context), run->env->input, run->copy_target, 0, 0, bytes,
                                    0, NULL, &copied);
        if (error == CL_SUCCESS) error = clWaitForEvents(1, &copied);
        if (error != CL_SUCCESS) fail_opencl(result, "the device copy", error);
    }
    if (status == CLS_OK && error == CL_SUCCESS) {
        error = run_times(run, events, befores, copied, kernel_us, copy_us);
        if (error != CL_SUCCESS) fail_opencl(result, "reading the profiling events", error);
    }
    clFinish(cls_context_queue(run->env->context));
    for (size_t f = 0; f < enqueued; ++f) {
        if (events[f]) clReleaseEvent(events[f]);
        if (befores[f]) clReleaseEvent(befores[f]);
    }
    if (copied) clReleaseEvent(copied);
    return status == CLS_OK && error == CL_SUCCESS ? CLS_OK : CLS_ERR_OPENCL;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* Outputs start as NaN, so a pixel a kernel never writes cannot pass the check. */
static cl_int poison_outputs(bench_run *run)
{
    const float nan = NAN;
    const size_t bytes = bench_case_pixels(run->c) * sizeof(float);
    cl_int error = CL_SUCCESS;
    for (unsigned o = 0; o < run->case_output_count && error == CL_SUCCESS; ++o)
        error = clEnqueueFillBuffer(cls_context_queue(run->env->context), run->case_outputs[o], &nan, sizeof nan, 0,
                                    bytes, 0, NULL, NULL);
    return error;
}

static cl_int read_outputs(bench_run *run, bench_result *result)
{
    const size_t bytes = bench_case_pixels(run->c) * sizeof(float);
    for (unsigned o = 0; o < run->case_output_count; ++o) {
        if (!(result->outputs[o] = malloc(bytes))) return CL_OUT_OF_HOST_MEMORY;
        const cl_int error = clEnqueueReadBuffer(cls_context_queue(run->env->context), run->case_outputs[o], CL_TRUE, 0,
                                                 bytes, result->outputs[o], 0, NULL, NULL);
        if (error != CL_SUCCESS) return error;
    }
    result->output_count = run->case_output_count;
    return CL_SUCCESS;
}

/* Warm-up, then the timed runs, then the medians. */
static void time_runs(bench_run *run, bench_result *result)
{
    const int runs = run->env->runs;
    double *kernel = malloc((size_t)runs * sizeof *kernel), *copy = malloc((size_t)runs * sizeof *copy);
    if (!kernel || !copy) {
        set_failure(result, BENCH_ERROR, CLS_ERR_OUT_OF_MEMORY, "out of memory");
    } else {
        for (int r = -run->env->warmup; r < runs; ++r) {
            double k = 0, c = 0;
            if (run_once(run, &k, &c, result) != CLS_OK) break;
            if (r >= 0) kernel[r] = k, copy[r] = c;
        }
        if (result->outcome == BENCH_OK) {
            result->kernel_us = bench_median(kernel, runs);
            result->copy_us = bench_median(copy, runs);
        }
    }
    free(kernel);
    free(copy);
}

/* The bytes a perfect implementation moves: a chain reads and writes every stage's image, the
 * parallel filters read the input once and write their outputs. */
static double useful_bytes(const bench_run *run)
{
    const double image = (double)bench_case_pixels(run->c) * sizeof(float);
    if (run->c->layout == BENCH_PARALLEL) return image * (1.0 + run->case_output_count);
    double images = 0;
    for (size_t f = 0; f < run->filter_count; ++f) images += 1.0 + run->outputs[f];
    return image * images;
}

/* The filters: one per operator, or one multi-mask kernel for merged parallel operators. */
static cls_status create_filters(bench_run *run, bench_result *result)
{
    const bench_case *c = run->c;
    if (c->op_count == 0 || c->op_count > BENCH_MAX_STAGES) {
        set_failure(result, BENCH_ERROR, CLS_ERR_INVALID_ARGUMENT, "a configuration needs 1 to 8 operators");
        return CLS_ERR_INVALID_ARGUMENT;
    }
    if (c->layout == BENCH_PARALLEL && c->knobs.merge) return create_filter(run, 0, c->op_count, result);
    cls_status status = CLS_OK;
    for (size_t i = 0; i < c->op_count && status == CLS_OK; ++i) status = create_filter(run, i, 1, result);
    return status;
}

void bench_measure(bench_env *env, const bench_case *c, bench_result *result)
{
    memset(result, 0, sizeof *result);
    bench_run run = {.c = c, .env = env};
    cl_int error = make_input(env, c->width, (unsigned)(bench_case_pixels(c) / c->width)); /* a volume: its slices' rows */
    if (error != CL_SUCCESS) {
        fail_opencl(result, "creating the input", error);
        return;
    }
    if (create_filters(&run, result) == CLS_OK) {
        result->partition = cls_filter_partition(run.filters[0]);
        result->input_path = cls_filter_input_path(run.filters[0]);
        result->separable = cls_filter_separable(run.filters[0]);
        result->method = cls_filter_method(run.filters[0]);
        cls_filter_outputs_per_item(run.filters[0], &result->rows, &result->cols);
        cls_build_info info = {CLS_BUILD_INFO_INIT};
        cls_filter_build_info(run.filters[0], &info);
        result->registers = info.registers;
        result->filter_count = run.filter_count;
        for (size_t f = 0; f < run.filter_count; ++f)
            cls_filter_group_shape(run.filters[f], &result->groups[f][0], &result->groups[f][1]);
        result->group_width = result->groups[0][0];
        result->group_height = result->groups[0][1];
        error = connect_filters(&run);
        if (error == CL_SUCCESS && env->keep_outputs) error = poison_outputs(&run);
        if (error != CL_SUCCESS) fail_opencl(result, "creating the buffers", error);
    }
    if (result->outcome == BENCH_OK) {
        result->bytes = useful_bytes(&run);
        time_runs(&run, result);
    }
    if (result->outcome == BENCH_OK && env->keep_outputs && (error = read_outputs(&run, result)) != CL_SUCCESS)
        fail_opencl(result, "reading the outputs", error);
    release_run(&run);
}

void bench_result_free(bench_result *result)
{
    for (unsigned o = 0; o < BENCH_MAX_OUTPUTS; ++o) free(result->outputs[o]);
    memset(result->outputs, 0, sizeof result->outputs);
}

int bench_outputs_match(const bench_result *result, const bench_result *reference, unsigned width, unsigned height,
                        char *note, size_t note_size)
{
    if (result->output_count != reference->output_count) {
        snprintf(note, note_size, "%u outputs, the plain global variant has %u", result->output_count,
                 reference->output_count);
        return 0;
    }
    for (unsigned o = 0; o < result->output_count; ++o)
        for (size_t i = 0; i < (size_t)width * height; ++i) {
            const float got = result->outputs[o][i], want = reference->outputs[o][i];
            if (isfinite(got) && isfinite(want) && fabsf(got - want) <= 1e-4f * (1.0f + fabsf(want))) continue;
            snprintf(note, note_size, "output %u at (%zu, %zu): %.9g, the plain global variant %.9g", o, i % width,
                     i / width, (double)got, (double)want);
            return 0;
        }
    return 1;
}
