/* elementwise.h — a pipeline's element-wise stages (internal): an OpenCL C expression over named
 * images of one size, evaluated pixel by pixel, such as "input + 1.5 * (input - blur)",
 * "max(a, b)" or "hypot(gx, gy)". The expression is checked before any build and runs inside a
 * function whose parameters are the operands' names, so it sees nothing else. */
#ifndef CLS_ELEMENTWISE_H
#define CLS_ELEMENTWISE_H

#include "clstencil.h"

#define CLS_ELEMENTWISE_KERNEL_NAME "clstencil_elementwise"
#define CLS_ELEMENTWISE_OPERANDS_MAX 4
#define CLS_ELEMENTWISE_MAX_BYTES 1024
#define CLS_IMAGE_NAME_MAX 32 /* with the terminating NUL */

/* Whether NAME may name a pipeline's image: a C identifier of at most 31
 * characters (CLS_IMAGE_NAME_MAX - 1), not an OpenCL C keyword or type, not starting with cls_. CLS_OK or
 * CLS_ERR_INVALID_ARGUMENT naming the rule. */
cls_status cls_image_name_check(const char *name);

/* Checks EXPRESSION (printable ASCII, one expression: no ; { } # quotes, backslashes or comments,
 * at most CLS_ELEMENTWISE_MAX_BYTES, brackets balanced) and finds the names it reads: every
 * identifier not followed by '(' (a function call) and not a constant of OpenCL C (M_PI_F,
 * INFINITY, NAN, MAXFLOAT, ...) must be one of KNOWN (COUNT names, the earlier images); the
 * indices of those it reads, each once in order of first use, go to OPERANDS (at most
 * CLS_ELEMENTWISE_OPERANDS_MAX) and their number to *OPERAND_COUNT. */
cls_status cls_elementwise_check(const char *expression, const char *const *known, size_t count, size_t *operands,
                                 size_t *operand_count);

/* The kernel CLS_ELEMENTWISE_KERNEL_NAME (malloc'd; NULL on OOM) computing EXPRESSION of the
 * operands NAMES (of TYPES) into an OUTPUT_TYPE image. Its arguments: for each operand its
 * buffer, offset and row pitch (in pixels), then the output's buffer, offset and row pitch, and
 * the region computed (int4: x0, y0, x1, y1); one work-item per pixel of the region. */
char *cls_elementwise_source(const char *expression, const char *const *names, const cls_pixel_type *types,
                             size_t count, cls_pixel_type output_type);

#endif
