/* gaussian_masks.c — masks built from the sampled, normalized Gaussian (see gaussian_masks.h),
 * computed in double and stored as float. */
#include "gaussian_masks.h"

#include "clstencil.h"

#include <math.h>

double cls_gaussian_default_size(double sigma) { return 2 * floor(4 * sigma + 0.5) + 1; }

/* The normalized 1-D Gaussian g and, when second is not NULL, its second-derivative weights. */
static void weights(unsigned size, double sigma, double *g, double *second)
{
    const int half = (int)size / 2;
    const double s2 = sigma * sigma;
    double total = 0;
    for (int i = -half; i <= half; ++i) total += g[i + half] = exp(-0.5 / s2 * i * i);
    for (int i = -half; i <= half; ++i) {
        g[i + half] /= total;
        if (second) second[i + half] = ((double)i * i / (s2 * s2) - 1 / s2) * g[i + half];
    }
}

/* The 1-D weights of derivative ORDER (0, 1 or 2) as a correlation reads them: the normalized g
 * times 1, i / sigma^2 or i^2 / sigma^4 - 1 / sigma^2. scipy convolves with g's derivatives
 * (-i / sigma^2 for the first), which is correlating with them reversed: the same weights. */
static void derivative_weights(unsigned size, double sigma, unsigned order, double *w)
{
    double g[CLS_MAX_MASK], second[CLS_MAX_MASK];
    weights(size, sigma, g, second);
    const int half = (int)size / 2;
    for (int i = -half; i <= half; ++i)
        w[i + half] = order == 0 ? g[i + half] : order == 1 ? i / (sigma * sigma) * g[i + half] : second[i + half];
}

void cls_gaussian_mask(unsigned size, double sigma, float *mask)
{
    double g[CLS_MAX_MASK];
    weights(size, sigma, g, NULL);
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) mask[j * size + i] = (float)(g[j] * g[i]);
}

void cls_difference_of_gaussians_mask(unsigned size, double sigma1, double sigma2, float *mask)
{
    double g1[CLS_MAX_MASK], g2[CLS_MAX_MASK];
    weights(size, sigma1, g1, NULL);
    weights(size, sigma2, g2, NULL);
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) mask[j * size + i] = (float)(g1[j] * g1[i] - g2[j] * g2[i]);
}

void cls_laplacian_of_gaussian_mask(unsigned size, double sigma, float *mask)
{
    double g[CLS_MAX_MASK], d2[CLS_MAX_MASK];
    weights(size, sigma, g, d2);
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) mask[j * size + i] = (float)(d2[i] * g[j] + g[i] * d2[j]);
}

void cls_unsharp_mask(unsigned size, double sigma, double amount, float *mask)
{
    double g[CLS_MAX_MASK];
    weights(size, sigma, g, NULL);
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) {
            const double centre = i == size / 2 && j == size / 2 ? 1 + amount : 0;
            mask[j * size + i] = (float)(centre - amount * g[j] * g[i]);
        }
}

void cls_gaussian_derivative_mask(unsigned size, double sigma, unsigned order_x, unsigned order_y, float *mask)
{
    double wx[CLS_MAX_MASK], wy[CLS_MAX_MASK];
    derivative_weights(size, sigma, order_x, wx);
    derivative_weights(size, sigma, order_y, wy);
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) mask[j * size + i] = (float)(wy[j] * wx[i]);
}
