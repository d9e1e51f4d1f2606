/* rank_bodies.h — operator bodies for the rank filters (median, percentile, min/max, i.e. grey
 * erosion and dilation, and the morphological gradient) over a footprint: a rectangle, a cross, a
 * disk or the cells of a mask file inside an odd WxH window (internal). The bodies follow the
 * rules of body_check.h and read pixels only with IN(dx, dy) inside the window, so the emitter
 * treats them like any user-written body. */
#ifndef CLS_RANK_BODIES_H
#define CLS_RANK_BODIES_H

#include "clstencil.h"
#include "strbuf.h"

/* Footprints up to this many pixels are selected by an unrolled network over registers; larger
 * ones are copied to a private array and selected by a loop (Wirth's quickselect). */
#define CLS_RANK_UNROLLED_MAX 49
/* Median and percentile footprints hold at most this many pixels (a private array of floats,
 * 4 KiB per work-item): 31x31 is the largest square. Min and max have no such limit. */
#define CLS_RANK_MAX_PIXELS 1024

typedef enum cls_footprint_shape {
    CLS_FOOTPRINT_RECT = 0, /* every pixel of the window */
    CLS_FOOTPRINT_CROSS,    /* the centre row and the centre column */
    CLS_FOOTPRINT_DISK,     /* dx^2 / rx^2 + dy^2 / ry^2 <= 1, rx = W/2, ry = H/2 (integer halves) */
    CLS_FOOTPRINT_MASK,     /* the cells that are 1 (a footprint file); bodies test them with MASK,
                             * so the operator's mask must hold the cells as written */
} cls_footprint_shape;

typedef struct cls_footprint {
    cls_footprint_shape shape;
    unsigned width, height;     /* odd, 1..CLS_MAX_MASK */
    const unsigned char *cells; /* MASK: width x height, row-major, 1 inside (not owned) */
    int reflected;              /* the pixels are those at (-dx, -dy): grey dilation's footprint
                                 * (the same pixels for the symmetric rect, cross and disk) */
} cls_footprint;

/* "rect", "cross" or "disk" (case-insensitive) into *shape; 0 for anything else (a mask comes
 * from a file, not a word). */
int cls_footprint_shape_parse(const char *word, cls_footprint_shape *shape);
const char *cls_footprint_shape_name(cls_footprint_shape shape);
/* Whether the offset (dx, dy) from the centre lies in the footprint. */
int cls_footprint_contains(const cls_footprint *footprint, int dx, int dy);
/* The number of pixels in the footprint (at least 1: the centre is always in it). */
unsigned cls_footprint_count(const cls_footprint *footprint);

/* The body writing the value of rank RANK (0 = the smallest) among the footprint's pixels; the
 * median is rank count/2. A malloc'd string in *body, or CLS_ERR_INVALID_ARGUMENT when the
 * footprint holds more than CLS_RANK_MAX_PIXELS pixels or RANK is not below the count. */
cls_status cls_rank_body(const cls_footprint *footprint, unsigned rank, const char *what, char **body);
/* The 5x5 rectangle's body's section for two columns in two lanes (rank_two_lanes.c; internal). */
void cls_rank5_two_lanes(strbuf *out, unsigned rank);
/* The body writing the footprint's minimum or, with maximum set, maximum: grey erosion, and grey
 * dilation with the footprint reflected. */
cls_status cls_extremum_body(const cls_footprint *footprint, int maximum, char **body);
/* The body writing the morphological gradient, grey dilation - grey erosion: the maximum over the
 * reflected footprint minus the minimum over the footprint. */
cls_status cls_morph_gradient_body(const cls_footprint *footprint, char **body);
/* The footprint with its pixels reflected through the centre (or back). */
cls_footprint cls_footprint_reflect(const cls_footprint *footprint);

#endif
