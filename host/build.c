/* build.c — turns generated source into a program: the build options (assembled here only),
 * the build from source or from a cached binary, the build log on failure, and what the build
 * reports about the kernel (ptxas register and spill counts on NVIDIA, kernel work-group info),
 * and NVIDIA's register cap where the kernel declares one. */
#include "build.h"

#include "error.h"
#include "pocl_declarations.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cls_build_options(const cls_device_caps *caps, strbuf *options)
{
    strbuf_append(options, "-cl-std=CL1.2");
    /* Vendor options, each only for the vendor that knows it. */
    if (caps->vendor == CLS_VENDOR_NVIDIA) strbuf_append(options, " -cl-nv-verbose"); /* ptxas info in the log */
    /* Oclgrind checks memory accesses, not speed, and its interpreter lacks some intrinsics
     * that the optimizer introduces (llvm.abs.i32 from mirror101's index code). */
    if (caps->vendor == CLS_VENDOR_OCLGRIND) strbuf_append(options, " -cl-opt-disable");
}

void cls_parse_ptxas_info(const char *log, cls_build_info *info)
{
    while (log && *log) {
        const size_t length = strcspn(log, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(length < sizeof line ? length : sizeof line - 1), log);
        log += length + (log[length] == '\n');
        if (strncmp(line, "ptxas", 5) != 0) continue;
        unsigned a, b, c;
        const char *used = strstr(line, "Used "), *number = strpbrk(line + 5, "0123456789");
        if (used && sscanf(used, "Used %u registers", &a) == 1) info->registers = a;
        if (strstr(line, "bytes stack frame") && number &&
            sscanf(number, "%u bytes stack frame, %u bytes spill stores, %u bytes spill loads", &a, &b, &c) == 3) {
            info->stack_frame_bytes = a;
            info->spill_store_bytes = b;
            info->spill_load_bytes = c;
        }
    }
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

/* The kernel's work-group info, from a kernel object made for the purpose. */
static void query_kernel_info(cl_program program, cl_device_id device, const char *kernel_name,
                              cls_build_info *info)
{
    cl_int error;
    cl_kernel kernel = clCreateKernel(program, kernel_name, &error);
    if (error != CL_SUCCESS) return;
    size_t value = 0;
    cl_ulong bytes = 0;
    if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof value, &value, NULL) == CL_SUCCESS)
        info->work_group_size = value;
    if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof value, &value,
                                 NULL) == CL_SUCCESS)
        info->preferred_multiple = value;
    if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS)
        info->private_mem_size = bytes;
    if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS)
        info->local_mem_size = bytes;
    clReleaseKernel(kernel);
}

/* The generated line where each copy of a user-written body starts (the line after each
 * `#line 1 "operator"`), so that compilers which ignore #line (NVIDIA's) can be mapped too. */
static size_t body_starts(const char *source, unsigned starts[], size_t capacity)
{
    size_t count = 0;
    unsigned line = 1;
    for (const char *p = source; *p; ++p) {
        if (*p != '\n') continue;
        ++line;
        if (strncmp(p + 1, "#line 1 \"operator\"\n", 19) == 0 && count < capacity) starts[count++] = line + 1;
    }
    return count;
}

/* (build.h) Rewrites "NAME:LINE:COLUMN:" prefixes of log lines that point into a copy of the user's body
 * as "operator:LINE:COLUMN:", LINE counted in the body. */
void cls_map_body_lines(const char *source, const char *log, strbuf *out)
{
    unsigned starts[32];
    const size_t count = body_starts(source, starts, 32);
    unsigned body_lines = 1;
    const char *body = count ? strstr(source, "#line 1 \"operator\"\n") : NULL;
    for (const char *p = body ? body + 19 : ""; *p && strncmp(p, "#line ", 6) != 0; p = strchr(p, '\n') + 1) {
        if (!strchr(p, '\n')) break;
        ++body_lines;
    }
    while (*log) {
        const size_t length = strcspn(log, "\n");
        const char *colon = memchr(log, ':', length);
        unsigned line = 0, column = 0;
        int used = 0;
        size_t mapped = 0;
        if (count && colon && sscanf(colon, ":%u:%u:%n", &line, &column, &used) == 2 && used > 0 &&
            (size_t)(colon - log) + (size_t)used <= length && strncmp(log, "operator:", 9) != 0)
            for (size_t k = 0; k < count && !mapped; ++k)
                if (line >= starts[k] && line < starts[k] + body_lines - 1) mapped = line - starts[k] + 1;
        if (mapped) {
            strbuf_printf(out, "operator:%zu:%u:", mapped, column);
            strbuf_append_n(out, colon + used, length - (size_t)(colon - log) - (size_t)used);
        } else {
            strbuf_append_n(out, log, length);
        }
        strbuf_append(out, "\n");
        log += length + (log[length] == '\n');
    }
}

/* One build from source; fills info on success. */
static cls_status build_once(cl_context context, cl_device_id device, const cls_device_caps *caps,
                             const char *source, const char *options, const char *kernel_name,
                             cl_program *out, cls_build_info *info)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    cl_int error;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &error);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clCreateProgramWithSource failed: %s", cls_cl_error_name(error));
    error = clBuildProgram(program, 1, &device, options, NULL, NULL);
    strbuf log;
    strbuf_init(&log);
    append_build_log(program, device, &log);
    cls_status status = CLS_OK;
    if (error != CL_SUCCESS) {
        strbuf mapped;
        strbuf_init(&mapped);
        cls_map_body_lines(source, strbuf_text(&log), &mapped);
        status = cls_fail(error == CL_BUILD_PROGRAM_FAILURE ? CLS_ERR_BUILD : CLS_ERR_OPENCL,
                          "clBuildProgram failed on %s (%s), options '%s'; build log:\n%s", caps->name,
                          cls_cl_error_name(error), options, strbuf_text(&mapped));
        strbuf_free(&mapped);
        clReleaseProgram(program);
    } else {
        cls_parse_ptxas_info(strbuf_text(&log), info);
        query_kernel_info(program, device, kernel_name, info);
        *out = program;
    }
    strbuf_free(&log);
    return status;
}

cls_status cls_build_from_binary(cl_context context, cl_device_id device, const unsigned char *binary,
                                 size_t size, const char *options, cl_program *out)
{
    *out = NULL;
    cl_int error, binary_status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(context, 1, &device, &size, &binary, &binary_status, &error);
    if (error != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (program) clReleaseProgram(program);
        return CLS_ERR_BUILD;
    }
    error = clBuildProgram(program, 1, &device, options, NULL, NULL);
    if (error != CL_SUCCESS) {
        clReleaseProgram(program);
        return CLS_ERR_BUILD;
    }
    *out = program;
    return CLS_OK;
}

/* NVIDIA's driver keeps its own cache of compiled PTX and answers a build it has seen before
 * without ptxas's lines in the log, so without the kernel's registers, which the models need
 * (this library's binary cache then keeps them: its key changes with the library version, the
 * driver's does not). Such a build is repeated once from the source with an empty kernel of a
 * name used nowhere else appended: new PTX, which ptxas compiles and reports on. */
static void rebuild_fresh(cl_context context, cl_device_id device, const cls_device_caps *caps, const char *source,
                          const char *options, const char *kernel_name, cl_program *out, cls_build_info *info)
{
    static atomic_uint attempts;
    strbuf fresh;
    strbuf_init(&fresh);
    strbuf_printf(&fresh, "%s\n/* not in the driver's cache: a build that reports registers */\n"
                          "__kernel void clstencil_fresh_%ld_%ld_%u(void) {}\n",
                  source, (long)getpid(), (long)time(NULL), atomic_fetch_add(&attempts, 1));
    cl_program program = NULL;
    cls_build_info fresh_info;
    if (strbuf_text(&fresh)[0] &&
        build_once(context, device, caps, strbuf_text(&fresh), options, kernel_name, &program, &fresh_info) == CLS_OK &&
        fresh_info.registers) {
        clReleaseProgram(*out);
        *out = program;
        *info = fresh_info;
    } else if (program) {
        clReleaseProgram(program);
    }
    strbuf_free(&fresh);
}

/* The kernel's register cap on NVIDIA (register_cap.c): the program's PTX with .maxnreg, built
 * again. The uncapped program stays where that fails. */
static void cap_registers(cl_context context, cl_device_id device, const char *options, const char *kernel_name,
                          unsigned cap, cl_program *out, cls_build_info *info)
{
    unsigned char *binary = NULL;
    size_t size = 0;
    char *ptx = cls_program_binary(*out, &binary, &size) ? cls_ptx_with_maxnreg((const char *)binary, size, kernel_name, cap)
                                                           : NULL;
    free(binary);
    cl_program capped = NULL;
    if (ptx && cls_build_from_binary(context, device, (const unsigned char *)ptx, strlen(ptx), options, &capped) ==
                   CLS_OK) {
        strbuf log;
        strbuf_init(&log);
        append_build_log(capped, device, &log);
        cls_build_info capped_info = {0};
        cls_parse_ptxas_info(strbuf_text(&log), &capped_info);
        query_kernel_info(capped, device, kernel_name, &capped_info);
        if (!capped_info.registers) capped_info.registers = cap; /* ptxas keeps within it */
        strbuf_free(&log);
        clReleaseProgram(*out);
        *out = capped;
        *info = capped_info;
    }
    free(ptx);
}

/* On PoCL: the source after the declarations of the builtins it calls (pocl_declarations.c), and
 * where that build fails, the source as it is, whose log then tells the error. In check mode a
 * source that builds only as it is fails, with the reduced build's log. */
static cls_status build_for_pocl(cl_context context, cl_device_id device, const cls_device_caps *caps,
                                 const cls_kernel_source *kernel, const char *options, cl_program *out,
                                 cls_build_info *info)
{
    const cls_pocl_declarations_mode mode = cls_pocl_declarations_mode_get();
    strbuf source, reduced_options, reduced_log;
    strbuf_init(&source);
    strbuf_init(&reduced_options);
    strbuf_init(&reduced_log);
    cls_status status = CLS_ERR_BUILD;
    const int reduced = mode != CLS_POCL_DECLARATIONS_OFF && cls_pocl_declarations(kernel->text, &source);
    if (reduced) {
        strbuf_append(&source, kernel->text);
        strbuf_printf(&reduced_options, "%s %s", options, CLS_POCL_DECLARATIONS_OPTION);
        if (!strbuf_failed(&source) && !strbuf_failed(&reduced_options))
            status = build_once(context, device, caps, strbuf_text(&source), strbuf_text(&reduced_options),
                                kernel->name, out, info);
        if (status != CLS_OK) strbuf_append(&reduced_log, cls_last_error());
    }
    if (status != CLS_OK) {
        status = build_once(context, device, caps, kernel->text, options, kernel->name, out, info);
        if (status == CLS_OK && reduced && mode == CLS_POCL_DECLARATIONS_CHECK) {
            clReleaseProgram(*out);
            *out = NULL;
            status = cls_fail(CLS_ERR_BUILD, "%s builds with PoCL's whole header but not with the declarations "
                              "its source calls (CLSTENCIL_POCL_DECLARATIONS=check): %s",
                              kernel->name, strbuf_text(&reduced_log));
        }
    }
    strbuf_free(&source);
    strbuf_free(&reduced_options);
    strbuf_free(&reduced_log);
    return status;
}

cls_status cls_build_from_source(cl_context context, cl_device_id device, const cls_device_caps *caps,
                                 const cls_kernel_source *kernel, const char *options, cl_program *out,
                                 cls_build_info *info)
{
    if (caps->vendor == CLS_VENDOR_POCL) return build_for_pocl(context, device, caps, kernel, options, out, info);
    cls_status status = build_once(context, device, caps, kernel->text, options, kernel->name, out, info);
    if (status != CLS_OK || caps->vendor != CLS_VENDOR_NVIDIA) return status;
    if (!info->registers) rebuild_fresh(context, device, caps, kernel->text, options, kernel->name, out, info);
    const unsigned cap = kernel->register_cap;
    if (cap && (kernel->cap_only_lowers ? info->registers > cap : info->registers != cap))
        cap_registers(context, device, options, kernel->name, cap, out, info);
    return CLS_OK;
}

int cls_program_binary(cl_program program, unsigned char **binary, size_t *size)
{
    *binary = NULL;
    *size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL) != CL_SUCCESS || !*size)
        return 0;
    *binary = malloc(*size);
    if (*binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof *binary, binary, NULL) == CL_SUCCESS)
        return 1;
    free(*binary);
    *binary = NULL;
    return 0;
}
