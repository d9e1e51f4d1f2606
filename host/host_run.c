/* host_run.c — the device buffers of runs on host images (cls_filter_run_host and
 * cls_pipeline_run_host): the context keeps them between runs, grown to the largest image so far,
 * so that a run neither allocates nor frees device memory; runs of one context take turns on them.
 * A chunked run's two copy queues (host/chunked_run.c) are kept beside them.
 * On an H200 a 4096x4096 f32 filter through buffers made and freed for the run took 60 ms from
 * Python, against 15.6 ms for the bare transfers of its bytes. */
#include "host.h"

#include "error.h"

/* Buffer k (0: the input, 1 + k: output k) of at least BYTES, made again when it is smaller. */
static cls_status reserve(cls_context *context, unsigned k, size_t bytes, cl_mem *out)
{
    if (context->host_run_bytes[k] < bytes) {
        if (context->host_run_buffers[k]) clReleaseMemObject(context->host_run_buffers[k]);
        context->host_run_buffers[k] = NULL;
        context->host_run_bytes[k] = 0;
        cl_int error;
        cl_mem buffer = clCreateBuffer(context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS)
            return cls_fail(CLS_ERR_OPENCL, "cannot create a %zu-byte buffer for the image: %s", bytes,
                            cls_cl_error_name(error));
        context->host_run_buffers[k] = buffer;
        context->host_run_bytes[k] = bytes;
    }
    *out = context->host_run_buffers[k];
    return CLS_OK;
}

cls_status cls_host_run_reserve(cls_context *context, unsigned count, const size_t *bytes, cl_mem *buffers)
{
    if (count > CLS_HOST_RUN_BUFFERS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%u images in one run: at most %d", count, CLS_HOST_RUN_BUFFERS);
    pthread_mutex_lock(&context->host_run_lock);
    cls_status status = CLS_OK;
    for (unsigned k = 0; status == CLS_OK && k < count; ++k) status = reserve(context, k, bytes[k], &buffers[k]);
    if (status != CLS_OK) pthread_mutex_unlock(&context->host_run_lock);
    return status;
}

cls_status cls_host_run_begin(cls_context *context, size_t input_bytes, unsigned output_count, size_t output_bytes,
                              cl_mem *input, cl_mem *outputs)
{
    if (output_count > CLS_MAX_MASKS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%u outputs: at most %d", output_count, CLS_MAX_MASKS);
    size_t bytes[CLS_HOST_RUN_BUFFERS] = {input_bytes};
    for (unsigned k = 0; k < output_count; ++k) bytes[1 + k] = output_bytes;
    cl_mem buffers[CLS_HOST_RUN_BUFFERS];
    const cls_status status = cls_host_run_reserve(context, 1 + output_count, bytes, buffers);
    if (status != CLS_OK) return status;
    *input = buffers[0];
    for (unsigned k = 0; k < output_count; ++k) outputs[k] = buffers[1 + k];
    return CLS_OK;
}

void cls_host_run_end(cls_context *context) { pthread_mutex_unlock(&context->host_run_lock); }

cls_status cls_host_run_queues(cls_context *context, cl_command_queue queues[2])
{
    for (unsigned k = 0; k < 2; ++k) {
        cl_int error = CL_SUCCESS;
        if (!context->host_run_queues[k])
            context->host_run_queues[k] = clCreateCommandQueue(context->context, context->device, 0, &error);
        if (error != CL_SUCCESS)
            return cls_fail(CLS_ERR_OPENCL, "cannot create a queue for the copies on %s: %s", context->caps.name,
                            cls_cl_error_name(error));
        queues[k] = context->host_run_queues[k];
    }
    return CLS_OK;
}

void cls_host_run_release(cls_context *context)
{
    for (unsigned k = 0; k < CLS_HOST_RUN_BUFFERS; ++k)
        if (context->host_run_buffers[k]) clReleaseMemObject(context->host_run_buffers[k]);
    for (unsigned k = 0; k < 2; ++k)
        if (context->host_run_queues[k]) clReleaseCommandQueue(context->host_run_queues[k]);
}
