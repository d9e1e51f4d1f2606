/* filter.c — a built local operator: spec checked against the device, source generated and
 * built, and launches with the region bounds computed on the host for each image size. */
#include "build.h"

#include "error.h"
#include "generator.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
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

const cls_spec *cls_filter_spec(const cls_filter *filter) { return &filter->config.spec; }

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

/* An image description with defaults filled in and every size checked. */
typedef struct resolved_image {
    size_t pitch[2], offset[2]; /* input, output: bytes */
    size_t bytes[2];            /* the buffer bytes each needs */
    cls_launch_geometry geometry;
} resolved_image;

static int multiply_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b && a > (SIZE_MAX - c) / b) return 0;
    *out = a * b + c;
    return 1;
}

static cls_status resolve_image(const cls_filter *filter, const cls_image_desc *image, resolved_image *r)
{
    if (!image) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image description is NULL");
    if (image->width == 0 || image->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", image->width, image->height);
    if (image->width > INT_MAX / 2 || image->height > INT_MAX / 2)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is too large (at most %d per side)",
                        image->width, image->height, INT_MAX / 2);
    const cls_spec *spec = &filter->config.spec;
    const size_t sizes[2] = {cls_pixel_size(spec->input_type), cls_pixel_size(spec->output_type)};
    const size_t pitches[2] = {image->input_row_pitch, image->output_row_pitch};
    const size_t offsets[2] = {image->input_offset, image->output_offset};
    static const char *const names[2] = {"input", "output"};
    for (int k = 0; k < 2; ++k) {
        const size_t row = image->width * sizes[k];
        r->pitch[k] = pitches[k] ? pitches[k] : row;
        r->offset[k] = offsets[k];
        if (r->pitch[k] < row)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is smaller than a row (%zu pixels of %zu bytes)",
                            names[k], r->pitch[k], image->width, sizes[k]);
        if (r->pitch[k] % sizes[k] || r->pitch[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->pitch[k], sizes[k]);
        if (r->offset[k] % sizes[k] || r->offset[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s offset %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->offset[k], sizes[k]);
        size_t end;
        if (!multiply_add(r->pitch[k], image->height - 1, row, &end) || !multiply_add(1, end, r->offset[k], &r->bytes[k]))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image does not fit in memory addresses", names[k]);
    }
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    cls_launch_geometry *g = &r->geometry;
    g->width = (unsigned)image->width;
    g->height = (unsigned)image->height;
    g->roi_x = whole ? 0 : (unsigned)image->roi_x;
    g->roi_y = whole ? 0 : (unsigned)image->roi_y;
    g->roi_width = whole ? g->width : (unsigned)image->roi_width;
    g->roi_height = whole ? g->height : (unsigned)image->roi_height;
    if (!whole && (image->roi_width == 0 || image->roi_height == 0 || image->roi_x >= image->width ||
                   image->roi_y >= image->height || image->roi_width > image->width - image->roi_x ||
                   image->roi_height > image->height - image->roi_y))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "region of interest %zux%zu at (%zu, %zu) is empty or leaves the %zux%zu image",
                        image->roi_width, image->roi_height, image->roi_x, image->roi_y, image->width,
                        image->height);
    g->mask_width = spec->mask_width;
    g->mask_height = spec->mask_height;
    g->group_width = filter->config.group_width;
    g->group_height = filter->config.group_height * filter->config.rows; /* the rows a group covers */
    return CLS_OK;
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
    resolved_image r;
    cls_status status = resolve_image(filter, image, &r);
    if (status == CLS_OK) status = check_buffer(input, "input", r.bytes[0]);
    if (status == CLS_OK) status = check_buffer(output, "output", r.bytes[1]);
    if (status != CLS_OK) return status;

    const cls_spec *spec = &filter->config.spec;
    const size_t in_size = cls_pixel_size(spec->input_type), out_size = cls_pixel_size(spec->output_type);
    cls_region_bounds bounds;
    cls_region_bounds_compute(&r.geometry, &bounds);
    const cl_int in_offset = (cl_int)(r.offset[0] / in_size), in_pitch = (cl_int)(r.pitch[0] / in_size);
    const cl_int out_offset = (cl_int)(r.offset[1] / out_size), out_pitch = (cl_int)(r.pitch[1] / out_size);
    const cl_int width = (cl_int)r.geometry.width, height = (cl_int)r.geometry.height;
    const cls_launch_geometry *g = &r.geometry;
    const cl_int4 roi = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                          (cl_int)(g->roi_y + g->roi_height)}};
    const cl_int4 group_bounds = {{bounds.left, bounds.right, bounds.top, bounds.bottom}};
    const cl_int2 body_columns = {{bounds.body_x0, bounds.body_x1}};
    const size_t local[2] = {filter->config.group_width, filter->config.group_height};
    const size_t global[2] = {(size_t)bounds.groups_x * local[0], (size_t)bounds.groups_y * local[1]};

    pthread_mutex_lock(&filter->launch_lock);
    cl_kernel k = filter->kernel;
    cl_uint arg = 0;
    cl_int error = clSetKernelArg(k, arg++, sizeof input, &input);
    error |= clSetKernelArg(k, arg++, sizeof in_offset, &in_offset);
    error |= clSetKernelArg(k, arg++, sizeof in_pitch, &in_pitch);
    error |= clSetKernelArg(k, arg++, sizeof output, &output);
    error |= clSetKernelArg(k, arg++, sizeof out_offset, &out_offset);
    error |= clSetKernelArg(k, arg++, sizeof out_pitch, &out_pitch);
    error |= clSetKernelArg(k, arg++, sizeof width, &width);
    error |= clSetKernelArg(k, arg++, sizeof height, &height);
    error |= clSetKernelArg(k, arg++, sizeof roi, &roi);
    error |= clSetKernelArg(k, arg++, sizeof filter->mask, &filter->mask);
    error |= clSetKernelArg(k, arg++, sizeof spec->border_value, &spec->border_value);
    error |= clSetKernelArg(k, arg++, sizeof group_bounds, &group_bounds);
    error |= clSetKernelArg(k, arg++, sizeof body_columns, &body_columns);
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
    resolved_image r;
    cls_status status = resolve_image(filter, image, &r);
    if (status != CLS_OK) return status;
    cl_context cl = filter->context->context;
    cl_int error, error_out;
    /* The output buffer starts as the caller's output, so pixels and padding the kernel does
     * not write keep their values. */
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, r.bytes[0], (void *)input, &error);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, r.bytes[1], output, &error_out);
    if (error != CL_SUCCESS || error_out != CL_SUCCESS) {
        status = cls_fail(CLS_ERR_OPENCL, "cannot create the image buffers: %s",
                          cls_cl_error_name(error != CL_SUCCESS ? error : error_out));
    } else {
        status = cls_filter_enqueue(filter, in, out, image, 0, NULL, NULL);
        if (status == CLS_OK) {
            error = clEnqueueReadBuffer(filter->context->queue, out, CL_TRUE, 0, r.bytes[1], output, 0, NULL, NULL);
            if (error != CL_SUCCESS)
                status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
        }
    }
    if (in) clReleaseMemObject(in);
    if (out) clReleaseMemObject(out);
    return status;
}
