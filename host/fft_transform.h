/* fft_transform.h — batched real 2-D and 3-D FFTs in place on an OpenCL buffer, through VkFFT's
 * OpenCL backend (internal; the only file that includes VkFFT is fft_transform.c). */
#ifndef CLS_FFT_TRANSFORM_H
#define CLS_FFT_TRANSFORM_H

#include "clstencil.h"

typedef struct cls_fft_transform cls_fft_transform;

/* The floats a row of a real WIDTH-wide transform takes in place: its spectrum's WIDTH / 2 + 1
 * complex values. */
size_t cls_fft_row_floats(unsigned width);
/* Whether VkFFT transforms a side of N fast: a multiple of 16 whose other prime factors are 3 and
 * 5 (an H200 took 373 µs for 81 tiles of 480^2 and 401 for 25 of 864^2, but 479 for 49 of 625^2,
 * 468 for 144 of 375^2 and 484 for 4 of 2100^2); and the least such side at least N. */
int cls_fft_size_fast(unsigned n);
unsigned cls_fft_size_at_least(unsigned n);
/* The largest fast side at most N (N at least 16). */
unsigned cls_fft_size_at_most(unsigned n);

/* A plan for BATCHES real WIDTH x HEIGHT x DEPTH transforms in place in BUFFER (DEPTH 1: 2-D
 * ones): transform t's slice w, row v starts at float ((t * DEPTH + w) * HEIGHT + v) *
 * cls_fft_row_floats(WIDTH); the forward transform leaves the spectrum there (WIDTH / 2 + 1
 * complex values a row), the inverse the real values divided by WIDTH * HEIGHT * DEPTH. Builds VkFFT's kernels (CLS_ERR_BUILD naming VkFFT's error). VkFFT 1.2.26's
 * binaries saved to a string and loaded back overran their buffer under AddressSanitizer, so they
 * are not cached: the drivers' own caches keep the kernels between processes. */
cls_status cls_fft_transform_create(cl_context context, cl_device_id device, cl_mem buffer, unsigned width,
                                    unsigned height, unsigned depth, unsigned batches, cls_fft_transform **out);
/* Enqueues the forward (inverse 0) or inverse transform on QUEUE, in order after what the queue
 * ran before (an in-order queue). */
cls_status cls_fft_transform_enqueue(cls_fft_transform *transform, cl_command_queue queue, int inverse);
void cls_fft_transform_release(cls_fft_transform *transform);

#endif
