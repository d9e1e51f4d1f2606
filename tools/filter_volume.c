/* filter_volume.c — `clstencil filter` with a volume's operator: the input's pages (a TIFF stack)
 * are the slices of volumes (stack_axes.h: one for a plain stack, one per channel and time point
 * of a hyperstack), each sample of a page a volume of its own. A volume that does not fit the
 * device goes in slabs of slices, each with the slices around it that the mask reaches along z:
 * the kernels compute each output slice from the same slices in the same order whatever the
 * slab, so the result is the one piece's. */
#include "filter_volume.h"

#include "commands.h"
#include "filter_stages.h"
#include "memory_budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int filter_plan_is_volume(const filter_plan *plan)
{
    return plan->op_count >= 1 && plan->ops[0].op && cls_operator_spec(plan->ops[0].op)->mask_depth > 0;
}

int volume_run_open(const filter_plan *plan, const cls_host_image *shape, volume_run *run)
{
    *run = (volume_run){.samples = shape->channels ? shape->channels : 1};
    const char *description = shape->meta && shape->meta->page_count ? shape->meta->pages[0].description : NULL;
    char why[512];
    if (stack_axes_read(description, shape->pages ? shape->pages : 1, run->samples, &run->axes, why, sizeof why)) {
        fprintf(stderr, "clstencil filter: the stack's pages are not one volume's slices: %s\n", why);
        return EXIT_INPUT_UNSUPPORTED;
    }
    const double start = wall_ms();
    cls_status status = cls_context_create(plan->device, &run->context);
    run->context_ms = wall_ms() - start;
    if (status == CLS_OK) status = cls_pipeline_create(run->context, &run->pipeline);
    for (size_t k = 0; status == CLS_OK && k < plan->op_count; ++k) {
        cls_spec spec = *cls_operator_spec(plan->ops[k].op);
        filter_plan_set_borders(plan, &spec);
        spec.input_type = k == 0 ? shape->type : CLS_PIXEL_F32;
        spec.output_type = k + 1 == plan->op_count ? plan->output_type : CLS_PIXEL_F32;
        spec.build_goal = plan->build_goal == CLS_BUILD_AUTO ? CLS_BUILD_FASTEST_KERNEL : plan->build_goal;
        spec.method = plan->method;
        spec.expected_width = (unsigned)shape->width;
        spec.expected_height = (unsigned)shape->height;
        spec.expected_depth = (unsigned)run->axes.slices;
        run->reach += spec.mask_depth / 2;
        run->wraps = (spec.border_z == CLS_BORDER_SAME ? spec.border : spec.border_z) == CLS_BORDER_REPEAT;
        status = cls_pipeline_add(run->pipeline, &spec);
    }
    run->builds_ms = wall_ms() - start - run->context_ms;
    return status == CLS_OK ? EXIT_OK_ : report_failure("filter", status);
}

void volume_run_close(volume_run *run)
{
    cls_pipeline_release(run->pipeline);
    cls_context_release(run->context);
    run->pipeline = NULL;
    run->context = NULL;
}

/* What a slab of N slices needs on the device: its slices in and out, and the pipeline's own
 * buffers for it (f32 volumes between stages and passes, the FFT's tiles: no larger for fewer). */
typedef struct slab_need {
    const cls_pipeline *pipeline;
    size_t width, height;
    uint64_t slice_bytes, budget, max_alloc;
} slab_need;

static int slab_fits(uint64_t slices, const void *context)
{
    const slab_need *n = context;
    const uint64_t own = cls_pipeline_device_bytes(n->pipeline, n->width, n->height, (size_t)slices);
    return slices * n->slice_bytes + own <= n->budget && (!own || (uint64_t)n->width * n->height * 4 * slices <= n->max_alloc);
}

size_t volume_slab_slices(const volume_run *run, const filter_plan *plan, size_t in_pitch, size_t out_pitch,
                          size_t width, size_t height, size_t depth, uint64_t host_held)
{
    uint64_t global = 0, max_alloc = 0;
    int shares_host = 0;
    if (!filter_device_limits(run->context, plan, &global, &max_alloc, &shares_host)) return depth;
    const uint64_t largest = in_pitch > out_pitch ? in_pitch : out_pitch;
    uint64_t budget = global;
    if (shares_host && !plan->max_device_memory) {
        budget = plan->memory_available > host_held ? plan->memory_available - host_held : 0;
        if (global < budget) budget = global;
    }
    uint64_t most = budget / (in_pitch + out_pitch);
    if (max_alloc / largest < most) most = max_alloc / largest;
    if (most > depth) most = depth;
    const slab_need need = {run->pipeline, width, height, in_pitch + out_pitch, budget, max_alloc};
    const uint64_t slices = memory_most_that_fit(most, slab_fits, &need);
    if (slices == depth) return depth;
    return slices > 2 * (uint64_t)run->reach ? (size_t)(slices - 2 * (uint64_t)run->reach) : 0;
}

int volume_slab_refused(const volume_run *run, size_t width, size_t height)
{
    char own[32] = "";
    const uint64_t bytes = cls_pipeline_device_bytes(run->pipeline, width, height, 1 + 2 * (size_t)run->reach);
    if (bytes) memory_format(bytes, own, sizeof own);
    fprintf(stderr, "clstencil filter: even a slab of one slice of the volume, with the %u slices on each side "
                    "that the mask reaches, does not fit the device memory the run may use (--max-device-memory, "
                    "else the device's memory and its largest buffer)%s%s%s\n", run->reach,
            bytes ? "; the operators' own buffers for such a slab take " : "", own,
            bytes ? " (volumes between stages, temporaries, FFT tiles)" : "");
    return EXIT_OUTPUT;
}

cls_status volume_run_slab(const volume_run *run, const cls_host_image *shape, const void *in, size_t in_first,
                           size_t in_pitch, void *out, size_t out_first, size_t out_pitch, size_t slices, size_t z0,
                           size_t z1)
{
    const cls_image_desc slab = {CLS_IMAGE_DESC_INIT, .width = shape->width, .height = shape->height,
                                 .depth = slices, .input_offset = in_first, .output_offset = out_first,
                                 .input_slice_pitch = in_pitch, .output_slice_pitch = out_pitch, .roi_z = z0,
                                 .roi_depth = z1 - z0};
    return cls_pipeline_run_host(run->pipeline, in, out, &slab);
}

void volume_run_report(const volume_run *run, const filter_plan *plan, const cls_host_image *shape, size_t slab)
{
    const stack_axes *a = &run->axes;
    const size_t pages = shape->pages ? shape->pages : 1;
    fprintf(stderr, "volume:    %zux%zux%zu, %zu channel%s x %zu frame%s x %zu sample%s of %zu page%s (%s), %s\n",
            shape->width, shape->height, a->slices, a->channels, a->channels == 1 ? "" : "s", a->frames,
            a->frames == 1 ? "" : "s", run->samples, run->samples == 1 ? "" : "s", pages, pages == 1 ? "" : "s",
            a->kind, plan->op_count == 1 ? cls_operator_name(plan->ops[0].op) : "a pipeline of volumes' operators");
    for (size_t k = 0; k < cls_pipeline_stage_count(run->pipeline); ++k) {
        const cls_filter *stage = cls_pipeline_stage(run->pipeline, k);
        cls_build_info info = {CLS_BUILD_INFO_INIT};
        cls_filter_build_info(stage, &info);
        char walk[96] = " (fft)"; /* the direct kernel's walk: what auto chose for the volume */
        if (cls_filter_method(stage) != CLS_METHOD_FFT) {
            unsigned slices = 0, columns = 0, group_width = 0, group_height = 0;
            cls_filter_outputs_per_item(stage, &slices, &columns);
            cls_filter_group_shape(stage, &group_width, &group_height);
            snprintf(walk, sizeof walk, ", walking %u slice%s of %u column%s a work-item in %ux%u groups", slices,
                     slices == 1 ? "" : "s", columns, columns == 1 ? "" : "s", group_width, group_height);
        }
        if (cls_filter_separable(stage) == CLS_SEPARABLE_TWO_PASS)
            fprintf(stderr, "stage %zu:   %-22s a pass an axis\n", k + 1, cls_operator_name(plan->ops[k].op));
        else
            fprintf(stderr, "stage %zu:   %-22s %s in %.1f ms%s\n", k + 1, cls_operator_name(plan->ops[k].op),
                    info.from_disk_cache ? "loaded from the disk cache" : "built from source", info.build_milliseconds,
                    walk);
    }
    if (slab < a->slices)
        fprintf(stderr, "slabs:     %zu of %zu slices, each with the %u slices on each side the mask reaches\n",
                (a->slices + slab - 1) / slab, slab, run->reach);
    fprintf(stderr, "wall:      context %.1f ms, builds %.1f ms, run %.1f ms (host clock)\n", run->context_ms,
            run->builds_ms, run->run_ms);
}

/* One volume of the stack in memory: its first slice's bytes in IN and OUT and their pitches. */
typedef struct volume_at {
    size_t in_first, out_first, in_pitch, out_pitch;
} volume_at;

/* Output slices [z0, z1) through a sub-volume of slices [lo, hi), which holds every slice they
 * reach: straight from the images where those lie within the volume, else (repeat along z,
 * wrapping past an end) through packed copies of the slices, the output's too. */
static cls_status run_slab(const volume_run *run, const cls_host_image *in, cls_host_image *out, const volume_at *v,
                           long lo, long hi, size_t z0, size_t z1)
{
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out), slices = (size_t)(hi - lo);
    const long depth = (long)run->axes.slices;
    if (lo >= 0 && hi <= depth)
        return volume_run_slab(run, in, in->pixels, v->in_first + (size_t)lo * v->in_pitch, v->in_pitch, out->pixels,
                               v->out_first + (size_t)lo * v->out_pitch, v->out_pitch, slices, z0 - (size_t)lo,
                               z1 - (size_t)lo);
    char *input = malloc(slices * in_plane), *output = malloc(slices * out_plane);
    cls_status status = input && output ? CLS_OK : CLS_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; status == CLS_OK && k < slices; ++k) {
        const long z = ((lo + (long)k) % depth + depth) % depth;
        memcpy(input + k * in_plane, (const char *)in->pixels + v->in_first + (size_t)z * v->in_pitch, in_plane);
    }
    if (status == CLS_OK)
        status = volume_run_slab(run, in, input, 0, in_plane, output, 0, out_plane, slices, z0 - (size_t)lo,
                                 z1 - (size_t)lo);
    for (size_t z = z0; status == CLS_OK && z < z1; ++z)
        memcpy((char *)out->pixels + v->out_first + z * v->out_pitch, output + (z - (size_t)lo) * out_plane, out_plane);
    free(input);
    free(output);
    return status;
}

/* One volume in slabs of SLAB output slices (the whole depth: one piece). */
static cls_status run_volume(const volume_run *run, const cls_host_image *in, cls_host_image *out, const volume_at *v,
                             size_t slab)
{
    const size_t depth = run->axes.slices;
    cls_status status = CLS_OK;
    for (size_t z0 = 0; status == CLS_OK && z0 < depth; z0 += slab) {
        const size_t z1 = z0 + slab < depth ? z0 + slab : depth;
        long lo = slab >= depth ? 0 : (long)z0 - (long)run->reach;
        long hi = slab >= depth ? (long)depth : (long)(z1 + run->reach);
        if (!run->wraps && lo < 0) lo = 0;
        if (!run->wraps && hi > (long)depth) hi = (long)depth;
        status = run_slab(run, in, out, v, lo, hi, z0, z1);
    }
    return status;
}

int filter_volume_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out)
{
    volume_run run;
    cls_host_image shape = *in;
    shape.meta = out->meta; /* the input's tags, moved to the output */
    int code = volume_run_open(plan, &shape, &run);
    const stack_axes *a = &run.axes;
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    volume_at v = {.in_pitch = a->slice_step * run.samples * in_plane, .out_pitch = a->slice_step * run.samples * out_plane};
    const uint64_t held = (uint64_t)image_plane_count(in) * in_plane + (uint64_t)image_plane_count(out) * out_plane;
    const size_t slab = code == EXIT_OK_ ? volume_slab_slices(&run, plan, v.in_pitch, v.out_pitch, in->width, in->height,
                                                              a->slices, held)
                                         : 0;
    if (code == EXIT_OK_ && !slab) code = volume_slab_refused(&run, in->width, in->height);
    cls_status status = CLS_OK;
    const double start = wall_ms();
    for (size_t t = 0; code == EXIT_OK_ && status == CLS_OK && t < a->frames; ++t)
        for (size_t c = 0; status == CLS_OK && c < a->channels; ++c)
            for (size_t s = 0; status == CLS_OK && s < run.samples; ++s) {
                const size_t first = (t * a->frame_step + c * a->channel_step) * run.samples + s;
                v.in_first = first * in_plane;
                v.out_first = first * out_plane;
                status = run_volume(&run, in, out, &v, slab);
            }
    run.run_ms = wall_ms() - start;
    if (status == CLS_ERR_OUT_OF_MEMORY) fprintf(stderr, "clstencil filter: out of memory for a slab's wrapped slices\n");
    if (status != CLS_OK) code = status == CLS_ERR_OUT_OF_MEMORY ? EXIT_OUTPUT : report_failure("filter", status);
    if (code == EXIT_OK_ && plan->verbose) volume_run_report(&run, plan, &shape, slab);
    volume_run_close(&run);
    return code;
}
