/* filter_strips.c — `clstencil filter` in horizontal strips (see filter_strips.h). A strip's
 * outputs depend only on input rows within the pipeline's reach, and the kernels compute the same
 * sums in the same order whatever the image's height, so the rows kept from each strip are the
 * whole image's (weighted sums by FFT: within their tolerance, their tiles depend on the size); the rows around a strip, whose outputs are discarded, are the only ones that see
 * the strip's edges. Strips alternate between two sets of device buffers: a strip's copies run on
 * a queue of their own while the kernels of the one before run on the context's queue. */
#include "filter_strips.h"

#include "cl_report.h"
#include "commands.h"
#include "memory_budget.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAX_STRIP_STAGES = 64, MAX_UPLOADS = 3 /* a strip wrapped around the image: 3 runs of rows */ };

/* What a strip of N rows needs on the device: two sets of its rows in and out, and the
 * pipeline's own buffers for it (no larger for fewer rows). */
typedef struct strip_need {
    const cls_pipeline *pipeline;
    size_t width;
    uint64_t row_bytes, budget, max_alloc;
} strip_need;

static int strip_fits(uint64_t rows, const void *context)
{
    const strip_need *n = context;
    const uint64_t own = cls_pipeline_device_bytes(n->pipeline, n->width, (size_t)rows, 1);
    return rows * n->row_bytes + own <= n->budget && (!own || rows * n->width * 4 <= n->max_alloc);
}

size_t filter_strip_rows(const cls_host_image *in, const cls_host_image *out, const cls_pipeline *pipeline, unsigned reach,
                         uint64_t budget, uint64_t max_alloc)
{
    const uint64_t in_row = image_plane_bytes(in) / in->height, out_row = image_plane_bytes(out) / out->height;
    const uint64_t widest = in_row > out_row ? in_row : out_row;
    uint64_t most = budget / (2 * (in_row + out_row));
    if (max_alloc / widest < most) most = max_alloc / widest;
    const strip_need need = {pipeline, in->width, 2 * (in_row + out_row), budget, max_alloc};
    const uint64_t rows = memory_most_that_fit(most, strip_fits, &need);
    return rows > 2 * (uint64_t)reach ? (size_t)(rows - 2 * (uint64_t)reach) : 0;
}

/* One set of strip buffers and the events of the strip that last used them. */
typedef struct strip_slot {
    cl_mem input, output;
    cl_event uploads[MAX_UPLOADS], stages[MAX_STRIP_STAGES], read;
    size_t upload_count;
} strip_slot;

/* What the strips share: the queues, the image's geometry, the timings. */
typedef struct strip_run {
    cls_pipeline *pipeline;
    cl_command_queue compute, copies;
    const cls_host_image *in;
    size_t in_row, out_row, stage_count;
    unsigned reach;
    int wrap, undefined;
    strip_timings *t;
} strip_run;

/* Waits for the slot's last strip, adds its times and releases its events. */
static void settle(const strip_run *r, strip_slot *slot)
{
    for (size_t k = 0; k < slot->upload_count; ++k) {
        clWaitForEvents(1, &slot->uploads[k]);
        r->t->transfer_ms += event_ms(slot->uploads[k]);
        clReleaseEvent(slot->uploads[k]);
    }
    slot->upload_count = 0;
    for (size_t k = 0; k < r->stage_count; ++k) {
        if (!slot->stages[k]) continue;
        clWaitForEvents(1, &slot->stages[k]);
        const double ms = event_ms(slot->stages[k]);
        r->t->stage_ms[k] += ms;
        r->t->kernel_ms += ms;
        clReleaseEvent(slot->stages[k]);
        slot->stages[k] = NULL;
    }
    if (slot->read) {
        clWaitForEvents(1, &slot->read);
        r->t->transfer_ms += event_ms(slot->read);
        clReleaseEvent(slot->read);
        slot->read = NULL;
    }
}

/* Input rows [first, last) of the image (wrapped into it: repeat mode) into the slot's input,
 * each run of consecutive image rows one write on the copy queue. */
static cl_int upload(const strip_run *r, strip_slot *slot, const char *plane, long first, long last)
{
    const long height = (long)r->in->height;
    cl_int error = CL_SUCCESS;
    for (long v = first; v < last && error == CL_SUCCESS;) {
        const long row = ((v % height) + height) % height;
        const long run = height - row < last - v ? height - row : last - v;
        error = clEnqueueWriteBuffer(r->copies, slot->input, CL_FALSE, (size_t)(v - first) * r->in_row,
                                     (size_t)run * r->in_row, plane + (size_t)row * r->in_row, 0, NULL,
                                     &slot->uploads[slot->upload_count]);
        if (error == CL_SUCCESS) ++slot->upload_count;
        v += run;
        if (v < last && slot->upload_count == MAX_UPLOADS) error = CL_OUT_OF_RESOURCES; /* cannot happen */
    }
    return error;
}

/* One strip, output rows [y0, y1) of one plane, through SLOT once its last strip is done:
 * uploaded on the copy queue, filtered on the context's queue after the upload, its rows read
 * back on the copy queue after the kernels. Returns without waiting. */
static int run_strip(const strip_run *r, strip_slot *slot, const char *in_plane, char *out_plane, size_t y0,
                     size_t y1)
{
    settle(r, slot);
    const size_t height = r->in->height, reach = r->reach;
    const long first = r->wrap ? (long)y0 - (long)reach : (long)(y0 > reach ? y0 - reach : 0);
    const long last = r->wrap ? (long)(y1 + reach) : (long)(y1 + reach < height ? y1 + reach : height);
    cl_int error = upload(r, slot, in_plane, first, last);
    if (error != CL_SUCCESS) return cl_failed("clEnqueueWriteBuffer", error);
    cl_event uploaded = slot->uploads[slot->upload_count - 1]; /* the copy queue is in order */
    static const cl_uchar zero = 0; /* the undefined border leaves pixels alone: they read as 0 */
    if (r->undefined && (error = clEnqueueFillBuffer(r->compute, slot->output, &zero, 1, 0,
                                                     (size_t)(last - first) * r->out_row, 0, NULL, NULL)) != CL_SUCCESS)
        return cl_failed("clEnqueueFillBuffer", error);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = r->in->width, .height = (size_t)(last - first),
                                 .roi_y = (size_t)((long)y0 - first), .roi_width = r->in->width,
                                 .roi_height = y1 - y0};
    cl_event filtered = NULL;
    if (cls_pipeline_enqueue(r->pipeline, slot->input, slot->output, &desc, 1, &uploaded, &filtered, slot->stages) !=
        CLS_OK) {
        fprintf(stderr, "clstencil filter: %s\n", cls_last_error());
        return EXIT_FAILURE_;
    }
    error = clEnqueueReadBuffer(r->copies, slot->output, CL_FALSE, desc.roi_y * r->out_row, (y1 - y0) * r->out_row,
                                out_plane + y0 * r->out_row, 1, &filtered, &slot->read);
    clReleaseEvent(filtered);
    return error == CL_SUCCESS ? EXIT_OK_ : cl_failed("clEnqueueReadBuffer", error);
}

/* A queue for the copies on the context's device, with profiling. */
static cl_command_queue copy_queue(cls_context *context, cl_int *error)
{
    cl_device_id device = NULL;
    *error = clGetCommandQueueInfo(cls_context_queue(context), CL_QUEUE_DEVICE, sizeof device, &device, NULL);
    return *error == CL_SUCCESS
               ? clCreateCommandQueue(cls_context_cl(context), device, CL_QUEUE_PROFILING_ENABLE, error)
               : NULL;
}

int filter_strips_run(cls_pipeline *pipeline, cls_context *context, cls_border border, const cls_host_image *in,
                      cls_host_image *out, size_t strip_rows, strip_timings *t)
{
    if (cls_pipeline_stage_count(pipeline) > MAX_STRIP_STAGES) {
        fprintf(stderr, "clstencil filter: strips take pipelines of at most %d stages\n", MAX_STRIP_STAGES);
        return EXIT_INPUT_UNSUPPORTED;
    }
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    strip_run r = {.pipeline = pipeline, .compute = cls_context_queue(context), .in = in,
                   .in_row = in_plane / in->height, .out_row = out_plane / out->height,
                   .stage_count = cls_pipeline_stage_count(pipeline), .undefined = border == CLS_BORDER_UNDEFINED,
                   .t = t};
    cls_pipeline_reach(pipeline, NULL, &r.reach);
    const size_t rows = strip_rows + 2 * (size_t)r.reach;
    t->strips = (in->height + strip_rows - 1) / strip_rows;
    r.wrap = border == CLS_BORDER_REPEAT && t->strips > 1;
    cl_int error = CL_SUCCESS;
    r.copies = copy_queue(context, &error);
    strip_slot slots[2] = {{0}};
    for (int s = 0; s < 2 && error == CL_SUCCESS; ++s) {
        slots[s].input = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_ONLY, rows * r.in_row, NULL, &error);
        if (error == CL_SUCCESS)
            slots[s].output = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE, rows * r.out_row, NULL, &error);
    }
    int code = error == CL_SUCCESS ? EXIT_OK_ : cl_failed("creating the strips' queue and buffers", error);
    size_t strip = 0;
    for (size_t c = 0; code == EXIT_OK_ && c < image_plane_count(in); ++c)
        for (size_t y0 = 0; code == EXIT_OK_ && y0 < in->height; y0 += strip_rows, ++strip)
            code = run_strip(&r, &slots[strip % 2], (const char *)in->pixels + c * in_plane,
                             (char *)out->pixels + c * out_plane, y0,
                             y0 + strip_rows < in->height ? y0 + strip_rows : in->height);
    /* nothing may still use the buffers or the host's planes */
    clFinish(r.compute);
    if (r.copies) clFinish(r.copies);
    for (int s = 0; s < 2; ++s) {
        settle(&r, &slots[s]);
        if (slots[s].output) clReleaseMemObject(slots[s].output);
        if (slots[s].input) clReleaseMemObject(slots[s].input);
    }
    if (r.copies) clReleaseCommandQueue(r.copies);
    return code;
}
