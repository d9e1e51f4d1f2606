/* filter_volume.c — `clstencil filter` with a volume's operator: the input's pages (a TIFF stack)
 * are the slices of volumes (stack_axes.h: one for a plain stack, one per channel and time point
 * of a hyperstack), each sample of a page a volume of its own, filtered into the output's pages;
 * the whole stack in memory. A volume that does not fit the device goes in slabs of slices, each
 * with the slices around it that the mask reaches along z: the kernels compute each output slice
 * from the same slices in the same order whatever the slab, so the result is the one piece's. */
#include "filter_run.h"

#include "commands.h"
#include "stack_axes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int filter_plan_is_volume(const filter_plan *plan)
{
    return plan->op_count == 1 && plan->ops[0].op && cls_operator_spec(plan->ops[0].op)->mask_depth > 0;
}

/* The volumes of IN's pages, from its first page's description (carried in OUT's tags); refused
 * (exit 6) where the description's axes do not account for the pages. */
static int read_axes(const cls_host_image *in, const cls_host_image *out, stack_axes *axes)
{
    const char *description = out->meta && out->meta->page_count ? out->meta->pages[0].description : NULL;
    char why[512];
    if (stack_axes_read(description, in->pages ? in->pages : 1, in->channels ? in->channels : 1, axes, why,
                        sizeof why) == 0)
        return EXIT_OK_;
    fprintf(stderr, "clstencil filter: the stack's pages are not one volume's slices: %s\n", why);
    return EXIT_INPUT_UNSUPPORTED;
}

/* One volume in the host images: where its first slice starts and how far apart its slices are. */
typedef struct volume_at {
    const cls_host_image *in;
    cls_host_image *out;
    size_t in_first, out_first, in_pitch, out_pitch, depth;
} volume_at;

/* Output slices a slab may take: each slice of its sub-volume holds an input and an output slice
 * (their pitches: in a hyperstack they span the other volumes' pages) and two f32 temporaries (a
 * separable mask's passes), within the device memory the run may use and its largest buffer;
 * the whole depth when it fits, 0 when not even one slice with REACH slices on each side does. */
static size_t slab_slices(cls_context *context, const filter_plan *plan, const volume_at *v, unsigned reach)
{
    uint64_t global = 0, max_alloc = 0;
    int shares_host = 0;
    if (!filter_device_limits(context, plan, &global, &max_alloc, &shares_host)) return v->depth;
    const uint64_t temporary = (uint64_t)v->in->width * v->in->height * 4;
    const uint64_t per_slice = v->in_pitch + v->out_pitch + 2 * temporary;
    uint64_t largest = v->in_pitch > v->out_pitch ? v->in_pitch : v->out_pitch;
    if (temporary > largest) largest = temporary;
    uint64_t budget = global;
    if (shares_host && !plan->max_device_memory) {
        const uint64_t images = (uint64_t)v->depth * (v->in_pitch + v->out_pitch); /* counted with the read */
        budget = plan->memory_available > images ? plan->memory_available - images : 0;
        if (global < budget) budget = global;
    }
    uint64_t slices = budget / per_slice;
    if (max_alloc / largest < slices) slices = max_alloc / largest;
    if (slices >= v->depth) return v->depth;
    return slices > 2 * (uint64_t)reach ? (size_t)(slices - 2 * (uint64_t)reach) : 0;
}

/* Output slices [z0, z1) of the volume through a sub-volume of slices [lo, hi), which holds every
 * slice they reach: straight from the images where those lie within the volume, else (repeat
 * along z, wrapping past an end) through packed copies of the slices, the output's too. */
static cls_status run_slab(cls_filter *filter, const volume_at *v, long lo, long hi, size_t z0, size_t z1)
{
    const cls_host_image *in = v->in;
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(v->out), depth = (size_t)(hi - lo);
    cls_image_desc slab = {CLS_IMAGE_DESC_INIT, .width = in->width, .height = in->height, .depth = depth,
                           .roi_z = z0 - (size_t)lo, .roi_depth = z1 - z0};
    if (lo >= 0 && (size_t)hi <= v->depth) {
        slab.input_offset = v->in_first + (size_t)lo * v->in_pitch;
        slab.output_offset = v->out_first + (size_t)lo * v->out_pitch;
        slab.input_slice_pitch = v->in_pitch;
        slab.output_slice_pitch = v->out_pitch;
        return cls_filter_run_host(filter, in->pixels, v->out->pixels, &slab);
    }
    char *input = malloc(depth * in_plane), *output = malloc(depth * out_plane);
    cls_status status = input && output ? CLS_OK : CLS_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; status == CLS_OK && k < depth; ++k) {
        const long d = (long)v->depth, z = ((lo + (long)k) % d + d) % d;
        memcpy(input + k * in_plane, (const char *)in->pixels + v->in_first + (size_t)z * v->in_pitch, in_plane);
    }
    if (status == CLS_OK) status = cls_filter_run_host(filter, input, output, &slab);
    for (size_t z = z0; status == CLS_OK && z < z1; ++z)
        memcpy((char *)v->out->pixels + v->out_first + z * v->out_pitch, output + (z - (size_t)lo) * out_plane,
               out_plane);
    free(input);
    free(output);
    return status;
}

/* The volume in slabs of SLAB output slices (the whole depth: one piece), each reaching REACH
 * slices past its ends (along a repeat z axis, around them). */
static cls_status run_volume(cls_filter *filter, const volume_at *v, size_t slab, unsigned reach, int wraps)
{
    cls_status status = CLS_OK;
    for (size_t z0 = 0; status == CLS_OK && z0 < v->depth; z0 += slab) {
        const size_t z1 = z0 + slab < v->depth ? z0 + slab : v->depth;
        long lo = slab >= v->depth ? 0 : (long)z0 - (long)reach, hi = slab >= v->depth ? (long)v->depth : (long)(z1 + reach);
        if (!wraps && lo < 0) lo = 0;
        if (!wraps && hi > (long)v->depth) hi = (long)v->depth;
        status = run_slab(filter, v, lo, hi, z0, z1);
    }
    return status;
}

int filter_volume_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out)
{
    stack_axes axes;
    const int axes_code = read_axes(in, out, &axes);
    if (axes_code != EXIT_OK_) return axes_code;
    cls_spec spec = *cls_operator_spec(plan->ops[0].op);
    filter_plan_set_borders(plan, &spec);
    spec.input_type = in->type;
    spec.output_type = plan->output_type;
    spec.build_goal = plan->build_goal == CLS_BUILD_AUTO ? CLS_BUILD_FASTEST_KERNEL : plan->build_goal;
    spec.method = plan->method;
    spec.expected_width = (unsigned)in->width;
    spec.expected_height = (unsigned)in->height;
    cls_context *context = NULL;
    cls_filter *filter = NULL;
    cls_status status = cls_context_create(plan->device, &context);
    if (status == CLS_OK) status = cls_filter_create(context, &spec, &filter);
    const size_t pages = in->pages ? in->pages : 1, samples = in->channels ? in->channels : 1;
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    const unsigned reach = spec.mask_depth / 2;
    const int wraps = (spec.border_z == CLS_BORDER_SAME ? spec.border : spec.border_z) == CLS_BORDER_REPEAT;
    volume_at v = {in, out, 0, 0, axes.slice_step * samples * in_plane, axes.slice_step * samples * out_plane,
                   axes.slices};
    const size_t slab = status == CLS_OK ? slab_slices(context, plan, &v, reach) : 0;
    int code = EXIT_OK_;
    if (status == CLS_OK && !slab) {
        fprintf(stderr, "clstencil filter: even a slab of one slice of the volume, with the %u slices on each side "
                        "that the mask reaches, does not fit the device memory the run may use (--max-device-memory, "
                        "else the device's memory and its largest buffer)\n", reach);
        code = EXIT_OUTPUT;
    }
    for (size_t t = 0; status == CLS_OK && code == EXIT_OK_ && t < axes.frames; ++t)
        for (size_t c = 0; status == CLS_OK && c < axes.channels; ++c)
            for (size_t s = 0; status == CLS_OK && s < samples; ++s) {
                const size_t first = (t * axes.frame_step + c * axes.channel_step) * samples + s;
                v.in_first = first * in_plane;
                v.out_first = first * out_plane;
                status = run_volume(filter, &v, slab, reach, wraps);
            }
    if (status == CLS_OK && code == EXIT_OK_ && plan->verbose) {
        fprintf(stderr, "volume:    %zux%zux%zu, %zu channel%s x %zu frame%s x %zu sample%s of %zu page%s (%s), %s\n",
                in->width, in->height, axes.slices, axes.channels, axes.channels == 1 ? "" : "s", axes.frames,
                axes.frames == 1 ? "" : "s", samples, samples == 1 ? "" : "s", pages, pages == 1 ? "" : "s",
                axes.kind, cls_operator_name(plan->ops[0].op));
        if (slab < axes.slices)
            fprintf(stderr, "slabs:     %zu of %zu slices, each with the %u slices on each side the mask reaches\n",
                    (axes.slices + slab - 1) / slab, slab, reach);
    }
    if (status == CLS_ERR_OUT_OF_MEMORY) fprintf(stderr, "clstencil filter: out of memory for a slab's wrapped slices\n");
    if (status != CLS_OK) code = status == CLS_ERR_OUT_OF_MEMORY ? EXIT_OUTPUT : report_failure("filter", status);
    cls_filter_release(filter);
    cls_context_release(context);
    return code;
}
