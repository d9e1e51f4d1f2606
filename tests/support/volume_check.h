/* volume_check.h — what the volume tests share: a mask of given sides or vectors, a volume's spec, and a
 * filter checked voxel by voxel against the CPU reference in 3-D on packed f32 volumes. Include
 * it after cmocka, the reference and context_fixture.h (the checks create filters on `context`). */
#ifndef CLS_TEST_VOLUME_CHECK_H
#define CLS_TEST_VOLUME_CHECK_H

#include <math.h>
#include <stdlib.h>

#define SENTINEL -7.0f

/* A mask of w x h x d taps, none zero, not symmetric. */
static inline float *make_mask(unsigned w, unsigned h, unsigned d)
{
    float *mask = malloc(sizeof(float) * w * h * d);
    assert_non_null(mask);
    for (unsigned k = 0; k < w * h * d; ++k) mask[k] = (float)((k * 7) % 13) / 13.0f - 0.3f;
    return mask;
}

static inline cls_spec volume_spec(const float *mask, unsigned w, unsigned h, unsigned d, cls_border border, int bake)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = w, spec.mask_height = h, spec.mask_depth = d;
    spec.coefficients = mask;
    spec.border = border;
    spec.border_value = 0.25f;
    spec.bake_coefficients = bake;
    spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
    return spec;
}

/* The filter on a packed f32 volume of w x h x d against the reference; every voxel checked
 * (undefined mode: those whose window leaves the volume keep the sentinel). */
static inline void check_volume(cls_filter *filter, const cls_spec *spec, unsigned w, unsigned h, unsigned d)
{
    const size_t voxels = (size_t)w * h * d;
    float *in = malloc(sizeof(float) * voxels), *out = malloc(sizeof(float) * voxels);
    double *expected = malloc(sizeof(double) * voxels);
    assert_true(in && out && expected);
    for (size_t k = 0; k < voxels; ++k) in[k] = (float)((k * 31) % 53) / 53.0f + 0.5f, out[k] = SENTINEL;
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d(&image, d, 0, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height,
                                  (int)spec->mask_depth, spec->border, spec->border_value, spec->reduction, expected),
                     0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .depth = d};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    for (size_t k = 0; k < voxels; ++k) {
        const int unwritten = isnan(expected[k]);
        if (unwritten ? out[k] == SENTINEL : ref_f32_close(out[k], expected[k])) continue;
        fail_msg("%ux%ux%u mask, %s, %ux%ux%u volume: voxel (%zu, %zu, %zu) is %.9g, expected %.9g",
                 spec->mask_width, spec->mask_height, spec->mask_depth, cls_border_name(spec->border), w, h, d,
                 k % w, k / w % h, k / w / h, (double)out[k], unwritten ? (double)SENTINEL : expected[k]);
    }
    free(in), free(out), free(expected);
}

/* mask[k][j][i] = z[k] y[j] x[i]: a W x H x D separable mask from its vectors. */
static inline void outer_product(const float *x, unsigned w, const float *y, unsigned h, const float *z, unsigned d,
                                 float *mask)
{
    for (unsigned k = 0; k < w * h * d; ++k) mask[k] = z[k / (w * h)] * y[k / w % h] * x[k % w];
}

/* A filter of SPEC checked on each of COUNT volumes. */
static inline void check_volumes(const cls_spec *spec, const unsigned (*volumes)[3], size_t count)
{
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    for (size_t v = 0; v < count; ++v) check_volume(filter, spec, volumes[v][0], volumes[v][1], volumes[v][2]);
    cls_filter_release(filter);
}

#endif
