/* test_threads.c — one context shared by 8 threads that create filters concurrently (the same
 * specs and their own) and run them; every result is checked against the CPU reference. Run
 * under ThreadSanitizer by scripts/test.sh. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { THREADS = 8, ROUNDS = 3, W = 45, H = 31 };

static cls_context *context;
static float input[W * H];

/* Variant v: a mask size and border; the first four are shared by every thread. */
static int run_variant(int variant)
{
    const unsigned size = 3 + 2 * (unsigned)(variant % 3);
    float mask[49];
    for (unsigned k = 0; k < size * size; ++k) mask[k] = (float)(1 + (k + (unsigned)variant) % 5) / 32.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = size;
    spec.coefficients = mask;
    spec.border = (cls_border)(1 + variant % 5);
    spec.border_value = 0.5f;
    spec.partition = (cls_partition)(1 + variant % 3);
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) {
        fprintf(stderr, "create: %s\n", cls_last_error());
        return 1;
    }
    float output[W * H];
    double expected[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    int bad = cls_filter_run_host(filter, input, output, &desc) != CLS_OK;
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
    ref_stencil(&image, mask, (int)size, (int)size, spec.border, spec.border_value, expected);
    for (int k = 0; k < W * H && !bad; ++k) bad = fabs(output[k] - expected[k]) > 1e-5;
    cls_filter_release(filter);
    return bad;
}

static void *worker(void *argument)
{
    const int id = (int)(size_t)argument;
    size_t failures = 0;
    for (int round = 0; round < ROUNDS; ++round)
        for (int variant = 0; variant < 4; ++variant) failures += (size_t)run_variant((variant + id) % 4);
    failures += (size_t)run_variant(4 + id); /* one of its own */
    return (void *)failures;
}

int main(void)
{
    if (cls_context_create(NULL, &context) != CLS_OK) {
        fprintf(stderr, "%s\n", cls_last_error());
        return 1;
    }
    for (int k = 0; k < W * H; ++k) input[k] = (float)((k * 11) % 23) / 23.0f;
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, worker, (void *)(size_t)t);
    size_t failures = 0;
    for (int t = 0; t < THREADS; ++t) {
        void *result;
        pthread_join(threads[t], &result);
        failures += (size_t)result;
    }
    cls_context_release(context);
    const int runs = THREADS * (ROUNDS * 4 + 1);
    printf("%d passed, %zu failed\n", runs - (int)failures, failures);
    return failures ? 1 : 0;
}
