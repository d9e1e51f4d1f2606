/* build.c — builds generated source into a program: the build options, assembled in one place,
 * and the build log on failure. */
#include "build.h"

#include "error.h"
#include "strbuf.h"

#include <stdlib.h>

void cls_build_options(const cls_device_caps *caps, strbuf *options)
{
    strbuf_append(options, "-cl-std=CL1.2");
    /* Vendor options join here, each only for the vendor that knows it. Oclgrind checks
     * memory accesses, not speed, and its interpreter lacks some intrinsics that the optimizer
     * introduces (llvm.abs.i32 from mirror101's index code). */
    if (caps->vendor == CLS_VENDOR_OCLGRIND) strbuf_append(options, " -cl-opt-disable");
}

static void append_build_log(cl_program program, cl_device_id device, strbuf *out)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS || !size)
        return;
    char *log = malloc(size + 1);
    if (!log) return;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
        log[size] = '\0';
        strbuf_append(out, log);
    }
    free(log);
}

cls_status cls_build_program(cl_context context, cl_device_id device, const cls_device_caps *caps,
                             const char *source, cl_program *out)
{
    *out = NULL;
    cl_int error;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &error);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clCreateProgramWithSource failed: %s", cls_cl_error_name(error));
    strbuf options;
    strbuf_init(&options);
    cls_build_options(caps, &options);
    error = clBuildProgram(program, 1, &device, strbuf_text(&options), NULL, NULL);
    cls_status status = CLS_OK;
    if (error != CL_SUCCESS) {
        strbuf message;
        strbuf_init(&message);
        strbuf_printf(&message, "clBuildProgram failed on %s (%s), options '%s'; build log:\n",
                      caps->name, cls_cl_error_name(error), strbuf_text(&options));
        append_build_log(program, device, &message);
        status = cls_fail(error == CL_BUILD_PROGRAM_FAILURE ? CLS_ERR_BUILD : CLS_ERR_OPENCL, "%s",
                          strbuf_text(&message));
        strbuf_free(&message);
        clReleaseProgram(program);
    } else {
        *out = program;
    }
    strbuf_free(&options);
    return status;
}
