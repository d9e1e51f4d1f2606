/* test_fft_volumes.c — volumes' weighted sums by FFT (cls_spec.method = CLS_METHOD_FFT with a
 * mask_depth) against the C reference in 3-D: every border mode (the faces checked, and left
 * unwritten under undefined), volumes smaller than the mask, overlap-save tiles along every axis
 * (CLSTENCIL_FFT_MAX_TILE) transformed a tile a chunk (CLSTENCIL_FFT_CHUNK_MAX), a region of
 * interest of a volume with padded rows and slices and an offset (nothing outside it written),
 * u16 voxels, a border mode per axis, what the method refuses for volumes and the device memory
 * its launches keep (cls_filter_device_bytes). f32 results must
 * lie within CLS_FFT_TOLERANCE * sum |m| * max |input| of the reference. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/context_fixture.h"
#include "support/test_level.h"

#define SENTINEL -7.0f
#define BORDER_VALUE 0.75f

static const cls_border BORDERS[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP, CLS_BORDER_MIRROR,
                                     CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};

/* A mask of mixed signs, not symmetric along any axis. */
static float *make_mask(unsigned w, unsigned h, unsigned d, double *abs_sum)
{
    const unsigned n = w * h * d;
    float *mask = malloc(sizeof(float) * n);
    assert_non_null(mask);
    *abs_sum = 0;
    for (unsigned k = 0; k < n; ++k) {
        mask[k] = (float)((int)((k * 37 + 11) % 23) - 11) / 23.0f;
        *abs_sum += fabs(mask[k]);
    }
    return mask;
}

static cls_spec fft_spec(const float *mask, unsigned w, unsigned h, unsigned d, cls_border border)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = w, spec.mask_height = h, spec.mask_depth = d;
    spec.coefficients = mask;
    spec.border = border;
    spec.border_value = BORDER_VALUE;
    spec.method = CLS_METHOD_FFT;
    return spec;
}

static cls_filter *make_filter(const cls_spec *spec)
{
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    assert_int_equal(cls_filter_method(filter), CLS_METHOD_FFT);
    return filter;
}

/* Inputs from -1 to 3, deterministic. */
static float input_at(size_t k) { return (float)((k * 7919) % 1000) / 250.0f - 1.0f; }

/* FILTER (SPEC's, by FFT) over a packed f32 volume of w x h x d against the reference (borders per
 * axis: BORDERS3), every voxel; under undefined, those whose window leaves the volume unwritten. */
static void check_volume(cls_filter *filter, const cls_spec *spec, const cls_border borders3[3], double abs_sum,
                         unsigned w, unsigned h, unsigned d)
{
    const size_t n = (size_t)w * h * d;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    double *expected = malloc(n * sizeof *expected);
    assert_true(in && out && expected);
    for (size_t k = 0; k < n; ++k) in[k] = input_at(k), out[k] = SENTINEL;
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d_axes(&image, d, 0, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height,
                                       (int)spec->mask_depth, borders3, BORDER_VALUE, CLS_REDUCTION_SUM, expected),
                     0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .depth = d};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    const double bound = CLS_FFT_TOLERANCE * abs_sum * 3.0;
    for (size_t k = 0; k < n; ++k) {
        const int unwritten = isnan(expected[k]);
        if (unwritten ? out[k] == SENTINEL : fabs(out[k] - expected[k]) <= bound) continue;
        fail_msg("%ux%ux%u mask, %s, %ux%ux%u volume: voxel (%zu, %zu, %zu) is %.9g, expected %.9g (bound %.3g)",
                 spec->mask_width, spec->mask_height, spec->mask_depth, cls_border_name(spec->border), w, h, d, k % w,
                 k / w % h, k / w / h, (double)out[k], unwritten ? (double)SENTINEL : expected[k], bound);
    }
    free(in), free(out), free(expected);
}

/* One filter of a MW x MH x MD mask in BORDER checked on each of COUNT volumes. */
static void check_mode(unsigned mw, unsigned mh, unsigned md, cls_border border, const unsigned (*volumes)[3],
                       size_t count)
{
    double abs_sum;
    float *mask = make_mask(mw, mh, md, &abs_sum);
    const cls_spec spec = fft_spec(mask, mw, mh, md, border);
    const cls_border borders3[3] = {border, border, border};
    cls_filter *filter = make_filter(&spec);
    for (size_t v = 0; v < count; ++v) check_volume(filter, &spec, borders3, abs_sum, volumes[v][0], volumes[v][1], volumes[v][2]);
    cls_filter_release(filter);
    free(mask);
}

/* Every border mode, one tile: a 5x7x9 mask over a volume larger than it along every axis and one
 * smaller than it (4x3x2); a single voxel in two modes. Each size plans VkFFT's transforms anew,
 * which is most of the time. */
static void every_border_one_tile(void **state)
{
    (void)state;
    static const unsigned volumes[][3] = {{13, 11, 12}, {4, 3, 2}, {1, 1, 1}};
    for (size_t b = 0; b < sizeof BORDERS / sizeof BORDERS[0]; ++b)
        check_mode(5, 7, 9, BORDERS[b], volumes, cls_test_pick((unsigned)b, 3) ? 3 : 2);
}

/* Overlap-save along every axis: transforms of at most 64 make 2 x 2 x 2 tiles of a 63x62x61
 * volume with a 5x5x5 mask, each transformed in a chunk of its own. */
static void tiles_along_every_axis(void **state)
{
    (void)state;
    static const unsigned volume[][3] = {{63, 62, 61}};
    setenv("CLSTENCIL_FFT_MAX_TILE", "64", 1);
    setenv("CLSTENCIL_FFT_CHUNK_MAX", "1", 1);
    check_mode(5, 5, 5, CLS_BORDER_MIRROR101, volume, 1);
    check_mode(5, 5, 5, CLS_BORDER_UNDEFINED, volume, 1);
    unsetenv("CLSTENCIL_FFT_CHUNK_MAX");
    check_mode(5, 5, 5, CLS_BORDER_CONSTANT, volume, 1);
    unsetenv("CLSTENCIL_FFT_MAX_TILE");
}

/* A border mode per axis: repeat along x, constant along y, mirror along z. */
static void a_border_mode_an_axis(void **state)
{
    (void)state;
    double abs_sum;
    float *mask = make_mask(3, 5, 7, &abs_sum);
    cls_spec spec = fft_spec(mask, 3, 5, 7, CLS_BORDER_REPEAT);
    spec.border_y = CLS_BORDER_CONSTANT;
    spec.border_z = CLS_BORDER_MIRROR;
    const cls_border borders3[3] = {CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT, CLS_BORDER_MIRROR};
    cls_filter *filter = make_filter(&spec);
    check_volume(filter, &spec, borders3, abs_sum, 13, 11, 9);
    cls_filter_release(filter);
    free(mask);
}

/* A region of interest of a volume with padded rows and slices and an offset: its voxels equal
 * the whole volume's, the rest of the output keeps its sentinel. */
static void region_of_a_padded_volume(void **state)
{
    (void)state;
    enum { W = 21, H = 17, D = 15, PITCH = 24, ROWS = 19, OFFSET = 5 };
    const size_t slice = (size_t)PITCH * ROWS, n = OFFSET + slice * D;
    double abs_sum;
    float *mask = make_mask(5, 5, 5, &abs_sum);
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out), *packed = malloc(sizeof(float) * W * H * D);
    double *expected = malloc(sizeof(double) * W * H * D);
    assert_true(in && out && packed && expected);
    for (size_t k = 0; k < n; ++k) in[k] = 100.0f, out[k] = SENTINEL;
    for (size_t z = 0; z < D; ++z)
        for (size_t y = 0; y < H; ++y)
            for (size_t x = 0; x < W; ++x) {
                const size_t k = (z * H + y) * W + x;
                packed[k] = in[OFFSET + z * slice + y * PITCH + x] = input_at(k);
            }
    const ref_image image = {packed, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d(&image, D, 0, mask, 5, 5, 5, CLS_BORDER_MIRROR, BORDER_VALUE, CLS_REDUCTION_SUM, expected), 0);
    const cls_spec spec = fft_spec(mask, 5, 5, 5, CLS_BORDER_MIRROR);
    cls_filter *filter = make_filter(&spec);
    const size_t rx = 3, ry = 2, rz = 4, rw = 11, rh = 9, rd = 7;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .depth = D,
                                 .input_row_pitch = PITCH * sizeof(float), .output_row_pitch = PITCH * sizeof(float),
                                 .input_slice_pitch = slice * sizeof(float), .output_slice_pitch = slice * sizeof(float),
                                 .input_offset = OFFSET * sizeof(float), .output_offset = OFFSET * sizeof(float),
                                 .roi_x = rx, .roi_y = ry, .roi_width = rw, .roi_height = rh, .roi_z = rz, .roi_depth = rd};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_filter_release(filter);
    const double bound = CLS_FFT_TOLERANCE * abs_sum * 3.0;
    for (size_t k = 0; k < n; ++k) {
        const size_t at = k < OFFSET ? 0 : k - OFFSET, z = at / slice, y = at % slice / PITCH, x = at % PITCH;
        const int inside = k >= OFFSET && x >= rx && x < rx + rw && y >= ry && y < ry + rh && z >= rz && z < rz + rd;
        if (!inside) {
            if (out[k] != SENTINEL) fail_msg("element %zu outside the region was written: %.9g", k, (double)out[k]);
            continue;
        }
        const double want = expected[(z * H + y) * W + x];
        if (!(fabs(out[k] - want) <= bound))
            fail_msg("region: voxel (%zu, %zu, %zu) is %.9g, expected %.9g", x, y, z, (double)out[k], want);
    }
    free(mask), free(in), free(out), free(packed), free(expected);
}

/* u16 voxels in and out: each within one unit of the rounded, saturated reference. */
static void u16_voxels(void **state)
{
    (void)state;
    enum { W = 19, H = 13, D = 11 };
    static const float mask[27] = {0.02f, 0.03f, 0.02f, 0.03f, 0.05f, 0.03f, 0.02f, 0.03f, 0.02f,
                                   0.03f, 0.05f, 0.03f, 0.05f, 0.08f, 0.05f, 0.03f, 0.05f, 0.03f,
                                   0.02f, 0.03f, 0.02f, 0.03f, 0.05f, 0.03f, 0.02f, 0.03f, 0.02f};
    uint16_t in[W * H * D], out[W * H * D];
    float as_float[W * H * D];
    double expected[W * H * D];
    for (size_t k = 0; k < W * H * D; ++k) in[k] = (uint16_t)((k * 7919) % 65536), as_float[k] = in[k];
    const ref_image image = {as_float, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_reduce3d(&image, D, 0, mask, 3, 3, 3, CLS_BORDER_CLAMP, 0.0f, CLS_REDUCTION_SUM, expected), 0);
    cls_spec spec = fft_spec(mask, 3, 3, 3, CLS_BORDER_CLAMP);
    spec.input_type = spec.output_type = CLS_PIXEL_U16;
    cls_filter *filter = make_filter(&spec);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .depth = D};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    cls_filter_release(filter);
    for (size_t k = 0; k < W * H * D; ++k) {
        const double want = fmin(fmax(round(expected[k]), 0), 65535);
        if (fabs(out[k] - want) > 1.0) fail_msg("voxel %zu is %u, expected %.0f", k, out[k], want);
    }
}

/* The device memory a launch keeps (cls_filter_device_bytes): a 37x23x6 volume through a 3x3x3
 * mask is one tile of 48x32x16 values (the fast sides at least 39, 25 and 8), its rows of 2 x 25
 * floats, and the spectrum's tile, for each of two layouts; a larger volume's tiles take more. */
static void device_bytes(void **state)
{
    (void)state;
    double abs_sum;
    float *mask = make_mask(3, 3, 3, &abs_sum);
    const cls_spec spec = fft_spec(mask, 3, 3, 3, CLS_BORDER_CLAMP);
    cls_filter *filter = make_filter(&spec);
    const size_t tile = 16 * 32 * 50 * sizeof(float);
    assert_int_equal(cls_filter_device_bytes(filter, 37, 23, 6), 2 * 2 * tile);
    assert_true(cls_filter_device_bytes(filter, 370, 230, 60) > 2 * 2 * tile);
    cls_filter_release(filter);
    free(mask);
}

/* What the FFT method does not take on a volume: a minimum, a rank, a body, passes. */
static void refusals(void **state)
{
    (void)state;
    double abs_sum;
    float *mask = make_mask(3, 3, 3, &abs_sum);
    cls_filter *filter = NULL;
    cls_spec spec = fft_spec(mask, 3, 3, 3, CLS_BORDER_CLAMP);
    spec.reduction = CLS_REDUCTION_MIN;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "fft method computes a weighted sum"));
    static const float box[27] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    spec = fft_spec(box, 3, 3, 3, CLS_BORDER_CLAMP);
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), "exclude each other")) fail_msg("%s", cls_last_error());
    spec = fft_spec(NULL, 3, 3, 3, CLS_BORDER_CLAMP);
    spec.body = "OUT = IN(0, 0, 1);";
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_null(filter);
    free(mask);
}

int main(void)
{
    unsetenv("CLSTENCIL_FFT_MAX_TILE"); /* the layouts the tests name are the defaults' */
    unsetenv("CLSTENCIL_FFT_CHUNK_MAX");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_one_tile), cmocka_unit_test(tiles_along_every_axis),
        cmocka_unit_test(a_border_mode_an_axis), cmocka_unit_test(region_of_a_padded_volume),
        cmocka_unit_test(u16_voxels),            cmocka_unit_test(refusals),
        cmocka_unit_test(device_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
