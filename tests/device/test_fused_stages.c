/* test_fused_stages.c — openings, closings and top-hats over rectangles as one fused kernel
 * (CLSTENCIL_MORPHOLOGY=fused, on any device) against the definition written here: the first
 * extremum over the window through the border mode, the second over its result through the border
 * mode again (extremum_check.h), then the difference with the input for the top-hats. Every border
 * mode, windows from 3x3 to 15x15 (wide and tall; below 7x7 the stages' direct loops, from there
 * van Herk's), images from 1x1 to 97x64 and of several tiles (150x70, 37x283),
 * u8, u16 and f32 with NaN pixels (an f32 -> u8 black top-hat too), a region of interest
 * with pitches and offsets. Every output pixel, the border ones included, must be the definition's
 * bit for bit; with the undefined border the pixels whose window leaves the image stay untouched.
 * CLS_TEST_EXHAUSTIVE=1 runs every window in every mode. */
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

#include "support/context_fixture.h"
#include "support/extremum_check.h"
#include "support/test_level.h"

static const unsigned sizes[][2] = {{1, 1},   {2, 3},   {5, 1},   {1, 6},    {7, 5},
                                    {16, 15}, {33, 30}, {97, 64}, {150, 70}, {37, 283}};
enum { MAX_PIXELS = 150 * 70 };

/* A composition: its operator word, whether it dilates first, and its combination (0 none, 1 the
 * input minus the result, -1 the result minus the input). */
typedef struct composition {
    const char *name;
    int dilate_first, combine;
} composition;

static const composition compositions[] = {{"opening", 0, 0}, {"closing", 1, 0}, {"tophat", 0, 1}, {"blackhat", 1, -1}};

/* The filter of C over fw x fh in BORDER (constant: VALUE) from IN to OUT pixels; it must run as
 * the fused kernel where the device gives a group the 48 KiB of local memory its 15x15 tile takes
 * (with less, as oclgrind's 32 KiB, the larger windows run in stages, checked all the same). */
static cls_filter *create(const composition *c, int fw, int fh, cls_border border, float value, cls_pixel_type in,
                          cls_pixel_type out)
{
    char text[64];
    snprintf(text, sizeof text, "%s:%dx%d", c->name, fw, fh);
    cls_filter *filter = create_operator_filter(context, text, border, value, in, out);
    const int fused = strstr(cls_filter_source(filter), "in one\n * kernel by van Herk") != NULL;
    if (!fused && cls_context_device(context)->local_mem_size >= 49152) fail_msg("%s: not fused", text);
    return filter;
}

/* The definition of C at every pixel of VALUES (w x h) into WANT: both extrema through the border
 * mode (undefined: clamp), the combination in f32 as the kernel computes it. */
static void define(const composition *c, const double *values, int w, int h, int fw, int fh, cls_border border,
                   double value, double *first, double *want)
{
    const cls_border defining = border == CLS_BORDER_UNDEFINED ? CLS_BORDER_CLAMP : border;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            first[y * w + x] = extremum_at(values, w, h, x, y, fw, fh, c->dilate_first, defining, value);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float result = (float)extremum_at(first, w, h, x, y, fw, fh, !c->dilate_first, defining, value);
            const float source = (float)values[y * w + x];
            want[y * w + x] = c->combine > 0 ? source - result : c->combine < 0 ? result - source : result;
        }
}

/* Runs FILTER (C over fw x fh) on every size and checks every pixel. */
static void check_sizes(cls_filter *filter, const composition *c, int fw, int fh, cls_border border, float value,
                        cls_pixel_type in, cls_pixel_type out)
{
    static unsigned char input[MAX_PIXELS * 4], output[MAX_PIXELS * 4];
    static double values[MAX_PIXELS], first[MAX_PIXELS], want[MAX_PIXELS];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int w = (int)sizes[s][0], h = (int)sizes[s][1];
        make_image(in, (unsigned)w, (unsigned)h, (unsigned)(s * 17 + (unsigned)fw * 5 + (unsigned)fh), input, values);
        memset(output, 0xAB, sizeof output);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = (size_t)w, .height = (size_t)h};
        if (cls_filter_run_host(filter, input, output, &desc) != CLS_OK)
            fail_msg("%s:%dx%d at %dx%d: %s", c->name, fw, fh, w, h, cls_last_error());
        define(c, values, w, h, fw, fh, border, value, first, want);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t k = (size_t)y * (size_t)w + (size_t)x;
                if (border == CLS_BORDER_UNDEFINED &&
                    !ref_window_inside((size_t)x, (size_t)y, (size_t)w, (size_t)h, 2 * fw - 1, 2 * fh - 1)) {
                    for (size_t b = 0; b < ref_pixel_size(out); ++b)
                        if (output[k * ref_pixel_size(out) + b] != 0xAB)
                            fail_msg("%s:%dx%d, undefined border, %dx%d: (%d, %d) written", c->name, fw, fh, w, h, x, y);
                    continue;
                }
                const double expected = ref_to_output(out, want[k]), got = pixel_of(out, output, k);
                if (!(got == expected || (isnan(got) && isnan(expected))) || signbit(got) != signbit(expected))
                    fail_msg("%s:%dx%d, border %s, %s -> %s, %dx%d: (%d, %d) is %.9g, expected %.9g", c->name, fw, fh,
                             cls_border_name(border), cls_pixel_type_name(in), cls_pixel_type_name(out), w, h, x, y,
                             got, expected);
            }
    }
}

/* Every border mode, each composition, windows square, wide and tall, f32 with NaN. */
static void every_border_and_window(void **state)
{
    (void)state;
    static const int windows[][2] = {{9, 9}, {3, 3}, {7, 15}, {5, 5}, {15, 7}, {3, 5}, {11, 13}, {5, 3}, {15, 15}};
    const size_t modes = sizeof borders / sizeof borders[0], count = sizeof windows / sizeof windows[0];
    for (size_t b = 0; b < modes; ++b)
        for (size_t n = 0; n < count; ++n) {
            if (!cls_test_exhaustive() && n % modes != b) continue; /* each window once, the modes in turn */
            const composition *c = &compositions[(b + n) % 4];
            const int fw = windows[n][0], fh = windows[n][1];
            cls_filter *filter = create(c, fw, fh, borders[b], -2.5f, CLS_PIXEL_F32, CLS_PIXEL_F32);
            check_sizes(filter, c, fw, fh, borders[b], -2.5f, CLS_PIXEL_F32, CLS_PIXEL_F32);
            cls_filter_release(filter);
        }
}

/* The integer types, and a top-hat whose negative differences saturate in u8. */
static void pixel_types(void **state)
{
    (void)state;
    static const struct {
        cls_pixel_type in, out;
        int composition;
        cls_border border;
    } cases[] = {{CLS_PIXEL_U8, CLS_PIXEL_U8, 2, CLS_BORDER_MIRROR101},
                 {CLS_PIXEL_U16, CLS_PIXEL_U16, 1, CLS_BORDER_CONSTANT},
                 {CLS_PIXEL_F32, CLS_PIXEL_U8, 3, CLS_BORDER_REPEAT}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t) {
        const composition *c = &compositions[cases[t].composition];
        cls_filter *filter = create(c, 9, 7, cases[t].border, 7.0f, cases[t].in, cases[t].out);
        check_sizes(filter, c, 9, 7, cases[t].border, 7.0f, cases[t].in, cases[t].out);
        cls_filter_release(filter);
    }
}

/* A u8 closing inside larger rows (pitch, offset) into a region of interest of an output with its
 * own pitch and offset: the region is the definition's, every other byte untouched. */
static void region_pitch_and_offset(void **state)
{
    (void)state;
    enum { W = 145, H = 77, IN_PITCH = W + 7, IN_OFFSET = 5, OUT_PITCH = W + 3, OUT_OFFSET = 2 };
    enum { RX = 3, RY = 4, RW = 137, RH = 69 };
    static uint8_t input[IN_OFFSET + IN_PITCH * H], output[OUT_OFFSET + OUT_PITCH * H];
    static double image[W * H], first[W * H], want[W * H];
    make_rows_u8(input, sizeof input, 11, IN_OFFSET, IN_PITCH, W, H, image);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .input_row_pitch = IN_PITCH,
                                 .output_row_pitch = OUT_PITCH, .input_offset = IN_OFFSET, .output_offset = OUT_OFFSET,
                                 .roi_x = RX, .roi_y = RY, .roi_width = RW, .roi_height = RH};
    const composition *c = &compositions[1];
    cls_filter *filter = create(c, 13, 9, CLS_BORDER_MIRROR, 0, CLS_PIXEL_U8, CLS_PIXEL_U8);
    memset(output, 0xAB, sizeof output);
    assert_int_equal(cls_filter_run_host(filter, input, output, &desc), CLS_OK);
    define(c, image, W, H, 13, 9, CLS_BORDER_MIRROR, 0, first, want);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const int inside = x >= RX && x < RX + RW && y >= RY && y < RY + RH;
            const int got = output[OUT_OFFSET + y * OUT_PITCH + x], expected = inside ? (int)want[y * W + x] : 0xAB;
            if (got != expected) fail_msg("closing:13x9 at (%d, %d): %d, expected %d", x, y, got, expected);
        }
    assert_int_equal(output[0], 0xAB);
    assert_int_equal(output[1], 0xAB);
    cls_filter_release(filter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_and_window),
        cmocka_unit_test(pixel_types),
        cmocka_unit_test(region_pitch_and_offset),
    };
    setenv("CLSTENCIL_MORPHOLOGY", "fused", 1);
    return cmocka_run_group_tests(tests, setup, teardown);
}
