/* volume_operators.c — the named operators of volumes: gaussian3d:SIZE[,SIGMA] (the Gaussian of
 * every axis, its weights normalized to sum 1, SIGMA by default as gaussian:'s), box3d:SIZE (the
 * mean of SIZE^3 voxels), and min3d:SIZE and max3d:SIZE (the minimum and maximum over a SIZE^3
 * box); any other volume mask is correlate: or convolve: with WxHxD. */
#include "operator_internal.h"

#include "error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int cls_volume_operator(const char *name)
{
    return strcmp(name, "gaussian3d") == 0 || strcmp(name, "box3d") == 0 || strcmp(name, "min3d") == 0 ||
           strcmp(name, "max3d") == 0 || strcmp(name, "median3d") == 0 || strcmp(name, "percentile3d") == 0;
}

/* Whether value is a whole, odd cube side from 1 to CLS_MAX_MASK_DEPTH. */
static int odd_side(double value)
{
    return cls_operator_odd_size(value) && value <= CLS_MAX_MASK_DEPTH;
}

static cls_status gaussian3d(unsigned size, double sigma, cls_operator **out)
{
    cls_status status = cls_operator_new_volume(size, size, size, out);
    if (status != CLS_OK) return status;
    double weights[CLS_MAX_MASK_DEPTH], total = 0;
    const int half = (int)size / 2;
    for (int i = -half; i <= half; ++i) total += weights[i + half] = exp(-(double)(i * i) / (2 * sigma * sigma));
    const double cube = total * total * total;
    for (unsigned k = 0; k < size; ++k)
        for (unsigned j = 0; j < size; ++j)
            for (unsigned i = 0; i < size; ++i)
                (*out)->mask[((size_t)k * size + j) * size + i] = (float)(weights[k] * weights[j] * weights[i] / cube);
    snprintf((*out)->name, sizeof (*out)->name, "gaussian3d:%u,%g", size, sigma);
    cls_operator_bake_rank1(*out);
    return CLS_OK;
}

cls_status cls_volume_parse(const char *text, const char *name, int count, const double *n, cls_operator **out)
{
    if (strcmp(name, "gaussian3d") == 0) {
        if (count < 1 || count > 2 || !odd_side(n[0]) || (count == 2 && !(isfinite(n[1]) && n[1] > 1e-3)))
            return cls_operator_refuse(text, "expected gaussian3d:SIZE[,SIGMA] with an odd SIZE up to 31 and SIGMA above 0.001");
        return gaussian3d((unsigned)n[0], count == 2 ? n[1] : 0.3 * ((n[0] - 1) * 0.5 - 1) + 0.8, out);
    }
    const int percentile = strcmp(name, "percentile3d") == 0, median = strcmp(name, "median3d") == 0;
    if (percentile && (count != 2 || !(n[0] >= 0 && n[0] <= 100)))
        return cls_operator_refuse(text, "expected percentile3d:P,SIZE with P from 0 to 100 and an odd SIZE up to 9");
    const double percent = percentile ? n[0] : 0, side = n[percentile]; /* percentile3d: P, then SIZE */
    if (count - percentile != 1 || !odd_side(side) || ((median || percentile) && side * side * side > CLS_RANK_MAX_TAPS))
        return cls_operator_refuse(text, strcmp(name, "box3d") == 0 ? "expected box3d:SIZE with an odd SIZE up to 31"
                                         : median || percentile
                                             ? "expected median3d:SIZE or percentile3d:P,SIZE with an odd SIZE up to 9 "
                                               "(a rank's footprint holds at most 1,024 voxels)"
                                             : "expected min3d:SIZE or max3d:SIZE with an odd SIZE up to 31");
    const unsigned size = (unsigned)side;
    const cls_status status = cls_operator_new_volume(size, size, size, out);
    if (status != CLS_OK) return status;
    const int box = strcmp(name, "box3d") == 0;
    for (size_t k = 0; k < (size_t)size * size * size; ++k) (*out)->mask[k] = box ? 1.0f / (float)(size * size * size) : 1.0f;
    if (box) cls_operator_bake_rank1(*out);
    else (*out)->spec.reduction = strcmp(name, "min3d") == 0 ? CLS_REDUCTION_MIN : CLS_REDUCTION_MAX;
    if (median || percentile) {
        (*out)->spec.reduction = CLS_REDUCTION_RANK;
        (*out)->spec.rank = cls_footprint_rank(median, percent, (size_t)size * size * size);
    }
    if (percentile) snprintf((*out)->name, sizeof (*out)->name, "%s:%g,%u", name, percent, size);
    else snprintf((*out)->name, sizeof (*out)->name, "%s:%u", name, size);
    return CLS_OK;
}
