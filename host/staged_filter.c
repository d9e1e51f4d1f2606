/* staged_filter.c — a staged run (see staged_filter.h): the stages' filters, or the van Herk
 * kernels of the extremum stages (generator/van_herk.h), the f32 images between them, grown with
 * the image, and the combination kernel of the top-hats (or their last van Herk kernel combining);
 * or, on GPUs, two extremum stages and the combination as one fused kernel (cls_staged_fuses).
 * With the undefined border the stages run with clamp (cls_staged_stage_spec) and the last step
 * writes only the pixels whose whole window lies inside the image, the ones a single kernel would
 * write: no clamped value reaches them. */
#include "staged_filter.h"

#include "build.h"
#include "error.h"
#include "generator.h"
#include "staged_body.h"
#include "van_herk.h"

#include <stdlib.h>
#include <string.h>

/* An extremum stage's kernel, which the run launches itself. */
typedef struct extremum_pass {
    cl_program program;
    cl_kernel kernel;
    cls_van_herk_launch launch;
    size_t input_size, output_size; /* bytes of a pixel */
    float border_value;
} extremum_pass;

struct cls_staged_run {
    cls_context *context;
    const cls_filter_calls *calls;
    unsigned count;
    cls_filter *stages[CLS_STAGES_MAX]; /* a body stage's filter; NULL for an extremum stage */
    extremum_pass passes[CLS_STAGES_MAX]; /* an extremum stage's kernel (passes[0]: the fused kernel) */
    cls_stage_combine combine;
    cls_pixel_type input_type, output_type;
    cl_program combine_program; /* the combination kernel, when the body combines */
    cl_kernel combine_kernel;
    unsigned combine_lanes;     /* its pixels a work-item (cls_combine_lanes) */
    int undefined;              /* the spec's border is undefined: the last step writes the interior */
    unsigned reach_x, reach_y;  /* the spec's half window: every stage's reach together */
    cl_mem images[2];           /* f32, width x height, packed: the stages' results in turn */
    size_t image_bytes;
    char *source;
};

/* Builds the combination kernel for the spec's pixel types. */
static cls_status create_combination(cls_staged_run *run)
{
    char *source = cls_combine_source(run->combine, run->input_type, run->output_type, run->combine_lanes);
    if (!source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    cls_build_info info;
    const cls_kernel_source kernel = {source, CLS_COMBINE_KERNEL_NAME, 0, 0};
    cls_status status = cls_program_get(run->context, &kernel, &run->combine_program, &info);
    free(source);
    if (status != CLS_OK) return status;
    cl_int error;
    run->combine_kernel = clCreateKernel(run->combine_program, CLS_COMBINE_KERNEL_NAME, &error);
    if (error != CL_SUCCESS) return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    return CLS_OK;
}

/* How the device runs the van Herk passes (cls_van_herk_plan): a window of several rows and
 * columns as the strip walker (GPUs and accelerators), else in lanes where the record computes
 * bodies in lanes (body_lanes: PoCL), else the tile kernel. CLSTENCIL_VAN_HERK=strips, tiles or
 * lanes overrides it (the tests run each on any device). */
static cls_van_herk_form van_herk_form(const cls_context *context)
{
    const char *choice = getenv("CLSTENCIL_VAN_HERK");
    if (choice && strcmp(choice, "strips") == 0) return CLS_VAN_HERK_STRIPS;
    if (choice && strcmp(choice, "tiles") == 0) return CLS_VAN_HERK_TILES;
    if (choice && strcmp(choice, "lanes") == 0) return CLS_VAN_HERK_IN_LANES;
    if (context->caps.type != CLS_DEVICE_CPU) return CLS_VAN_HERK_STRIPS;
    return context->record.body_lanes > 1 ? CLS_VAN_HERK_IN_LANES : CLS_VAN_HERK_TILES;
}

/* The pass of a kernel launched as LAUNCH from STAGE's input pixels to its output pixels, built
 * from SOURCE (NULL: out of memory generating it). */
static cls_status build_pass(cls_staged_run *run, const char *source, const cls_van_herk_launch *launch,
                             const cls_spec *stage, extremum_pass *pass)
{
    if (!source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    pass->launch = *launch;
    pass->input_size = cls_pixel_size(stage->input_type);
    pass->output_size = cls_pixel_size(stage->output_type);
    pass->border_value = stage->border_value;
    cls_build_info info;
    const cls_kernel_source kernel = {source, CLS_VAN_HERK_KERNEL_NAME, 0, 0};
    const cls_status status = cls_program_get(run->context, &kernel, &pass->program, &info);
    if (status != CLS_OK) return status;
    cl_int error;
    pass->kernel = clCreateKernel(pass->program, CLS_VAN_HERK_KERNEL_NAME, &error);
    if (error != CL_SUCCESS) return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    return CLS_OK;
}

/* The van Herk kernel of extremum stage STAGE (MAXIMUM or not) into *pass, computing COMBINE of
 * the filter's input (of SOURCE_TYPE) with its result. */
static cls_status create_extremum(cls_staged_run *run, const cls_spec *stage, int maximum, cls_stage_combine combine,
                                  cls_pixel_type source_type, extremum_pass *pass)
{
    cls_van_herk_launch launch = cls_van_herk_plan(stage, van_herk_form(run->context));
    launch.combine = combine;
    launch.source_type = source_type;
    char *source = cls_van_herk_source(stage, maximum, &launch);
    const cls_status status = build_pass(run, source, &launch, stage, pass);
    free(source);
    return status;
}

/* GPUs fuse two extremum stages whose windows' sides are at most this: on an H200 (4096^2 f32,
 * clamp) the fused kernel took opening:3 from 100 to 74 us, tophat:5 199 -> 89, opening:7 104 ->
 * 95, opening:9 114 -> 102, tophat:9 184 -> 106, but closing:11 104 -> 141, opening:15x7 104 ->
 * 120 (tophat:15 174 either way). */
#define FUSED_MAX_SIDE 9

/* Whether the device runs two extremum stages as one kernel (cls_staged_fuses, within its local
 * memory): GPUs do up to FUSED_MAX_SIDE; CLSTENCIL_MORPHOLOGY=fused or stages overrides it (the
 * tests run the fused kernel on any device whose local memory takes it). */
static int fuses(const cls_context *context, const cls_spec *spec, const cls_staged_body *staged)
{
    if (!cls_staged_fuses(spec, staged, context->caps.local_mem_size)) return 0;
    const char *choice = getenv("CLSTENCIL_MORPHOLOGY");
    if (choice && strcmp(choice, "fused") == 0) return 1;
    if (choice && strcmp(choice, "stages") == 0) return 0;
    for (unsigned k = 0; k < staged->count; ++k)
        if (staged->stages[k].width > FUSED_MAX_SIDE || staged->stages[k].height > FUSED_MAX_SIDE) return 0;
    return context->caps.type != CLS_DEVICE_CPU;
}

/* Both stages and the combination as the fused kernel: the run's one step, its source the run's. */
static cls_status create_fused(cls_staged_run *run, const cls_spec *spec, const cls_staged_body *staged)
{
    run->source = cls_fused_stages_source(spec, staged);
    const cls_van_herk_launch launch = cls_fused_stages_launch();
    const cls_status status = build_pass(run, run->source, &launch, spec, &run->passes[0]);
    if (status != CLS_OK) return cls_fail(status, "the operator's fused stages: %s", cls_last_error());
    run->count = 1;
    run->combine = CLS_COMBINE_NONE; /* the kernel combines */
    return CLS_OK;
}

/* The filters (or extremum kernels) of every stage of the split body; a last van Herk stage
 * computes the combination itself (cls_staged_folds_combine). */
static cls_status create_stages(cls_staged_run *run, const cls_spec *spec, const cls_staged_body *staged)
{
    const int folds = cls_staged_folds_combine(staged);
    for (unsigned k = 0; k < staged->count; ++k) {
        const cls_spec stage = cls_staged_stage_spec(spec, staged, k);
        const cls_body_stage *written = &staged->stages[k];
        const cls_stage_combine combine = folds && k + 1 == staged->count ? staged->combine : CLS_COMBINE_NONE;
        const cls_status status =
            cls_stage_runs_body(written)
                ? run->calls->create(run->context, &stage, &run->stages[k])
                : create_extremum(run, &stage, written->kind == CLS_STAGE_MAXIMUM, combine, spec->input_type, &run->passes[k]);
        if (status != CLS_OK)
            return cls_fail(status, "stage %u of %u of the operator: %s", k + 1, staged->count, cls_last_error());
        ++run->count;
    }
    if (folds) run->combine = CLS_COMBINE_NONE; /* the last stage combines */
    return CLS_OK;
}

cls_status cls_staged_run_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                                 cls_staged_run **out)
{
    *out = NULL;
    cls_staged_run *run = calloc(1, sizeof *run);
    if (!run) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    run->context = context;
    run->calls = calls;
    run->input_type = spec->input_type;
    run->output_type = spec->output_type;
    run->undefined = spec->border == CLS_BORDER_UNDEFINED;
    run->reach_x = spec->mask_width / 2;
    run->reach_y = spec->mask_height / 2;
    cls_staged_body staged;
    cls_status status = cls_staged_body_split(spec, &staged);
    if (status == CLS_OK) {
        run->combine = staged.combine;
        status = fuses(context, spec, &staged) ? create_fused(run, spec, &staged) : create_stages(run, spec, &staged);
        cls_staged_body_free(&staged);
    }
    run->combine_lanes = cls_combine_lanes(van_herk_form(context));
    if (status == CLS_OK && run->combine) status = create_combination(run);
    if (status == CLS_OK && !run->source) status = cls_staged_source_on(spec, context->caps.simd_width, van_herk_form(context), &run->source);
    if (status != CLS_OK) {
        cls_staged_run_release(run);
        return status;
    }
    *out = run;
    return CLS_OK;
}

void cls_staged_run_release(cls_staged_run *run)
{
    if (!run) return;
    for (unsigned k = 0; k < run->count; ++k) {
        run->calls->release(run->stages[k]);
        if (run->passes[k].kernel) clReleaseKernel(run->passes[k].kernel);
        if (run->passes[k].program) clReleaseProgram(run->passes[k].program);
    }
    if (run->combine_kernel) clReleaseKernel(run->combine_kernel);
    if (run->combine_program) clReleaseProgram(run->combine_program);
    for (int k = 0; k < 2; ++k)
        if (run->images[k]) clReleaseMemObject(run->images[k]);
    cls_free(run->source);
    free(run);
}

const char *cls_staged_run_source(const cls_staged_run *run) { return run->source; }

unsigned cls_staged_run_count(const cls_staged_run *run) { return run->count; }

unsigned cls_staged_run_kernel_count(const cls_staged_run *run) { return run->count + (run->combine != CLS_COMBINE_NONE); }

cls_filter *cls_staged_run_stage(const cls_staged_run *run, unsigned k) { return k < run->count ? run->stages[k] : NULL; }

cls_status cls_staged_run_wait(cls_staged_run *run)
{
    cls_status first = CLS_OK;
    for (unsigned k = 0; k < run->count; ++k) {
        if (!run->stages[k]) continue; /* an extremum stage: built already */
        const cls_status status = run->calls->wait(run->stages[k]);
        if (first == CLS_OK) first = status;
    }
    return first;
}

/* The f32 images the run's steps write before the last: each step but the last writes one (the
 * stages in turn, the last stage too when combining), in turns through two at most. */
static int images_needed(const cls_staged_run *run)
{
    const unsigned written = run->count - 1 + (run->combine != CLS_COMBINE_NONE);
    return written > 1 ? 2 : (int)written;
}

/* Grows the f32 images to `bytes` each. */
static cls_status reserve_images(cls_staged_run *run, size_t bytes)
{
    if (bytes <= run->image_bytes) return CLS_OK;
    const int needed = images_needed(run);
    if (needed == 0) return CLS_OK; /* one step (the fused kernel): no image between steps */
    for (int k = 0; k < 2; ++k) {
        if (run->images[k]) clReleaseMemObject(run->images[k]); /* freed once launches using it are done */
        run->images[k] = NULL;
    }
    run->image_bytes = 0;
    for (int k = 0; k < needed; ++k) {
        cl_int error;
        run->images[k] = clCreateBuffer(run->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS) {
            run->images[k] = NULL;
            return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for an intermediate image of the operator's "
                            "stages: %s", bytes, cls_cl_error_name(error));
        }
    }
    run->image_bytes = bytes;
    return CLS_OK;
}

/* The combination over the region of interest: input (its pitch and offset) against the last
 * stage's result, into output (its pitch, offset and region). */
static cls_status enqueue_combination(cls_staged_run *run, cl_mem input, cl_mem result, cl_mem output,
                                      const cls_image_desc *image, cl_event after, cl_event *event)
{
    const size_t in_size = cls_pixel_size(run->input_type), out_size = cls_pixel_size(run->output_type);
    const size_t in_pitch = image->input_row_pitch ? image->input_row_pitch : image->width * in_size;
    const size_t out_pitch = image->output_row_pitch ? image->output_row_pitch : image->width * out_size;
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    const size_t x0 = whole ? 0 : image->roi_x, y0 = whole ? 0 : image->roi_y;
    const size_t columns = whole ? image->width : image->roi_width, rows = whole ? image->height : image->roi_height;
    const cl_int arguments[5] = {(cl_int)(image->input_offset / in_size), (cl_int)(in_pitch / in_size),
                                 (cl_int)(image->output_offset / out_size), (cl_int)(out_pitch / out_size),
                                 (cl_int)image->width};
    const cl_int4 roi = {{(cl_int)x0, (cl_int)y0, (cl_int)(x0 + columns), (cl_int)(y0 + rows)}};
    cl_kernel k = run->combine_kernel;
    cl_int error = clSetKernelArg(k, 0, sizeof input, &input);
    error |= clSetKernelArg(k, 1, sizeof(cl_int), &arguments[0]);
    error |= clSetKernelArg(k, 2, sizeof(cl_int), &arguments[1]);
    error |= clSetKernelArg(k, 3, sizeof result, &result);
    error |= clSetKernelArg(k, 4, sizeof output, &output);
    error |= clSetKernelArg(k, 5, sizeof(cl_int), &arguments[2]);
    error |= clSetKernelArg(k, 6, sizeof(cl_int), &arguments[3]);
    error |= clSetKernelArg(k, 7, sizeof(cl_int), &arguments[4]);
    error |= clSetKernelArg(k, 8, sizeof roi, &roi);
    const size_t global[2] = {(columns + run->combine_lanes - 1) / run->combine_lanes, rows};
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(run->context->queue, k, 2, NULL, global, NULL, 1, &after, event);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "launching the combination after the operator's stages failed: %s",
                        cls_cl_error_name(error));
    return CLS_OK;
}

/* Extremum stage K from `from` into `to` over IMAGE (a stage's description, as a stage filter
 * gets it: the input's pitch and offset, the output's, the region of interest); a combining pass
 * also reads SOURCE, the filter's input, with the pitch and offset ORIGINAL describes. */
static cls_status enqueue_extremum(cls_staged_run *run, unsigned k, cl_mem from, cl_mem to, const cls_image_desc *image,
                                   cl_mem source, const cls_image_desc *original, cl_uint wait_count,
                                   const cl_event *wait_list, cl_event *event)
{
    const extremum_pass *pass = &run->passes[k];
    const cls_van_herk_launch *l = &pass->launch;
    const size_t in_pitch = image->input_row_pitch ? image->input_row_pitch : image->width * pass->input_size;
    const size_t out_pitch = image->output_row_pitch ? image->output_row_pitch : image->width * pass->output_size;
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    const size_t x0 = whole ? 0 : image->roi_x, y0 = whole ? 0 : image->roi_y;
    const size_t columns = whole ? image->width : image->roi_width, rows = whole ? image->height : image->roi_height;
    const cl_int arguments[6] = {(cl_int)(image->input_offset / pass->input_size), (cl_int)(in_pitch / pass->input_size),
                                 (cl_int)(image->output_offset / pass->output_size), (cl_int)(out_pitch / pass->output_size),
                                 (cl_int)image->width, (cl_int)image->height};
    const cl_int4 roi = {{(cl_int)x0, (cl_int)y0, (cl_int)(x0 + columns), (cl_int)(y0 + rows)}};
    cl_kernel kernel = pass->kernel;
    cl_int error = clSetKernelArg(kernel, 0, sizeof from, &from);
    error |= clSetKernelArg(kernel, 1, sizeof(cl_int), &arguments[0]);
    error |= clSetKernelArg(kernel, 2, sizeof(cl_int), &arguments[1]);
    error |= clSetKernelArg(kernel, 3, sizeof to, &to);
    error |= clSetKernelArg(kernel, 4, sizeof(cl_int), &arguments[2]);
    error |= clSetKernelArg(kernel, 5, sizeof(cl_int), &arguments[3]);
    error |= clSetKernelArg(kernel, 6, sizeof(cl_int), &arguments[4]);
    error |= clSetKernelArg(kernel, 7, sizeof(cl_int), &arguments[5]);
    error |= clSetKernelArg(kernel, 8, sizeof roi, &roi);
    error |= clSetKernelArg(kernel, 9, sizeof(float), &pass->border_value);
    if (l->combine) {
        const size_t size = cls_pixel_size(l->source_type);
        const size_t pitch = original->input_row_pitch ? original->input_row_pitch : original->width * size;
        const cl_int source_arguments[2] = {(cl_int)(original->input_offset / size), (cl_int)(pitch / size)};
        error |= clSetKernelArg(kernel, 10, sizeof source, &source);
        error |= clSetKernelArg(kernel, 11, sizeof(cl_int), &source_arguments[0]);
        error |= clSetKernelArg(kernel, 12, sizeof(cl_int), &source_arguments[1]);
    }
    /* the row pass and the tiles: a group per tile; the column pass and the lanes kernel: a
     * work-item per tile_width columns and tile_height rows */
    const int per_item = l->vertical || l->lanes;
    const size_t across = (columns + l->tile_width - 1) / l->tile_width * (per_item ? 1 : l->group_width);
    const size_t down = (rows + l->tile_height - 1) / l->tile_height * (per_item ? 1 : l->group_height);
    const size_t local[2] = {l->group_width, l->group_height};
    const size_t global[2] = {(across + local[0] - 1) / local[0] * local[0], (down + local[1] - 1) / local[1] * local[1]};
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(run->context->queue, kernel, 2, NULL, global, local, wait_count, wait_list, event);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "launching the operator's extremum stage %u failed: %s", k + 1,
                        cls_cl_error_name(error));
    return CLS_OK;
}

/* The undefined border: *image's region of interest (the whole image when it has none) cut to the
 * pixels whose window lies inside the image. 0 when no such pixel is left. A region that does not
 * fit the image stays as it is, for the stage's own check to refuse. */
static int clip_to_interior(const cls_staged_run *run, cls_image_desc *image)
{
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    const size_t x0 = whole ? 0 : image->roi_x, y0 = whole ? 0 : image->roi_y;
    const size_t x1 = whole ? image->width : x0 + image->roi_width, y1 = whole ? image->height : y0 + image->roi_height;
    if (!whole && (image->roi_width == 0 || image->roi_height == 0 || x1 > image->width || y1 > image->height)) return 1;
    if (image->width < 2 * (size_t)run->reach_x + 1 || image->height < 2 * (size_t)run->reach_y + 1) return 0;
    const size_t left = x0 > run->reach_x ? x0 : run->reach_x, top = y0 > run->reach_y ? y0 : run->reach_y;
    const size_t right = x1 < image->width - run->reach_x ? x1 : image->width - run->reach_x;
    const size_t bottom = y1 < image->height - run->reach_y ? y1 : image->height - run->reach_y;
    if (left >= right || top >= bottom) return 0;
    image->roi_x = left, image->roi_y = top, image->roi_width = right - left, image->roi_height = bottom - top;
    return 1;
}

/* Nothing to write: an event that completes after the wait list, where one is asked for. */
static cls_status enqueue_nothing(cls_staged_run *run, cl_uint wait_count, const cl_event *wait_list, cl_event *event)
{
    if (!event) return CLS_OK;
    const cl_int error = clEnqueueMarkerWithWaitList(run->context->queue, wait_count, wait_list, event);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "clEnqueueMarkerWithWaitList failed: %s", cls_cl_error_name(error));
}

/* The work's launch (cls_work_ops): the stages after wait_list, each after the one before, then
 * the combination; the first stage reads input (the image's pitch and offset), the last step
 * writes output (its pitch, offset and region of interest; with the undefined border only its
 * pixels whose window lies inside the image), stages in between compute whole images. *event
 * (may be NULL) is the last step's, or a marker's when nothing is written. The filter serializes
 * calls (the f32 images are the run's). */
static cls_status enqueue_work(void *work, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *described, const cls_resolved_image *resolved, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    (void)resolved;
    cls_staged_run *run = work;
    const cl_mem output = outputs[0];
    cls_image_desc clipped = *described;
    if (run->undefined && !clip_to_interior(run, &clipped)) return enqueue_nothing(run, wait_count, wait_list, event);
    const cls_image_desc *image = &clipped;
    cls_status status = reserve_images(run, image->width * image->height * sizeof(float));
    cl_event previous = NULL;
    for (unsigned k = 0; status == CLS_OK && k < run->count; ++k) {
        const int first = k == 0, last = k + 1 == run->count, to_output = last && !run->combine;
        /* stages in between read and write whole, packed images; the last one, the region */
        cls_image_desc stage = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height};
        if (first) stage.input_row_pitch = image->input_row_pitch, stage.input_offset = image->input_offset;
        if (last) {
            stage.roi_x = image->roi_x, stage.roi_y = image->roi_y;
            stage.roi_width = image->roi_width, stage.roi_height = image->roi_height;
        }
        if (to_output) stage.output_row_pitch = image->output_row_pitch, stage.output_offset = image->output_offset;
        cl_mem from = first ? input : run->images[(k - 1) % 2], to = to_output ? output : run->images[k % 2];
        cl_event done = NULL;
        const cl_uint waits = first ? wait_count : 1;
        const cl_event *after = first ? wait_list : &previous;
        status = run->stages[k] ? run->calls->enqueue(run->stages[k], from, to, &stage, waits, after, to_output ? event : &done)
                                : enqueue_extremum(run, k, from, to, &stage, input, image, waits, after,
                                                   to_output ? event : &done);
        if (previous) clReleaseEvent(previous);
        previous = done;
    }
    if (status == CLS_OK && run->combine)
        status = enqueue_combination(run, input, run->images[(run->count - 1) % 2], output, image, previous, event);
    if (previous) clReleaseEvent(previous);
    return status;
}

static unsigned kernel_count(const void *work) { return cls_staged_run_kernel_count(work); }

static cls_status wait_work(void *work) { return cls_staged_run_wait(work); }

static void release_work(void *work) { cls_staged_run_release(work); }

static size_t device_bytes(const void *work, size_t width, size_t height, size_t depth)
{
    (void)depth;
    return (size_t)images_needed(work) * width * height * sizeof(float);
}

/* The filter's own configuration (its first stage's partition and shape) describes the run. */
const cls_work_ops cls_staged_run_ops = {enqueue_work, kernel_count, NULL, wait_work, release_work, 1, device_bytes};
