/* filter_steps.h — the named steps of `clstencil filter`: `--op [NAME=]OPERATOR[@FROM]` names a
 * stencil stage and the image it reads, `--combine NAME=EXPRESSION` adds an element-wise stage
 * (cls_pipeline_add_elementwise). The input image is named "input"; a step that names no source
 * reads the step before it. */
#ifndef CLS_TOOLS_FILTER_STEPS_H
#define CLS_TOOLS_FILTER_STEPS_H

#include <stddef.h>

enum { STEP_NAME_MAX = 32 };

typedef struct filter_step_text {
    char name[STEP_NAME_MAX]; /* "" when the step names none */
    char from[STEP_NAME_MAX]; /* "" when it reads the step before */
    const char *body;         /* the operator or the expression: a pointer into the text */
    size_t body_length;
} filter_step_text;

/* Splits an --op text: a leading NAME= (NAME a C identifier) and a trailing @FROM (an
 * identifier); neither is required. An operator never holds '=' before its ':' or ends in
 * "@identifier", so the split cannot change what an operator means. */
void filter_step_split_op(const char *text, filter_step_text *step);
/* Splits a --combine text NAME=EXPRESSION; 0 when there is no NAME= (the message in ERROR). */
int filter_step_split_combine(const char *text, filter_step_text *step, char *error, size_t error_size);

#endif
