/* low_rank.c — a mask as a sum of a few rank-1 terms (column x row), from its singular value
 * decomposition by one-sided Jacobi rotations in double precision (masks are at most 63x63). */
#include "generator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rotates columns p and q of the height x width matrix a (row-major) and of the width x width v
 * until they are orthogonal; returns whether they were not yet. */
static int orthogonalize(double *a, double *v, unsigned width, unsigned height, unsigned p, unsigned q)
{
    double alpha = 0, beta = 0, gamma = 0;
    for (unsigned j = 0; j < height; ++j) {
        const double x = a[j * width + p], y = a[j * width + q];
        alpha += x * x, beta += y * y, gamma += x * y;
    }
    if (gamma == 0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) return 0;
    const double zeta = (beta - alpha) / (2 * gamma);
    const double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
    const double c = 1 / sqrt(1 + t * t), s = c * t;
    for (unsigned j = 0; j < height; ++j) {
        const double x = a[j * width + p], y = a[j * width + q];
        a[j * width + p] = c * x - s * y, a[j * width + q] = s * x + c * y;
    }
    for (unsigned i = 0; i < width; ++i) {
        const double x = v[i * width + p], y = v[i * width + q];
        v[i * width + p] = c * x - s * y, v[i * width + q] = s * x + c * y;
    }
    return 1;
}

/* The largest difference between the mask and its first `rank` terms. */
static double residual_of(const float *mask, unsigned width, unsigned height, const float *rows, const float *columns,
                          unsigned rank)
{
    double worst = 0;
    for (unsigned j = 0; j < height; ++j)
        for (unsigned i = 0; i < width; ++i) {
            double sum = 0;
            for (unsigned k = 0; k < rank; ++k) sum += (double)columns[k * height + j] * rows[k * width + i];
            worst = fmax(worst, fabs(mask[j * width + i] - sum));
        }
    return worst;
}

unsigned cls_mask_low_rank(const float *mask, unsigned width, unsigned height, float *rows, float *columns,
                           double *residual)
{
    double *a = malloc(sizeof(double) * width * height), *v = calloc((size_t)width * width, sizeof(double));
    unsigned *order = malloc(sizeof(unsigned) * width);
    double *norms = malloc(sizeof(double) * width);
    unsigned found = 0;
    *residual = INFINITY;
    if (!a || !v || !order || !norms) goto done;
    double largest = 0;
    for (unsigned k = 0; k < width * height; ++k) a[k] = mask[k], largest = fmax(largest, fabs(mask[k]));
    for (unsigned i = 0; i < width; ++i) v[i * width + i] = 1;
    /* mask = A = U S V^T: rotate A's columns until they are orthogonal (A V = U S) */
    for (int sweep = 0, rotated = 1; rotated && sweep < 60; ++sweep) {
        rotated = 0;
        for (unsigned p = 0; p + 1 < width; ++p)
            for (unsigned q = p + 1; q < width; ++q) rotated |= orthogonalize(a, v, width, height, p, q);
    }
    for (unsigned i = 0; i < width; ++i) {
        double sum = 0;
        for (unsigned j = 0; j < height; ++j) sum += a[j * width + i] * a[j * width + i];
        norms[i] = sqrt(sum), order[i] = i;
    }
    for (unsigned i = 1; i < width; ++i) /* by singular value, the largest first */
        for (unsigned k = i; k > 0 && norms[order[k]] > norms[order[k - 1]]; --k) {
            const unsigned t = order[k];
            order[k] = order[k - 1], order[k - 1] = t;
        }
    /* term k: column = U's column times its singular value (A V's column), row = V's column */
    const unsigned most = width < CLS_LOW_RANK_MAX ? width : CLS_LOW_RANK_MAX;
    for (unsigned k = 0; k < most; ++k) {
        for (unsigned j = 0; j < height; ++j) columns[k * height + j] = (float)a[j * width + order[k]];
        for (unsigned i = 0; i < width; ++i) rows[k * width + i] = (float)v[i * width + order[k]];
        *residual = residual_of(mask, width, height, rows, columns, k + 1);
        if (*residual <= (double)CLS_SEPARABLE_TOLERANCE * largest) {
            found = k + 1;
            break;
        }
    }
done:
    free(a), free(v), free(order), free(norms);
    return found;
}
