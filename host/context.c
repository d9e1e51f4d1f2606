/* context.c — a clstencil context: a device with its OpenCL context and queue (created by
 * clstencil, or the caller's, wrapped without taking ownership), the device's database record
 * (policy defaults for `auto`) and the programs built on it. */
#include "build.h"

#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A configuration file that cannot be used: one line of the context's warnings. */
static void warn(cls_context *context, const char *message)
{
    const size_t used = strlen(context->warnings);
    snprintf(context->warnings + used, sizeof context->warnings - used, "%s%s (skipped)", used ? "\n" : "", message);
}

/* Whether a status is a configuration file's fault: it is skipped with a warning. */
static int file_fault(cls_status status)
{
    return status == CLS_ERR_PARSE || status == CLS_ERR_IO;
}

/* Fills the record of the context's device: capabilities, database match, program cache. A
 * malformed or unreadable overlay or tuning file is skipped with a warning (the built-in records,
 * the shipped results). */
static cls_status init_device(cls_context *context, const cls_device_caps *caps)
{
    pthread_mutex_init(&context->programs_lock, NULL);
    pthread_cond_init(&context->program_built, NULL);
    pthread_mutex_init(&context->host_run_lock, NULL);
    pthread_mutex_init(&context->pinned_lock, NULL);
    context->caps = *caps;
    char path[4096];
    const int set = cls_config_path(CLS_CONFIG_DEVICE_DB, path, sizeof path);
    cls_device_db *db = NULL;
    cls_status status = cls_device_db_load(set ? path : NULL, &db);
    if (file_fault(status)) {
        warn(context, cls_last_error());
        status = cls_device_db_load("", &db);
    }
    if (status != CLS_OK) return status;
    const cls_arch_record *record = cls_device_db_match(db, &context->caps, &context->match_level);
    if (record) context->record = *record;
    cls_device_db_release(db);
    status = cls_tuning_load(&context->tuning);
    if (file_fault(status)) warn(context, cls_last_error());
    if (context->tuning.stale) {
        char message[512];
        snprintf(message, sizeof message, "%s: %zu tuning result%s keyed in another format than this library's "
                 "(%d): run `clstencil tune` again for %s", context->tuning.stale_location, context->tuning.stale,
                 context->tuning.stale == 1 ? "" : "s", CLS_TUNING_KEY_FORMAT,
                 context->tuning.stale == 1 ? "that operator" : "those operators");
        warn(context, message);
    }
    return file_fault(status) ? CLS_OK : status;
}

const char *cls_context_warnings(const cls_context *context) { return context ? context->warnings : ""; }

/* The selected device's preferred work-group multiple and SIMD width: the vendor's width, else
 * the probe kernel's, as the disk cache recorded it when the probe was built (PoCL took 50 ms a
 * process to make the program again from its own cache), else built like any program. */
static void finish_caps(cls_context *context)
{
    size_t multiple = 0;
    if (cls_device_caps_need_probe(&context->caps)) {
        cl_program program = NULL;
        cls_build_info info = {0};
        const cls_kernel_source probe = {CLS_PROBE_SOURCE, CLS_PROBE_KERNEL, 0, 0};
        if (cls_program_cached_info(context, &probe, &info) && info.preferred_multiple) {
            multiple = (size_t)info.preferred_multiple;
        } else if (cls_program_get(context, &probe, &program, &info) == CLS_OK) {
            multiple = (size_t)info.preferred_multiple;
            clReleaseProgram(program);
        }
    }
    cls_device_caps_finish(context->device, &context->caps, multiple);
}

cls_status cls_context_create(const char *selector, cls_context **out)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    cls_device_list *list = NULL;
    cls_status status = cls_devices_query_unprobed(&list);
    size_t index = 0;
    if (status == CLS_OK) status = cls_device_select(list, selector, &index);
    cls_context *context = status == CLS_OK ? calloc(1, sizeof *context) : NULL;
    if (status == CLS_OK && !context) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK) {
        context->device = cls_device_list_id(list, index);
        status = init_device(context, cls_device_list_get(list, index));
    }
    if (status == CLS_OK) {
        cl_int error;
        context->context = clCreateContext(NULL, 1, &context->device, NULL, NULL, &error);
        if (error == CL_SUCCESS)
            context->queue = clCreateCommandQueue(context->context, context->device,
                                                  CL_QUEUE_PROFILING_ENABLE, &error);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "cannot create an OpenCL context and queue on %s: %s",
                              context->caps.name, cls_cl_error_name(error));
    }
    if (status == CLS_OK) finish_caps(context);
    cls_device_list_release(list);
    if (status != CLS_OK) {
        cls_context_release(context);
        return status;
    }
    *out = context;
    return CLS_OK;
}

/* The platform and device positions of a device, for its capability record. */
static void locate_device(cl_device_id device, cl_platform_id *platform, unsigned *platform_index,
                          unsigned *device_index)
{
    *platform_index = *device_index = 0;
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof *platform, platform, NULL);
    cl_platform_id platforms[64];
    cl_uint count = 0;
    if (clGetPlatformIDs(64, platforms, &count) != CL_SUCCESS) return;
    for (cl_uint p = 0; p < count && p < 64; ++p) {
        if (platforms[p] != *platform) continue;
        *platform_index = p;
        cl_device_id devices[64];
        cl_uint n = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &n) != CL_SUCCESS) return;
        for (cl_uint d = 0; d < n && d < 64; ++d)
            if (devices[d] == device) *device_index = d;
    }
}

cls_status cls_context_wrap(cl_context cl, cl_device_id device, cl_command_queue queue, cls_context **out)
{
    if (!out || !cl || !device || !queue)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_context_wrap needs a context, a device and a queue");
    *out = NULL;
    cl_context queue_context = NULL;
    cl_device_id queue_device = NULL;
    cl_int error = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, NULL);
    if (error == CL_SUCCESS)
        error = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device, NULL);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the command queue is not valid: %s", cls_cl_error_name(error));
    if (queue_context != cl || queue_device != device)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the command queue belongs to another context or device");
    cls_context *context = calloc(1, sizeof *context);
    if (!context) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    cl_platform_id platform = NULL;
    unsigned platform_index, device_index;
    locate_device(device, &platform, &platform_index, &device_index);
    cls_device_caps caps;
    cls_status status = cls_query_device_caps(platform, device, platform_index, device_index, &caps);
    if (status == CLS_OK) status = init_device(context, &caps);
    if (status != CLS_OK) {
        cls_context_release(context);
        return status;
    }
    /* The caller keeps its references; these are clstencil's own. */
    clRetainContext(cl);
    clRetainCommandQueue(queue);
    context->context = cl;
    context->device = device;
    context->queue = queue;
    *out = context;
    return CLS_OK;
}

void cls_context_release(cls_context *context)
{
    if (!context) return;
    cls_programs_release(context);
    cls_tuning_table_free(&context->tuning);
    pthread_mutex_destroy(&context->programs_lock);
    pthread_cond_destroy(&context->program_built);
    cls_host_run_release(context);
    pthread_mutex_destroy(&context->host_run_lock);
    if (context->queue) cls_host_memory_release(context);
    pthread_mutex_destroy(&context->pinned_lock);
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

cls_planner cls_context_lookup_planner(const cls_context *context)
{
    return (cls_planner){.caps = &context->caps, .record = &context->record, .tuning = &context->tuning};
}
