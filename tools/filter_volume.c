/* filter_volume.c — `clstencil filter` with a volume's operator: the input's pages (a TIFF stack)
 * are the slices of one volume per channel, filtered in one launch each (the slices a channel
 * apart, its pages' planes) into the output's pages; the whole volume in memory. */
#include "filter_run.h"

#include "commands.h"

#include <stdio.h>

int filter_plan_is_volume(const filter_plan *plan)
{
    return plan->op_count == 1 && plan->ops[0].op && cls_operator_spec(plan->ops[0].op)->mask_depth > 0;
}

int filter_volume_run(const filter_plan *plan, const cls_host_image *in, cls_host_image *out)
{
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
    const size_t pages = in->pages ? in->pages : 1, channels = in->channels ? in->channels : 1;
    const size_t in_plane = image_plane_bytes(in), out_plane = image_plane_bytes(out);
    for (size_t c = 0; status == CLS_OK && c < channels; ++c) {
        const cls_image_desc volume = {CLS_IMAGE_DESC_INIT, .width = in->width, .height = in->height, .depth = pages,
                                       .input_offset = c * in_plane, .output_offset = c * out_plane,
                                       .input_slice_pitch = channels * in_plane,
                                       .output_slice_pitch = channels * out_plane};
        status = cls_filter_run_host(filter, in->pixels, out->pixels, &volume);
    }
    if (status == CLS_OK && plan->verbose)
        fprintf(stderr, "volume:    %zux%zux%zu, %zu channel%s, %s\n", in->width, in->height, pages, channels,
                channels == 1 ? "" : "s", cls_operator_name(plan->ops[0].op));
    const int code = status == CLS_OK ? EXIT_OK_ : report_failure("filter", status);
    cls_filter_release(filter);
    cls_context_release(context);
    return code;
}
