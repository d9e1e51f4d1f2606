/* filter_run.c — the device side of `clstencil filter`: builds one pipeline (a stage per --op,
 * the Night filter's five for `night`), copies every channel plane (of every page) to the device in one
 * transfer, enqueues the pipeline once per plane (buffer offsets select the plane), copies the
 * result back, and with -v reports the device, each stage's build and the profiled times. A session
 * keeps the context and the pipeline for a batch of images. */
#include "cl_report.h"
#include "commands.h"
#include "filter_run.h"
#include "filter_strips.h"
#include "memory_budget.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pipeline and what -v says about each of its stages. */
typedef struct stages {
    cls_pipeline *pipeline;
    const char **labels; /* one per pipeline stage; point into the plan or at literals */
    char (*created)[64]; /* one per stage: the kernel it was created with (describe_variant) */
    size_t count, capacity;
} stages;

/* How a stencil stage computes: "fft", or its partition and outputs per work-item. */
static void describe_variant(const cls_filter *stage, char *text, size_t size)
{
    if (cls_filter_method(stage) == CLS_METHOD_FFT) {
        snprintf(text, size, "fft");
        return;
    }
    unsigned rows = 0, cols = 0;
    cls_filter_outputs_per_item(stage, &rows, &cols);
    snprintf(text, size, "%s, %ux%u per work-item", cls_partition_name(cls_filter_partition(stage)), cols, rows);
}

/* Labels the stages the pipeline gained since the last call: the k-th new one LABELS[k], or the
 * last label when there are more stages than labels. */
static int label_new_stages(stages *s, const char *const *labels, size_t label_count)
{
    const size_t now = cls_pipeline_stage_count(s->pipeline);
    if (now > s->capacity) {
        const char **grown = realloc(s->labels, now * 2 * sizeof *grown);
        if (grown) s->labels = grown;
        char(*created)[64] = grown ? realloc(s->created, now * 2 * sizeof *created) : NULL;
        if (!created) {
            fprintf(stderr, "clstencil filter: out of memory\n");
            return EXIT_FAILURE_;
        }
        s->created = created;
        s->capacity = now * 2;
    }
    for (size_t k = 0; s->count < now; ++k) {
        const cls_filter *stage = cls_pipeline_stage(s->pipeline, s->count);
        s->created[s->count][0] = '\0';
        if (stage) describe_variant(stage, s->created[s->count], sizeof s->created[s->count]);
        s->labels[s->count++] = labels[k < label_count ? k : label_count - 1];
    }
    return EXIT_OK_;
}

void filter_plan_set_borders(const filter_plan *plan, cls_spec *spec)
{
    spec->border = plan->border;
    spec->border_y = plan->border_y;
    spec->border_z = plan->border_z;
    spec->border_value = plan->border_value;
}

cls_border filter_plan_rows_border(const filter_plan *plan)
{
    return plan->border_y == CLS_BORDER_SAME ? plan->border : plan->border_y;
}

/* Appends one stage of SPEC, retyped from IN to OUT, with the plan's border, `auto` choosing
 * for the image's size; named and reading what STEP says (NULL: the next stage of the chain). */
static int add_stage(stages *s, const filter_plan *plan, cls_spec spec, const cls_host_image *image,
                     cls_pixel_type in, cls_pixel_type out, const char *label, const filter_op *step)
{
    spec.expected_width = (unsigned)image->width;
    spec.expected_height = (unsigned)image->height;
    filter_plan_set_borders(plan, &spec);
    spec.input_type = in;
    spec.output_type = out;
    spec.build_goal = plan->build_goal;
    if (plan->method != CLS_METHOD_AUTO) {
        const int weighted_sum = !spec.body && spec.mask_count <= 1 && !spec.epilogue;
        if (plan->method == CLS_METHOD_FFT && !weighted_sum) {
            fprintf(stderr, "clstencil filter: --method fft: %s is not a weighted sum of one mask\n", label);
            return EXIT_USAGE;
        }
        spec.method = plan->method;
    }
    cls_status status = cls_pipeline_add_stage(s->pipeline, step && step->name[0] ? step->name : NULL, &spec,
                                               step && step->from[0] ? step->from : NULL);
    if (status != CLS_OK) return report_failure("filter", status);
    return label_new_stages(s, &label, 1);
}

/* The tone mapping for an image of TYPE: values keep an integer image's stored scale through
 * the f32 stages, so on u8, u16 and i16 images it maps 0..255 (0..65535, 0..32767) to 0..1 and
 * back (an i16 image's negative values saturate at -32768 there). */
static const char *tonemap_for(cls_pixel_type type)
{
    return type == CLS_PIXEL_U8    ? "tonemap:255"
           : type == CLS_PIXEL_U16 ? "tonemap:65535"
           : type == CLS_PIXEL_I16 ? "tonemap:32767"
                                   : "tonemap";
}

/* Appends the operator of TEXT (a literal: it is the stage's label too), named as STEP says. */
static int add_parsed_stage(stages *s, const filter_plan *plan, const char *text, const cls_host_image *image,
                            cls_pixel_type in, cls_pixel_type out, const filter_op *step)
{
    cls_operator *op = NULL;
    cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_OK) return report_failure("filter", status);
    const int code = add_stage(s, plan, *cls_operator_spec(op), image, in, out, text, step);
    cls_operator_release(op);
    return code;
}

/* The Night filter on an integer image: a-trous 1, 2, 4, 8, then the tone mapping on its scale. */
static int add_integer_night(stages *s, const filter_plan *plan, const cls_host_image *image, cls_pixel_type in,
                             cls_pixel_type out)
{
    static const char *const smoothing[] = {"atrous:1", "atrous:2", "atrous:4", "atrous:8"};
    int code = EXIT_OK_;
    for (size_t k = 0; code == EXIT_OK_ && k < 4; ++k)
        code = add_parsed_stage(s, plan, smoothing[k], image, k == 0 ? in : CLS_PIXEL_F32, CLS_PIXEL_F32, NULL);
    return code == EXIT_OK_ ? add_parsed_stage(s, plan, tonemap_for(image->type), image, CLS_PIXEL_F32, out, NULL)
                            : code;
}

/* An element-wise step: its expression of the named images, stored as OUT. */
static int add_combination(stages *s, const filter_op *step, cls_pixel_type out)
{
    cls_status status = cls_pipeline_add_elementwise(s->pipeline, step->name, step->expression, out);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil filter: --combine %s: %s\n", step->text, cls_last_error());
        return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
    }
    return label_new_stages(s, &step->text, 1);
}

/* Every step in order, reading the input (named "input", of the image's type) or f32 images: the
 * last step writes the plan's output type, every other one f32. */
static int build_stages(stages *s, const filter_plan *plan, const cls_host_image *image)
{
    cls_status status = cls_pipeline_add_input(s->pipeline, "input", image->type);
    for (size_t k = 0; status == CLS_OK && k < plan->input_count; ++k) /* --input: IN's type */
        status = cls_pipeline_add_input(s->pipeline, plan->inputs[k].name, image->type);
    if (status != CLS_OK) {
        fprintf(stderr, "clstencil filter: --input: %s\n", cls_last_error());
        return status == CLS_ERR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILURE_;
    }
    /* u8, u16 or i16 in and out: the tone mapping maps the stored scale to 0..1 and back (with an f32
     * output, the values are taken as they come: scaled by an earlier --op, as the usage says) */
    const int integer_image = image_type_is_integer(image->type) && image_type_is_integer(plan->output_type);
    for (size_t i = 0; i < plan->op_count; ++i) {
        const int last = i + 1 == plan->op_count;
        const filter_op *op = &plan->ops[i];
        const cls_pixel_type out = last ? plan->output_type : CLS_PIXEL_F32;
        int reads_input = op->from[0] ? strcmp(op->from, "input") == 0 : i == 0;
        for (size_t k = 0; op->from[0] && k < plan->input_count; ++k) reads_input |= !strcmp(op->from, plan->inputs[k].name);
        const cls_pixel_type in = reads_input ? image->type : CLS_PIXEL_F32;
        int code;
        if (op->expression) code = add_combination(s, op, out);
        else if (op->op && integer_image && strcmp(cls_operator_name(op->op), "tonemap") == 0)
            code = add_parsed_stage(s, plan, tonemap_for(image->type), image, in, out, op);
        else if (op->op)
            code = add_stage(s, plan, *cls_operator_spec(op->op), image, in, out,
                             op->name[0] || op->from[0] ? op->text : cls_operator_name(op->op), op);
        else if (integer_image) code = add_integer_night(s, plan, image, in, out);
        else { /* The Night filter: its stages, typed the same way. */
            status = cls_pipeline_add_night(s->pipeline, plan->border, in, out);
            if (status != CLS_OK) return report_failure("filter", status);
            static const char *const night[] = {"night 1/5 (atrous:1)", "night 2/5 (atrous:2)", "night 3/5 (atrous:4)",
                                                "night 4/5 (atrous:8)", "night 5/5 (tonemap)"};
            code = label_new_stages(s, night, sizeof night / sizeof night[0]);
        }
        if (code != EXIT_OK_) return code;
    }
    if ((status = cls_pipeline_check(s->pipeline)) != CLS_OK) { /* an image nobody reads */
        fprintf(stderr, "clstencil filter: %s\n", cls_last_error());
        return EXIT_USAGE;
    }
    return EXIT_OK_;
}

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
 * intermediates of one plane the pipeline holds at once (two for a chain), against the device's
 * memory (or --max-device-memory) and its largest buffer; on a device that shares host memory (a
 * CPU device) against the host's budget too. Sets *strip_rows to 0 when the whole image fits,
 * else to the output rows of the strips that do (filter_strips.c); exit 7 with a message when not
 * even one row does. */
static int fit_device_memory(cls_context *context, const filter_plan *plan, const stages *s, const cls_host_image *in,
                             const cls_host_image *out, size_t *strip_rows)
{
    *strip_rows = 0;
    const size_t intermediates = cls_pipeline_intermediate_count(s->pipeline);
    const uint64_t one_input = (uint64_t)image_plane_bytes(in) * image_plane_count(in);
    const uint64_t input = one_input * (1 + plan->input_count); /* IN and the --input images */
    const uint64_t output = (uint64_t)image_plane_bytes(out) * image_plane_count(out);
    const uint64_t temporary = intermediates ? (uint64_t)in->width * in->height * 4 : 0;
    /* In place, IN and OUT are the device's buffers: only the --input images are copied (counted
     * all the same under --max-device-memory, which asks for strips of that size). */
    const int in_place = !plan->max_device_memory && runs_in_place(context, in, out);
    const uint64_t copies = in_place ? input - one_input : input + output;
    const uint64_t need = copies + intermediates * temporary;
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
    *strip_rows = filter_strip_rows(in, out, intermediates, reach, budget, max_alloc);
    if (*strip_rows) return EXIT_OK_;
    fprintf(stderr, "clstencil filter: even a strip of one row of the image, with the %u rows above and below it "
                    "that the operators reach, does not fit the %s of device memory it may use "
                    "(--max-device-memory, else the device's memory and its largest buffer%s)\n",
            reach, memory_format(budget < max_alloc ? budget : max_alloc, a, sizeof a),
            shares_host ? "; this device shares the host's memory: CLSTENCIL_MEMORY_MAX, else the available memory" : "");
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

static void report(const stages *s, cls_context *context, const cls_host_image *in,
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
        describe_variant(stage, variant, sizeof variant);
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
static int run_planes(const stages *s, cls_context *context, const filter_plan *plan, const cls_host_image *in,
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
    stages s;
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

static void drop_stages(stages *s)
{
    if (s->pipeline) cls_pipeline_release(s->pipeline); /* waits for tiered builds */
    free(s->labels);
    free(s->created);
    memset(s, 0, sizeof *s);
}

/* A batch's -v lines for a new pipeline: each stage's build, once. */
static void report_builds(const stages *s, const cls_host_image *in, cls_pixel_type out_type, double wall)
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
        describe_variant(stage, variant, sizeof variant);
        fprintf(stderr, "stage %zu:   %-22s %s in %.1f ms (%s)\n", i + 1, s->labels[i],
                info.from_disk_cache ? "loaded from the disk cache" : "built from source", info.build_milliseconds,
                variant);
    }
}

/* The session's pipeline for IN's type and the plan's output type, built when there is none
 * (the oldest dropped when all slots are taken); NULL after a message with *code set. */
static stages *pipeline_for(filter_session *session, const filter_plan *plan, const cls_host_image *in,
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
        drop_stages(&session->pipelines[0].s);
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
    if ((*code = build_stages(&slot->s, plan, in)) != EXIT_OK_) {
        drop_stages(&slot->s);
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
    stages *s = pipeline_for(session, plan, in, &t.build_wall_ms, &code);
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
    for (size_t i = 0; i < session->count; ++i) drop_stages(&session->pipelines[i].s);
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
    stages *s;
    cls_host_image shape_in, shape_out; /* the whole image's, no pixels */
    unsigned reach;
    timings t;
};

/* The output rows of a band: two sets of its input and output planes (every channel of one page)
 * with REACH rows above and below fit HOST_BUDGET on the host (and, on a device that shares the host's
 * memory, its device copies and the pipeline's intermediates there too) and the device's memory and
 * largest buffer; 0 when not even one row does. */
static size_t band_rows(cls_context *context, const filter_plan *plan, const filter_bands *b, uint64_t host_budget)
{
    const uint64_t width = b->shape_in.width, planes = b->shape_in.channels;
    const uint64_t in_row = width * planes * image_sample_bytes(b->shape_in.type);
    const uint64_t out_row = width * planes * image_sample_bytes(b->shape_out.type);
    const uint64_t temporary_row = cls_pipeline_intermediate_count(b->s->pipeline) * width * 4;
    const uint64_t device_row = in_row + out_row + temporary_row;
    uint64_t global = UINT64_MAX, max_alloc = UINT64_MAX;
    int shares_host = 0;
    filter_device_limits(context, plan, &global, &max_alloc, &shares_host);
    uint64_t rows = host_budget / (2 * (in_row + out_row) + (shares_host ? device_row : 0));
    if (global / device_row < rows) rows = global / device_row;
    const uint64_t widest = in_row > out_row ? in_row : out_row;
    if (max_alloc / widest < rows) rows = max_alloc / widest;
    if (rows > b->shape_in.height + 2 * (uint64_t)b->reach) rows = b->shape_in.height + 2 * (uint64_t)b->reach;
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
