/* request.h — what the planner plans from: the caller's spec read once at the plan's entrance
 * (its struct_size honoured, then validated) with the facts of it that `auto`'s rules read,
 * computed there once. Past the entrance nothing takes the caller's spec: the policy, the
 * models, the tuning lookup and the build goal read the request, and a probe is a copy of it with
 * a knob set. */
#ifndef CLS_REQUEST_H
#define CLS_REQUEST_H

#include "generator.h"

typedef struct cls_request {
    cls_spec spec;           /* the caller's, at this library's size; its pointers are the caller's */
    float *values;           /* every mask's coefficients, slice by slice, -0 as +0 */
    unsigned masks;          /* the masks it sums (mask_count, at least 1) */
    unsigned depth;          /* the mask's slices: 1 for an image */
    int volume;              /* a volume's spec (cls_spec_is_volume) */
    int in_double;           /* its sums in double (cls_spec_in_double) */
    size_t computed_taps;    /* multiply-adds of every mask for one output: literals skip the zero
                              * taps, the other storages compute every tap */
    int body_writes_rows;    /* an operator body that writes a column of outputs itself (OUT_AT) */
    int body_in_lanes;       /* an operator body that may run in lanes (cls_body_in_lanes: 2 at any
                              * rows, 1 at one row) */
    int body_row_lanes;      /* the lanes of its own form for a column of rows (cls_body_row_lanes) */
} cls_request;

/* *request from the caller's spec: read, validated (the message of the first rule it breaks)
 * and described. Released with cls_request_free; a copy made to probe shares the values and is
 * not freed. */
cls_status cls_request_init(cls_request *request, const cls_spec *spec);
void cls_request_free(cls_request *request);

#endif
