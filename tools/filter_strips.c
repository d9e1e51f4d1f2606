/* filter_strips.c — `clstencil filter` in horizontal strips (see filter_strips.h). A strip's
 * outputs depend only on input rows within the pipeline's reach, and the kernels compute the same
 * sums in the same order whatever the image's height, so the rows kept from each strip are the
 * whole image's; the rows around a strip, whose outputs are discarded, are the only ones that see
 * the strip's edges. */
#include "filter_strips.h"

#include "cl_report.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAX_STRIP_STAGES = 64 };

size_t filter_strip_rows(const cls_host_image *in, const cls_host_image *out, size_t stage_count, unsigned reach,
                         uint64_t budget, uint64_t max_alloc)
{
    const uint64_t in_row = image_plane_bytes(in) / in->height, out_row = image_plane_bytes(out) / out->height;
    const uint64_t temporary_row = stage_count > 1 ? 2 * (uint64_t)in->width * 4 : 0;
    const uint64_t widest = in_row > out_row ? in_row : out_row;
    uint64_t rows = budget / (in_row + out_row + temporary_row);
    if (temporary_row && max_alloc / (temporary_row / 2) < rows) rows = max_alloc / (temporary_row / 2);
    if (max_alloc / widest < rows) rows = max_alloc / widest;
    return rows > 2 * (uint64_t)reach ? (size_t)(rows - 2 * (uint64_t)reach) : 0;
}

/* Input rows [first, last) of the image (wrapped into it: repeat mode) into the strip buffer;
 * each run of consecutive image rows is one write. Adds the writes' times to *ms. */
static cl_int upload(cl_command_queue queue, cl_mem buffer, const char *plane, size_t row_bytes, size_t height,
                     long first, long last, double *ms)
{
    cl_int error = CL_SUCCESS;
    for (long v = first; v < last && error == CL_SUCCESS;) {
        const long row = ((v % (long)height) + (long)height) % (long)height;
        const long run = (long)height - row < last - v ? (long)height - row : last - v;
        cl_event done = NULL;
        error = clEnqueueWriteBuffer(queue, buffer, CL_FALSE, (size_t)(v - first) * row_bytes, (size_t)run * row_bytes,
                                     plane + (size_t)row * row_bytes, 0, NULL, &done);
        if (error == CL_SUCCESS) {
            clWaitForEvents(1, &done);
            *ms += event_ms(done);
            clReleaseEvent(done);
        }
        v += run;
    }
    return error;
}

/* One strip: output rows [y0, y1) of one plane. */
static int run_strip(cls_pipeline *pipeline, cl_command_queue queue, cl_mem input, cl_mem output, int wrap,
                     int undefined, const char *in_plane, char *out_plane, const cls_host_image *in, size_t in_row,
                     size_t out_row, unsigned reach, size_t y0, size_t y1, strip_timings *t)
{
    const long first = wrap ? (long)y0 - reach : (long)(y0 > reach ? y0 - reach : 0);
    const long last = wrap ? (long)(y1 + reach) : (long)(y1 + reach < in->height ? y1 + reach : in->height);
    cl_int error = upload(queue, input, in_plane, in_row, in->height, first, last, &t->transfer_ms);
    if (error != CL_SUCCESS) return cl_failed("clEnqueueWriteBuffer", error);
    static const cl_uchar zero = 0; /* the undefined border leaves pixels alone: they read as 0 */
    if (undefined &&
        (error = clEnqueueFillBuffer(queue, output, &zero, 1, 0, (size_t)(last - first) * out_row, 0, NULL, NULL)) !=
            CL_SUCCESS)
        return cl_failed("clEnqueueFillBuffer", error);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = in->width, .height = (size_t)(last - first),
                                 .roi_y = (size_t)((long)y0 - first), .roi_width = in->width,
                                 .roi_height = y1 - y0};
    const size_t stages = cls_pipeline_stage_count(pipeline);
    cl_event events[MAX_STRIP_STAGES] = {NULL};
    cls_status status = cls_pipeline_enqueue(pipeline, input, output, &desc, 0, NULL, NULL, events);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil filter: %s\n", cls_last_error());
        return EXIT_FAILURE_;
    }
    cl_event read_done = NULL;
    error = clEnqueueReadBuffer(queue, output, CL_TRUE, desc.roi_y * out_row, (y1 - y0) * out_row,
                                out_plane + y0 * out_row, 0, NULL, &read_done);
    if (error == CL_SUCCESS) {
        t->transfer_ms += event_ms(read_done);
        clReleaseEvent(read_done);
    } else {
        clFinish(queue); /* the kernels' events are complete before they are read and released */
    }
    for (size_t k = 0; k < stages; ++k) {
        const double ms = error == CL_SUCCESS ? event_ms(events[k]) : 0.0;
        t->stage_ms[k] += ms;
        t->kernel_ms += ms;
        if (events[k]) clReleaseEvent(events[k]);
    }
    return error == CL_SUCCESS ? EXIT_OK_ : cl_failed("clEnqueueReadBuffer", error);
}

int filter_strips_run(cls_pipeline *pipeline, cls_context *context, cls_border border, const cls_host_image *in,
                      cls_host_image *out, size_t strip_rows, strip_timings *t)
{
    if (cls_pipeline_stage_count(pipeline) > MAX_STRIP_STAGES) {
        fprintf(stderr, "clstencil filter: strips take pipelines of at most %d stages\n", MAX_STRIP_STAGES);
        return EXIT_INPUT_UNSUPPORTED;
    }
    unsigned reach = 0;
    cls_pipeline_reach(pipeline, NULL, &reach);
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    const size_t in_row = in_plane / in->height, out_row = out_plane / out->height;
    const size_t rows = strip_rows + 2 * (size_t)reach;
    t->strips = (in->height + strip_rows - 1) / strip_rows;
    const int wrap = border == CLS_BORDER_REPEAT && t->strips > 1;
    cl_int error = CL_SUCCESS;
    cl_mem input = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_ONLY, rows * in_row, NULL, &error);
    cl_mem output = error == CL_SUCCESS
                        ? clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, rows * out_row, NULL, &error)
                        : NULL;
    int code = error == CL_SUCCESS ? EXIT_OK_ : cl_failed("clCreateBuffer", error);
    cl_command_queue queue = cls_context_queue(context);
    for (size_t c = 0; code == EXIT_OK_ && c < image_plane_count(in); ++c)
        for (size_t y0 = 0; code == EXIT_OK_ && y0 < in->height; y0 += strip_rows)
            code = run_strip(pipeline, queue, input, output, wrap, border == CLS_BORDER_UNDEFINED,
                             (const char *)in->pixels + c * in_plane, (char *)out->pixels + c * out_plane, in, in_row,
                             out_row, reach, y0, y0 + strip_rows < in->height ? y0 + strip_rows : in->height, t);
    clFinish(queue); /* nothing may still use the buffers */
    if (output) clReleaseMemObject(output);
    if (input) clReleaseMemObject(input);
    return code;
}
