/* cross_check.h — what the offline cross-compile check shares: the caps an OpenCL runtime reports
 * for a device record's GPU (cross_device.c) and the variant families it compiles
 * (cross_families.c). Built against the library's internals, like the tests. */
#ifndef CLS_CROSS_CHECK_H
#define CLS_CROSS_CHECK_H

#include "clstencil.h"
#include "clstencil_tuning.h"
#include "generator.h"
#include "models.h"
#include "planner.h"

#include <stddef.h>

/* The caps a device of RECORD reports: its vendor, type, architecture and SIMD width, and the
 * limits its vendor's runtime gives every such GPU (64 KiB of local memory a group, 256 work-items
 * a group on AMD). */
void cls_cross_device_caps(const cls_arch_record *record, cls_device_caps *caps);

/* `auto`'s models for OPERATOR_TEXT at WIDTH x HEIGHT on the AMD record's GPU, the kernels' VGPRs
 * and LDS from clang's AMDGPU backend (cross_plan.c): prints the choice; 0 after a message. */
int cls_cross_plan(const cls_arch_record *record, const char *operator_text, unsigned width, unsigned height);

/* One variant family: a filter's spec (with the operator it may point at), or a pipeline's
 * element-wise stage. */
typedef struct cls_cross_family {
    cls_spec spec;
    cls_operator *op;
    int elementwise;
} cls_cross_family;

size_t cls_cross_family_count(void);
const char *cls_cross_family_name(size_t index);
/* Family INDEX's spec into *family; 0 after a message. Free with cls_cross_family_free. */
int cls_cross_family_spec(size_t index, cls_cross_family *family);
void cls_cross_family_free(cls_cross_family *family);

#endif
