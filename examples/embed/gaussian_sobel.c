/* gaussian_sobel.c — embedding clstencil in a host that owns its OpenCL objects: a Gaussian,
 * then Sobel x and y on the blurred image, then the host's own kernel for the gradient
 * magnitude, chained by events on the host's queue, with one read at the end. */
#include <clstencil.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W 640
#define H 480

static const char *magnitude_source =
    "__kernel void magnitude(__global const float *gx, __global const float *gy, __global float *out)\n"
    "{ const size_t i = get_global_id(0); out[i] = hypot(gx[i], gy[i]); }\n";

static cls_filter *make_filter(cls_context *context, const float *mask, unsigned size)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = size;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_MIRROR;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fprintf(stderr, "%s\n", cls_last_error());
    return filter;
}

int main(void)
{
    /* The host's own OpenCL set-up: the first GPU of any platform, else the first device. */
    cl_platform_id platforms[8];
    cl_uint platform_count = 0;
    cl_device_id device = NULL;
    clGetPlatformIDs(8, platforms, &platform_count);
    for (cl_uint p = 0; p < platform_count && p < 8 && !device; ++p)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS) device = NULL;
    if (!device && (platform_count == 0 || clGetDeviceIDs(platforms[0], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS))
        return fprintf(stderr, "no OpenCL device\n"), 1;
    cl_int error;
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
    cl_command_queue queue = clCreateCommandQueue(cl, device, 0, &error);
    const size_t bytes = sizeof(float) * W * H;
    float *image = malloc(bytes), *result = malloc(bytes);
    for (int y = 0; y < H; ++y) /* a bright disc on a dark ground */
        for (int x = 0; x < W; ++x)
            image[y * W + x] = hypotf((float)(x - W / 2), (float)(y - H / 2)) < 100.0f ? 1.0f : 0.0f;
    cl_mem input = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, image, &error);
    cl_mem blurred = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &error);
    cl_mem gx = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &error);
    cl_mem gy = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &error);
    cl_mem magnitude = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, bytes, NULL, &error);

    /* clstencil works on the host's context and queue; it owns neither. */
    cls_context *context = NULL;
    if (cls_context_wrap(cl, device, queue, &context) != CLS_OK) return fprintf(stderr, "%s\n", cls_last_error()), 1;
    static const float gauss[25] = {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1};
    float gauss_normalized[25];
    for (int k = 0; k < 25; ++k) gauss_normalized[k] = gauss[k] / 256.0f;
    static const float sobel_x[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1}, sobel_y[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
    cls_filter *blur = make_filter(context, gauss_normalized, 5);
    cls_filter *dx = make_filter(context, sobel_x, 3), *dy = make_filter(context, sobel_y, 3);
    if (!blur || !dx || !dy) return 1;

    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    cl_event blurred_done, derivatives_done[2], magnitude_done;
    cls_filter_enqueue(blur, input, blurred, &desc, 0, NULL, &blurred_done);
    cls_filter_enqueue(dx, blurred, gx, &desc, 1, &blurred_done, &derivatives_done[0]);
    cls_filter_enqueue(dy, blurred, gy, &desc, 1, &blurred_done, &derivatives_done[1]);

    cl_program program = clCreateProgramWithSource(cl, 1, &magnitude_source, NULL, &error);
    clBuildProgram(program, 1, &device, "", NULL, NULL);
    cl_kernel kernel = clCreateKernel(program, "magnitude", &error);
    clSetKernelArg(kernel, 0, sizeof gx, &gx);
    clSetKernelArg(kernel, 1, sizeof gy, &gy);
    clSetKernelArg(kernel, 2, sizeof magnitude, &magnitude);
    const size_t pixels = W * H;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &pixels, NULL, 2, derivatives_done, &magnitude_done);
    error = clEnqueueReadBuffer(queue, magnitude, CL_TRUE, 0, bytes, result, 1, &magnitude_done, NULL);

    /* The edge of the disc is where the gradient is: strongest on the circle, zero far away. */
    const float on_edge = result[(H / 2) * W + W / 2 + 100], centre = result[(H / 2) * W + W / 2];
    printf("gradient magnitude: %.3f on the edge, %.3f at the centre\n", on_edge, centre);
    const int ok = error == CL_SUCCESS && on_edge > 1.0f && centre < 1e-6f;

    clReleaseEvent(blurred_done), clReleaseEvent(derivatives_done[0]), clReleaseEvent(derivatives_done[1]);
    clReleaseEvent(magnitude_done);
    cls_filter_release(blur), cls_filter_release(dx), cls_filter_release(dy);
    cls_context_release(context); /* the host's objects stay valid */
    clReleaseKernel(kernel), clReleaseProgram(program);
    clReleaseMemObject(input), clReleaseMemObject(blurred), clReleaseMemObject(gx), clReleaseMemObject(gy);
    clReleaseMemObject(magnitude);
    clReleaseCommandQueue(queue), clReleaseContext(cl);
    free(image), free(result);
    return ok ? 0 : 1;
}
