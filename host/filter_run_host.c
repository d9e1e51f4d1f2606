/* filter_run_host.c — a filter's runs on host images (cls_filter_run_host and
 * cls_filter_run_host_outputs): the images copied into the context's buffers (host_run.c), the
 * launch, the region's rows read back; large images in chunks whose copies overlap the launches
 * (chunked_run.c). */
#include "filter_internal.h"

#include "error.h"

/* Whether a launch writes every byte of its outputs' region rows (region_rows): a border mode that
 * computes every pixel, a region of interest of whole packed rows and, where it spans several
 * slices, of whole slices. A host run need not copy those rows in first (a band of an image split
 * over devices: its rows of the output, none of the bands beside it). */
static int writes_every_region_byte(const cls_filter *filter, const cls_resolved_image *r)
{
    const cls_launch_geometry *g = &r->geometry;
    const int whole_slices = g->roi_y == 0 && g->roi_height == g->height && r->slice_pitch[1] == r->pitch[1] * g->height;
    return filter->config.spec.border != CLS_BORDER_UNDEFINED && g->roi_x == 0 && g->roi_width == g->width &&
           r->pitch[1] == (size_t)g->width * cls_pixel_size(filter->config.spec.output_type) &&
           (r->roi_depth <= 1 || whole_slices);
}

/* The bytes of an output that hold the region of interest's rows (of a volume: from its first
 * slice's first row to its last slice's last row): [*from, *from + *bytes). A host run copies only
 * these in and out, so runs on other rows of one output may go on beside it. */
static void region_rows(const cls_resolved_image *r, size_t *from, size_t *bytes)
{
    const cls_launch_geometry *g = &r->geometry;
    *from = r->offset[1] + (size_t)r->roi_z * r->slice_pitch[1] + (size_t)g->roi_y * r->pitch[1];
    const size_t end = r->offset[1] + (size_t)(r->roi_z + r->roi_depth - 1) * r->slice_pitch[1] +
                       (size_t)(g->roi_y + g->roi_height) * r->pitch[1];
    *bytes = g->roi_height == 0 || *from >= r->bytes[1] ? 0 : (end < r->bytes[1] ? end : r->bytes[1]) - *from;
}

/* Copies a host run's images into the context's buffers: the input, and the outputs' region rows
 * where the launch does not write every byte (pixels and padding it leaves keep the caller's values). */
static cl_int write_host_images(cls_filter *filter, const void *input, unsigned count, void *const *outputs,
                                const cls_resolved_image *r, cl_mem in, const cl_mem *out)
{
    cl_command_queue queue = filter->context->queue;
    cl_int error = clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, r->bytes[0], input, 0, NULL, NULL);
    const int copy_in = !writes_every_region_byte(cls_filter_serving(filter), r);
    size_t from, bytes;
    region_rows(r, &from, &bytes);
    for (unsigned k = 0; copy_in && bytes && error == CL_SUCCESS && k < count; ++k)
        error = clEnqueueWriteBuffer(queue, out[k], CL_TRUE, from, bytes, (const char *)outputs[k] + from, 0, NULL, NULL);
    return error;
}

/* A chunked run's launches (cls_chunk_launch): the filter over a chunk of its host run's images. */
typedef struct host_launch {
    cls_filter *filter;
    cl_mem input;
    unsigned count;
    const cl_mem *outputs;
} host_launch;

static cls_status launch_chunk(void *launcher, const cls_image_desc *chunk, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    const host_launch *l = launcher;
    return cls_filter_enqueue_outputs(l->filter, l->input, l->count, l->outputs, chunk, wait_count, wait_list, event);
}

cls_status cls_filter_run_host_outputs(cls_filter *filter, const void *input, unsigned output_count,
                                       void *const *outputs, const cls_image_desc *described)
{
    if (!filter || !input) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter or image pointer is NULL");
    cls_image_desc copy;
    cls_status status = cls_image_desc_read(described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    status = cls_filter_check_output_count(filter, output_count, outputs);
    for (unsigned k = 0; status == CLS_OK && k < output_count; ++k) {
        char text[24];
        if (!outputs[k])
            status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image pointer is NULL", cls_filter_output_name(output_count, k, text));
    }
    cls_resolved_image r;
    if (status == CLS_OK) status = cls_resolve_image(&filter->config, image, &r);
    if (status != CLS_OK) return status;
    cl_mem in = NULL, out[CLS_MAX_MASKS] = {NULL};
    status = cls_host_run_begin(filter->context, r.bytes[0], output_count, r.bytes[1], &in, out);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &filter->config.spec;
    const unsigned reach = spec->mask_height / 2;
    unsigned chunks = 0;
    const cls_filter *served = cls_filter_serving(filter);
    if (writes_every_region_byte(served, &r) && !served->work_ops->serialized)
        status = cls_chunked_run_chunks(filter->context, &r, reach, &chunks);
    if (status == CLS_OK && chunks) {
        host_launch chunk_launcher = {filter, in, output_count, out};
        const cls_chunk_launch launch = {launch_chunk, &chunk_launcher};
        status = cls_chunked_run(filter->context, &launch, input, output_count, outputs, image, &r, in, out, chunks,
                                 reach, cls_spec_border_on(spec, CLS_AXIS_Y) == CLS_BORDER_REPEAT);
    }
    if (status != CLS_OK || chunks) {
        cls_host_run_end(filter->context);
        return status;
    }
    const cl_int written = write_host_images(filter, input, output_count, outputs, &r, in, out);
    if (written != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "copying the images to the device failed: %s", cls_cl_error_name(written));
    if (status == CLS_OK) status = cls_filter_enqueue_outputs(filter, in, output_count, out, image, 0, NULL, NULL);
    size_t from, bytes;
    region_rows(&r, &from, &bytes);
    for (unsigned k = 0; status == CLS_OK && bytes && k < output_count; ++k) {
        cl_int error = clEnqueueReadBuffer(filter->context->queue, out[k], CL_TRUE, from, bytes,
                                           (char *)outputs[k] + from, 0, NULL, NULL);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
    }
    if (status != CLS_OK) clFinish(filter->context->queue); /* nothing may still use the buffers */
    cls_host_run_end(filter->context);
    return status;
}

cls_status cls_filter_run_host(cls_filter *filter, const void *input, void *output, const cls_image_desc *image)
{
    if (!filter || !input || !output) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter or image pointer is NULL");
    const unsigned count = cls_kernel_outputs(&filter->config);
    if (count != 1)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the filter writes %u outputs (mask count %u): use cls_filter_run_host_outputs",
                        count, filter->config.masks);
    void *const outputs[1] = {output};
    return cls_filter_run_host_outputs(filter, input, 1, outputs, image);
}
