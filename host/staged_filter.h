/* staged_filter.h — filters whose operator body runs in stages (generator/staged_body.h), such as
 * the morphological opening and the top-hats (internal). A staged run is one ordinary filter (or
 * van Herk kernel) per stage, chained through f32 images it owns on the device, and, when the body
 * combines, a small kernel that subtracts the result from the input (or the input from the
 * result) unless its last van Herk kernel subtracts as it writes; or, on GPUs, two extremum stages and the combination as one fused kernel
 * (generator/staged_body.h, cls_staged_fuses). cls_filter_create
 * makes a filter around a staged run for a staged spec, so that hosts, pipelines and the Python
 * package reach it through any spec. */
#ifndef CLS_STAGED_FILTER_H
#define CLS_STAGED_FILTER_H

#include "host.h"

typedef struct cls_staged_run cls_staged_run;

/* A filter running the staged body of SPEC (which must be staged); built now, every stage with the
 * spec's build goal. */
cls_status cls_filter_create_staged(cls_context *context, const cls_spec *spec, cls_filter **out);

/* Builds the stages' filters and the combination kernel of a valid staged spec. */
cls_status cls_staged_run_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                                 cls_staged_run **out);
void cls_staged_run_release(cls_staged_run *run);
/* Every stage's source, then the combination's, with comment lines between, or the fused
 * kernel's (owned). */
const char *cls_staged_run_source(const cls_staged_run *run);
/* The number of steps (the stages, or 1 for the fused kernel) and stage K's filter (NULL for an
 * extremum stage or the fused kernel: a kernel the run launches itself). */
unsigned cls_staged_run_count(const cls_staged_run *run);
/* The kernels a launch runs: the stages and the combination, or the fused kernel alone. */
unsigned cls_staged_run_kernel_count(const cls_staged_run *run);
cls_filter *cls_staged_run_stage(const cls_staged_run *run, unsigned k);
/* Waits for every stage's background build (CLS_BUILD_TIERED); the first failure's status. */
cls_status cls_staged_run_wait(cls_staged_run *run);
/* Launches go through cls_staged_run_ops (host.h). */

#endif
