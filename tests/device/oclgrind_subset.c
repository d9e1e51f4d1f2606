/* oclgrind_subset.c — runs every border mode x partition with masks 3x3 and 17x17 on images
 * 7x5 and 37x23 (work-group 24x4, not a multiple of the SIMD width), and 17x17 again with 8
 * output rows per work-item (all modes but undefined), then a subset of each kernel variant
 * (local-memory staging above all, image input, separable single-pass and two-pass, columns per
 * work-item, several outputs, folded taps, streaming rows, a body in lanes) on 7x5 and on 53x23
 * in rows of 56 pixels (or 35x70 in rows of 36), and checks the results against the CPU reference.
 * Meant to run under oclgrind (tests/device/oclgrind.sh), which reports any out-of-bounds
 * access, race (local-memory staging) or divergent barrier.
 * The simulator takes seconds per 17x17 launch, so the default run simulates one 17x17 case per
 * border mode (one row per work-item in even modes, 8 rows in odd ones, the partition rotating so
 * that each meets both) and the 17x17 streaming variant as 9x9; the 3x3 mask and every other
 * variant run as listed. CLS_TEST_EXHAUSTIVE=1 runs every 17x17 case in every partition.
 * Usage: oclgrind_subset [modes | variants]: the border modes x partitions, the variants, or both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"

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

/* One variant of the subset: masks are n x n (a rank-1 tent when separable or folded). */
typedef struct subset_variant {
    const char *name;
    cls_border border;
    float value;
    int n;
    cls_partition partition;
    unsigned rows, cols, masks;
    int bake, fold, epilogue; /* epilogue: hypot(r0, r1) */
    cls_input_path input;
    cls_separable separable;
    int narrow; /* groups of 4x1 on 7x5 and 35x70 (else 24x4): a group inside along x reaches
                 * the last row and the last aligned vector of its columns */
} subset_variant;

#define NAIVE CLS_PARTITION_NAIVE
#define BLOCK CLS_PARTITION_ISP_BLOCK
#define WARP CLS_PARTITION_ISP_WARP
static const subset_variant VARIANTS[] = {
    /* name           border                 value  n  partition rows cols masks bake fold epi input  separable narrow */
    {"local",         CLS_BORDER_UNDEFINED,  0.0f,  5, NAIVE, 1, 1, 1, 0, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"local",         CLS_BORDER_CLAMP,      0.0f,  5, BLOCK, 4, 2, 1, 0, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"local",         CLS_BORDER_MIRROR101,  0.0f,  3, WARP,  1, 2, 1, 1, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"local",         CLS_BORDER_REPEAT,     0.0f, 17, BLOCK, 2, 1, 1, 0, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"local",         CLS_BORDER_CONSTANT,   0.5f,  5, NAIVE, 2, 4, 1, 1, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"image",         CLS_BORDER_CLAMP,      0.0f,  3, BLOCK, 1, 1, 1, 0, 0, 0, CLS_INPUT_IMAGE, CLS_SEPARABLE_NONE, 0},
    {"image",         CLS_BORDER_CONSTANT,   0.0f,  5, NAIVE, 1, 2, 1, 1, 0, 0, CLS_INPUT_IMAGE, CLS_SEPARABLE_NONE, 0},
    {"image",         CLS_BORDER_CONSTANT,   0.5f,  5, WARP,  4, 1, 1, 0, 0, 0, CLS_INPUT_IMAGE, CLS_SEPARABLE_NONE, 0},
    {"image",         CLS_BORDER_UNDEFINED,  0.0f,  3, BLOCK, 1, 1, 1, 0, 0, 0, CLS_INPUT_IMAGE, CLS_SEPARABLE_NONE, 0},
    {"single-pass",   CLS_BORDER_CLAMP,      0.0f,  5, BLOCK, 1, 1, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 0},
    {"single-pass",   CLS_BORDER_MIRROR101,  0.0f,  5, NAIVE, 4, 1, 1, 1, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 0},
    {"single-pass",   CLS_BORDER_UNDEFINED,  0.0f,  5, WARP,  1, 1, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 0},
    {"single-pass",   CLS_BORDER_CONSTANT,   0.5f,  9, BLOCK, 2, 1, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 0},
    {"single-pass",   CLS_BORDER_CLAMP,      0.0f,  3, BLOCK, 16, 4, 1, 1, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_SINGLE_PASS, 1},
    {"staged-rows",   CLS_BORDER_MIRROR101,  0.0f,  9, BLOCK, 16, 4, 1, 1, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_SINGLE_PASS, 0},
    {"two-pass",      CLS_BORDER_MIRROR,     0.0f,  5, BLOCK, 1, 1, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_TWO_PASS, 0},
    {"cols",          CLS_BORDER_REPEAT,     0.0f,  5, BLOCK, 1, 2, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"cols",          CLS_BORDER_CONSTANT,   0.5f,  5, NAIVE, 2, 4, 1, 1, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"cols",          CLS_BORDER_MIRROR,     0.0f,  3, WARP,  1, 8, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"masks",         CLS_BORDER_CLAMP,      0.0f,  3, BLOCK, 1, 1, 2, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"masks",         CLS_BORDER_MIRROR,     0.0f,  5, NAIVE, 2, 1, 3, 1, 0, 0, CLS_INPUT_LOCAL, CLS_SEPARABLE_NONE, 0},
    {"masks+epilogue", CLS_BORDER_CONSTANT,  0.5f,  3, WARP,  1, 2, 2, 0, 0, 1, CLS_INPUT_IMAGE, CLS_SEPARABLE_NONE, 0},
    {"fold",          CLS_BORDER_CLAMP,      0.0f,  5, BLOCK, 1, 2, 1, 1, 1, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"stream",        CLS_BORDER_MIRROR,     0.0f,  5, BLOCK, 16, 2, 1, 1, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"stream",        CLS_BORDER_CONSTANT,   0.5f,  3, NAIVE, 16, 1, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"stream",        CLS_BORDER_REPEAT,     0.0f, 17, WARP,  16, 4, 2, 1, 0, 1, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    /* the weighted sum as a body in value_t: vectors of the columns (LANES_BODY) */
    {"lanes",         CLS_BORDER_CLAMP,      0.0f,  5, BLOCK, 1, 8, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"lanes",         CLS_BORDER_CONSTANT,   0.5f,  3, NAIVE, 4, 4, 1, 1, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
    {"lanes",         CLS_BORDER_MIRROR101,  0.0f,  5, WARP,  2, 2, 1, 0, 0, 0, CLS_INPUT_GLOBAL, CLS_SEPARABLE_NONE, 0},
};
#define LANES_BODY "value_t total = 0.0f;\nFOR_WINDOW(dx, dy) total += MASK(dx, dy) * IN(dx, dy);\nOUT = total;\n"
#define N_VARIANTS (sizeof VARIANTS / sizeof VARIANTS[0])

/* The masks of a variant, one after another: a rank-1 tent when separable or folded, else
 * mask k of the general family above, its coefficients shifted by k. */
static float *variant_masks(const subset_variant *v)
{
    const int n = v->n, taps = n * n;
    float *mask = malloc(sizeof(float) * (size_t)(taps * (int)v->masks));
    if (!mask) return NULL;
    for (int m = 0; m < (int)v->masks; ++m)
        for (int k = 0; k < taps; ++k) {
            const int i = k % n, j = k / n;
            const int ti = 1 + (i < n - 1 - i ? i : n - 1 - i), tj = 1 + (j < n - 1 - j ? j : n - 1 - j);
            mask[m * taps + k] = v->separable != CLS_SEPARABLE_NONE || v->fold
                                     ? (float)(ti * tj) / (float)(2 * taps)
                                     : (float)(1 + (k + 2 * m) % 5) / (float)(3 * taps) - (m == 1 ? 0.1f : 0.0f);
        }
    return mask;
}

/* Builds one variant and checks it on both images; returns the failed runs (or -1 when the
 * filter cannot be built). The image path on a device without images must be unsupported. */
static int run_variant(cls_context *context, const subset_variant *variant, const int (*sizes)[2], int *runs)
{
    subset_variant reduced = *variant; /* the default run simulates no 17x17 streaming window */
    if (!cls_test_exhaustive() && variant->rows >= 16 && variant->n > 9) reduced.n = 9;
    const subset_variant *v = &reduced;
    float *mask = variant_masks(v);
    if (!mask) return -1;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = (unsigned)v->n;
    spec.coefficients = mask;
    spec.border = v->border;
    spec.border_value = v->value;
    spec.partition = v->partition;
    /* the single pass that stages its rows walks in one-row groups (here narrower than its tile) */
    const int staged_rows = v->input == CLS_INPUT_LOCAL && v->separable == CLS_SEPARABLE_SINGLE_PASS;
    spec.group_width = staged_rows ? 2 : v->narrow ? 4 : 24;
    spec.group_height = staged_rows || v->narrow ? 1 : 4;
    spec.rows_per_item = v->rows;
    spec.cols_per_item = v->cols;
    spec.mask_count = v->masks;
    spec.bake_coefficients = v->bake;
    spec.fold_equal_taps = v->fold;
    spec.epilogue = v->epilogue ? "hypot(r0, r1)" : NULL;
    spec.input_path = v->input;
    spec.separable = v->separable;
    spec.body = strcmp(v->name, "lanes") == 0 ? LANES_BODY : NULL;
    cls_filter *filter = NULL;
    const cls_status status = cls_filter_create(context, &spec, &filter);
    if (v->input == CLS_INPUT_IMAGE && !cls_context_device(context)->image_support) {
        free(mask);
        cls_filter_release(filter);
        return status == CLS_ERR_UNSUPPORTED ? 0 : 1;
    }
    if (status != CLS_OK) {
        fprintf(stderr, "%s %s %dx%d: %s\n", v->name, cls_border_name(v->border), v->n, v->n, cls_last_error());
        free(mask);
        return -1;
    }
    const unsigned outputs = v->epilogue ? 1 : v->masks;
    int failures = 0;
    if (v->separable != CLS_SEPARABLE_AUTO && cls_filter_separable(filter) != v->separable) {
        fprintf(stderr, "%s: the filter reports separable %s\n", v->name,
                cls_separable_name(cls_filter_separable(filter)));
        ++failures;
    }
    for (int s = 0; s < 2; ++s) {
        /* the second image's rows padded to a multiple of 4 pixels, its buffers ending with the
         * last row's pixels: aligned loads must not read past them */
        const int w = sizes[s][0], h = sizes[s][1], pitch = s ? (w + 3) / 4 * 4 : w;
        const size_t pixels = (size_t)((h - 1) * pitch + w);
        float *dense = malloc(sizeof(float) * (size_t)(w * h)), *in = malloc(sizeof(float) * pixels);
        float *out[CLS_MAX_MASKS] = {NULL};
        double *expected[CLS_MAX_MASKS] = {NULL};
        for (int k = 0; k < w * h; ++k) dense[k] = (float)((k * 37) % 101) / 101.0f + 0.5f;
        for (int y = 0; y < h; ++y) memcpy(in + y * pitch, dense + y * w, sizeof(float) * (size_t)w);
        const ref_image image = {dense, (size_t)w, (size_t)h, 0, CLS_PIXEL_F32};
        for (unsigned m = 0; m < v->masks; ++m) {
            expected[m] = malloc(sizeof(double) * (size_t)(w * h));
            ref_stencil(&image, mask + (size_t)m * (size_t)(v->n * v->n), v->n, v->n, v->border, v->value, expected[m]);
        }
        if (v->epilogue)
            for (int k = 0; k < w * h; ++k) expected[0][k] = hypot(expected[0][k], expected[1][k]);
        for (unsigned k = 0; k < outputs; ++k) out[k] = calloc(pixels, sizeof(float));
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = (size_t)w, .height = (size_t)h,
                                     .input_row_pitch = sizeof(float) * (size_t)pitch,
                                     .output_row_pitch = sizeof(float) * (size_t)pitch};
        if (cls_filter_run_host_outputs(filter, in, outputs, (void *const *)out, &desc) != CLS_OK) {
            fprintf(stderr, "run: %s\n", cls_last_error());
            failures = -1;
        }
        for (unsigned k = 0; k < outputs; ++k) /* rows packed again for the check */
            for (int y = 1; y < h; ++y) memmove(out[k] + y * w, out[k] + y * pitch, sizeof(float) * (size_t)w);
        for (unsigned k = 0; k < outputs && failures >= 0; ++k) {
            const int bad = check(out[k], expected[k], w, h, v->border, v->n);
            if (bad) {
                fprintf(stderr, "%s %s %dx%d on %dx%d, output %u: %d wrong pixels\n", v->name,
                        cls_border_name(v->border), v->n, v->n, w, h, k, bad);
                ++failures;
            }
        }
        ++*runs;
        free(dense), free(in);
        for (unsigned k = 0; k < CLS_MAX_MASKS; ++k) free(out[k]), free(expected[k]);
        if (failures < 0) break;
    }
    cls_filter_release(filter);
    free(mask);
    return failures;
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "";
    const int modes = strcmp(part, "variants") != 0, variants = strcmp(part, "modes") != 0;
    if (argc > 2 || (*part && modes == variants)) {
        fprintf(stderr, "usage: %s [modes | variants]\n", argv[0]);
        return 2;
    }
    cls_context *context = NULL;
    if (cls_context_create(NULL, &context) != CLS_OK) {
        fprintf(stderr, "%s\n", cls_last_error());
        return 1;
    }
    static const int masks[] = {3, 17, 17}; /* the third: 8 rows per work-item */
    static const int sizes[][2] = {{7, 5}, {37, 23}};
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    int runs = 0, failures = 0;
    for (int border = CLS_BORDER_UNDEFINED; modes && border <= CLS_BORDER_CONSTANT; ++border)
        for (int p = 0; p < 3; ++p)
            for (int m = 0; m < 3; ++m) {
                const int n = masks[m];
                if (m == 2 && border == CLS_BORDER_UNDEFINED) continue;
                if (m > 0 && !cls_test_exhaustive() && (m != 1 + border % 2 || p != border % 3)) continue;
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
                    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = (size_t)w, .height = (size_t)h};
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
    static const int variant_sizes[][2] = {{7, 5}, {53, 23}}; /* the second: several groups */
    static const int narrow_sizes[][2] = {{7, 5}, {35, 70}};
    for (size_t k = 0; variants && k < N_VARIANTS; ++k) {
        const int failed = run_variant(context, &VARIANTS[k], VARIANTS[k].narrow ? narrow_sizes : variant_sizes, &runs);
        if (failed < 0) return 1;
        failures += failed;
    }
    cls_context_release(context);
    printf("%d passed, %d failed\n", runs - failures, failures);
    return failures ? 1 : 0;
}
