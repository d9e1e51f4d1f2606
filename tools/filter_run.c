/* filter_run.c — the device side of `clstencil filter`: runs the plan's pipeline (its stages:
 * filter_stages.c), copies every channel plane (of every page) to the device in one
 * transfer, enqueues the pipeline once per plane (buffer offsets select the plane), copies the
 * result back, and with -v reports the device, each stage's build and the profiled times. A session
 * keeps the context and the pipeline for a batch of images. */
#include "cl_report.h"
#include "commands.h"
#include "filter_run.h"
#include "filter_stages.h"
#include "filter_strips.h"
#include "memory_budget.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the device of the queue shares the host's memory: a CPU device, or one that says so. */
static int shares_host_memory(cls_context *context, cl_device_id device)
{
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    return unified || cls_context_device(context)->type == CLS_DEVICE_CPU;
}

int filter_device_limits(cls_context *context, const filter_plan *plan, uint64_t *global, uint64_t *max_alloc,
                         int *shares_host)
{
    cl_device_id device = NULL;
    cl_ulong alloc = 0, memory = 0;
    if (clGetCommandQueueInfo(cls_context_queue(context), CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, NULL) != CL_SUCCESS)
        return 0;
    if (plan->max_device_memory && plan->max_device_memory < memory) memory = plan->max_device_memory;
    *global = memory;
    *max_alloc = memory < alloc ? memory : alloc;
    *shares_host = shares_host_memory(context, device);
    return 1;
}

/* Whether the device runs on the host's pixels in place (CL_MEM_USE_HOST_PTR), with no copy to or
 * from it: it shares the host's memory and both images start on its base alignment (image_alloc's
 * start on a page). */
static int runs_in_place(cls_context *context, const cls_host_image *in, const cls_host_image *out)
{
    cl_device_id device = NULL;
    cl_uint bits = 0;
    if (clGetCommandQueueInfo(cls_context_queue(context), CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS)
        return 0;
    const uintptr_t alignment = bits >= 8 ? bits / 8 : 1;
    return shares_host_memory(context, device) && (uintptr_t)in->pixels % alignment == 0 &&
           (uintptr_t)out->pixels % alignment == 0;
}

/* How the run fits the device: the input and output planes (none that it runs on in place) and the
 * pipeline's own buffers for one plane (cls_pipeline_device_bytes), against the device's
 * memory (or --max-device-memory) and its largest buffer; on a device that shares host memory (a
 * CPU device) against the host's budget too. Sets *strip_rows to 0 when the whole image fits,
 * else to the output rows of the strips that do (filter_strips.c); exit 7 with a message when not
 * even one row does. */
static int fit_device_memory(cls_context *context, const filter_plan *plan, const filter_stages *s, const cls_host_image *in,
                             const cls_host_image *out, size_t *strip_rows)
{
    *strip_rows = 0;
    const uint64_t one_input = (uint64_t)image_plane_bytes(in) * image_plane_count(in);
    const uint64_t input = one_input * (1 + plan->input_count); /* IN and the --input images */
    const uint64_t output = (uint64_t)image_plane_bytes(out) * image_plane_count(out);
    /* intermediate images, temporaries, the FFT's tiles */
    const uint64_t own = cls_pipeline_device_bytes(s->pipeline, in->width, in->height, 1);
    const uint64_t temporary = own ? (uint64_t)in->width * in->height * 4 : 0;
    /* In place, IN and OUT are the device's buffers: only the --input images are copied (counted
     * all the same under --max-device-memory, which asks for strips of that size). */
    const int in_place = !plan->max_device_memory && runs_in_place(context, in, out);
    const uint64_t copies = in_place ? input - one_input : input + output;
    const uint64_t need = copies + own;
    uint64_t largest = one_input > output ? one_input : output;
    if (temporary > largest) largest = temporary;
    uint64_t global = 0, max_alloc = 0;
    int shares_host = 0;
    if (!filter_device_limits(context, plan, &global, &max_alloc, &shares_host))
        return EXIT_OK_; /* nothing known: the allocations report their own failures */
    const uint64_t images = input + output; /* the host's copies */
    uint64_t budget = global;
    if (shares_host) budget = plan->memory_available > images ? plan->memory_available - images : 0;
    if (shares_host && global < budget) budget = global;
    if (need <= budget && largest <= max_alloc) return EXIT_OK_;
    char a[32];
    if (plan->input_count) {
        fprintf(stderr, "clstencil filter: the images do not fit the %s of device memory the run may use "
                        "(--max-device-memory, else the device's memory and its largest buffer); strips take one "
                        "input image, not --input ones too\n", memory_format(budget < max_alloc ? budget : max_alloc, a, sizeof a));
        return EXIT_OUTPUT;
    }
    unsigned reach = 0;
    cls_pipeline_reach(s->pipeline, NULL, &reach);
    *strip_rows = filter_strip_rows(in, out, s->pipeline, reach, budget, max_alloc);
    if (*strip_rows) return EXIT_OK_;
    char b[32] = "";
    const uint64_t strip_own = cls_pipeline_device_bytes(s->pipeline, in->width, 1 + 2 * (size_t)reach, 1);
    if (strip_own) memory_format(strip_own, b, sizeof b);
    fprintf(stderr, "clstencil filter: even a strip of one row of the image, with the %u rows above and below it "
                    "that the operators reach, does not fit the %s of device memory it may use "
                    "(--max-device-memory, else the device's memory and its largest buffer%s)%s%s%s\n",
            reach, memory_format(budget < max_alloc ? budget : max_alloc, a, sizeof a),
            shares_host ? "; this device shares the host's memory: CLSTENCIL_MEMORY_MAX, else the available memory" : "",
            strip_own ? "; the operators' own buffers for such a strip take " : "", b,
            strip_own ? " (images between stages, temporaries, FFT tiles)" : "");
    return EXIT_OUTPUT;
}

/* The timings of one run, for -v. */

typedef struct timings {
    double context_wall_ms, build_wall_ms, run_wall_ms; /* host clock: what a user waits for */
    double transfer_ms, kernel_ms;
    double *stage_ms; /* one per stage, summed over the channels and pages */
    size_t strips, strip_rows; /* strips per plane and their output rows (0: in one piece) */
    size_t bands, band_rows;   /* bands of a run that holds a band at a time on the host */
    size_t band_devices;       /* the devices the bands are spread over (this one takes every n-th) */
} timings;

static void report(const filter_stages *s, cls_context *context, const cls_host_image *in,
                   const cls_host_image *out, const timings *t)
{
    const cls_device_caps *caps = cls_context_device(context);
    fprintf(stderr, "device:    %s (%s)\n", caps->name, caps->platform_name);
    fprintf(stderr, "image:     %zu x %zu, %zu channel%s, %s -> %s", in->width, in->height, in->channels,
            in->channels == 1 ? "" : "s", image_type_name(in->type), image_type_name(out->type));
    if (in->pages > 1) fprintf(stderr, ", %zu pages", in->pages);
    fprintf(stderr, "\n");
    if (t->strips) {
        unsigned reach = 0;
        cls_pipeline_reach(s->pipeline, NULL, &reach);
        fprintf(stderr, "strips:    %zu per plane, %zu rows each with %u rows above and below (the device "
                        "holds less than the whole image)\n", t->strips, t->strip_rows, reach);
    }
    if (t->bands && t->band_devices > 1)
        fprintf(stderr, "bands:     %zu per page, %zu rows each, every %zu%s on this device (the host holds two "
                        "bands a device at a time)\n", t->bands, t->band_rows, t->band_devices,
                t->band_devices == 2 ? "nd" : t->band_devices == 3 ? "rd" : "th");
    else if (t->bands)
        fprintf(stderr, "bands:     %zu per page, %zu rows each (the host holds two bands of the image at a "
                        "time: one is read or written while the other is filtered)\n", t->bands, t->band_rows);
    for (size_t i = 0; i < s->count; ++i) {
        const cls_filter *stage = cls_pipeline_stage(s->pipeline, i);
        if (!stage) { /* an element-wise stage: a small kernel of its own */
            fprintf(stderr, "stage %zu:   %-22s element-wise, kernel %.3f ms\n", i + 1, s->labels[i], t->stage_ms[i]);
            continue;
        }
        cls_build_info info = {CLS_BUILD_INFO_INIT};
        cls_filter_build_info(stage, &info);
        char variant[64], swapped[96] = ""; /* a tiered stage's kernel once its background build ended */
        filter_stage_variant(stage, variant, sizeof variant);
        if (strcmp(variant, s->created[i]) != 0) snprintf(swapped, sizeof swapped, ", then %s", variant);
        const unsigned kernels = cls_filter_kernel_count(stage);
        char last[48] = ""; /* a launch's event is its last kernel's */
        if (kernels > 1) snprintf(last, sizeof last, " (the last of %u kernels)", kernels);
        fprintf(stderr, "stage %zu:   %-22s %s in %.1f ms, kernel %.3f ms%s (%s%s)", i + 1, s->labels[i],
                info.from_disk_cache ? "loaded from the disk cache" : "built from source", info.build_milliseconds,
                t->stage_ms[i], last, s->created[i], swapped);
        if (info.registers) /* from ptxas (NVIDIA), kept in the binary cache */
            fprintf(stderr, ", %u registers, %u B spilled", info.registers, info.spill_store_bytes);
        fprintf(stderr, "\n");
        const char *decision = cls_filter_build_decision(stage);
        if (decision) fprintf(stderr, "           build goal: %s\n", decision);
    }
    fprintf(stderr, "wall:      context %.1f ms, builds %.1f ms, run %.1f ms (host clock)\n", t->context_wall_ms,
            t->build_wall_ms, t->run_wall_ms);
    fprintf(stderr, "transfers: %.3f ms (host to device and back)\n", t->transfer_ms);
    const size_t planes = image_plane_count(in);
    fprintf(stderr, "kernels:   %.3f ms (%zu stage%s x %zu %s%s)\n", t->kernel_ms, s->count,
            s->count == 1 ? "" : "s", planes, in->pages > 1 ? "plane" : "channel", planes == 1 ? "" : "s");
}

/* Runs the built pipeline over every plane (output rows [ROI_Y, ROI_Y + ROI_ROWS) only, or all of
 * them when ROI_ROWS is 0); stage events land in events[c * count + i]. A device that shares the
 * host's memory runs on the images in place; any other gets a copy and gives one back. */
static int run_planes(const filter_stages *s, cls_context *context, const filter_plan *plan, const cls_host_image *in,
                      cls_host_image *out, size_t roi_y, size_t roi_rows, timings *t)
{
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    const size_t planes = image_plane_count(in), count = s->count; /* every channel of every page */
    cl_command_queue queue = cls_context_queue(context);
    cl_int error = CL_SUCCESS;
    const int in_place = runs_in_place(context, in, out);
    const cl_mem_flags host = in_place ? CL_MEM_USE_HOST_PTR : 0;
    cl_mem input = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_ONLY | host, in_plane * planes,
                                  in_place ? in->pixels : NULL, &error);
    cl_mem output = error == CL_SUCCESS ? clCreateBuffer(cls_context_cl(context), CL_MEM_READ_WRITE | host,
                                                         out_plane * planes, in_place ? out->pixels : NULL, &error)
                                        : NULL;
    cl_event *events = calloc(planes * count, sizeof *events);
    cl_mem *inputs = calloc(1 + plan->input_count, sizeof *inputs); /* IN, then the --input images */
    cl_event write_done = NULL, read_done = NULL;
    int code = EXIT_OK_;
    if (error != CL_SUCCESS) code = cl_failed("clCreateBuffer", error);
    else if (!events || !inputs) code = cl_failed("allocating events", CL_OUT_OF_HOST_MEMORY);
    for (size_t k = 0; code == EXIT_OK_ && k < plan->input_count; ++k) {
        inputs[1 + k] = clCreateBuffer(cls_context_cl(context), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       in_plane * planes, plan->inputs[k].image.pixels, &error);
        if (error != CL_SUCCESS) code = cl_failed("clCreateBuffer", error);
    }
    if (inputs) inputs[0] = input;
    /* Pixels the undefined border leaves alone read back as 0, not as stale device memory. */
    static const cl_uchar zero = 0;
    if (code == EXIT_OK_ && plan->border == CLS_BORDER_UNDEFINED &&
        (error = clEnqueueFillBuffer(queue, output, &zero, 1, 0, out_plane * planes, 0, NULL, NULL)) != CL_SUCCESS)
        code = cl_failed("clEnqueueFillBuffer", error);
    if (code == EXIT_OK_ && !in_place &&
        (error = clEnqueueWriteBuffer(queue, input, CL_FALSE, 0, in_plane * planes, in->pixels, 0, NULL,
                                      &write_done)) != CL_SUCCESS)
        code = cl_failed("clEnqueueWriteBuffer", error);
    for (size_t c = 0; code == EXIT_OK_ && c < planes; ++c) {
        cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = in->width, .height = in->height,
                               .input_offset = c * in_plane, .output_offset = c * out_plane,
                               .roi_y = roi_y, .roi_width = roi_rows ? in->width : 0, .roi_height = roi_rows};
        /* The queue is in order; the wait list only makes the dependency explicit. OpenCL wants
         * a NULL list with a count of 0 (NVIDIA refuses anything else). */
        const int waits = c == 0 && write_done; /* in place, nothing was written */
        cls_status status = cls_pipeline_enqueue_inputs(s->pipeline, 1 + plan->input_count, inputs, output, &desc,
                                                        waits ? 1 : 0, waits ? &write_done : NULL, NULL,
                                                        events + c * count);
        if (status != CLS_OK) code = report_failure("filter", status);
    }
    if (code == EXIT_OK_ && in_place) { /* the results in out->pixels once mapped */
        void *mapped = clEnqueueMapBuffer(queue, output, CL_TRUE, CL_MAP_READ, 0, out_plane * planes, 0, NULL,
                                          &read_done, &error);
        if (error != CL_SUCCESS) code = cl_failed("clEnqueueMapBuffer", error);
        else {
            if (mapped != out->pixels) memcpy(out->pixels, mapped, out_plane * planes);
            error = clEnqueueUnmapMemObject(queue, output, mapped, 0, NULL, NULL);
            if (error != CL_SUCCESS) code = cl_failed("clEnqueueUnmapMemObject", error);
        }
    } else if (code == EXIT_OK_ &&
               (error = clEnqueueReadBuffer(queue, output, CL_TRUE, 0, out_plane * planes, out->pixels, 0, NULL,
                                            &read_done)) != CL_SUCCESS)
        code = cl_failed("clEnqueueReadBuffer", error);
    if (code == EXIT_OK_ && (error = clFinish(queue)) != CL_SUCCESS) code = cl_failed("clFinish", error);
    if (code != EXIT_OK_) clFinish(queue); /* nothing may still use the buffers */
    t->transfer_ms += code == EXIT_OK_ ? event_ms(write_done) + event_ms(read_done) : 0.0;
    for (size_t k = 0; events && k < planes * count; ++k) {
        if (!events[k]) continue;
        const double ms = code == EXIT_OK_ ? event_ms(events[k]) : 0.0;
        t->stage_ms[k % count] += ms;
        t->kernel_ms += ms;
        clReleaseEvent(events[k]);
    }
    if (write_done) clReleaseEvent(write_done);
    if (read_done) clReleaseEvent(read_done);
    free(events);
    for (size_t k = 0; inputs && k < plan->input_count; ++k)
        if (inputs[1 + k]) clReleaseMemObject(inputs[1 + k]);
    free(inputs);
    if (output) clReleaseMemObject(output);
    if (input) clReleaseMemObject(input);
    return code;
}

/* A pipeline of a session and the types it was built for. */
typedef struct typed_pipeline {
    filter_stages s;
    cls_pixel_type in_type, out_type;
} typed_pipeline;

enum { SESSION_PIPELINES = 10 }; /* u8, u16, i16, f16, f32 inputs to one or two output types */

struct filter_session {
    cls_context *context;
    double context_wall_ms;
    typed_pipeline pipelines[SESSION_PIPELINES]; /* built so far, the oldest first */
    size_t count, builds;
};

int filter_session_open(const filter_plan *plan, filter_session **out)
{
    *out = NULL;
    filter_session *session = calloc(1, sizeof *session);
    if (!session) return cl_failed("allocating the session", CL_OUT_OF_HOST_MEMORY);
    const double start = wall_ms();
    cls_status status = cls_context_create(plan->device, &session->context);
    if (status != CLS_OK) {
        free(session);
        return report_failure("filter", status);
    }
    report_context_warnings("filter", session->context);
    session->context_wall_ms = wall_ms() - start;
    if (plan->batch && plan->verbose) {
        const cls_device_caps *caps = cls_context_device(session->context);
        fprintf(stderr, "device:    %s (%s), context in %.1f ms\n", caps->name, caps->platform_name,
                session->context_wall_ms);
    }
    *out = session;
    return EXIT_OK_;
}

/* A batch's -v lines for a new pipeline: each stage's build, once. */
static void report_builds(const filter_stages *s, const cls_host_image *in, cls_pixel_type out_type, double wall)
{
    fprintf(stderr, "pipeline:  %zu stage%s for %s -> %s, built in %.1f ms (host clock)\n", s->count,
            s->count == 1 ? "" : "s", image_type_name(in->type), image_type_name(out_type), wall);
    for (size_t i = 0; i < s->count; ++i) {
        const cls_filter *stage = cls_pipeline_stage(s->pipeline, i);
        if (!stage) {
            fprintf(stderr, "stage %zu:   %-22s element-wise\n", i + 1, s->labels[i]);
            continue;
        }
        cls_build_info info = {CLS_BUILD_INFO_INIT};
        cls_filter_build_info(stage, &info);
        char variant[64];
        filter_stage_variant(stage, variant, sizeof variant);
        fprintf(stderr, "stage %zu:   %-22s %s in %.1f ms (%s)\n", i + 1, s->labels[i],
                info.from_disk_cache ? "loaded from the disk cache" : "built from source", info.build_milliseconds,
                variant);
    }
}

/* The session's pipeline for IN's type and the plan's output type, built when there is none
 * (the oldest dropped when all slots are taken); NULL after a message with *code set. */
static filter_stages *pipeline_for(filter_session *session, const filter_plan *plan, const cls_host_image *in,
                            double *build_wall_ms, int *code)
{
    for (size_t i = 0; i < session->count; ++i)
        if (session->pipelines[i].in_type == in->type && session->pipelines[i].out_type == plan->output_type)
            return &session->pipelines[i].s;
    const double start = wall_ms();
    if (session->count && plan->verbose)
        fprintf(stderr, "pipeline:  another build: this image is %s -> %s, the first of these types\n",
                image_type_name(in->type), image_type_name(plan->output_type));
    if (session->count == SESSION_PIPELINES) {
        filter_stages_free(&session->pipelines[0].s);
        memmove(session->pipelines, session->pipelines + 1, (SESSION_PIPELINES - 1) * sizeof *session->pipelines);
        --session->count;
    }
    typed_pipeline *slot = &session->pipelines[session->count];
    memset(slot, 0, sizeof *slot);
    cls_status status = cls_pipeline_create(session->context, &slot->s.pipeline);
    if (status != CLS_OK) {
        *code = report_failure("filter", status);
        return NULL;
    }
    if ((*code = filter_stages_build(&slot->s, plan, in)) != EXIT_OK_) {
        filter_stages_free(&slot->s);
        return NULL;
    }
    slot->in_type = in->type;
    slot->out_type = plan->output_type;
    ++session->count;
    ++session->builds;
    *build_wall_ms = wall_ms() - start;
    if (plan->batch && plan->verbose) report_builds(&slot->s, in, plan->output_type, *build_wall_ms);
    return &slot->s;
}

int filter_session_run(filter_session *session, const filter_plan *plan, const cls_host_image *in,
                       cls_host_image *out)
{
    timings t = {0};
    t.context_wall_ms = session->context_wall_ms;
    int code = EXIT_OK_;
    filter_stages *s = pipeline_for(session, plan, in, &t.build_wall_ms, &code);
    if (!s) return code;
    if ((code = fit_device_memory(session->context, plan, s, in, out, &t.strip_rows)) != EXIT_OK_) return code;
    if (!(t.stage_ms = calloc(s->count ? s->count : 1, sizeof *t.stage_ms)))
        return cl_failed("allocating timings", CL_OUT_OF_HOST_MEMORY);
    const double start = wall_ms();
    if (t.strip_rows) {
        strip_timings strips = {.stage_ms = t.stage_ms};
        code = filter_strips_run(s->pipeline, session->context, filter_plan_rows_border(plan), in, out, t.strip_rows,
                                 &strips);
        t.kernel_ms = strips.kernel_ms;
        t.transfer_ms = strips.transfer_ms;
        t.strips = strips.strips;
    } else {
        code = run_planes(s, session->context, plan, in, out, 0, 0, &t);
    }
    t.run_wall_ms = wall_ms() - start;
    if (code == EXIT_OK_ && plan->verbose && !plan->batch) report(s, session->context, in, out, &t);
    free(t.stage_ms);
    return code;
}

size_t filter_session_builds(const filter_session *session) { return session ? session->builds : 0; }

cls_context *filter_session_context(const filter_session *session) { return session ? session->context : NULL; }

void filter_session_close(filter_session *session)
{
    if (!session) return;
    for (size_t i = 0; i < session->count; ++i) filter_stages_free(&session->pipelines[i].s);
    cls_context_release(session->context);
    free(session);
}

int filter_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out)
{
    if (filter_plan_is_volume(plan)) return filter_volume_run(plan, in, out);
    filter_session *session = NULL;
    int code = filter_session_open(plan, &session);
    if (code == EXIT_OK_) code = filter_session_run(session, plan, in, out);
    filter_session_close(session);
    return code;
}

struct filter_bands {
    filter_session *session;
    const filter_plan *plan;
    filter_stages *s;
    cls_host_image shape_in, shape_out; /* the whole image's, no pixels */
    unsigned reach;
    timings t;
};

/* The output rows of a band: two sets of its input and output planes (every channel of one page)
 * with REACH rows above and below fit HOST_BUDGET on the host (and, on a device that shares the host's
 * memory, its device copies and the pipeline's own buffers there too) and the device's memory and
 * largest buffer; 0 when not even one row does. */
/* What a band of N rows needs: its rows in and out on the device with the pipeline's own buffers
 * (no larger for fewer rows), and on a device that shares the host's memory those beside the
 * host's two sets of band buffers. */
typedef struct band_need {
    const cls_pipeline *pipeline;
    size_t width;
    uint64_t row_bytes, global, host_budget;
    int shares_host;
} band_need;

static int band_fits(uint64_t rows, const void *context)
{
    const band_need *n = context;
    const uint64_t device = rows * n->row_bytes + cls_pipeline_device_bytes(n->pipeline, n->width, (size_t)rows, 1);
    return device <= n->global && (!n->shares_host || 2 * rows * n->row_bytes + device <= n->host_budget);
}

static size_t band_rows(cls_context *context, const filter_plan *plan, const filter_bands *b, uint64_t host_budget)
{
    const uint64_t width = b->shape_in.width, planes = b->shape_in.channels;
    const uint64_t in_row = width * planes * image_sample_bytes(b->shape_in.type);
    const uint64_t out_row = width * planes * image_sample_bytes(b->shape_out.type);
    uint64_t global = UINT64_MAX, max_alloc = UINT64_MAX;
    int shares_host = 0;
    filter_device_limits(context, plan, &global, &max_alloc, &shares_host);
    uint64_t most = host_budget / (2 * (in_row + out_row) + (shares_host ? in_row + out_row : 0));
    uint64_t pinned_rows = FILTER_PINNED_BANDS_BYTES / (2 * (in_row + out_row));
    if (pinned_rows < 4 * (uint64_t)b->reach) pinned_rows = 4 * (uint64_t)b->reach;
    if (!shares_host && most > pinned_rows) most = pinned_rows;
    const uint64_t widest = in_row > out_row ? in_row : out_row;
    if (max_alloc / widest < most) most = max_alloc / widest;
    if (most > b->shape_in.height + 2 * (uint64_t)b->reach) most = b->shape_in.height + 2 * (uint64_t)b->reach;
    const band_need need = {b->s->pipeline, (size_t)width, in_row + out_row, global, host_budget, shares_host};
    const uint64_t rows = memory_most_that_fit(most, band_fits, &need);
    return rows > 2 * (uint64_t)b->reach ? (size_t)(rows - 2 * (uint64_t)b->reach) : 0;
}

int filter_bands_open(filter_session *session, const filter_plan *plan, const cls_host_image *shape,
                      uint64_t host_budget, filter_bands **out)
{
    *out = NULL;
    filter_bands *b = calloc(1, sizeof *b);
    if (!b) return cl_failed("allocating the bands", CL_OUT_OF_HOST_MEMORY);
    *b = (filter_bands){.session = session, .plan = plan, .shape_in = *shape, .shape_out = *shape};
    b->shape_in.pixels = b->shape_out.pixels = NULL;
    b->shape_in.meta = b->shape_out.meta = NULL;
    b->shape_out.type = plan->output_type;
    b->t.context_wall_ms = session->context_wall_ms;
    int code = EXIT_OK_;
    if (!(b->s = pipeline_for(session, plan, &b->shape_in, &b->t.build_wall_ms, &code))) {
        free(b);
        return code;
    }
    cls_pipeline_reach(b->s->pipeline, NULL, &b->reach);
    b->t.band_rows = band_rows(session->context, plan, b, host_budget);
    if (!b->t.band_rows) {
        char a[32];
        fprintf(stderr, "clstencil filter: even a band of one row of the image, with the %u rows above and below it "
                        "that the operators reach, does not fit the %s of host memory a band may take (half of what "
                        "CLSTENCIL_MEMORY_MAX, else the available memory, leaves) or the device's memory\n",
                b->reach, memory_format(host_budget, a, sizeof a));
        free(b);
        return EXIT_OUTPUT;
    }
    if (!(b->t.stage_ms = calloc(b->s->count ? b->s->count : 1, sizeof *b->t.stage_ms))) {
        free(b);
        return cl_failed("allocating timings", CL_OUT_OF_HOST_MEMORY);
    }
    b->t.bands = (shape->height + b->t.band_rows - 1) / b->t.band_rows;
    *out = b;
    return EXIT_OK_;
}

size_t filter_bands_rows(const filter_bands *b) { return b->t.band_rows; }

unsigned filter_bands_reach(const filter_bands *b) { return b->reach; }

void filter_bands_share(filter_bands *b, size_t rows, size_t devices)
{
    b->t.band_rows = rows;
    b->t.bands = (b->shape_in.height + rows - 1) / rows;
    b->t.band_devices = devices;
}

int filter_bands_run(filter_bands *b, const cls_host_image *band_in, cls_host_image *band_out, size_t roi_y,
                     size_t roi_rows)
{
    const double start = wall_ms();
    const int code = run_planes(b->s, b->session->context, b->plan, band_in, band_out, roi_y, roi_rows, &b->t);
    b->t.run_wall_ms += wall_ms() - start;
    return code;
}

void filter_bands_close(filter_bands *b, int report_run)
{
    if (!b) return;
    if (report_run && b->plan->verbose) report(b->s, b->session->context, &b->shape_in, &b->shape_out, &b->t);
    free(b->t.stage_ms);
    free(b);
}
