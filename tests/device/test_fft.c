/* test_fft.c — weighted sums by FFT (cls_spec.method = CLS_METHOD_FFT) against the C reference:
 * every border mode (borders checked, and left unwritten under undefined), one tile and overlap-
 * save tiles (CLSTENCIL_FFT_MAX_TILE), transformed in chunks (CLSTENCIL_FFT_CHUNK_MAX) or on chip
 * in one kernel (CLSTENCIL_FFT_TILES=on-chip, the test test_fft_on_chip), non-square
 * and tiny masks, images smaller than the mask, regions of interest with offsets and padded rows,
 * integer pixel types, one filter on images of several sizes, and the specs the method refuses. f32 results must lie within
 * CLS_FFT_TOLERANCE * sum |m| * max |input| of the reference; integer ones within one unit. The
 * default suite runs the tiles, the odd shapes and the integer types in some border modes each
 * (every mode appears); CLS_TEST_EXHAUSTIVE=1 runs them in all. */
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
#include "support/test_level.h"

#define SENTINEL -7.0f

static cls_context *context;

/* An environment variable's value kept aside (malloc'd; NULL where unset), and put back. */
static char *keep_variable(const char *name)
{
    const char *value = getenv(name);
    return value ? strdup(value) : NULL;
}

static void restore_variable(const char *name, char *kept)
{
    if (kept) setenv(name, kept, 1);
    else unsetenv(name);
    free(kept);
}

static int setup(void **state)
{
    (void)state;
    unsetenv("CLSTENCIL_FFT_MAX_TILE");
    unsetenv("CLSTENCIL_FFT_CHUNK_MAX");
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

static const cls_border BORDERS[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP, CLS_BORDER_MIRROR,
                                     CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};

/* A deterministic mask of mixed signs. */
static void fill_mask(float *mask, unsigned w, unsigned h)
{
    for (unsigned k = 0; k < w * h; ++k) mask[k] = (float)((int)((k * 37 + 11) % 23) - 11) / 23.0f;
}

static double abs_sum(const float *mask, unsigned count)
{
    double sum = 0;
    for (unsigned k = 0; k < count; ++k) sum += fabs(mask[k]);
    return sum;
}

static cls_filter *make_fft(unsigned w, unsigned h, const float *mask, cls_border border, cls_pixel_type type)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = w;
    spec.mask_height = h;
    spec.coefficients = mask;
    spec.border = border;
    spec.border_value = 0.75f;
    spec.input_type = spec.output_type = type;
    spec.method = CLS_METHOD_FFT;
    cls_filter *filter = NULL;
    const cls_status status = cls_filter_create(context, &spec, &filter);
    if (status != CLS_OK) fail_msg("%s", cls_last_error());
    assert_int_equal(cls_filter_method(filter), CLS_METHOD_FFT);
    return filter;
}

/* Runs an f32 filter by FFT over a width x height image and compares every pixel with the
 * reference (undefined: the interior, the others left as they were). */
static void check_f32(unsigned width, unsigned height, unsigned mw, unsigned mh, cls_border border)
{
    const size_t n = (size_t)width * height;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out), *mask = malloc((size_t)mw * mh * sizeof *mask);
    double *expected = malloc(n * sizeof *expected);
    assert_non_null(in), assert_non_null(out), assert_non_null(mask), assert_non_null(expected);
    for (size_t k = 0; k < n; ++k) in[k] = (float)((k * 7919) % 1000) / 250.0f - 1.0f; /* -1 .. 3 */
    for (size_t k = 0; k < n; ++k) out[k] = SENTINEL;
    fill_mask(mask, mw, mh);
    const ref_image image = {in, width, height, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, mask, (int)mw, (int)mh, border, 0.75f, expected), 0);
    cls_filter *filter = make_fft(mw, mh, mask, border, CLS_PIXEL_F32);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = width, .height = height};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    const double bound = CLS_FFT_TOLERANCE * abs_sum(mask, mw * mh) * 3.0;
    for (unsigned y = 0; y < height; ++y)
        for (unsigned x = 0; x < width; ++x) {
            const size_t k = (size_t)y * width + x;
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside(x, y, width, height, (int)mw, (int)mh)) {
                if (out[k] != SENTINEL) fail_msg("undefined border: (%u, %u) of %ux%u was written", x, y, width, height);
                continue;
            }
            if (!(fabs(out[k] - expected[k]) <= bound))
                fail_msg("%s %ux%u mask %ux%u: (%u, %u) is %.9g, the reference %.9g (bound %.3g)",
                         cls_border_name(border), width, height, mw, mh, x, y, (double)out[k], expected[k], bound);
        }
    cls_filter_release(filter);
    free(in), free(out), free(mask), free(expected);
}

/* Every border mode, one tile: the largest size, a 25x25 mask. */
static void every_border_one_tile(void **state)
{
    (void)state;
    for (size_t b = 0; b < sizeof BORDERS / sizeof BORDERS[0]; ++b) check_f32(97, 64, 25, 25, BORDERS[b]);
}

/* Overlap-save: transforms of at most 64 make 3 x 2 tiles of a 97x64 image with a 25x25 mask,
 * and 3 x 2 of other steps with a 31x31 one. */
static void every_border_in_tiles(void **state)
{
    (void)state;
    setenv("CLSTENCIL_FFT_MAX_TILE", "64", 1);
    for (size_t b = 0; b < sizeof BORDERS / sizeof BORDERS[0]; ++b)
        if (cls_test_exhaustive() || b % 2 == 1) check_f32(97, 64, 25, 25, BORDERS[b]); /* clamp, mirror101, constant */
    check_f32(97, 64, 31, 31, CLS_BORDER_UNDEFINED);
    check_f32(97, 64, 31, 31, CLS_BORDER_MIRROR);
    unsetenv("CLSTENCIL_FFT_MAX_TILE");
}

/* Chunks (CLSTENCIL_FFT_CHUNK_MAX): the 3 x 2 tiles of 64x64 transforms above, 16,896 bytes
 * each (64 rows of 66 floats), transformed one a chunk (a limit below one tile) and four a chunk
 * (66K: the last chunk holds two), give the same sums. */
static void tiles_in_chunks(void **state)
{
    (void)state;
    setenv("CLSTENCIL_FFT_MAX_TILE", "64", 1);
    setenv("CLSTENCIL_FFT_CHUNK_MAX", "1", 1);
    check_f32(97, 64, 25, 25, CLS_BORDER_CLAMP);
    setenv("CLSTENCIL_FFT_CHUNK_MAX", "66K", 1);
    check_f32(97, 64, 25, 25, CLS_BORDER_MIRROR101);
    check_f32(97, 64, 25, 25, CLS_BORDER_UNDEFINED);
    unsetenv("CLSTENCIL_FFT_CHUNK_MAX");
    unsetenv("CLSTENCIL_FFT_MAX_TILE");
}

/* Masks that are not square, of side 1, and images smaller than the mask (mirror and repeat
 * fold the window many times over). */
static void odd_shapes(void **state)
{
    (void)state;
    check_f32(40, 33, 7, 31, CLS_BORDER_MIRROR);
    check_f32(40, 33, 31, 1, CLS_BORDER_CLAMP);
    check_f32(40, 33, 1, 1, CLS_BORDER_REPEAT);
    for (size_t b = 1; b < sizeof BORDERS / sizeof BORDERS[0]; ++b) {
        if (cls_test_exhaustive() || b % 2 == 0) check_f32(5, 3, 25, 25, BORDERS[b]); /* mirror, repeat */
        if (cls_test_exhaustive() || b % 2 == 1) check_f32(1, 1, 9, 9, BORDERS[b]);   /* clamp, mirror101, constant */
    }
}

/* A region of interest of an image at an offset in its buffer with padded rows: only the region
 * is written, with the border handling of the whole image. */
static void region_of_interest(void **state)
{
    (void)state;
    enum { W = 37, H = 23, PITCH = 41, IN_OFFSET = 5, OUT_OFFSET = 3 };
    static float in[IN_OFFSET + PITCH * H], out[OUT_OFFSET + PITCH * H];
    double expected[W * H];
    float mask[15 * 11];
    fill_mask(mask, 15, 11);
    for (unsigned k = 0; k < IN_OFFSET + PITCH * H; ++k) in[k] = (float)((k * 13) % 29) / 29.0f + 0.5f;
    const ref_image image = {in + IN_OFFSET, W, H, PITCH * sizeof(float), CLS_PIXEL_F32};
    static const struct { unsigned x, y, w, h; } rois[] = {{0, 0, W, H}, {5, 3, 20, 11}, {30, 17, 7, 6}, {1, 1, 1, 1}};
    for (size_t b = 1; b < sizeof BORDERS / sizeof BORDERS[0]; ++b) {
        ref_stencil(&image, mask, 15, 11, BORDERS[b], 0.75f, expected);
        cls_filter *filter = make_fft(15, 11, mask, BORDERS[b], CLS_PIXEL_F32);
        for (size_t r = 0; r < sizeof rois / sizeof rois[0]; ++r) {
            for (unsigned k = 0; k < OUT_OFFSET + PITCH * H; ++k) out[k] = SENTINEL;
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H,
                                         .input_row_pitch = PITCH * sizeof(float), .output_row_pitch = PITCH * sizeof(float),
                                         .input_offset = IN_OFFSET * sizeof(float), .output_offset = OUT_OFFSET * sizeof(float),
                                         .roi_x = rois[r].x, .roi_y = rois[r].y, .roi_width = rois[r].w, .roi_height = rois[r].h};
            if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
            for (unsigned k = 0; k < OUT_OFFSET + PITCH * H; ++k) {
                const long at = (long)k - OUT_OFFSET;
                const unsigned x = at >= 0 ? (unsigned)(at % PITCH) : 0, y = at >= 0 ? (unsigned)(at / PITCH) : 0;
                const int inside = at >= 0 && x >= rois[r].x && x < rois[r].x + rois[r].w && y >= rois[r].y &&
                                   y < rois[r].y + rois[r].h;
                if (!inside) {
                    if (out[k] != SENTINEL) fail_msg("%s: element %u outside region %zu was written", cls_border_name(BORDERS[b]), k, r);
                } else if (!(fabs(out[k] - expected[y * W + x]) <= 1e-4)) {
                    fail_msg("%s region %zu: (%u, %u) is %.9g, the reference %.9g", cls_border_name(BORDERS[b]), r, x, y,
                             (double)out[k], expected[y * W + x]);
                }
            }
        }
        cls_filter_release(filter);
    }
}

/* u8 and u16 images: the FFT's sum rounded to the type lies within one unit of the reference's. */
static void integer_pixels(void **state)
{
    (void)state;
    enum { W = 45, H = 30, M = 13 };
    float mask[M * M];
    for (unsigned k = 0; k < M * M; ++k) mask[k] = (float)(1 + k % 5) / (3.0f * M * M);
    static const cls_pixel_type types[] = {CLS_PIXEL_U8, CLS_PIXEL_U16};
    for (size_t t = 0; t < 2; ++t) {
        const size_t size = ref_pixel_size(types[t]);
        unsigned char in[W * H * 2], out[W * H * 2];
        for (unsigned k = 0; k < W * H; ++k) {
            const double v = types[t] == CLS_PIXEL_U8 ? (k * 31) % 256 : (k * 7919) % 65536;
            ref_store(types[t], v, in + k * size);
        }
        double expected[W * H];
        const ref_image image = {in, W, H, 0, types[t]};
        for (size_t b = 1; b < sizeof BORDERS / sizeof BORDERS[0]; ++b) {
            if (!cls_test_exhaustive() && b % 2 != t) continue; /* u8: mirror, repeat; u16: the others */
            ref_stencil(&image, mask, M, M, BORDERS[b], 0.75f, expected);
            cls_filter *filter = make_fft(M, M, mask, BORDERS[b], types[t]);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
            if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
            const ref_image result = {out, W, H, 0, types[t]};
            for (unsigned y = 0; y < H; ++y)
                for (unsigned x = 0; x < W; ++x) {
                    const double want = ref_to_output(types[t], expected[y * W + x]), got = ref_read(&result, x, y);
                    if (fabs(got - want) > 1.0)
                        fail_msg("%s %s: (%u, %u) is %g, the reference %g", cls_pixel_type_name(types[t]),
                                 cls_border_name(BORDERS[b]), x, y, got, want);
                }
            cls_filter_release(filter);
        }
    }
}

/* One filter on images of different sizes, then the first again: each launch plans for its own. */
static void several_sizes_one_filter(void **state)
{
    (void)state;
    float mask[9 * 9];
    fill_mask(mask, 9, 9);
    cls_filter *filter = make_fft(9, 9, mask, CLS_BORDER_MIRROR101, CLS_PIXEL_F32);
    static const unsigned sizes[][2] = {{50, 40}, {17, 90}, {50, 40}};
    for (size_t s = 0; s < 3; ++s) {
        const unsigned w = sizes[s][0], h = sizes[s][1];
        float in[17 * 90 > 50 * 40 ? 17 * 90 : 50 * 40], out[sizeof in / sizeof in[0]];
        double expected[sizeof in / sizeof in[0]];
        for (unsigned k = 0; k < w * h; ++k) in[k] = (float)((k * 101) % 97) / 97.0f;
        const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
        ref_stencil(&image, mask, 9, 9, CLS_BORDER_MIRROR101, 0.0f, expected);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
        if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
        for (unsigned k = 0; k < w * h; ++k)
            if (!(fabs(out[k] - expected[k]) <= 1e-4)) fail_msg("%ux%u: pixel %u is %.9g, not %.9g", w, h, k, (double)out[k], expected[k]);
    }
    cls_filter_release(filter);
}

/* The one kernel with its tiles on chip (in the default suite's optimized builds too) on images
 * of several tiles each way, two 64x64 tiles a group and one 128 wide (a mask 31 wide): the inner
 * tiles read the image without the border's folding. */
static void interior_tiles(void **state)
{
    (void)state;
    char *kept = keep_variable("CLSTENCIL_FFT_TILES");
    setenv("CLSTENCIL_FFT_TILES", "on-chip", 1);
    check_f32(200, 150, 13, 13, CLS_BORDER_CLAMP);
    check_f32(200, 150, 13, 9, CLS_BORDER_CONSTANT);
    check_f32(300, 150, 31, 13, CLS_BORDER_MIRROR101);
    restore_variable("CLSTENCIL_FFT_TILES", kept);
}

/* Where the tiles are transformed: CLSTENCIL_FFT_TILES=on-chip takes the one kernel for masks up to
 * CLS_FFT_TILE_MAX_MASK a side (wider ones keep VkFFT's transforms), vkfft the transforms, another
 * value is refused naming the variable; unset, the device's record decides. */
static void tiles_on_chip_by_choice(void **state)
{
    (void)state;
    char *kept = keep_variable("CLSTENCIL_FFT_TILES");
    float mask[43 * 43];
    fill_mask(mask, 43, 43);
    static const struct { const char *choice; unsigned side; const char *kernel; } cases[] = {
        {"on-chip", 25, "cls_fft_tile"}, {"on-chip", 41, "cls_fft_tile"}, {"on-chip", 43, "cls_fft_gather"},
        {"vkfft", 25, "cls_fft_gather"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        setenv("CLSTENCIL_FFT_TILES", cases[c].choice, 1);
        cls_filter *filter = make_fft(cases[c].side, cases[c].side, mask, CLS_BORDER_CLAMP, CLS_PIXEL_F32);
        if (!strstr(cls_filter_source(filter), cases[c].kernel))
            fail_msg("%s, %ux%u: the source has no %s", cases[c].choice, cases[c].side, cases[c].side, cases[c].kernel);
        cls_filter_release(filter);
    }
    setenv("CLSTENCIL_FFT_TILES", "chip", 1);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 25;
    spec.coefficients = mask;
    spec.method = CLS_METHOD_FFT;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "CLSTENCIL_FFT_TILES"));
    assert_null(filter);
    restore_variable("CLSTENCIL_FFT_TILES", kept);
}

/* The method computes one built-in weighted sum: bodies, several masks, epilogues and an explicit
 * separable variant are refused with a message naming the conflict; so is a bad method value and
 * a bad tile limit. */
static void refusals(void **state)
{
    (void)state;
    float mask[2 * 9];
    fill_mask(mask, 3, 6);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.method = CLS_METHOD_FFT;
    cls_filter *filter = NULL;
    spec.body = "OUT = IN(0, 0);";
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "fft"));
    spec.body = NULL;
    spec.mask_count = 2;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    spec.mask_count = 1;
    spec.epilogue = "r0 * 2";
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    spec.epilogue = NULL;
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "exclude"));
    spec.separable = CLS_SEPARABLE_AUTO;
    spec.method = (cls_method)7;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    spec.method = CLS_METHOD_FFT;
    char *kept = keep_variable("CLSTENCIL_FFT_TILES");
    setenv("CLSTENCIL_FFT_TILES", "vkfft", 1); /* the limits of VkFFT's tiles */
    setenv("CLSTENCIL_FFT_MAX_TILE", "12", 1);
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "CLSTENCIL_FFT_MAX_TILE"));
    unsetenv("CLSTENCIL_FFT_MAX_TILE");
    static const char *const bad_chunks[] = {"0", "12Q", "-5", "K"};
    for (size_t k = 0; k < sizeof bad_chunks / sizeof bad_chunks[0]; ++k) {
        setenv("CLSTENCIL_FFT_CHUNK_MAX", bad_chunks[k], 1);
        assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(cls_last_error(), "CLSTENCIL_FFT_CHUNK_MAX"));
    }
    unsetenv("CLSTENCIL_FFT_CHUNK_MAX");
    restore_variable("CLSTENCIL_FFT_TILES", kept);
    assert_null(filter);
    cls_method method;
    assert_int_equal(cls_method_parse("FFT", &method), CLS_OK);
    assert_int_equal(method, CLS_METHOD_FFT);
    assert_int_equal(cls_method_parse("fourier", &method), CLS_ERR_INVALID_ARGUMENT);
    assert_string_equal(cls_method_name(CLS_METHOD_DIRECT), "direct");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_one_tile), cmocka_unit_test(every_border_in_tiles), cmocka_unit_test(tiles_in_chunks),
        cmocka_unit_test(odd_shapes),
        cmocka_unit_test(region_of_interest),    cmocka_unit_test(integer_pixels),        cmocka_unit_test(several_sizes_one_filter),
        cmocka_unit_test(interior_tiles),        cmocka_unit_test(tiles_on_chip_by_choice), cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
