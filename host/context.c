/* context.c — a clstencil context: the selected device, its OpenCL context and a profiling
 * in-order queue, and the device's database record (policy defaults for `auto`). */
#include "build.h"

#include "error.h"

#include <stdlib.h>

cls_status cls_context_create(const char *selector, cls_context **out)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    cls_device_list *list = NULL;
    cls_status status = cls_devices_query(&list);
    size_t index = 0;
    if (status == CLS_OK) status = cls_device_select(list, selector, &index);
    cls_device_db *db = NULL;
    if (status == CLS_OK) status = cls_device_db_load(NULL, &db);
    cls_context *context = status == CLS_OK ? calloc(1, sizeof *context) : NULL;
    if (status == CLS_OK && !context) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK) {
        pthread_mutex_init(&context->programs_lock, NULL);
        context->device = cls_device_list_id(list, index);
        context->caps = *cls_device_list_get(list, index);
        const cls_arch_record *record = cls_device_db_match(db, &context->caps, &context->match_level);
        if (record) context->record = *record;
        cl_int error;
        context->context = clCreateContext(NULL, 1, &context->device, NULL, NULL, &error);
        if (error == CL_SUCCESS)
            context->queue = clCreateCommandQueue(context->context, context->device,
                                                  CL_QUEUE_PROFILING_ENABLE, &error);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "cannot create an OpenCL context and queue on %s: %s",
                              context->caps.name, cls_cl_error_name(error));
    }
    cls_device_db_release(db);
    cls_device_list_release(list);
    if (status != CLS_OK) {
        cls_context_release(context);
        return status;
    }
    *out = context;
    return CLS_OK;
}

void cls_context_release(cls_context *context)
{
    if (!context) return;
    cls_programs_release(context);
    pthread_mutex_destroy(&context->programs_lock);
    if (context->queue) clReleaseCommandQueue(context->queue);
    if (context->context) clReleaseContext(context->context);
    free(context);
}

const cls_device_caps *cls_context_device(const cls_context *context)
{
    return context ? &context->caps : NULL;
}

cl_context cls_context_cl(const cls_context *context) { return context ? context->context : NULL; }

cl_command_queue cls_context_queue(const cls_context *context) { return context ? context->queue : NULL; }
