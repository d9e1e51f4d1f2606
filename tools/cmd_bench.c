/* cmd_bench.c — `clstencil bench`: times operators (one pipeline of --op stages) on the device
 * with OpenCL profiling events: the median kernel time of repeated runs after a warm-up, next
 * to the median time of a device-to-device copy of the same bytes in the same run. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 3, RUNS = 21, MAX_OPS = 8 };

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double event_microseconds(cl_event event)
{
    cl_ulong start = 0, end = 0;
    clWaitForEvents(1, &event);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    return (double)(end - start) / 1e3;
}

static int usage(FILE *out, int code)
{
    fprintf(out, "usage: clstencil bench --op OPERATOR [--op ...] [--size WxH] [--border MODE] [--partition P]\n"
                 "                       [--rows N]\n"
                 "  times the operators chained on the default device (f32, default 4096x4096, clamp):\n"
                 "  median kernel time of %d runs after %d warm-up runs, against a device copy of the same bytes\n",
            RUNS, WARMUP);
    return code;
}

int cmd_bench(int argc, char **argv)
{
    const char *ops[MAX_OPS];
    int op_count = 0;
    unsigned width = 4096, height = 4096;
    cls_border border = CLS_BORDER_CLAMP;
    cls_partition partition = CLS_PARTITION_AUTO;
    unsigned rows = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0) return usage(stdout, EXIT_OK_);
        if (i + 1 >= argc) return usage(stderr, EXIT_USAGE);
        const char *value = argv[++i];
        cls_status status = CLS_OK;
        if (strcmp(argv[i - 1], "--op") == 0 && op_count < MAX_OPS) ops[op_count++] = value;
        else if (strcmp(argv[i - 1], "--size") == 0 && parse_size(value, &width, &height)) continue;
        else if (strcmp(argv[i - 1], "--border") == 0) status = cls_border_parse(value, &border);
        else if (strcmp(argv[i - 1], "--partition") == 0) status = cls_partition_parse(value, &partition);
        else if (strcmp(argv[i - 1], "--rows") == 0) rows = (unsigned)strtoul(value, NULL, 10);
        else return usage(stderr, EXIT_USAGE);
        if (status != CLS_OK) return report_failure("bench", status);
    }
    if (op_count == 0) return usage(stderr, EXIT_USAGE);
    cls_context *context = NULL;
    cls_pipeline *pipeline = NULL;
    cls_status status = cls_context_create(NULL, &context);
    if (status == CLS_OK) status = cls_pipeline_create(context, &pipeline);
    for (int i = 0; status == CLS_OK && i < op_count; ++i) {
        cls_operator *op = NULL;
        status = cls_operator_parse(ops[i], &op);
        if (status != CLS_OK) break;
        cls_spec spec = *cls_operator_spec(op);
        spec.border = border;
        spec.partition = partition;
        if (!spec.body) spec.rows_per_item = rows; /* operator bodies compute one row */
        status = cls_pipeline_add(pipeline, &spec);
        cls_operator_release(op);
    }
    const size_t bytes = (size_t)width * height * sizeof(float);
    cl_int error = CL_SUCCESS;
    cl_mem input = NULL, output = NULL;
    if (status == CLS_OK) {
        input = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error == CL_SUCCESS) output = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, bytes, NULL, &error);
        const float zero = 0.25f;
        if (error == CL_SUCCESS)
            error = clEnqueueFillBuffer(cls_context_queue(context), input, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    }
    double kernel[RUNS], copy[RUNS];
    const cls_image_desc image = {.width = width, .height = height};
    for (int run = -WARMUP; status == CLS_OK && error == CL_SUCCESS && run < RUNS; ++run) {
        cl_event stages[MAX_OPS], copied;
        status = cls_pipeline_enqueue(pipeline, input, output, &image, 0, NULL, NULL, stages);
        if (status != CLS_OK) break;
        double total = 0;
        for (size_t s = 0; s < cls_pipeline_stage_count(pipeline); ++s) {
            total += event_microseconds(stages[s]);
            clReleaseEvent(stages[s]);
        }
        error = clEnqueueCopyBuffer(cls_context_queue(context), input, output, 0, 0, bytes, 0, NULL, &copied);
        if (error != CL_SUCCESS) break;
        if (run >= 0) kernel[run] = total, copy[run] = event_microseconds(copied);
        clReleaseEvent(copied);
    }
    int code = EXIT_OK_;
    if (status != CLS_OK) code = report_failure("bench", status);
    else if (error != CL_SUCCESS) {
        fprintf(stderr, "clstencil bench: OpenCL error %d\n", (int)error);
        code = EXIT_FAILURE_;
    } else {
        qsort(kernel, RUNS, sizeof *kernel, compare_doubles);
        qsort(copy, RUNS, sizeof *copy, compare_doubles);
        const double k = kernel[RUNS / 2], c = copy[RUNS / 2];
        printf("device %s; %ux%u f32, border %s, %d stage(s):", cls_context_device(context)->name, width, height,
               cls_border_name(border), op_count);
        for (int i = 0; i < op_count; ++i) printf(" %s", ops[i]);
        printf("\nkernel %.1f us (median of %d), copy %.1f us, ratio %.2f, effective %.0f GB/s\n", k, RUNS, c, k / c,
               2.0 * (double)bytes * op_count / (k * 1e3));
    }
    if (input) clReleaseMemObject(input);
    if (output) clReleaseMemObject(output);
    cls_pipeline_release(pipeline);
    cls_context_release(context);
    return code;
}
