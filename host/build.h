/* build.h — building generated OpenCL C into a program (internal). */
#ifndef CLS_BUILD_H
#define CLS_BUILD_H

#include "host.h"
#include "strbuf.h"

/* The clBuildProgram options for a device: the one place they are assembled. */
void cls_build_options(const cls_device_caps *caps, strbuf *options);
/* Builds source for one device; on failure the status is CLS_ERR_BUILD and the message holds
 * the build log. */
cls_status cls_build_program(cl_context context, cl_device_id device, const cls_device_caps *caps,
                             const char *source, cl_program *out);

#endif
