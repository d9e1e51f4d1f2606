/* elementwise_kernel.c — building and launching an element-wise kernel (see elementwise_kernel.h). */
#include "elementwise_kernel.h"

#include "build.h"
#include "elementwise.h"
#include "error.h"

#include <stdlib.h>

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
    const size_t global[2] = {(size_t)(region[2] - region[0]), (size_t)(region[3] - region[1])};
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(context->queue, kernel, 2, NULL, global, NULL, wait_count, wait_list, event);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "launching %s failed: %s", what, cls_cl_error_name(error));
}
