/* volume_work.c — the work of a volume's weighted sum (cls_work_ops, host.h): the program of
 * generator/emit_volume.c, its mask buffer, and each launch's arguments and grid: the region's
 * columns (in blocks of the configuration's cols) and rows (in blocks of cls_volume_block_rows) in
 * work-groups, its slices in blocks of the configuration's rows. */
#include "build.h"

#include "error.h"
#include "generator.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

struct cls_volume_work {
    cls_context *context;
    const cls_kernel_config *config; /* the filter's, which outlives the work */
    cl_program program;
    cl_kernel kernel;
    cl_mem mask;
    pthread_mutex_t launch_lock; /* clSetKernelArg + enqueue must not interleave */
};

static void release_work(void *opaque)
{
    cls_volume_work *work = opaque;
    if (!work) return;
    if (work->mask) clReleaseMemObject(work->mask);
    if (work->kernel) clReleaseKernel(work->kernel);
    if (work->program) clReleaseProgram(work->program);
    pthread_mutex_destroy(&work->launch_lock);
    free(work);
}

cls_status cls_volume_work_create(cls_context *context, const cls_kernel_config *config, const char *source,
                                  cls_volume_work **out, cls_build_info *info)
{
    *out = NULL;
    cls_volume_work *work = calloc(1, sizeof *work);
    if (!work) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    work->context = context;
    work->config = config;
    pthread_mutex_init(&work->launch_lock, NULL);
    const cls_kernel_source kernel = {source, CLS_KERNEL_NAME, cls_kernel_register_cap(config),
                                       cls_kernel_cap_only_lowers(config)};
    cls_status status = cls_program_get(context, &kernel, &work->program, info);
    cl_int error = CL_SUCCESS;
    if (status == CLS_OK && !(work->kernel = clCreateKernel(work->program, CLS_KERNEL_NAME, &error)))
        status = cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    if (status == CLS_OK &&
        !(work->mask = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      cls_kernel_coefficient_bytes(config), config->coefficients, &error)))
        status = cls_fail(CLS_ERR_OPENCL, "cannot create the mask buffer: %s", cls_cl_error_name(error));
    if (status != CLS_OK) {
        release_work(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

/* Sets every argument of one launch, in emit_volume.c's order. */
static cl_int set_arguments(cls_volume_work *work, cl_mem input, cl_mem output, const cls_resolved_image *r)
{
    const cls_spec *spec = &work->config->spec;
    const size_t size[2] = {cls_pixel_size(spec->input_type), cls_pixel_size(spec->output_type)};
    const cl_long offset[2] = {(cl_long)(r->offset[0] / size[0]), (cl_long)(r->offset[1] / size[1])};
    const cl_int pitch[2] = {(cl_int)(r->pitch[0] / size[0]), (cl_int)(r->pitch[1] / size[1])};
    const cl_long slice_pitch[2] = {(cl_long)(r->slice_pitch[0] / size[0]), (cl_long)(r->slice_pitch[1] / size[1])};
    const cls_launch_geometry *g = &r->geometry;
    const cl_int width = (cl_int)g->width, height = (cl_int)g->height, depth = (cl_int)r->depth;
    const cl_int4 roi = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                          (cl_int)(g->roi_y + g->roi_height)}};
    const cl_int2 roi_z = {{(cl_int)r->roi_z, (cl_int)(r->roi_z + r->roi_depth)}};
    cl_kernel k = work->kernel;
    cl_uint a = 0;
    cl_int error = clSetKernelArg(k, a++, sizeof input, &input);
    error |= clSetKernelArg(k, a++, sizeof offset[0], &offset[0]);
    error |= clSetKernelArg(k, a++, sizeof pitch[0], &pitch[0]);
    error |= clSetKernelArg(k, a++, sizeof slice_pitch[0], &slice_pitch[0]);
    error |= clSetKernelArg(k, a++, sizeof output, &output);
    error |= clSetKernelArg(k, a++, sizeof offset[1], &offset[1]);
    error |= clSetKernelArg(k, a++, sizeof pitch[1], &pitch[1]);
    error |= clSetKernelArg(k, a++, sizeof slice_pitch[1], &slice_pitch[1]);
    error |= clSetKernelArg(k, a++, sizeof width, &width);
    error |= clSetKernelArg(k, a++, sizeof height, &height);
    error |= clSetKernelArg(k, a++, sizeof depth, &depth);
    error |= clSetKernelArg(k, a++, sizeof roi, &roi);
    error |= clSetKernelArg(k, a++, sizeof roi_z, &roi_z);
    error |= clSetKernelArg(k, a++, sizeof work->mask, &work->mask);
    error |= clSetKernelArg(k, a++, sizeof spec->border_value, &spec->border_value);
    return error;
}

static size_t round_up(size_t value, size_t step)
{
    return (value + step - 1) / step * step;
}

/* The pixels from a slice's first to its last, rows and their padding included. */
static size_t slice_pixels(const cls_kernel_config *c, const cls_resolved_image *r)
{
    return (size_t)(r->geometry.height - 1) * (r->pitch[0] / cls_pixel_size(c->spec.input_type)) + r->geometry.width;
}

static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *r, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* checked: one */
    (void)image;
    cls_volume_work *work = opaque;
    const cls_kernel_config *c = work->config;
    const size_t local[3] = {c->group_width, c->group_height, 1};
    const size_t columns = (r->geometry.roi_width + c->cols - 1) / c->cols; /* work-items along x */
    const size_t rows = (r->geometry.roi_height + cls_volume_block_rows(c) - 1) / cls_volume_block_rows(c); /* along y */
    const size_t global[3] = {round_up(columns, local[0]), round_up(rows, local[1]),
                              (r->roi_depth + c->rows - 1) / c->rows};
    if (cls_volume_block_rows(c) > 1 && slice_pixels(c, r) > INT_MAX)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the volume's slices span %zu pixels, more than the walk of several rows a work-item "
                        "addresses (2^31): filter it with the global input path (cls_spec.input_path)", slice_pixels(c, r));
    pthread_mutex_lock(&work->launch_lock);
    cl_int error = set_arguments(work, input, outputs[0], r);
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(work->context->queue, work->kernel, 3, NULL, global, local, wait_count,
                                       wait_list, event);
    else
        error = CL_INVALID_KERNEL_ARGS;
    pthread_mutex_unlock(&work->launch_lock);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "launching the volume filter failed: %s", cls_cl_error_name(error));
    return CLS_OK;
}

static unsigned one_kernel(const void *work)
{
    (void)work;
    return 1;
}

const cls_work_ops cls_volume_work_ops = {enqueue_work, one_kernel, NULL, NULL, release_work, 0, NULL};
