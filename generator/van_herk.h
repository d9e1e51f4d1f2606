/* van_herk.h — a running minimum or maximum along one axis by van Herk/Gil-Werman (internal): the
 * kernel of a staged body's extremum stage ("#stage 31x1 min", "#stage 1x31 max"; staged_body.h).
 * The axis is cut into segments of the window's side K; each segment's prefix extremes g and
 * suffix extremes h give every output as one comparison, out[x] = ext(h[x - K/2], g[x + K/2]):
 * about three comparisons a pixel whatever K is. The results are those of the direct loop over
 * the window's taps bit for bit (fmin and fmax are exact and skip NaN; a window of NaN alone gives
 * +INFINITY for the minimum, -INFINITY for the maximum, as the loop started from them does). */
#ifndef CLS_VAN_HERK_H
#define CLS_VAN_HERK_H

#include "clstencil.h"
#include "stage_combine.h"

#define CLS_VAN_HERK_KERNEL_NAME "clstencil_van_herk"

/* How a van Herk kernel is launched over a region of interest of roi_w x roi_h outputs: work-groups
 * of group_width x group_height work-items, each group covering tile_width x tile_height outputs
 * (the row pass, the tile kernel; the strip walker: a strip of tile_width columns and tile_height
 * rows that the group walks down), or each work-item 1 x tile_height outputs (the column pass:
 * tile_width 1). */
/* How a device runs the passes: a fused window as the strip walker (GPUs) or the tile kernel; or,
 * on a record that computes in lanes (CPU runtimes: body_lanes), every window up to 31 wide by
 * the lanes kernel (CLS_VAN_HERK_LANES adjacent columns a work-item as one vector: each input
 * row's extreme across the window's width directly, then van Herk down the columns). */
typedef enum cls_van_herk_form { CLS_VAN_HERK_TILES, CLS_VAN_HERK_STRIPS, CLS_VAN_HERK_IN_LANES } cls_van_herk_form;
#define CLS_VAN_HERK_LANES 8

typedef struct cls_van_herk_launch {
    int fused;                          /* a WxH window: one kernel, rows in local memory, then columns */
    int strips;                         /* that kernel walks down strips (GPUs), else a tile a group */
    int lanes;                          /* the lanes kernel (any window): CLS_VAN_HERK_LANES columns a
                                         * work-item */
    int vertical;                       /* the column pass (a 1xK window), else the row pass (Kx1) */
    unsigned side;                      /* K */
    unsigned group_width, group_height; /* the work-group (required by all but the column pass) */
    unsigned tile_width, tile_height;   /* the column pass and the lanes kernel: a work-item's */
    cls_stage_combine combine;          /* a top-hat's subtraction in the pass (its last): the output
                                         * is the source pixel minus the extreme or the reverse */
    cls_pixel_type source_type;         /* the source's pixels (the filter's input) */
} cls_van_herk_launch;

/* From this side on (a window's longer side) a rectangle's minimum and maximum go by van
 * Herk/Gil-Werman: about three comparisons a pixel and pass whatever the side, against one a tap
 * for the direct loops. Below it the direct loops over the window are as fast or faster: on an
 * H200 (f32 4096^2) one direct kernel took 45 and 61 us at 3x3 and 5x5, van Herk 92 and 80; at
 * 7x7 the direct passes took 102 us, van Herk 79 (PoCL, 2048^2: 23 and 18 ms). An extremum stage
 * over a smaller window runs as the direct loops (staged_body.h). */
#define CLS_VAN_HERK_MIN_SIDE 7

/* Whether one extremum stage takes a WIDTH x HEIGHT window: a row, a column, or a window of more
 * than one of each whose strip walker's rows fit 32 KiB of local memory (every window up to
 * 63x63). */
int cls_van_herk_fits(unsigned width, unsigned height);
/* The launch shape of the extremum pass over STAGE's window (Kx1, 1xK, or fused WxH) in FORM,
 * combining nothing (the caller may set combine and source_type). A
 * window up to 31 wide in lanes runs as the lanes kernel (PoCL, 2048^2 f32: min 31x31 21.7 ms by
 * the tile kernel, 1x31 23.5 by the column pass). A fused window in strips (GPUs; on an H200 the
 * tile kernel took 118 us at 31x31, the walker 58) or wider than 31 runs as the strip walker,
 * else (CPUs; on PoCL the walker took about as long as the row and column passes) as the tile
 * kernel. */
cls_van_herk_launch cls_van_herk_plan(const cls_spec *stage, cls_van_herk_form form);
/* The kernel CLS_VAN_HERK_KERNEL_NAME (malloc'd, NULL on OOM) of the minimum (or, MAXIMUM set, the
 * maximum) over STAGE's window (cls_van_herk_fits), in STAGE's border mode (not undefined) and
 * pixel types, shaped as LAUNCH (cls_van_herk_plan's for STAGE) says. Its arguments: input,
 * input_offset, input_pitch, output, output_offset, output_pitch (elements), width, height (the
 * image's), roi (int4: x0, y0, x1, y1, the outputs it computes) and border_value (the constant
 * mode's pixel outside); with LAUNCH's combine, then source, source_offset and source_pitch (the
 * filter's input, of source_type). */
char *cls_van_herk_source(const cls_spec *stage, int maximum, const cls_van_herk_launch *launch);

#endif
