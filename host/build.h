/* build.h — building generated OpenCL C into a program (internal). */
#ifndef CLS_BUILD_H
#define CLS_BUILD_H

#include "generator.h"
#include "host.h"
#include "strbuf.h"

/* The clBuildProgram options for a device: the one place they are assembled. */
void cls_build_options(const cls_device_caps *caps, strbuf *options);
/* Builds kernel's text; fills info from the log (ptxas on NVIDIA) and the kernel's work-group
 * info. On NVIDIA a kernel whose register count is not its register_cap is built again to that
 * cap; on PoCL the text gets the declarations of the builtins it calls (pocl_declarations.h). On
 * failure the status is CLS_ERR_BUILD and cls_last_error() holds the build log. */
cls_status cls_build_from_source(cl_context context, cl_device_id device, const cls_device_caps *caps,
                                 const cls_kernel_source *kernel, const char *options, cl_program *out,
                                 cls_build_info *info);
/* Creates and builds a program from a binary; CLS_ERR_BUILD (no message) when refused. */
cls_status cls_build_from_binary(cl_context context, cl_device_id device, const unsigned char *binary,
                                 size_t size, const char *options, cl_program *out);
/* The program's binary for its one device (malloc'd); 0 when the device gives none. */
int cls_program_binary(cl_program program, unsigned char **binary, size_t *size);
/* NVIDIA's PTX (size bytes, NUL-terminated or not) with ".maxnreg cap" after the parameter list of
 * kernel_name's entry (malloc'd); NULL where that entry is not found. */
char *cls_ptx_with_maxnreg(const char *ptx, size_t size, const char *kernel_name, unsigned cap);
/* Reads "Used N registers" and "N bytes stack frame, N bytes spill stores, N bytes spill
 * loads" from ptxas lines of an NVIDIA build log (-cl-nv-verbose). */
void cls_parse_ptxas_info(const char *log, cls_build_info *info);
/* Rewrites build-log positions that point into a copy of a user-written body ("<kernel>:53:13:"
 * on compilers that ignore #line) as "operator:LINE:COLUMN:", counted in the body. */
void cls_map_body_lines(const char *source, const char *log, strbuf *out);
/* The context's program for (source, kernel): from this process's cache, the disk cache, or
 * a build; one build per (context, device, source, options), safe across threads. The caller
 * releases the returned program. */
cls_status cls_program_get(cls_context *context, const cls_kernel_source *kernel, cl_program *program,
                           cls_build_info *info);
/* Whether the disk cache holds an entry for the program, with the build's facts in *info; builds
 * and loads nothing (a fact of the device such as a probe kernel's work-group multiple, without
 * the runtime's work of making the program again). */
int cls_program_cached_info(const cls_context *context, const cls_kernel_source *kernel, cls_build_info *info);
/* A cached-only scope of the calling thread: between begin and end, cls_program_get refuses
 * (CLS_ERR_UNSUPPORTED) every program that is neither in this process nor in the disk cache,
 * instead of building it; end returns 1 when it refused one. */
void cls_programs_cached_only_begin(void);
int cls_programs_cached_only_end(void);
/* Releases the context's cached programs. */
void cls_programs_release(cls_context *context);

#endif
