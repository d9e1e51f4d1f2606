/* image_input.c — the image input path on the host: whether the device reads CL_R images of the
 * input type, and the copy of the caller's input buffer into the filter's image2d_t before each
 * launch (through a packed intermediate buffer when the input's rows are pitched). */
#include "host.h"

#include "error.h"

#include <stdlib.h>

/* The channel type that holds one pixel of `type` (the kernel reads it with read_imagef or
 * read_imageui). */
static cl_channel_type channel_type(cls_pixel_type type)
{
    switch (type) {
    case CLS_PIXEL_U8: return CL_UNSIGNED_INT8;
    case CLS_PIXEL_U16: return CL_UNSIGNED_INT16;
    case CLS_PIXEL_I16: return CL_SIGNED_INT16;
    case CLS_PIXEL_F16: return CL_HALF_FLOAT;
    case CLS_PIXEL_F32: return CL_FLOAT;
    case CLS_PIXEL_F64: break; /* never: f64 pixels are read from global memory (spec_validate.c) */
    }
    return CL_FLOAT;
}

static const char *channel_type_name(cl_channel_type type)
{
    switch (type) {
    case CL_UNSIGNED_INT8: return "CL_UNSIGNED_INT8";
    case CL_UNSIGNED_INT16: return "CL_UNSIGNED_INT16";
    case CL_SIGNED_INT16: return "CL_SIGNED_INT16";
    case CL_HALF_FLOAT: return "CL_HALF_FLOAT";
    default: return "CL_FLOAT";
    }
}

cls_status cls_image_input_check(const cls_context *context, cls_pixel_type type)
{
    const cls_device_caps *caps = &context->caps;
    /* PoCL 3.1 listed CL_HALF_FLOAT and read such an image as 234 wherever it held 1.0 */
    if (type == CLS_PIXEL_F16)
        return cls_fail(CLS_ERR_UNSUPPORTED, "the image input path does not take f16 input (CL_HALF_FLOAT images "
                        "read wrong values on some drivers): read it through global or local memory");
    if (!caps->image_support)
        return cls_fail(CLS_ERR_UNSUPPORTED, "the image input path needs image support, which %s lacks",
                        caps->name);
    const cl_channel_type wanted = channel_type(type);
    cl_uint count = 0;
    cl_int error = clGetSupportedImageFormats(context->context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0,
                                              NULL, &count);
    cl_image_format *formats = error == CL_SUCCESS && count ? malloc(count * sizeof *formats) : NULL;
    if (error == CL_SUCCESS && count && !formats) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (formats)
        error = clGetSupportedImageFormats(context->context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, count,
                                           formats, NULL);
    int found = 0;
    for (cl_uint k = 0; error == CL_SUCCESS && formats && k < count; ++k)
        found |= formats[k].image_channel_order == CL_R && formats[k].image_channel_data_type == wanted;
    free(formats);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "cannot list the image formats of %s: %s", caps->name,
                        cls_cl_error_name(error));
    if (!found)
        return cls_fail(CLS_ERR_UNSUPPORTED,
                        "the image input path needs CL_R %s images (%s input), which %s does not support",
                        channel_type_name(wanted), cls_pixel_type_name(type), caps->name);
    return CLS_OK;
}

cls_status cls_image_input_check_size(const cls_context *context, size_t width, size_t height)
{
    const cls_device_caps *caps = &context->caps;
    if (width > caps->image2d_max_width || height > caps->image2d_max_height)
        return cls_fail(CLS_ERR_UNSUPPORTED,
                        "the %zux%zu image exceeds the largest 2-D image of %s (%zux%zu): use another input path",
                        width, height, caps->name, caps->image2d_max_width, caps->image2d_max_height);
    return CLS_OK;
}

/* input->image with the given size, re-created when the size changed. */
static cls_status reserve_image(cls_image_input *input, cls_context *context, cls_pixel_type type, size_t width,
                                size_t height)
{
    if (input->image && input->width == width && input->height == height) return CLS_OK;
    if (input->image) clReleaseMemObject(input->image); /* freed once launches using it are done */
    input->image = NULL;
    const cl_image_format format = {CL_R, channel_type(type)};
    const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width, .image_height = height};
    cl_int error;
    input->image = clCreateImage(context->context, CL_MEM_READ_ONLY, &format, &desc, NULL, &error);
    if (error != CL_SUCCESS) {
        input->image = NULL;
        return cls_fail(CLS_ERR_OPENCL, "cannot create the %zux%zu input image: %s", width, height,
                        cls_cl_error_name(error));
    }
    input->width = width;
    input->height = height;
    return CLS_OK;
}

/* input->packed holding at least `bytes`. */
static cls_status reserve_packed(cls_image_input *input, cls_context *context, size_t bytes)
{
    if (input->packed && input->packed_bytes >= bytes) return CLS_OK;
    if (input->packed) clReleaseMemObject(input->packed);
    cl_int error;
    input->packed = clCreateBuffer(context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
    input->packed_bytes = error == CL_SUCCESS ? bytes : 0;
    if (error != CL_SUCCESS) {
        input->packed = NULL;
        return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for the packed input image: %s", bytes,
                        cls_cl_error_name(error));
    }
    return CLS_OK;
}

/* Packs the pitched rows of `buffer` into input->packed; *done is the copy's event. */
static cl_int pack_rows(cls_image_input *input, cl_command_queue queue, cl_mem buffer, size_t offset,
                        size_t pitch, size_t row_bytes, size_t height, cl_uint wait_count,
                        const cl_event *wait_list, cl_event *done)
{
    /* The byte offset as (x, y) with y * pitch + x == offset. */
    const size_t source_origin[3] = {offset % pitch, offset / pitch, 0};
    const size_t packed_origin[3] = {0, 0, 0};
    const size_t region[3] = {row_bytes, height, 1};
    return clEnqueueCopyBufferRect(queue, buffer, input->packed, source_origin, packed_origin, region, pitch, 0,
                                   row_bytes, 0, wait_count, wait_list, done);
}

cls_status cls_image_input_load(cls_image_input *input, cls_context *context, cls_pixel_type type, cl_mem buffer,
                                size_t offset, size_t pitch, size_t width, size_t height, cl_uint wait_count,
                                const cl_event *wait_list, cl_event *done)
{
    *done = NULL;
    const size_t row_bytes = width * cls_pixel_size(type);
    cls_status status = reserve_image(input, context, type, width, height);
    if (status == CLS_OK && pitch != row_bytes) status = reserve_packed(input, context, row_bytes * height);
    if (status != CLS_OK) return status;
    const size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
    cl_command_queue queue = context->queue;
    cl_int error;
    if (pitch == row_bytes) {
        error = clEnqueueCopyBufferToImage(queue, buffer, input->image, offset, origin, region, wait_count,
                                           wait_list, done);
    } else {
        cl_event packed = NULL;
        error = pack_rows(input, queue, buffer, offset, pitch, row_bytes, height, wait_count, wait_list, &packed);
        if (error == CL_SUCCESS)
            error = clEnqueueCopyBufferToImage(queue, input->packed, input->image, 0, origin, region, 1, &packed,
                                               done);
        if (packed) clReleaseEvent(packed);
    }
    if (error != CL_SUCCESS) {
        if (*done) clReleaseEvent(*done);
        *done = NULL;
        return cls_fail(CLS_ERR_OPENCL, "copying the input into its image failed: %s", cls_cl_error_name(error));
    }
    return CLS_OK;
}

void cls_image_input_release(cls_image_input *input)
{
    if (input->image) clReleaseMemObject(input->image);
    if (input->packed) clReleaseMemObject(input->packed);
    input->image = input->packed = NULL;
    input->width = input->height = input->packed_bytes = 0;
}
