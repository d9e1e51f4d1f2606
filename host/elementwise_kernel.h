/* elementwise_kernel.h — building and launching an element-wise kernel (generator/elementwise.h)
 * on a context (internal): the pipelines' element-wise stages and the low-rank terms' sum. */
#ifndef CLS_ELEMENTWISE_KERNEL_H
#define CLS_ELEMENTWISE_KERNEL_H

#include "host.h"

/* One image an element-wise kernel reads or writes: its buffer, its first pixel's byte offset
 * and its row pitch in bytes (0: packed rows of the image's width). */
typedef struct cls_elementwise_image {
    cl_mem buffer;
    size_t offset, pitch;
    cls_pixel_type type;
} cls_elementwise_image;

/* Generates and builds "out = EXPRESSION" over COUNT named operands of TYPES into OUTPUT_TYPE;
 * *source (when not NULL) receives the generated text (malloc'd), *info (when not NULL) the
 * build's facts. */
cls_status cls_elementwise_build(cls_context *context, const char *expression, const char *const *names,
                                 const cls_pixel_type *types, size_t count, cls_pixel_type output_type,
                                 cl_program *program, cl_kernel *kernel, char **source, cls_build_info *info);

/* Launches KERNEL over the region (x0, y0, x1, y1) of an image WIDTH pixels wide: COUNT operands,
 * then the output, after wait_list; WHAT names it in messages. */
cls_status cls_elementwise_enqueue(cls_context *context, cl_kernel kernel, const cls_elementwise_image *operands,
                                   size_t count, const cls_elementwise_image *output, size_t width,
                                   const cl_int region[4], cl_uint wait_count, const cl_event *wait_list,
                                   cl_event *event, const char *what);

#endif
