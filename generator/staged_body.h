/* staged_body.h — operator bodies that run in stages (internal). A body holding directive lines
 *
 *     #stage WxH                 the statements up to the next directive are a stage's body, a
 *                                kernel of its own over a WxH window of the previous stage's output
 *                                (the first stage reads the filter's input)
 *     #stage Wx1 min             an extremum stage: the minimum (or max, the maximum) over a window
 *     #stage 1xH max             of one row, one column or a rectangle (cls_van_herk_fits) by
 *     #stage WxH min             van Herk/Gil-Werman (van_herk.h), or by the direct loops over the
 *                                window where both sides are below CLS_VAN_HERK_MIN_SIDE (a body
 *                                stage of those loops); only comments may follow it
 *     #combine input - result    optional, last: the output is the filter's input minus the last
 *     #combine result - input    stage's result (or the result minus the input), pixel by pixel
 *
 * is staged; text before the first #stage and after #combine may only be comments. The stages
 * pass f32 images on the device (host/staged_filter.c; two extremum stages may instead run as one
 * fused kernel, cls_staged_fuses); each stage's mask is the centre of the
 * spec's mask of its window, and the spec's window covers the stages' reach together (the sum of
 * their half-sides), which is what a filter's output depends on; with the undefined border the
 * output pixels that window does not fit stay unwritten. The morphological compositions
 * (opening, closing and the top-hats) are staged bodies. No valid one-kernel body holds these
 * lines: OpenCL C knows no #stage or #combine directive. */
#ifndef CLS_STAGED_BODY_H
#define CLS_STAGED_BODY_H

#include "clstencil.h"
#include "stage_combine.h"
#include "van_herk.h"

#define CLS_STAGES_MAX 8
/* The kernel that combines the input with the stages' result. */
#define CLS_COMBINE_KERNEL_NAME "clstencil_combine"

typedef enum cls_stage_kind {
    CLS_STAGE_BODY = 0, /* the statements after the #stage line */
    CLS_STAGE_MINIMUM,  /* "#stage Wx1 min": the minimum over the window (van_herk.h) */
    CLS_STAGE_MAXIMUM,  /* "#stage Wx1 max" */
} cls_stage_kind;

typedef struct cls_body_stage {
    unsigned width, height; /* the stage's window */
    cls_stage_kind kind;
    int direct;             /* an extremum stage below CLS_VAN_HERK_MIN_SIDE: its body is the direct
                             * loops over the window, run as a body stage's */
    char *body;             /* its statements (owned; comments alone for a van Herk stage) */
    float *mask;            /* width x height: the centre of the spec's mask (owned) */
} cls_body_stage;

typedef struct cls_staged_body {
    unsigned count;
    cls_body_stage stages[CLS_STAGES_MAX];
    cls_stage_combine combine;
} cls_staged_body;

/* Whether BODY is staged: a line outside comments that starts with the directive #stage. */
int cls_body_is_staged(const char *body);
/* Where BODY's first directive line starts (NULL when it has none): what comes before it is the
 * whole operator's comment. */
const char *cls_staged_body_first_stage(const char *body);
/* Splits the staged body of SPEC into *staged (freed with cls_staged_body_free, also on failure).
 * CLS_ERR_INVALID_ARGUMENT with the directive's line when a directive, a window or the text
 * around the stages is malformed, or the stages reach beyond the spec's window. */
cls_status cls_staged_body_split(const cls_spec *spec, cls_staged_body *staged);
void cls_staged_body_free(cls_staged_body *staged);
/* Whether STAGE runs as a filter of its body (a body stage or a direct extremum stage), else as
 * cls_van_herk_source's kernel. */
int cls_stage_runs_body(const cls_body_stage *stage);
/* Whether the combination runs in the last stage, a van Herk pass (cls_van_herk_launch's combine),
 * instead of a kernel of its own: STAGED combines and its last stage does not run a body. */
int cls_staged_folds_combine(const cls_staged_body *staged);
/* Stage K's spec: SPEC's settings with the stage's window, mask and body, reading SPEC's input
 * type (the first stage) or f32 and writing SPEC's output type (the last stage, when nothing is
 * combined or it combines itself: cls_staged_folds_combine) or f32; the undefined border becomes
 * clamp (the run writes only the pixels whose whole window lies inside the image, which no
 * clamped value reaches). It points into STAGED. A van Herk stage's spec has no body (its kernel
 * is cls_van_herk_source's, not a filter's). */
cls_spec cls_staged_stage_spec(const cls_spec *spec, const cls_staged_body *staged, unsigned k);
/* The rules of a staged spec (cls_spec_validate's, for a staged body): the split succeeds and
 * every stage's spec is valid (its body by the body rules over its window). */
cls_status cls_staged_body_check(const cls_spec *spec);

/* The combination kernel CLS_COMBINE_KERNEL_NAME (malloc'd, NULL on OOM) for an input of
 * INPUT_TYPE and an output of OUTPUT_TYPE. Its arguments: input, input_offset, input_pitch (the
 * filter's input), result (the last stage's f32 image, packed), output, output_offset,
 * output_pitch (elements), width (the image's) and roi (int4: x0, y0, x1, y1), the pixels it
 * computes from (x0, y0), one work-item each, or with LANES of 8 (CPU runtimes, the van Herk
 * kernels' form in lanes) 8 adjacent ones of a row each, as vectors where all 8 lie in the region
 * (LANES 1 or 8: cls_combine_lanes). */
char *cls_combine_source(cls_stage_combine combine, cls_pixel_type input_type, cls_pixel_type output_type,
                         unsigned lanes);
/* The combination's pixels a work-item in FORM: CLS_VAN_HERK_LANES in lanes, else 1. */
unsigned cls_combine_lanes(cls_van_herk_form form);
/* Whether the split body of SPEC is two extremum stages over rectangles of more than one row and
 * column (an opening, a closing or their top-hats) in one border mode on both axes whose tiles fit
 * the fused kernel's local memory, at most 48 KiB (windows up to 15x15) and at most LOCAL_BYTES,
 * a group's on the device: cls_fused_stages_source's kernel runs them as one. */
int cls_staged_fuses(const cls_spec *spec, const cls_staged_body *staged, unsigned long long local_bytes);
/* The fused kernel (generator/fused_stages.c), malloc'd (NULL on OOM): both stages of STAGED
 * (cls_staged_fuses) and its combination in one kernel CLS_VAN_HERK_KERNEL_NAME with the van Herk
 * kernels' arguments (van_herk.h), reading SPEC's input type and writing its output type, bit for
 * bit the stages' results; launched as cls_fused_stages_launch says (a group a tile). */
char *cls_fused_stages_source(const cls_spec *spec, const cls_staged_body *staged);
cls_van_herk_launch cls_fused_stages_launch(void);
/* Every stage's source in order, then the combination's, with comment lines between: what
 * cls_generate_source gives for a staged spec (*source freed with cls_free), the extremum stages
 * in strips, a kernel each; cls_staged_source_on in a device's form (cls_van_herk_plan's). Neither
 * shows the fused kernel, whose source is cls_fused_stages_source's. */
cls_status cls_staged_source(const cls_spec *spec, unsigned simd_width, char **source);
cls_status cls_staged_source_on(const cls_spec *spec, unsigned simd_width, cls_van_herk_form form, char **source);

#endif
