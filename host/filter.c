/* filter.c — a built local operator: spec checked against the device, source generated and
 * built, and launches with the region bounds computed on the host for each image size. */
#include "build.h"

#include "error.h"
#include "generator.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cls_filter {
    cls_context *context;
    cls_kernel_config config;
    char *source;
    cl_program program;
    cl_kernel kernel;
    cl_mem mask;
    cls_build_info build_info;
    pthread_mutex_t launch_lock; /* clSetKernelArg + enqueue must not interleave */
};

static cls_status check_group_shape(const cls_device_caps *caps, unsigned width, unsigned height)
{
    if ((size_t)width * height > caps->max_work_group_size || width > caps->max_work_item_sizes[0] ||
        height > caps->max_work_item_sizes[1])
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "work-group shape %ux%u exceeds the limits of %s: at most %zu work-items, "
                        "%zu wide and %zu high",
                        width, height, caps->name, caps->max_work_group_size,
                        caps->max_work_item_sizes[0], caps->max_work_item_sizes[1]);
    return CLS_OK;
}

static cls_status create_kernel(cls_filter *filter)
{
    cls_context *context = filter->context;
    cls_status status = cls_program_get(context, filter->source, CLS_KERNEL_NAME, &filter->program,
                                        &filter->build_info);
    if (status != CLS_OK) return status;
    cl_int error;
    filter->kernel = clCreateKernel(filter->program, CLS_KERNEL_NAME, &error);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    const cls_spec *spec = &filter->config.spec;
    filter->mask = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  sizeof(float) * spec->mask_width * spec->mask_height,
                                  filter->config.coefficients, &error);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "cannot create the mask buffer: %s", cls_cl_error_name(error));
    return CLS_OK;
}

cls_status cls_filter_create(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    if (!context || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context or output pointer is NULL");
    *out = NULL;
    cls_filter *filter = calloc(1, sizeof *filter);
    if (!filter) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    filter->context = context;
    pthread_mutex_init(&filter->launch_lock, NULL);
    const unsigned simd = context->caps.simd_width ? context->caps.simd_width : context->record.simd_width;
    cls_status status = cls_kernel_config_init(&filter->config, spec, simd, context->record.default_wg_x,
                                               context->record.default_wg_y);
    if (status == CLS_OK)
        status = check_group_shape(&context->caps, filter->config.group_width, filter->config.group_height);
    if (status == CLS_OK) {
        filter->source = cls_emit_source(&filter->config);
        if (!filter->source) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    }
    if (status == CLS_OK) status = create_kernel(filter);
    if (status != CLS_OK) {
        cls_filter_release(filter);
        return status;
    }
    *out = filter;
    return CLS_OK;
}

void cls_filter_release(cls_filter *filter)
{
    if (!filter) return;
    if (filter->mask) clReleaseMemObject(filter->mask);
    if (filter->kernel) clReleaseKernel(filter->kernel);
    if (filter->program) clReleaseProgram(filter->program);
    free(filter->source);
    cls_kernel_config_free(&filter->config);
    pthread_mutex_destroy(&filter->launch_lock);
    free(filter);
}

void cls_filter_build_info(const cls_filter *filter, cls_build_info *info)
{
    if (filter && info) *info = filter->build_info;
}

const char *cls_filter_source(const cls_filter *filter) { return filter ? filter->source : NULL; }

cls_partition cls_filter_partition(const cls_filter *filter)
{
    return filter ? filter->config.partition : CLS_PARTITION_AUTO;
}

void cls_filter_group_shape(const cls_filter *filter, unsigned *width, unsigned *height)
{
    if (width) *width = filter ? filter->config.group_width : 0;
    if (height) *height = filter ? filter->config.group_height : 0;
}

/* Resolves tight pitches and checks the geometry; pitches come back in bytes. */
static cls_status check_image(const cls_filter *filter, const cls_image_desc *image, size_t *input_pitch,
                              size_t *output_pitch)
{
    if (!image) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image description is NULL");
    if (image->width == 0 || image->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", image->width, image->height);
    if (image->width > INT_MAX || image->height > INT_MAX)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is too large (at most %d per side)",
                        image->width, image->height, INT_MAX);
    const size_t sizes[2] = {cls_pixel_size(filter->config.spec.input_type),
                             cls_pixel_size(filter->config.spec.output_type)};
    const size_t given[2] = {image->input_row_pitch, image->output_row_pitch};
    size_t *resolved[2] = {input_pitch, output_pitch};
    const char *names[2] = {"input", "output"};
    for (int k = 0; k < 2; ++k) {
        const size_t row = image->width * sizes[k];
        *resolved[k] = given[k] ? given[k] : row;
        if (*resolved[k] < row)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is smaller than a row (%zu pixels of %zu bytes)",
                            names[k], *resolved[k], image->width, sizes[k]);
        if (*resolved[k] % sizes[k] || *resolved[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], *resolved[k], sizes[k]);
    }
    return CLS_OK;
}

static size_t image_bytes(size_t pitch, size_t width, size_t height, size_t pixel)
{
    return pitch * (height - 1) + width * pixel;
}

static cls_status check_buffer(cl_mem buffer, const char *name, size_t needed)
{
    size_t size = 0;
    cl_int error = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s is not a valid buffer: %s", name, cls_cl_error_name(error));
    if (size < needed)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s buffer holds %zu bytes; the image needs %zu", name,
                        size, needed);
    return CLS_OK;
}

cls_status cls_filter_enqueue(cls_filter *filter, cl_mem input, cl_mem output, const cls_image_desc *image,
                              cl_uint wait_count, const cl_event *wait_list, cl_event *event)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    size_t input_pitch, output_pitch;
    cls_status status = check_image(filter, image, &input_pitch, &output_pitch);
    const cls_spec *spec = &filter->config.spec;
    const size_t in_size = cls_pixel_size(spec->input_type), out_size = cls_pixel_size(spec->output_type);
    if (status == CLS_OK)
        status = check_buffer(input, "input", image_bytes(input_pitch, image->width, image->height, in_size));
    if (status == CLS_OK)
        status = check_buffer(output, "output", image_bytes(output_pitch, image->width, image->height, out_size));
    if (status != CLS_OK) return status;

    const unsigned tx = filter->config.group_width, ty = filter->config.group_height;
    cls_region_bounds bounds;
    cls_region_bounds_compute((unsigned)image->width, (unsigned)image->height, spec->mask_width,
                              spec->mask_height, tx, ty, &bounds);
    const cl_int in_pitch = (cl_int)(input_pitch / in_size), out_pitch = (cl_int)(output_pitch / out_size);
    const cl_int width = (cl_int)image->width, height = (cl_int)image->height;
    const cl_int4 group_bounds = {{bounds.left, bounds.right, bounds.top, bounds.bottom}};
    const cl_int2 body_columns = {{bounds.body_x0, bounds.body_x1}};
    const size_t global[2] = {(size_t)bounds.groups_x * tx, (size_t)bounds.groups_y * ty};
    const size_t local[2] = {tx, ty};

    pthread_mutex_lock(&filter->launch_lock);
    cl_kernel k = filter->kernel;
    cl_int error = clSetKernelArg(k, 0, sizeof input, &input);
    error |= clSetKernelArg(k, 1, sizeof in_pitch, &in_pitch);
    error |= clSetKernelArg(k, 2, sizeof output, &output);
    error |= clSetKernelArg(k, 3, sizeof out_pitch, &out_pitch);
    error |= clSetKernelArg(k, 4, sizeof width, &width);
    error |= clSetKernelArg(k, 5, sizeof height, &height);
    error |= clSetKernelArg(k, 6, sizeof filter->mask, &filter->mask);
    error |= clSetKernelArg(k, 7, sizeof spec->border_value, &spec->border_value);
    error |= clSetKernelArg(k, 8, sizeof group_bounds, &group_bounds);
    error |= clSetKernelArg(k, 9, sizeof body_columns, &body_columns);
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(filter->context->queue, k, 2, NULL, global, local, wait_count,
                                       wait_list, event);
    else
        error = CL_INVALID_KERNEL_ARGS;
    pthread_mutex_unlock(&filter->launch_lock);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "launching the filter failed: %s", cls_cl_error_name(error));
    return CLS_OK;
}

cls_status cls_filter_run_host(cls_filter *filter, const void *input, void *output, const cls_image_desc *image)
{
    if (!filter || !input || !output) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter or image pointer is NULL");
    size_t input_pitch, output_pitch;
    cls_status status = check_image(filter, image, &input_pitch, &output_pitch);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &filter->config.spec;
    const size_t in_bytes = image_bytes(input_pitch, image->width, image->height, cls_pixel_size(spec->input_type));
    const size_t out_bytes = image_bytes(output_pitch, image->width, image->height, cls_pixel_size(spec->output_type));
    cl_context cl = filter->context->context;
    cl_int error, error_out;
    /* The output buffer starts as the caller's output, so pixels and padding the kernel does
     * not write keep their values. */
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes, (void *)input, &error);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_bytes, output, &error_out);
    if (error != CL_SUCCESS || error_out != CL_SUCCESS) {
        status = cls_fail(CLS_ERR_OPENCL, "cannot create the image buffers: %s",
                          cls_cl_error_name(error != CL_SUCCESS ? error : error_out));
    } else {
        cls_image_desc resolved = *image;
        resolved.input_row_pitch = input_pitch;
        resolved.output_row_pitch = output_pitch;
        status = cls_filter_enqueue(filter, in, out, &resolved, 0, NULL, NULL);
        if (status == CLS_OK) {
            error = clEnqueueReadBuffer(filter->context->queue, out, CL_TRUE, 0, out_bytes, output, 0, NULL, NULL);
            if (error != CL_SUCCESS)
                status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
        }
    }
    if (in) clReleaseMemObject(in);
    if (out) clReleaseMemObject(out);
    return status;
}
