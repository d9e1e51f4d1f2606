/* kernel_work.c — the work of a filter with one generated kernel of its own (cls_work_ops, host.h):
 * the program and kernel, the mask buffer, the kernel's arguments set for each launch (their
 * order from the generator's argument table), the copy into an input image on the image path, and
 * the same configuration with unaligned loads, built on the first launch whose rows need it. */
#include "build.h"

#include "error.h"
#include "generator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cls_kernel_work {
    cls_context *context;
    const cls_kernel_config *config; /* the filter's, which outlives the work */
    cl_program program;
    cl_kernel kernel;
    cl_mem mask;
    float *values;                /* the mask buffer's values, also the coefficients argument's */
    pthread_mutex_t launch_lock;  /* clSetKernelArg + enqueue must not interleave; also guards
                                   * the input image */
    int image_path;               /* the input is read as an image: image_input holds it */
    cls_image_input image_input;
    cl_program unaligned_program; /* the kernel with vloadN for launches whose input rows do not */
    cl_kernel unaligned_kernel;   /* start on the aligned-load width; built on first use */
};

size_t cls_kernel_coefficient_bytes(const cls_kernel_config *config)
{
    return sizeof(float) * config->spec.mask_width * config->spec.mask_height * cls_mask_depth(&config->spec) *
           config->masks;
}

size_t cls_kernel_argument_bytes(const cls_kernel_config *config)
{
    const cls_spec *spec = &config->spec;
    return sizeof(float) * (config->separable == CLS_SEPARABLE_SINGLE_PASS
                                ? (size_t)spec->mask_width + spec->mask_height
                                : (size_t)spec->mask_width * spec->mask_height * config->masks);
}

/* The values a kernel reads from the mask buffer (argument 9) or its coefficients argument: every
 * mask one after another, or for separable single-pass the row then the column; malloc'd. */
static float *mask_values(const cls_kernel_config *config)
{
    const cls_spec *spec = &config->spec;
    float *values = malloc(cls_kernel_argument_bytes(config));
    if (!values) return NULL;
    if (config->separable == CLS_SEPARABLE_SINGLE_PASS) {
        memcpy(values, config->row, spec->mask_width * sizeof(float));
        memcpy(values + spec->mask_width, config->column, spec->mask_height * sizeof(float));
    } else {
        memcpy(values, config->coefficients, cls_kernel_argument_bytes(config));
    }
    return values;
}

static void release_work(void *opaque)
{
    cls_kernel_work *work = opaque;
    if (!work) return;
    cls_image_input_release(&work->image_input);
    if (work->mask) clReleaseMemObject(work->mask);
    if (work->kernel) clReleaseKernel(work->kernel);
    if (work->program) clReleaseProgram(work->program);
    if (work->unaligned_kernel) clReleaseKernel(work->unaligned_kernel);
    if (work->unaligned_program) clReleaseProgram(work->unaligned_program);
    pthread_mutex_destroy(&work->launch_lock);
    free(work->values);
    free(work);
}

cls_status cls_kernel_work_create(cls_context *context, const cls_kernel_config *config, const char *source,
                                  cls_kernel_work **out, cls_build_info *info)
{
    *out = NULL;
    cls_kernel_work *work = calloc(1, sizeof *work);
    if (!work) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    work->context = context;
    work->config = config;
    pthread_mutex_init(&work->launch_lock, NULL);
    work->image_path = config->input_path == CLS_INPUT_IMAGE;
    cls_status status = work->image_path ? cls_image_input_check(context, config->spec.input_type) : CLS_OK;
    const cls_kernel_source kernel = {source, CLS_KERNEL_NAME, cls_kernel_register_cap(config),
                                       cls_kernel_cap_only_lowers(config)};
    if (status == CLS_OK) status = cls_program_get(context, &kernel, &work->program, info);
    cl_int error = CL_SUCCESS;
    if (status == CLS_OK && !(work->kernel = clCreateKernel(work->program, CLS_KERNEL_NAME, &error)))
        status = cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    if (status == CLS_OK && !(work->values = mask_values(config)))
        status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK &&
        !(work->mask = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      cls_kernel_argument_bytes(config), work->values, &error)))
        status = cls_fail(CLS_ERR_OPENCL, "cannot create the mask buffer: %s", cls_cl_error_name(error));
    if (status != CLS_OK) {
        release_work(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

/* Sets every kernel argument of one launch; input is the buffer or the input image. */
static cl_int set_arguments(cls_kernel_work *work, cl_kernel k, cl_mem input, const cl_mem *outputs,
                            const cls_resolved_image *r, const cls_region_bounds *bounds)
{
    const cls_spec *spec = &work->config->spec;
    const size_t in_size = cls_pixel_size(spec->input_type), out_size = cls_pixel_size(spec->output_type);
    /* The image path reads the image, not the buffer: offset and pitch are passed but unused. */
    const cl_int in_offset = work->image_path ? 0 : (cl_int)(r->offset[0] / in_size);
    const cl_int in_pitch = work->image_path ? 0 : (cl_int)(r->pitch[0] / in_size);
    const cl_int out_offset = (cl_int)(r->offset[1] / out_size), out_pitch = (cl_int)(r->pitch[1] / out_size);
    const cls_launch_geometry *g = &r->geometry;
    const cl_int width = (cl_int)g->width, height = (cl_int)g->height;
    const cl_int4 roi = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                          (cl_int)(g->roi_y + g->roi_height)}};
    const cl_int4 group_bounds = {{bounds->left, bounds->right, bounds->top, bounds->bottom}};
    const cl_int2 body_columns = {{bounds->body_x0, bounds->body_x1}};
    cl_int error = clSetKernelArg(k, CLS_ARGUMENT_INPUT, sizeof input, &input);
    error |= clSetKernelArg(k, CLS_ARGUMENT_INPUT_OFFSET, sizeof in_offset, &in_offset);
    error |= clSetKernelArg(k, CLS_ARGUMENT_INPUT_PITCH, sizeof in_pitch, &in_pitch);
    error |= clSetKernelArg(k, CLS_ARGUMENT_OUTPUT_OFFSET, sizeof out_offset, &out_offset);
    error |= clSetKernelArg(k, CLS_ARGUMENT_OUTPUT_PITCH, sizeof out_pitch, &out_pitch);
    error |= clSetKernelArg(k, CLS_ARGUMENT_WIDTH, sizeof width, &width);
    error |= clSetKernelArg(k, CLS_ARGUMENT_HEIGHT, sizeof height, &height);
    error |= clSetKernelArg(k, CLS_ARGUMENT_ROI, sizeof roi, &roi);
    error |= clSetKernelArg(k, CLS_ARGUMENT_MASK, sizeof work->mask, &work->mask);
    error |= clSetKernelArg(k, CLS_ARGUMENT_BORDER_VALUE, sizeof spec->border_value, &spec->border_value);
    error |= clSetKernelArg(k, CLS_ARGUMENT_GROUP_BOUNDS, sizeof group_bounds, &group_bounds);
    error |= clSetKernelArg(k, CLS_ARGUMENT_BODY_COLUMNS, sizeof body_columns, &body_columns);
    for (unsigned m = 0; m < cls_kernel_outputs(work->config); ++m)
        error |= clSetKernelArg(k, cls_kernel_output_argument(work->config, m), sizeof outputs[m], &outputs[m]);
    if (spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT)
        error |= clSetKernelArg(k, cls_kernel_coefficients_argument(work->config), cls_kernel_argument_bytes(work->config),
                                work->values);
    return error;
}

/* The kernel of a launch: the work's, unless it reads its window rows with aligned vector
 * loads and this image's rows do not start on that width (an odd pitch, offset or region of
 * interest), or those loads start before the window (cls_kernel_chunk_origin) and so end up to
 * width - 1 pixels past it, where the rows do not end on that width either: the buffer may end
 * with the last row. Then the same configuration with vloadN, built on first use. Called under
 * the launch lock. */
static cls_status kernel_for(cls_kernel_work *work, const cls_resolved_image *r, cl_kernel *kernel)
{
    *kernel = work->kernel;
    const cls_kernel_config *config = work->config;
    const unsigned width = cls_kernel_aligned_loads(config);
    const size_t pixel = cls_pixel_size(config->spec.input_type);
    const size_t start = r->offset[0] / pixel, first = start + r->geometry.roi_x, pitch = r->pitch[0] / pixel;
    const int past_rows = cls_kernel_chunk_origin(config) != 0 && !cls_kernel_stages_input_rows(config) &&
                          (start + r->geometry.width) % width != 0;
    if (width < 2 || (first % width == 0 && pitch % width == 0 && !past_rows)) return CLS_OK;
    if (!work->unaligned_kernel) {
        cls_kernel_config unaligned_config = *config; /* shares the owned fields; read only */
        unaligned_config.unaligned_input = 1;
        char *source = cls_emit_source(&unaligned_config);
        if (!source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
        cls_build_info info;
        const cls_kernel_source unaligned = {source, CLS_KERNEL_NAME, cls_kernel_register_cap(&unaligned_config),
                                              cls_kernel_cap_only_lowers(&unaligned_config)};
        cls_status status = cls_program_get(work->context, &unaligned, &work->unaligned_program, &info);
        free(source);
        if (status != CLS_OK) return status;
        cl_int error;
        work->unaligned_kernel = clCreateKernel(work->unaligned_program, CLS_KERNEL_NAME, &error);
        if (error != CL_SUCCESS)
            return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    }
    *kernel = work->unaligned_kernel;
    return CLS_OK;
}

/* One kernel launch (after the copy into the input image on the image path). */
static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *r, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* checked: the configuration's */
    (void)image;
    cls_kernel_work *work = opaque;
    cls_region_bounds bounds;
    cls_region_bounds_compute(&r->geometry, &bounds);
    const size_t local[2] = {work->config->group_width, work->config->group_height};
    const size_t global[2] = {(size_t)bounds.groups_x * local[0], (size_t)bounds.groups_y * local[1]};
    cls_status status = CLS_OK;
    cl_event copied = NULL;
    pthread_mutex_lock(&work->launch_lock);
    if (work->image_path) {
        /* The copy takes the caller's wait list; the kernel waits for the copy. */
        status = cls_image_input_load(&work->image_input, work->context, work->config->spec.input_type, input,
                                      r->offset[0], r->pitch[0], r->geometry.width, r->geometry.height, wait_count,
                                      wait_list, &copied);
        input = work->image_input.image;
        wait_count = 1;
        wait_list = &copied;
    }
    cl_int error = CL_SUCCESS;
    cl_kernel kernel = NULL;
    if (status == CLS_OK) status = kernel_for(work, r, &kernel);
    if (status == CLS_OK) {
        error = set_arguments(work, kernel, input, outputs, r, &bounds);
        if (error == CL_SUCCESS)
            error = clEnqueueNDRangeKernel(work->context->queue, kernel, 2, NULL, global, local,
                                           wait_count, wait_list, event);
        else
            error = CL_INVALID_KERNEL_ARGS;
    }
    pthread_mutex_unlock(&work->launch_lock);
    if (copied) clReleaseEvent(copied);
    if (status == CLS_OK && error != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "launching the filter failed: %s", cls_cl_error_name(error));
    return status;
}

static unsigned one_kernel(const void *work)
{
    (void)work;
    return 1;
}

const cls_work_ops cls_kernel_work_ops = {enqueue_work, one_kernel, NULL, NULL, release_work, 0, NULL};
