/* gaussian_masks.h — masks derived from the sampled Gaussian, for the operators difference of
 * Gaussians, Laplacian of Gaussian, unsharp masking and Gaussian derivatives (internal). Each follows
 * scipy.ndimage's definitions with a radius of SIZE/2 (scipy's truncate = radius / sigma): the
 * 1-D weights exp(-i^2 / (2 sigma^2)) normalized to sum 1, products of them across x and y. */
#ifndef CLS_GAUSSIAN_MASKS_H
#define CLS_GAUSSIAN_MASKS_H

/* The default odd window of a sigma: 2 * (int)(4 * sigma + 0.5) + 1, as scipy's truncate 4.0. */
double cls_gaussian_default_size(double sigma);
/* The normalized Gaussian of SIGMA over SIZE x SIZE into mask (row-major). */
void cls_gaussian_mask(unsigned size, double sigma, float *mask);
/* The difference of Gaussians G(SIGMA1) - G(SIGMA2) as one mask (of rank 2: the planner may run it
 * as two separable terms), each tap's difference taken in double. */
void cls_difference_of_gaussians_mask(unsigned size, double sigma1, double sigma2, float *mask);
/* The Laplacian of Gaussian: d2/dx2 G + d2/dy2 G with scipy's derivative weights
 * (i^2 / sigma^4 - 1 / sigma^2) * g(i) of the normalized 1-D g, as gaussian_laplace. */
void cls_laplacian_of_gaussian_mask(unsigned size, double sigma, float *mask);
/* Unsharp masking in + amount * (in - blur) as one mask: (1 + amount) delta - amount G. */
void cls_unsharp_mask(unsigned size, double sigma, double amount, float *mask);
/* The Gaussian's partial derivative of ORDER_X along x and ORDER_Y along y (each 0, 1 or 2) as
 * one mask, the product of the 1-D weights: scipy's gaussian_filter(order=(order_y, order_x)). */
void cls_gaussian_derivative_mask(unsigned size, double sigma, unsigned order_x, unsigned order_y, float *mask);

#endif
