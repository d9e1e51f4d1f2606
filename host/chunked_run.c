/* chunked_run.c — a host run of a large image on a device with memory of its own, in chunks of
 * rows that overlap: chunk k's input rows are copied in on one queue while the kernel of chunk
 * k - 1 runs on the context's queue and the result of chunk k - 2 is copied out on a third, so a
 * run costs about its slowest step instead of the sum of the three. Each kernel launch computes its
 * chunk's rows as a region of interest of the whole image, so the result is the one launch's. */
#include "host.h"

#include "byte_size.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>

/* A chunk's input of at least CHUNK_BYTES (CLSTENCIL_HOST_CHUNK_BYTES where set: then on every
 * device, a CPU's too, which is how the tests reach this file; 0 never chunks), at most CHUNKS_MAX. */
#define CHUNK_BYTES ((size_t)4 << 20)
#define CHUNKS_MAX 32

/* Whether the device copies host memory into memory of its own (a CPU device or one with unified
 * memory works on the host's pages: nothing to overlap). */
static int has_own_memory(const cls_context *context)
{
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(context->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    return !unified && context->caps.type != CLS_DEVICE_CPU;
}

cls_status cls_chunked_run_chunks(const cls_context *context, const cls_resolved_image *r, unsigned reach,
                                  unsigned *chunks)
{
    *chunks = 0;
    const char *set = getenv("CLSTENCIL_HOST_CHUNK_BYTES");
    uint64_t chunk_bytes = CHUNK_BYTES;
    if (set && *set && !cls_byte_size_parse(set, &chunk_bytes))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "CLSTENCIL_HOST_CHUNK_BYTES='%s' is not a size (bytes, or a number with K, M or G)", set);
    const int overridden = set && *set;
    if (r->depth != 1 || !chunk_bytes || (!overridden && !has_own_memory(context))) return CLS_OK;
    uint64_t count = r->bytes[0] / chunk_bytes;
    if (count > CHUNKS_MAX) count = CHUNKS_MAX;
    /* each chunk taller than the rows its mask spans, so that no chunk's rows reach past the next */
    const uint64_t tallest = r->geometry.roi_height / (2 * (uint64_t)reach + 1);
    if (count > tallest) count = tallest;
    if (count >= 2) *chunks = (unsigned)count;
    return CLS_OK;
}

/* The events of a run, released together once it has finished. */
typedef struct event_list {
    cl_event *events;
    size_t count;
} event_list;

/* A slot for one more event (room for every chunk's three and the wrapped rows' two is made first). */
static cl_event *next_event(event_list *list) { return &list->events[list->count++]; }

/* Enqueues the copy of input rows [first, last) (in the buffer's layout) into the device buffer
 * on QUEUE; *last_copy becomes its event. Nothing to copy enqueues nothing. */
static cl_int copy_rows_in(cl_command_queue queue, cl_mem in, const void *input, const cls_resolved_image *r,
                           size_t first, size_t last, event_list *list, cl_event *last_copy)
{
    const size_t from = r->offset[0] + first * r->pitch[0];
    size_t to = r->offset[0] + last * r->pitch[0];
    if (to > r->bytes[0]) to = r->bytes[0];
    if (from >= to) return CL_SUCCESS;
    cl_event *event = next_event(list);
    const cl_int error = clEnqueueWriteBuffer(queue, in, CL_FALSE, from, to - from, (const char *)input + from, 0,
                                              NULL, event);
    if (error == CL_SUCCESS) *last_copy = *event;
    else --list->count;
    return error;
}

void cls_chunk_span(size_t height, size_t y0, size_t rows, unsigned reach, unsigned chunks, unsigned k,
                    cls_chunk_rows *span)
{
    span->first = y0 + rows * k / chunks;
    span->last = y0 + rows * (k + 1) / chunks;
    /* after the first chunk, from where the chunk before's copy ended: reach rows past its last row */
    span->copy_first = k == 0 ? (y0 > reach ? y0 - reach : 0)
                              : (span->first + reach < height ? span->first + reach : height);
    span->copy_last = span->last + reach < height ? span->last + reach : height;
}

cls_status cls_chunked_run(cls_context *context, const cls_chunk_launch *launch, const void *input, unsigned count,
                           void *const *outputs, const cls_image_desc *image, const cls_resolved_image *r,
                           cl_mem in, const cl_mem *out, unsigned chunks, unsigned reach, int repeat_rows)
{
    cl_command_queue queues[2]; /* copies in, copies out */
    cls_status status = cls_host_run_queues(context, queues);
    if (status != CLS_OK) return status;
    const cls_launch_geometry *g = &r->geometry;
    const size_t height = g->height, y0 = g->roi_y, rows = g->roi_height;
    event_list list = {calloc(3 * (size_t)chunks + 2, sizeof(cl_event)), 0};
    if (!list.events) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    cl_event last_copy = NULL; /* the queue copying in is in order: its last copy implies the others */
    cl_int error = CL_SUCCESS;
    if (repeat_rows) { /* the first rows read the last ones, the last rows the first: both go first */
        cls_chunk_rows top;
        cls_chunk_span(height, y0, rows, reach, chunks, 0, &top);
        error = copy_rows_in(queues[0], in, input, r, height - reach, height, &list, &last_copy);
        if (error == CL_SUCCESS)
            error = copy_rows_in(queues[0], in, input, r, 0, reach < top.copy_first ? reach : top.copy_first, &list,
                                 &last_copy);
    }
    for (unsigned k = 0; k < chunks && error == CL_SUCCESS && status == CLS_OK; ++k) {
        cls_chunk_rows span;
        cls_chunk_span(height, y0, rows, reach, chunks, k, &span);
        error = copy_rows_in(queues[0], in, input, r, span.copy_first, span.copy_last, &list, &last_copy);
        if (error != CL_SUCCESS) break;
        cls_image_desc chunk = *image; /* the region of interest's columns spelled out (0: every one) */
        chunk.roi_x = g->roi_x;
        chunk.roi_width = g->roi_width;
        chunk.roi_y = span.first;
        chunk.roi_height = span.last - span.first;
        cl_event *kernel = next_event(&list);
        status = launch->enqueue(launch->launcher, &chunk, last_copy ? 1 : 0, last_copy ? &last_copy : NULL, kernel);
        if (status != CLS_OK) break;
        const size_t from = r->offset[1] + span.first * r->pitch[1];
        size_t to = r->offset[1] + span.last * r->pitch[1];
        if (to > r->bytes[1]) to = r->bytes[1];
        for (unsigned m = 0; m < count && error == CL_SUCCESS && from < to; ++m)
            error = clEnqueueReadBuffer(queues[1], out[m], CL_FALSE, from, to - from, (char *)outputs[m] + from, 1,
                                        kernel, NULL);
    }
    /* every copy ends before the caller's memory may be used again, also after a failure */
    clFinish(queues[0]);
    clFinish(context->queue);
    const cl_int finished = clFinish(queues[1]);
    for (size_t e = 0; e < list.count; ++e)
        if (list.events[e]) clReleaseEvent(list.events[e]);
    free(list.events);
    if (status != CLS_OK) return status;
    if (error == CL_SUCCESS) error = finished;
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "copying the image's rows to or from the device failed: %s",
                        cls_cl_error_name(error));
    return CLS_OK;
}
