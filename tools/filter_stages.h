/* filter_stages.h — a `clstencil filter` plan's steps as the stages of one pipeline, with what -v
 * says about each (filter_stages.c). */
#ifndef CLS_TOOLS_FILTER_STAGES_H
#define CLS_TOOLS_FILTER_STAGES_H

#include "filter_run.h"

/* The pipeline and what -v says about each of its stages. */
typedef struct filter_stages {
    cls_pipeline *pipeline; /* created by the caller, empty */
    const char **labels;    /* one per pipeline stage; point into the plan or at literals */
    char (*created)[64];    /* one per stage: the kernel it was created with (filter_stage_variant) */
    size_t count, capacity;
} filter_stages;

/* The plan's border modes and value set in SPEC. */
void filter_plan_set_borders(const filter_plan *plan, cls_spec *spec);
/* The border mode along y, which the pieces of an image split into rows (strips, bands) meet. */
cls_border filter_plan_rows_border(const filter_plan *plan);
/* Adds every step of PLAN in order to S's pipeline, reading the input (named "input", of the
 * image's type) or f32 images: the last step writes the plan's output type, every other one f32;
 * `auto` chooses for IMAGE's size. Returns the command's exit code, after a message. */
int filter_stages_build(filter_stages *s, const filter_plan *plan, const cls_host_image *image);
/* How a stencil stage computes, into TEXT: "fft", or its partition and outputs per work-item. */
void filter_stage_variant(const cls_filter *stage, char *text, size_t size);
/* Releases the pipeline (waiting for tiered builds) and the labels. */
void filter_stages_free(filter_stages *s);

#endif
