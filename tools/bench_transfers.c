/* bench_transfers.c — `clstencil bench --transfers`: how fast the device copies an image between a
 * device buffer and host memory, for the host memory a program may hold: ordinary memory its pages
 * already touched, ordinary memory fresh from the allocator (each copy's pages mapped by the copy
 * itself, as a newly allocated output is), and pinned memory from cls_host_alloc. Each row: the
 * median wall time of a blocking clEnqueueWriteBuffer and clEnqueueReadBuffer, the median of their
 * profiled times, and the rate of the wall time. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "bench_options.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef enum memory_kind { MEMORY_TOUCHED, MEMORY_FRESH, MEMORY_PINNED, MEMORY_KINDS } memory_kind;

static const char *const memory_names[MEMORY_KINDS] = {"ordinary, touched", "ordinary, fresh pages",
                                                       "pinned (cls_host_alloc)"};

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* Fresh pages: an anonymous mapping that no one has touched (malloc would reuse freed pages). */
static void *fresh_pages(size_t bytes)
{
    void *pages = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

/* One copy: writing (to the device) or reading; its wall and profiled milliseconds. */
static cl_int copy_once(cl_command_queue queue, cl_mem buffer, void *host, size_t bytes, int to_device,
                        double *wall, double *profiled)
{
    cl_event event = NULL;
    const double started = wall_ms();
    cl_int error = to_device ? clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL, &event)
                             : clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL, &event);
    *wall = wall_ms() - started;
    cl_ulong start = 0, end = 0;
    if (error == CL_SUCCESS)
        error = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (error == CL_SUCCESS) error = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    *profiled = (double)(end - start) * 1e-6;
    if (event) clReleaseEvent(event);
    return error;
}

/* The medians of one kind of memory, one direction: wall and profiled ms. */
static cl_int measure(cls_context *context, cl_mem buffer, size_t bytes, memory_kind kind, int to_device,
                      const bench_options *o, double result[2])
{
    double *times = calloc(2 * (size_t)o->runs, sizeof *times);
    void *pinned = kind == MEMORY_PINNED ? cls_host_alloc(context, bytes) : NULL;
    void *host = kind == MEMORY_PINNED ? pinned : kind == MEMORY_TOUCHED ? malloc(bytes) : NULL;
    cl_int error = times && (host || kind == MEMORY_FRESH) ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    if (error == CL_SUCCESS && host) memset(host, 1, bytes);
    for (int run = -o->warmup; error == CL_SUCCESS && run < o->runs; ++run) {
        void *fresh = kind == MEMORY_FRESH ? fresh_pages(bytes) : NULL;
        if (kind == MEMORY_FRESH && !fresh) error = CL_OUT_OF_HOST_MEMORY;
        double wall = 0, profiled = 0;
        if (error == CL_SUCCESS) error = copy_once(cls_context_queue(context), buffer, fresh ? fresh : host, bytes,
                                                   to_device, &wall, &profiled);
        if (fresh) munmap(fresh, bytes);
        if (run >= 0) times[run] = wall, times[o->runs + run] = profiled;
    }
    if (error == CL_SUCCESS) result[0] = median(times, o->runs), result[1] = median(times + o->runs, o->runs);
    if (kind == MEMORY_PINNED) cls_host_free(context, pinned);
    else free(host);
    free(times);
    return error;
}

int bench_transfers(const bench_options *o)
{
    cls_context *context = NULL;
    if (cls_context_create(o->device, &context) != CLS_OK) {
        fprintf(stderr, "clstencil bench: %s\n", cls_last_error());
        return EXIT_NO_DEVICE;
    }
    const size_t bytes = (size_t)o->sizes[0].width * o->sizes[0].height * sizeof(float);
    cl_int error;
    cl_mem buffer = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, bytes, NULL, &error);
    printf("device %s; %ux%u f32 (%.1f MiB); medians of %d blocking copies after %d more: wall time (host clock), "
           "profiled time (OpenCL events), rate of the wall time\n",
           cls_context_device(context)->name, o->sizes[0].width, o->sizes[0].height, (double)bytes / (1 << 20), o->runs,
           o->warmup);
    printf("%-24s | %-32s | %-32s\n", "host memory", "host to device: wall, profiled", "device to host: wall, profiled");
    for (int kind = 0; error == CL_SUCCESS && kind < MEMORY_KINDS; ++kind) {
        double up[2] = {0, 0}, down[2] = {0, 0};
        error = measure(context, buffer, bytes, (memory_kind)kind, 1, o, up);
        if (error == CL_SUCCESS) error = measure(context, buffer, bytes, (memory_kind)kind, 0, o, down);
        if (error != CL_SUCCESS) break;
        printf("%-24s | %7.2f ms %7.2f ms %6.1f GB/s | %7.2f ms %7.2f ms %6.1f GB/s\n", memory_names[kind], up[0],
               up[1], (double)bytes / up[0] * 1e-6, down[0], down[1], (double)bytes / down[0] * 1e-6);
    }
    if (error != CL_SUCCESS) fprintf(stderr, "clstencil bench: a copy failed: OpenCL error %d (%s)\n", (int)error,
                                     error == CL_OUT_OF_HOST_MEMORY ? "out of host memory" : "see the OpenCL headers");
    if (buffer) clReleaseMemObject(buffer);
    cls_context_release(context);
    return error == CL_SUCCESS ? EXIT_OK_ : EXIT_FAILURE_;
}
