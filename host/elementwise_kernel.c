/* elementwise_kernel.c — building and launching an element-wise kernel (see elementwise_kernel.h). */
#include "elementwise_kernel.h"

#include "build.h"
#include "elementwise.h"
#include "error.h"

#include <stdlib.h>

/* The width of an element-wise kernel's groups, where the device allows it. */
#define ELEMENTWISE_GROUP_WIDTH 128u

cls_status cls_elementwise_build(cls_context *context, const char *expression, const char *const *names,
                                 const cls_pixel_type *types, size_t count, cls_pixel_type output_type,
                                 cl_program *program, cl_kernel *kernel, char **source, cls_build_info *info)
{
    char *text = cls_elementwise_source(expression, names, types, count, output_type);
    if (!text) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    cls_build_info unused;
    const cls_kernel_source generated = {text, CLS_ELEMENTWISE_KERNEL_NAME, 0, 0};
    cls_status status = cls_program_get(context, &generated, program, info ? info : &unused);
    cl_int error = CL_SUCCESS;
    if (status == CLS_OK && !(*kernel = clCreateKernel(*program, CLS_ELEMENTWISE_KERNEL_NAME, &error)))
        status = cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    if (source) *source = text;
    else free(text);
    return status;
}

/* Sets an image's three arguments (buffer, offset and pitch in pixels) from *argument on. */
static cls_status set_image(cl_kernel kernel, cl_uint *argument, const cls_elementwise_image *image, size_t width,
                            const char *what)
{
    const size_t pixel = cls_pixel_size(image->type), pitch = image->pitch ? image->pitch : width * pixel;
    if (image->offset % pixel || pitch % pixel)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s: offsets and row pitches must be whole pixels", what);
    const cl_int offset = (cl_int)(image->offset / pixel), pitch_pixels = (cl_int)(pitch / pixel);
    cl_int error = clSetKernelArg(kernel, (*argument)++, sizeof image->buffer, &image->buffer);
    error |= clSetKernelArg(kernel, (*argument)++, sizeof offset, &offset);
    error |= clSetKernelArg(kernel, (*argument)++, sizeof pitch_pixels, &pitch_pixels);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "%s: setting its arguments failed: %s", what,
                                          cls_cl_error_name(error));
}

cls_status cls_elementwise_enqueue(cls_context *context, cl_kernel kernel, const cls_elementwise_image *operands,
                                   size_t count, const cls_elementwise_image *output, size_t width,
                                   const cl_int region[4], cl_uint wait_count, const cl_event *wait_list,
                                   cl_event *event, const char *what)
{
    cl_uint argument = 0;
    cls_status status = CLS_OK;
    for (size_t j = 0; j < count && status == CLS_OK; ++j) status = set_image(kernel, &argument, &operands[j], width, what);
    if (status == CLS_OK) status = set_image(kernel, &argument, output, width, what);
    if (status != CLS_OK) return status;
    const cl_int4 bounds = {{region[0], region[1], region[2], region[3]}};
    cl_int error = clSetKernelArg(kernel, argument, sizeof bounds, &bounds);
    /* On a CPU, one-row groups of up to ELEMENTWISE_GROUP_WIDTH along x, the region rounded up to
     * them (the kernel skips what lies outside): left to choose, PoCL (2 cores) took 194 ms for the
     * sum of a low-rank mask's two terms over 22 bands of 8192x383, 85 ms so. A GPU's driver
     * chooses (on an H200 those groups made a low-rank sum 3-4% slower). */
    const int cpu = context->caps.type == CLS_DEVICE_CPU;
    const size_t most = context->caps.max_work_group_size;
    const size_t group = most && most < ELEMENTWISE_GROUP_WIDTH ? most : ELEMENTWISE_GROUP_WIDTH;
    const size_t width_here = (size_t)(region[2] - region[0]), local[2] = {group, 1};
    const size_t global[2] = {cpu ? (width_here + group - 1) / group * group : width_here,
                              (size_t)(region[3] - region[1])};
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(context->queue, kernel, 2, NULL, global, cpu ? local : NULL, wait_count, wait_list,
                                       event);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "launching %s failed: %s", what, cls_cl_error_name(error));
}
