/* host_memory.c — pinned host memory (cls_host_alloc): a buffer of CL_MEM_ALLOC_HOST_PTR mapped
 * once, whose pointer the host fills and reads; the driver copies to and from it without staging
 * it through a pinned bounce buffer of its own (NVIDIA's OpenCL best practices). The context keeps
 * the list, so that cls_host_free finds the buffer of a pointer and the context's release frees
 * what is left. */
#include "host.h"

#include "error.h"

#include <stdlib.h>

struct cls_pinned {
    cl_mem buffer;
    void *pointer;
    struct cls_pinned *next;
};

void *cls_host_alloc(cls_context *context, size_t bytes)
{
    if (!context || !bytes) {
        cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_host_alloc: %s", context ? "0 bytes" : "the context is NULL");
        return NULL;
    }
    struct cls_pinned *pinned = calloc(1, sizeof *pinned);
    if (!pinned) {
        cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    cl_int error;
    pinned->buffer = clCreateBuffer(context->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &error);
    if (error == CL_SUCCESS)
        pinned->pointer = clEnqueueMapBuffer(context->queue, pinned->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                             bytes, 0, NULL, NULL, &error);
    if (error != CL_SUCCESS) {
        if (pinned->buffer) clReleaseMemObject(pinned->buffer);
        free(pinned);
        cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes of pinned host memory on %s: %s", bytes,
                 context->caps.name, cls_cl_error_name(error));
        return NULL;
    }
    pthread_mutex_lock(&context->pinned_lock);
    pinned->next = context->pinned;
    context->pinned = pinned;
    pthread_mutex_unlock(&context->pinned_lock);
    return pinned->pointer;
}

/* Unmaps and frees one allocation (no longer in the list). */
static void release(cls_context *context, struct cls_pinned *pinned)
{
    clEnqueueUnmapMemObject(context->queue, pinned->buffer, pinned->pointer, 0, NULL, NULL);
    clFinish(context->queue);
    clReleaseMemObject(pinned->buffer);
    free(pinned);
}

void cls_host_free(cls_context *context, void *pointer)
{
    if (!context || !pointer) return;
    pthread_mutex_lock(&context->pinned_lock);
    struct cls_pinned **link = &context->pinned;
    while (*link && (*link)->pointer != pointer) link = &(*link)->next;
    struct cls_pinned *found = *link;
    if (found) *link = found->next;
    pthread_mutex_unlock(&context->pinned_lock);
    if (found) release(context, found);
}

void cls_host_memory_release(cls_context *context)
{
    while (context->pinned) {
        struct cls_pinned *next = context->pinned->next;
        release(context, context->pinned);
        context->pinned = next;
    }
}
