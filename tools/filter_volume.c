/* filter_volume.c — `clstencil filter` with a volume's operator: the input's pages (a TIFF stack)
 * are the slices of volumes (stack_axes.h: one for a plain stack, one per channel and time point
 * of a hyperstack), each sample of a page a volume of its own, filtered in one launch each (the
 * slices some pages apart, its pages' planes) into the output's pages; the whole stack in memory. */
#include "filter_run.h"

#include "commands.h"
#include "stack_axes.h"

#include <stdio.h>

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
    for (size_t t = 0; status == CLS_OK && t < axes.frames; ++t)
        for (size_t c = 0; status == CLS_OK && c < axes.channels; ++c)
            for (size_t s = 0; status == CLS_OK && s < samples; ++s) {
                const size_t first = (t * axes.frame_step + c * axes.channel_step) * samples + s,
                             step = axes.slice_step * samples;
                const cls_image_desc volume = {CLS_IMAGE_DESC_INIT, .width = in->width, .height = in->height,
                                               .depth = axes.slices, .input_offset = first * in_plane,
                                               .output_offset = first * out_plane, .input_slice_pitch = step * in_plane,
                                               .output_slice_pitch = step * out_plane};
                status = cls_filter_run_host(filter, in->pixels, out->pixels, &volume);
            }
    if (status == CLS_OK && plan->verbose)
        fprintf(stderr, "volume:    %zux%zux%zu, %zu channel%s x %zu frame%s x %zu sample%s of %zu page%s (%s), %s\n",
                in->width, in->height, axes.slices, axes.channels, axes.channels == 1 ? "" : "s", axes.frames,
                axes.frames == 1 ? "" : "s", samples, samples == 1 ? "" : "s", pages, pages == 1 ? "" : "s",
                axes.kind, cls_operator_name(plan->ops[0].op));
    const int code = status == CLS_OK ? EXIT_OK_ : report_failure("filter", status);
    cls_filter_release(filter);
    cls_context_release(context);
    return code;
}
