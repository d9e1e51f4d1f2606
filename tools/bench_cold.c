/* bench_cold.c — `clstencil bench --cold`: the time to a first result, per operator and border, on
 * the selected device. For each build goal (first-result, fastest-kernel) the wall time of
 * cls_filter_create with empty caches (a new clstencil cache folder; NVIDIA's and PoCL's own
 * caches off unless the environment says otherwise), of its first launch to completion (PoCL
 * compiles a kernel's work-group function there) and the median kernel time of what it built;
 * then the wall time of creating the specialized filter again in a new context, from the disk
 * cache (a warm start). */
#include "bench_options.h"
#include "commands.h"
#include "user_operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cold_row {
    double build_ms[2], first_ms[2], kernel_us[2]; /* [0] first-result, [1] fastest-kernel */
    char kernel[2][48];               /* what each got: partition, outputs per work-item */
    double warm_ms;
} cold_row;

/* The wall time of filter's first launch and its median kernel time on the options' first size
 * (f32 buffers of its context). */
static cls_status kernel_median(cls_context *context, cls_filter *filter, const bench_options *o, double *first_ms,
                                double *median_us)
{
    const bench_size *size = &o->sizes[0];
    const size_t bytes = (size_t)size->width * size->height * (size->depth ? size->depth : 1) * sizeof(float);
    const unsigned outputs = cls_filter_output_count(filter);
    cl_mem buffers[1 + BENCH_MAX_OUTPUTS] = {NULL};
    double *times = calloc((size_t)o->runs, sizeof *times);
    cl_int error = times ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    for (unsigned k = 0; error == CL_SUCCESS && k <= outputs; ++k)
        buffers[k] = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, bytes, NULL, &error);
    static const float zero = 0.0f;
    if (error == CL_SUCCESS)
        error = clEnqueueFillBuffer(cls_context_queue(context), buffers[0], &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    cls_status status = error == CL_SUCCESS ? CLS_OK : CLS_ERR_OPENCL;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = size->width, .height = size->height, .depth = size->depth};
    if (status == CLS_OK && clFinish(cls_context_queue(context)) != CL_SUCCESS) status = CLS_ERR_OPENCL;
    /* a launch of several kernels (stages, passes) is timed from the end of a fill just before it */
    const int several = cls_filter_kernel_count(filter) > 1;
    for (int run = -o->warmup - 1; status == CLS_OK && run < o->runs; ++run) {
        const double launched = wall_ms();
        cl_event event = NULL, before = NULL;
        if (several && clEnqueueFillBuffer(cls_context_queue(context), buffers[0], &zero, sizeof zero, 0, sizeof zero, 0,
                                           NULL, &before) != CL_SUCCESS)
            status = CLS_ERR_OPENCL;
        if (status == CLS_OK)
            status = cls_filter_enqueue_outputs(filter, buffers[0], outputs, buffers + 1, &desc, 0, NULL, &event);
        cl_ulong start = 0, end = 0;
        if (status == CLS_OK &&
            (clWaitForEvents(1, &event) != CL_SUCCESS ||
             clGetEventProfilingInfo(several ? before : event, several ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
                                     sizeof start, &start, NULL) ||
             clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL)))
            status = CLS_ERR_OPENCL;
        if (event) clReleaseEvent(event);
        if (before) clReleaseEvent(before);
        if (run == -o->warmup - 1) *first_ms = wall_ms() - launched;
        if (run >= 0) times[run] = (double)(end - start) * 1e-3;
    }
    if (status == CLS_OK) *median_us = bench_median(times, o->runs);
    for (unsigned k = 0; k <= outputs; ++k)
        if (buffers[k]) clReleaseMemObject(buffers[k]);
    free(times);
    return status;
}

/* Creates op's filter with goal in context, timed; its kernel time and what it got. */
static cls_status measure_goal(cls_context *context, const cls_spec *op_spec, cls_build_goal goal,
                               const bench_options *o, cold_row *row)
{
    const int g = goal == CLS_BUILD_FASTEST_KERNEL;
    cls_spec spec = *op_spec;
    spec.build_goal = goal;
    cls_filter *filter = NULL;
    const double start = wall_ms();
    cls_status status = cls_filter_create(context, &spec, &filter);
    row->build_ms[g] = wall_ms() - start;
    if (status == CLS_OK)
        status = kernel_median(context, filter, o, &row->first_ms[g], &row->kernel_us[g]);
    if (status == CLS_OK && cls_filter_method(filter) == CLS_METHOD_FFT) {
        snprintf(row->kernel[g], sizeof row->kernel[g], "fft");
    } else if (status == CLS_OK) {
        unsigned rows = 0, cols = 0;
        cls_filter_outputs_per_item(filter, &rows, &cols);
        snprintf(row->kernel[g], sizeof row->kernel[g], "%s %ux%u", cls_partition_name(cls_filter_partition(filter)),
                 cols, rows);
    }
    cls_filter_release(filter);
    return status;
}

/* One operator and border, in a cache folder of its own. */
static cls_status measure(const bench_options *o, const char *text, cls_border border, const char *folder,
                          cold_row *row)
{
    setenv("CLSTENCIL_CACHE_DIR", folder, 1);
    cls_operator *op = NULL;
    int read_failed;
    cls_status status = command_operator_parse(text, &op, &read_failed);
    if (status != CLS_OK) return status;
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.border_value = o->border_value;
    spec.expected_width = o->sizes[0].width;
    spec.expected_height = o->sizes[0].height;
    spec.expected_depth = o->sizes[0].depth;
    if (o->method_count) spec.method = o->methods[0];
    cls_context *context = NULL;
    status = cls_context_create(o->device, &context);
    if (status == CLS_OK) status = measure_goal(context, &spec, CLS_BUILD_FIRST_RESULT, o, row);
    if (status == CLS_OK) status = measure_goal(context, &spec, CLS_BUILD_FASTEST_KERNEL, o, row);
    cls_context_release(context);
    context = NULL;
    if (status == CLS_OK) status = cls_context_create(o->device, &context);
    if (status == CLS_OK) {
        cls_filter *filter = NULL;
        const double start = wall_ms();
        status = cls_filter_create(context, &spec, &filter);
        row->warm_ms = wall_ms() - start;
        cls_filter_release(filter);
    }
    cls_context_release(context);
    cls_operator_release(op);
    return status;
}

int bench_cold(const bench_options *o)
{
    /* Before the first OpenCL call: the drivers read these when they start. */
    setenv("CUDA_CACHE_DISABLE", "1", 0);
    setenv("POCL_KERNEL_CACHE", "0", 0);
    char folder[] = "/tmp/clstencil-bench-cold-XXXXXX";
    if (!mkdtemp(folder)) {
        perror("clstencil bench --cold: mkdtemp");
        return EXIT_FAILURE_;
    }
    const double start = wall_ms();
    cls_context *context = NULL;
    cls_status status = cls_context_create(o->device, &context);
    const double context_ms = wall_ms() - start;
    if (status == CLS_OK) {
        const cls_device_caps *caps = cls_context_device(context);
        printf("device %s (%s, driver %s); a context takes %.0f ms\n", caps->name, caps->platform_name,
               caps->driver_version, context_ms);
        cls_context_release(context);
        const char *cuda = getenv("CUDA_CACHE_DISABLE"), *pocl = getenv("POCL_KERNEL_CACHE");
        char depth[24] = "";
        if (o->sizes[0].depth > 1) snprintf(depth, sizeof depth, "x%u", o->sizes[0].depth);
        printf("bench --cold: f32 %ux%u%s; build: cls_filter_create's wall time with an empty clstencil cache "
               "(CUDA_CACHE_DISABLE=%s, POCL_KERNEL_CACHE=%s); 1st run: the first launch's wall time; kernel: "
               "median of %d runs after %d more; warm: the specialized filter created again in a new context\n",
               o->sizes[0].width, o->sizes[0].height, depth, cuda, pocl, o->runs, o->warmup);
        printf("%-18s %-9s | %-13s %9s %9s %10s | %-16s %9s %9s %10s | %8s\n", "operator", "border", "first-result",
               "build ms", "1st run", "kernel us", "fastest-kernel", "build ms", "1st run", "kernel us", "warm ms");
    }
    for (size_t i = 0; status == CLS_OK && i < o->op_count; ++i)
        for (size_t b = 0; status == CLS_OK && b < o->border_count; ++b) {
            char sub[sizeof folder + 24];
            snprintf(sub, sizeof sub, "%s/%zu-%zu", folder, i, b);
            cold_row row = {0};
            status = measure(o, o->ops[i], o->borders[b], sub, &row);
            if (status == CLS_OK)
                printf("%-18.18s %-9s | %-13s %9.1f %9.1f %10.1f | %-16s %9.1f %9.1f %10.1f | %8.1f\n", o->ops[i],
                       cls_border_name(o->borders[b]), row.kernel[0], row.build_ms[0], row.first_ms[0],
                       row.kernel_us[0], row.kernel[1], row.build_ms[1], row.first_ms[1], row.kernel_us[1],
                       row.warm_ms);
            fflush(stdout);
        }
    remove_folder(folder);
    return status == CLS_OK ? EXIT_OK_ : report_failure("bench", status);
}
