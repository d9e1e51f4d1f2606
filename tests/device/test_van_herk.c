/* test_van_herk.c — a rectangle's minimum and maximum by van Herk/Gil-Werman passes (the extremum
 * stages) on the default device, against the definition written here with the CPU reference's
 * border indexing: every border mode, windows of sides 1 to 63 in both directions, images from
 * 1x1 to 97x64 (smaller than the window too, odd sizes), u8, u16, f16 and f32 pixels, NaN pixels
 * (skipped; a window of NaN alone gives the loop's start, +-INFINITY), a region of interest with
 * pitches and offsets, the undefined border's interior, images of several of the one kernel's
 * strips and bands (261x533), and a composition; each with the passes in their three forms
 * (CLSTENCIL_VAN_HERK): the tile kernel, the strip walker and the lanes kernel. Every output
 * pixel, the border ones included, must be the definition's bit for bit. The default suite runs
 * each window in one border mode (every mode appears), four of the types, four strip cases and
 * the composition in some modes, and the forms that are not the device's own (GPUs: strips; CPU
 * runtimes: lanes) on the region and the strips only; CLS_TEST_EXHAUSTIVE=1 runs the full product
 * in every form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/extremum_check.h"
#include "support/test_level.h"

static cls_context *context;

static int setup(void **state)
{
    (void)state;
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

/* The forms of the passes, whatever the device: the tile kernel, the strip walker (GPUs) and the
 * lanes kernel (CPU runtimes whose record computes in lanes). */
static int setup_tiles(void **state)
{
    setenv("CLSTENCIL_VAN_HERK", "tiles", 1);
    return setup(state);
}

static int setup_strips(void **state)
{
    setenv("CLSTENCIL_VAN_HERK", "strips", 1);
    return setup(state);
}

static int setup_lanes(void **state)
{
    setenv("CLSTENCIL_VAN_HERK", "lanes", 1);
    return setup(state);
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* The sizes every filter runs on: 1x1 up to 97x64, odd, narrower and shorter than the windows. */
static const unsigned sizes[][2] = {{1, 1}, {2, 3}, {5, 1}, {1, 6}, {7, 5}, {16, 15}, {31, 31}, {33, 30}, {97, 64}};
enum { MAX_PIXELS = 97 * 64 };

/* Runs FILTER (the extremum over fw x fh) on every size and checks every pixel: the definition's,
 * converted to the output type, or with the undefined border untouched where the window leaves
 * the image. */
static void check_sizes(cls_filter *filter, const char *text, int fw, int fh, int maximum, cls_border border, float value,
                        cls_pixel_type in, cls_pixel_type out)
{
    static unsigned char input[MAX_PIXELS * 4], output[MAX_PIXELS * 4];
    static double values[MAX_PIXELS];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int w = (int)sizes[s][0], h = (int)sizes[s][1];
        make_image(in, (unsigned)w, (unsigned)h, (unsigned)(s * 31 + (unsigned)fw * 7 + (unsigned)fh), input, values);
        memset(output, 0xAB, sizeof output);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = (size_t)w, .height = (size_t)h};
        if (cls_filter_run_host(filter, input, output, &desc) != CLS_OK)
            fail_msg("%s at %dx%d: %s", text, w, h, cls_last_error());
        const cls_border defining = border == CLS_BORDER_UNDEFINED ? CLS_BORDER_CLAMP : border;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t k = (size_t)y * (size_t)w + (size_t)x;
                const int written = border != CLS_BORDER_UNDEFINED || ref_window_inside((size_t)x, (size_t)y, (size_t)w,
                                                                                         (size_t)h, fw, fh);
                if (!written) {
                    for (size_t b = 0; b < ref_pixel_size(out); ++b)
                        if (output[k * ref_pixel_size(out) + b] != 0xAB)
                            fail_msg("%s, border %s, %dx%d: (%d, %d) written", text, cls_border_name(border), w, h, x, y);
                    continue;
                }
                const double want = ref_to_output(out, extremum_at(values, w, h, x, y, fw, fh, maximum, defining, value));
                const double got = pixel_of(out, output, k);
                if (!(got == want || (isnan(got) && isnan(want))) || signbit(got) != signbit(want))
                    fail_msg("%s, border %s, %s -> %s, %dx%d: (%d, %d) is %.9g, expected %.9g", text,
                             cls_border_name(border), cls_pixel_type_name(in), cls_pixel_type_name(out), w, h, x, y,
                             got, want);
            }
    }
}

/* Every border mode, windows from a line to 63x63, both directions, min and max, f32. */
static void every_border_and_window(void **state)
{
    (void)state;
    static const int windows[][3] = {{7, 7, 0},  {31, 31, 1}, {31, 1, 0}, {1, 9, 1},
                                     {15, 3, 0}, {3, 21, 1},  {15, 15, 1}, {63, 63, 0}};
    const size_t modes = sizeof borders / sizeof borders[0];
    for (size_t b = 0; b < modes; ++b)
        for (size_t n = 0; n < sizeof windows / sizeof windows[0]; ++n) {
            if (!cls_test_exhaustive() && n % modes != b) continue;
            const int fw = windows[n][0], fh = windows[n][1], maximum = windows[n][2] ^ (int)(b % 2);
            char text[48];
            snprintf(text, sizeof text, "%s:%dx%d", maximum ? "max" : "min", fw, fh);
            cls_filter *filter = create_operator_filter(context, text, borders[b], -2.5f, CLS_PIXEL_F32, CLS_PIXEL_F32);
            check_sizes(filter, text, fw, fh, maximum, borders[b], -2.5f, CLS_PIXEL_F32, CLS_PIXEL_F32);
            cls_filter_release(filter);
        }
}

/* The integer and half types, in and out, a few borders. */
static void pixel_types(void **state)
{
    (void)state;
    static const struct { cls_pixel_type in, out; } types[] = {{CLS_PIXEL_U8, CLS_PIXEL_U8},   {CLS_PIXEL_U16, CLS_PIXEL_U16},
                                                              {CLS_PIXEL_U8, CLS_PIXEL_F32},  {CLS_PIXEL_F32, CLS_PIXEL_U8},
                                                              {CLS_PIXEL_F16, CLS_PIXEL_F16}, {CLS_PIXEL_I16, CLS_PIXEL_I16}};
    static const cls_border some[] = {CLS_BORDER_MIRROR101, CLS_BORDER_CONSTANT, CLS_BORDER_REPEAT};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (size_t b = 0; b < sizeof some / sizeof some[0]; ++b) {
            if (!cls_test_exhaustive() && (t % 3 != b || t == 2 || t == 5)) continue; /* u8, u16, f32 -> u8, f16 */
            const int maximum = (int)(t + b) % 2;
            const char *text = maximum ? "dilate:31x11" : "erode:11x15";
            cls_filter *filter = create_operator_filter(context, text, some[b], 7.0f, types[t].in, types[t].out);
            check_sizes(filter, text, maximum ? 31 : 11, maximum ? 11 : 15, maximum, some[b], 7.0f, types[t].in, types[t].out);
            cls_filter_release(filter);
        }
}

/* A u8 minimum inside larger rows (pitch, offset) into a region of interest of an output with its
 * own pitch and offset: the region is the definition's, every other byte untouched. */
static void region_pitch_and_offset(void **state)
{
    (void)state;
    enum { W = 45, H = 38, IN_PITCH = W + 7, IN_OFFSET = 5, OUT_PITCH = W + 3, OUT_OFFSET = 2 };
    static uint8_t input[IN_OFFSET + IN_PITCH * H], output[OUT_OFFSET + OUT_PITCH * H];
    static double image[W * H];
    make_rows_u8(input, sizeof input, 11, IN_OFFSET, IN_PITCH, W, H, image);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .input_row_pitch = IN_PITCH,
                                 .output_row_pitch = OUT_PITCH, .input_offset = IN_OFFSET, .output_offset = OUT_OFFSET,
                                 .roi_x = 3, .roi_y = 4, .roi_width = 37, .roi_height = 29};
    static const char *const texts[] = {"min:31x9", "max:7x13"};
    for (int maximum = 0; maximum <= 1; ++maximum) {
        const int fw = maximum ? 7 : 31, fh = maximum ? 13 : 9;
        cls_filter *filter = create_operator_filter(context, texts[maximum], CLS_BORDER_MIRROR, 0, CLS_PIXEL_U8, CLS_PIXEL_U8);
        memset(output, 0xAB, sizeof output);
        assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const int inside = x >= 3 && x < 40 && y >= 4 && y < 33;
                const int got = output[OUT_OFFSET + y * OUT_PITCH + x];
                const int want = inside ? (int)extremum_at(image, W, H, x, y, fw, fh, maximum, CLS_BORDER_MIRROR, 0) : 0xAB;
                if (got != want) fail_msg("%s at (%d, %d): %d, expected %d", texts[maximum], x, y, got, want);
            }
        assert_int_equal(output[0], 0xAB);
        assert_int_equal(output[1], 0xAB);
        cls_filter_release(filter);
    }
}

/* Images of several strips and bands of the one kernel (a group walks down a strip of about 128
 * columns, a band of about 256 rows): f32 with NaN, windows from 7x7 to 63x63, wide and tall, two
 * border modes, the whole image and a region of interest. */
static void strips_and_bands(void **state)
{
    (void)state;
    enum { W = 261, MAX_H = 533 };
    const int H = cls_test_exhaustive() ? MAX_H : 301; /* three strips, two or more bands either way */
    static const int windows[][2] = {{31, 31}, {7, 7}, {15, 15}, {63, 63}, {5, 31}, {31, 9}};
    static const cls_border some[] = {CLS_BORDER_MIRROR101, CLS_BORDER_CONSTANT};
    float *input = malloc(sizeof(float) * W * MAX_H), *output = malloc(sizeof(float) * W * MAX_H);
    double *values = malloc(sizeof(double) * W * MAX_H);
    assert_non_null(input && output && values);
    make_image(CLS_PIXEL_F32, W, (unsigned)H, 5, input, values);
    for (size_t n = 0; n < sizeof windows / sizeof windows[0]; ++n)
        for (size_t b = 0; b < sizeof some / sizeof some[0]; ++b) {
            /* by default 31x31 in both modes, 7x7 and 31x9 in one (63x63 runs as passes) */
            if (!cls_test_exhaustive() && n != 0 && (n == 2 || n == 3 || n == 4 || n % 2 != b)) continue;
            const int fw = windows[n][0], fh = windows[n][1], maximum = (int)(n + b) % 2, region = (int)b;
            char text[48];
            snprintf(text, sizeof text, "%s:%dx%d", maximum ? "max" : "min", fw, fh);
            cls_filter *filter = create_operator_filter(context, text, some[b], 1.5f, CLS_PIXEL_F32, CLS_PIXEL_F32);
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = (size_t)H, .roi_x = region ? 130 : 0,
                                         .roi_y = region ? 150 : 0, .roi_width = region ? 120 : 0,
                                         .roi_height = region ? (size_t)H - 160 : 0};
            for (int k = 0; k < W * H; ++k) output[k] = -7.0f;
            if (cls_filter_run_host(filter, input, output, &desc) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const int inside = !region || (x >= 130 && x < 250 && y >= 150 && y < H - 10);
                    const float want = inside ? (float)extremum_at(values, W, H, x, y, fw, fh, maximum, some[b], 1.5) : -7.0f;
                    const float got = output[y * W + x];
                    if (!(got == want) || signbit(got) != signbit(want))
                        fail_msg("%s, border %s, %dx%d: (%d, %d) is %.9g, expected %.9g", text, cls_border_name(some[b]), W,
                                 H, x, y, (double)got, (double)want);
                }
            cls_filter_release(filter);
        }
    free(input);
    free(output);
    free(values);
}

/* A white top-hat over a 15x9 rectangle: two extremum stages and the combination, f32, every
 * border mode but undefined, against the input minus the dilation of the erosion. */
static void composition(void **state)
{
    (void)state;
    enum { W = 40, H = 27 };
    static float input[W * H], output[W * H];
    static double image[W * H], eroded[W * H];
    for (int k = 0; k < W * H; ++k) image[k] = input[k] = (float)((k * 37) % 101) / 4.0f;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    for (size_t b = 0; b + 1 < sizeof borders / sizeof borders[0]; ++b) {
        if (!cls_test_exhaustive() && b % 2) continue;
        cls_filter *filter = create_operator_filter(context, "tophat:15x9", borders[b], 3.0f, CLS_PIXEL_F32, CLS_PIXEL_F32);
        assert_non_null(strstr(cls_filter_source(filter), "van Herk"));
        assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) eroded[y * W + x] = extremum_at(image, W, H, x, y, 15, 9, 0, borders[b], 3.0);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const float opened = (float)extremum_at(eroded, W, H, x, y, 15, 9, 1, borders[b], 3.0);
                const float want = input[y * W + x] - opened;
                if (output[y * W + x] != want)
                    fail_msg("tophat:15x9, border %s, at (%d, %d): %.9g, expected %.9g", cls_border_name(borders[b]), x, y,
                             (double)output[y * W + x], (double)want);
            }
        cls_filter_release(filter);
    }
}

/* Whether the default device is a CPU, whose own kernel is the tile kernel (GPUs walk strips). */
static int device_is_cpu(void)
{
    cls_context *probe = NULL;
    if (cls_context_create(NULL, &probe) != CLS_OK) return 0;
    const int cpu = cls_context_device(probe)->type == CLS_DEVICE_CPU;
    cls_context_release(probe);
    return cpu;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_and_window),
        cmocka_unit_test(pixel_types),
        cmocka_unit_test(region_pitch_and_offset),
        cmocka_unit_test(strips_and_bands),
        cmocka_unit_test(composition),
    };
    /* The device's own form runs every test; the others, by default, the region and the strips
     * and bands (every kernel a build: PoCL took minutes for the whole set twice). */
    const struct CMUnitTest other[] = {cmocka_unit_test(region_pitch_and_offset), cmocka_unit_test(strips_and_bands)};
    const int cpu = device_is_cpu(), all = cls_test_exhaustive();
#define GROUP(name, own, setup)                                                                                        \
    ((own) || all ? cmocka_run_group_tests_name(name, tests, setup, teardown)                                           \
                  : cmocka_run_group_tests_name(name, other, setup, teardown))
    return GROUP("the tile kernel", 0, setup_tiles) + GROUP("the strip walker", !cpu, setup_strips) +
           GROUP("the lanes kernel", cpu, setup_lanes);
#undef GROUP
}
