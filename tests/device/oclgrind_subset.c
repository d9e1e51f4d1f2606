/* oclgrind_subset.c — runs every border mode x partition with masks 3x3 and 17x17 on images
 * 7x5 and 37x23 (work-group 24x4, not a multiple of the SIMD width), and 17x17 again with 8
 * output rows per work-item (all modes but undefined), and checks the results against the CPU
 * reference. Meant to run under oclgrind (tests/device/oclgrind.sh), which
 * reports any out-of-bounds access, race or divergent barrier. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clstencil.h>

#include "reference/reference.h"

static int check(const float *got, const double *expected, int w, int h, cls_border border, int mask)
{
    int bad = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside((size_t)x, (size_t)y, (size_t)w, (size_t)h, mask, mask))
                continue;
            const double e = expected[y * w + x], g = got[y * w + x];
            if (!ref_f32_close(g, e)) ++bad;
        }
    return bad;
}

int main(void)
{
    cls_context *context = NULL;
    if (cls_context_create(NULL, &context) != CLS_OK) {
        fprintf(stderr, "%s\n", cls_last_error());
        return 1;
    }
    static const int masks[] = {3, 17, 17}; /* the third: 8 rows per work-item */
    static const int sizes[][2] = {{7, 5}, {37, 23}};
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    int runs = 0, failures = 0;
    for (int border = CLS_BORDER_UNDEFINED; border <= CLS_BORDER_CONSTANT; ++border)
        for (int p = 0; p < 3; ++p)
            for (int m = 0; m < 3; ++m) {
                const int n = masks[m];
                if (m == 2 && border == CLS_BORDER_UNDEFINED) continue;
                float *mask = malloc(sizeof(float) * (size_t)(n * n));
                for (int k = 0; k < n * n; ++k) mask[k] = (float)(1 + k % 5) / (float)(3 * n * n);
                cls_spec spec;
                cls_spec_init(&spec);
                spec.mask_width = spec.mask_height = (unsigned)n;
                spec.coefficients = mask;
                spec.border = (cls_border)border;
                spec.border_value = 0.5f;
                spec.partition = partitions[p];
                spec.group_width = 24;
                spec.group_height = 4;
                spec.rows_per_item = m == 2 ? 8 : 1;
                cls_filter *filter = NULL;
                if (cls_filter_create(context, &spec, &filter) != CLS_OK) {
                    fprintf(stderr, "%s %s %dx%d: %s\n", cls_border_name((cls_border)border),
                            cls_partition_name(partitions[p]), n, n, cls_last_error());
                    return 1;
                }
                for (int s = 0; s < 2; ++s) {
                    const int w = sizes[s][0], h = sizes[s][1];
                    float *in = malloc(sizeof(float) * (size_t)(w * h)), *out = calloc((size_t)(w * h), sizeof(float));
                    double *expected = malloc(sizeof(double) * (size_t)(w * h));
                    for (int k = 0; k < w * h; ++k) in[k] = (float)((k * 37) % 101) / 101.0f + 0.5f;
                    const ref_image image = {in, (size_t)w, (size_t)h, 0, CLS_PIXEL_F32};
                    ref_stencil(&image, mask, n, n, (cls_border)border, 0.5f, expected);
                    const cls_image_desc desc = {.width = (size_t)w, .height = (size_t)h};
                    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) {
                        fprintf(stderr, "run: %s\n", cls_last_error());
                        return 1;
                    }
                    const int bad = check(out, expected, w, h, (cls_border)border, n);
                    if (bad) {
                        fprintf(stderr, "%s %s %dx%d on %dx%d: %d wrong pixels\n", cls_border_name((cls_border)border),
                                cls_partition_name(partitions[p]), n, n, w, h, bad);
                        ++failures;
                    }
                    ++runs;
                    free(in), free(out), free(expected);
                }
                cls_filter_release(filter);
                free(mask);
            }
    cls_context_release(context);
    printf("%d passed, %d failed\n", runs - failures, failures);
    return failures ? 1 : 0;
}
