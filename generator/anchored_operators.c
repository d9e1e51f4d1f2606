/* anchored_operators.c — operators from arrays: a weighted sum of any weights and a rank or
 * morphology operator over any footprint, of odd or even sides, whose output pixel sits at the
 * window's centre shifted by an origin (scipy.ndimage's origin, OpenCV's anchor). The kernels
 * know only centred, odd windows: such a window is written into the smallest centred odd one
 * that holds it, the cells around it zero (weights, skipped when baked) or outside the footprint. */
#include "generator.h"

#include "error.h"
#include "operator_internal.h"
#include "rank_bodies.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where SIDE cells with origin ORIGIN land in a centred odd window: its side and the index of
 * their first cell. scipy's rule: the output pixel is cell side/2 + origin, which must be a cell. */
static cls_status place_axis(const char *what, const char *axis, unsigned side, int origin, unsigned max_side,
                             unsigned *padded, unsigned *first)
{
    if (side == 0 || side > max_side)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s: a side of %u along %s: sides are 1 to %u", what, side, axis, max_side);
    const long centre = (long)(side / 2) + origin;
    if (centre < 0 || centre >= (long)side)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s: origin %d along %s puts the output pixel outside the %u cells "
                        "(from %d to %d)", what, origin, axis, side, -(int)(side / 2), (int)((side - 1) / 2));
    const long reach = centre > (long)side - 1 - centre ? centre : (long)side - 1 - centre;
    if (2 * reach + 1 > (long)max_side)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s: %u cells with origin %d along %s reach %ld from the output pixel; "
                        "windows stop at %u", what, side, origin, axis, reach, max_side);
    *padded = (unsigned)(2 * reach + 1);
    *first = (unsigned)(reach - centre);
    return CLS_OK;
}

/* The placement of a width x height (x depth) array with ORIGIN (x, y, z; NULL: centred). */
typedef struct placement {
    unsigned side[3], first[3], given[3];
} placement;

static cls_status place(const char *what, unsigned width, unsigned height, unsigned depth, const int origin[3],
                        placement *p)
{
    static const char *const axes[3] = {"x", "y", "z"};
    const unsigned given[3] = {width, height, depth ? depth : 1};
    for (int k = 0; k < 3; ++k) {
        const unsigned limit = k == 2 ? (depth ? CLS_MAX_MASK_DEPTH : 1) : CLS_MAX_MASK;
        const cls_status status = place_axis(what, axes[k], given[k], origin ? origin[k] : 0, limit, &p->side[k], &p->first[k]);
        if (status != CLS_OK) return status;
        p->given[k] = given[k];
    }
    return CLS_OK;
}

/* Copies the given cells (x fastest) into the zeroed padded array. */
#define PLACE_CELLS(p, from, to)                                                                                          \
    for (unsigned z = 0; z < (p)->given[2]; ++z)                                                                          \
        for (unsigned y = 0; y < (p)->given[1]; ++y)                                                                      \
            for (unsigned x = 0; x < (p)->given[0]; ++x)                                                                  \
                (to)[((size_t)(z + (p)->first[2]) * (p)->side[1] + y + (p)->first[1]) * (p)->side[0] + x + (p)->first[0]] = \
                    (from)[((size_t)z * (p)->given[1] + y) * (p)->given[0] + x]

static int is_centred(const placement *p)
{
    return p->side[0] == p->given[0] && p->side[1] == p->given[1] && p->side[2] == p->given[2];
}

cls_status cls_weights_operator(const char *name, const float *weights, unsigned width, unsigned height, unsigned depth,
                                const int origin[3], cls_operator **out)
{
    char what[64];
    snprintf(what, sizeof what, "%s weights", name);
    placement p;
    cls_status status = place(what, width, height, depth, origin, &p);
    if (status != CLS_OK) return status;
    const size_t taps = (size_t)width * height * p.given[2];
    for (size_t k = 0; k < taps; ++k)
        if (!isfinite(weights[k])) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s: weight %zu is not finite", what, k);
    if ((status = cls_operator_new_volume(p.side[0], p.side[1], depth ? p.side[2] : 0, out)) != CLS_OK) return status;
    PLACE_CELLS(&p, weights, (*out)->mask);
    if (depth) snprintf((*out)->name, sizeof (*out)->name, "%s:%ux%ux%u", name, width, height, depth);
    else snprintf((*out)->name, sizeof (*out)->name, "%s:%ux%u", name, width, height);
    return CLS_OK;
}

cls_status cls_operator_weights(const float *weights, unsigned width, unsigned height, unsigned depth,
                                const int origin[3], cls_operator **out)
{
    if (!weights || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "weights or output pointer is NULL");
    *out = NULL;
    const cls_status status = cls_weights_operator("correlate", weights, width, height, depth, origin, out);
    if (status == CLS_OK && origin && (origin[0] || origin[1] || (depth && origin[2]))) {
        const size_t n = strlen((*out)->name);
        snprintf((*out)->name + n, sizeof (*out)->name - n, "@%d,%d,%d", origin[0], origin[1], depth ? origin[2] : 0);
    }
    return status;
}

cls_status cls_footprint_operator(const char *text, const char *name, double percent, const unsigned char *cells,
                                  unsigned width, unsigned height, const int origin[3], cls_operator **out)
{
    const int shift[3] = {origin ? origin[0] : 0, origin ? origin[1] : 0, 0};
    char what[96];
    snprintf(what, sizeof what, "operator '%s'", text);
    placement p;
    cls_status status = place(what, width, height, 0, shift, &p);
    if (status != CLS_OK) return status;
    unsigned char *padded = calloc((size_t)p.side[0] * p.side[1], 1);
    if (!padded) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    size_t inside = 0, all = (size_t)width * height;
    for (size_t k = 0; k < all; ++k) inside += cells[k] != 0;
    PLACE_CELLS(&p, cells, padded);
    for (size_t k = 0, n = (size_t)p.side[0] * p.side[1]; k < n; ++k) padded[k] = padded[k] != 0;
    if (inside == 0) status = cls_operator_refuse(text, "the footprint holds no pixel");
    /* a whole centred rectangle is the rectangle, with its faster passes */
    const int rectangle = inside == all && is_centred(&p);
    char label[96];
    if (is_centred(&p)) snprintf(label, sizeof label, "%ux%u,%s", width, height, rectangle ? "rect" : "cells");
    else snprintf(label, sizeof label, "%ux%u@%d,%d,cells", width, height, shift[0], shift[1]);
    const cls_footprint footprint = {rectangle ? CLS_FOOTPRINT_RECT : CLS_FOOTPRINT_MASK, p.side[0], p.side[1], padded, 0};
    if (status == CLS_OK) status = cls_morphology_build(text, name, percent, &footprint, label, out);
    free(padded);
    return status;
}

/* A volume's footprint: the minimum (min, erode) or maximum (max; dilate over the footprint
 * reflected through the output voxel) of the cells, or their median or PERCENT percentile (scipy's
 * ranks: N/2; floor(N * P / 100), N - 1 for 100), as a volume mask of ones (cls_spec.reduction). */
static cls_status volume_footprint(const char *text, const char *name, double percent, const unsigned char *cells,
                                   unsigned width, unsigned height, unsigned depth, const int origin[3],
                                   cls_operator **out)
{
    const int dilate = strcmp(name, "dilate") == 0, maximum = dilate || strcmp(name, "max") == 0;
    const int median = strcmp(name, "median") == 0, rank = median || strcmp(name, "percentile") == 0;
    if (!maximum && !rank && strcmp(name, "min") != 0 && strcmp(name, "erode") != 0)
        return cls_operator_refuse(text, "a volume's footprint takes min, erode, max, dilate, median or percentile");
    const size_t taps = (size_t)width * height * depth;
    float *values = malloc(taps * sizeof *values);
    if (!values) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    size_t inside = 0;
    for (size_t k = 0; k < taps; ++k) inside += (values[k] = cells[k] != 0) != 0;
    cls_status status = inside ? cls_weights_operator(name, values, width, height, depth, origin, out)
                               : cls_operator_refuse(text, "the footprint holds no pixel");
    free(values);
    if (status != CLS_OK) return status;
    cls_spec *spec = &(*out)->spec;
    const size_t padded = (size_t)spec->mask_width * spec->mask_height * spec->mask_depth;
    for (size_t k = 0; dilate && k < padded - 1 - k; ++k) { /* reflected: every axis reversed */
        const float t = (*out)->mask[k];
        (*out)->mask[k] = (*out)->mask[padded - 1 - k];
        (*out)->mask[padded - 1 - k] = t;
    }
    spec->reduction = rank ? CLS_REDUCTION_RANK : maximum ? CLS_REDUCTION_MAX : CLS_REDUCTION_MIN;
    if (rank) spec->rank = cls_footprint_rank(median, percent, inside);
    if (rank && !median)
        snprintf((*out)->name, sizeof (*out)->name, "percentile3d:%g,%ux%ux%u@%d,%d,%d,cells", percent, width, height,
                 depth, origin ? origin[0] : 0, origin ? origin[1] : 0, origin ? origin[2] : 0);
    else
        snprintf((*out)->name, sizeof (*out)->name, "%s3d:%ux%ux%u@%d,%d,%d,cells", name, width, height, depth,
                 origin ? origin[0] : 0, origin ? origin[1] : 0, origin ? origin[2] : 0);
    return CLS_OK;
}

cls_status cls_operator_footprint(const char *name, double percent, const unsigned char *cells, unsigned width,
                                  unsigned height, unsigned depth, const int origin[3], cls_operator **out)
{
    if (!name || !cells || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "name, cells or output pointer is NULL");
    *out = NULL;
    char lower[32];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof lower; ++n) lower[n] = (char)tolower((unsigned char)name[n]);
    lower[n] = '\0';
    if (name[n] || !cls_morphology_operator(lower))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint operator '%s': expected median, percentile, min, max, erode, "
                        "dilate, morphgradient, opening, closing, tophat or blackhat", name);
    if (strcmp(lower, "percentile") == 0 && !(percent >= 0 && percent <= 100))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint operator 'percentile': the percentile %g is not from 0 to 100",
                        percent);
    char text[64];
    if (depth) {
        snprintf(text, sizeof text, "%s:%ux%ux%u", lower, width, height, depth);
        return volume_footprint(text, lower, percent, cells, width, height, depth, origin, out);
    }
    if (origin && origin[2])
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint operator '%s': origin %d along z of a 2-D footprint", lower,
                        origin[2]);
    snprintf(text, sizeof text, "%s:%ux%u", lower, width, height);
    return cls_footprint_operator(text, lower, percent, cells, width, height, origin, out);
}
