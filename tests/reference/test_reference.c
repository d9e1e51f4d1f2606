/* test_reference.c — the oracle's own oracle: checks the CPU reference (reference.c) against
 * hand-worked examples written out from DESIGN.md's border patterns, against a literal
 * "apply the one-fold formula of the table until in range" model, and a few hand-computed
 * stencil sums and output conversions. Needs no device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"

/* Checks ref_border_index for p = first .. first + strlen(pattern) - 1 on "abcd..." of length n:
 * letter 'a' + i means index i, 'k' means "not read" (-1). */
static void check_pattern(cls_border border, long n, long first, const char *pattern)
{
    for (size_t k = 0; pattern[k]; ++k) {
        long p = first + (long)k;
        long expected = pattern[k] == 'k' ? -1 : (long)(pattern[k] - 'a');
        long got = ref_border_index(border, p, n);
        if (got != expected)
            fail_msg("border %d n=%ld p=%ld: got %ld, expected %ld", (int)border, n, p, got,
                     expected);
    }
}

/* n = 4, "abcd", positions -8 .. 11: written out from the pattern column of DESIGN.md. */
static void test_patterns_n4(void **state)
{
    (void)state;
    /*                                          -8      -1|0  3|4     11 */
    check_pattern(CLS_BORDER_CLAMP, 4, -8,     "aaaaaaaa" "abcd" "dddddddd");
    check_pattern(CLS_BORDER_MIRROR, 4, -8,    "abcddcba" "abcd" "dcbaabcd");
    check_pattern(CLS_BORDER_MIRROR101, 4, -8, "cbabcdcb" "abcd" "cbabcdcb");
    check_pattern(CLS_BORDER_REPEAT, 4, -8,    "abcdabcd" "abcd" "abcdabcd");
    check_pattern(CLS_BORDER_CONSTANT, 4, -8,  "kkkkkkkk" "abcd" "kkkkkkkk");
    check_pattern(CLS_BORDER_UNDEFINED, 4, -8, "kkkkkkkk" "abcd" "kkkkkkkk");
}

/* The single examples quoted in the brief, one assertion each for readability. */
static void test_named_examples(void **state)
{
    (void)state;
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, -1, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, -4, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, -5, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, -8, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, 4, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, 7, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR, 8, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR101, -1, 4), 1);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR101, -3, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR101, -4, 4), 2);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR101, 4, 4), 2);
    assert_int_equal(ref_border_index(CLS_BORDER_MIRROR101, 6, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_REPEAT, -1, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_REPEAT, -5, 4), 3);
    assert_int_equal(ref_border_index(CLS_BORDER_REPEAT, 4, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_CLAMP, -100, 4), 0);
    assert_int_equal(ref_border_index(CLS_BORDER_CLAMP, 100, 4), 3);
}

/* Small axes, where the mask is wider than the image. */
static void test_small_axes(void **state)
{
    (void)state;
    /* n = 1: every mode reads pixel 0, except constant/undefined outside. */
    const cls_border reading[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                  CLS_BORDER_REPEAT};
    for (size_t b = 0; b < sizeof reading / sizeof reading[0]; ++b)
        for (long p = -40; p <= 40; ++p)
            assert_int_equal(ref_border_index(reading[b], p, 1), 0);
    check_pattern(CLS_BORDER_CONSTANT, 1, -3, "kkkakkk");

    /* n = 2, "ab", positions -4 .. 5. */
    check_pattern(CLS_BORDER_CLAMP, 2, -4,     "aaaa" "ab" "bbbb");
    check_pattern(CLS_BORDER_MIRROR, 2, -4,    "abba" "ab" "baab");
    check_pattern(CLS_BORDER_MIRROR101, 2, -4, "abab" "ab" "abab");
    check_pattern(CLS_BORDER_REPEAT, 2, -4,    "abab" "ab" "abab");

    /* n = 3, "abc", positions -6 .. 8. */
    check_pattern(CLS_BORDER_CLAMP, 3, -6,     "aaaaaa" "abc" "cccccc");
    check_pattern(CLS_BORDER_MIRROR, 3, -6,    "abccba" "abc" "cbaabc");
    check_pattern(CLS_BORDER_MIRROR101, 3, -6, "cbabcb" "abc" "babcba");
    check_pattern(CLS_BORDER_REPEAT, 3, -6,    "abcabc" "abc" "abcabc");

    /* n = 0 has no pixel. */
    assert_int_equal(ref_border_index(CLS_BORDER_CLAMP, 0, 0), -1);
}

/* The table's one-fold formulas, applied until the index is in range. */
static long fold_until_inside(cls_border border, long p, long n)
{
    for (int guard = 0; guard < 100000; ++guard) {
        if (p >= 0 && p < n)
            return p;
        switch (border) {
        case CLS_BORDER_CLAMP: p = p < 0 ? 0 : n - 1; break;
        case CLS_BORDER_MIRROR: p = p < 0 ? -p - 1 : 2 * n - p - 1; break;
        case CLS_BORDER_MIRROR101: p = p < 0 ? -p : 2 * n - p - 2; break;
        case CLS_BORDER_REPEAT: p = p < 0 ? p + n : p - n; break;
        default: return -1;
        }
    }
    return -2; /* did not converge */
}

static void test_repeated_folds(void **state)
{
    (void)state;
    const cls_border modes[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                CLS_BORDER_REPEAT};
    for (size_t b = 0; b < sizeof modes / sizeof modes[0]; ++b)
        for (long n = 2; n <= 9; ++n) /* n = 1 is checked above (mirror101's fold cycles) */
            for (long p = -60; p <= 60; ++p) {
                long want = fold_until_inside(modes[b], p, n);
                long got = ref_border_index(modes[b], p, n);
                if (got != want)
                    fail_msg("mode %d n=%ld p=%ld: got %ld, folding gives %ld", (int)modes[b], n,
                             p, got, want);
            }
}

/* A 3x1 image [1 2 3] with the 3x1 mask [1 10 100]: out(x) = in(x-1) + 10 in(x) + 100 in(x+1). */
static void test_stencil_1d_by_hand(void **state)
{
    (void)state;
    const float img[3] = {1, 2, 3};
    const float mask[3] = {1, 10, 100};
    ref_image in = {img, 3, 1, 0, CLS_PIXEL_F32};
    double out[3];
    struct { cls_border border; double left, mid, right; } cases[] = {
        /* left: in(-1) + 10 + 200; mid: 1 + 20 + 300; right: 2 + 30 + 100 in(3) */
        {CLS_BORDER_CLAMP, 211, 321, 332},
        {CLS_BORDER_MIRROR, 211, 321, 332},
        {CLS_BORDER_MIRROR101, 212, 321, 232},
        {CLS_BORDER_REPEAT, 213, 321, 132},
        {CLS_BORDER_CONSTANT, 210.5, 321, 82},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        assert_int_equal(ref_stencil(&in, mask, 3, 1, cases[c].border, 0.5f, out), 0);
        assert_true(out[0] == cases[c].left);
        assert_true(out[1] == cases[c].mid);
        assert_true(out[2] == cases[c].right);
    }
    assert_int_equal(ref_stencil(&in, mask, 3, 1, CLS_BORDER_UNDEFINED, 0.5f, out), 0);
    assert_true(isnan(out[0]));
    assert_true(out[1] == 321);
    assert_true(isnan(out[2]));
}

/* 2-D, u8 with a padded row pitch, a 3x3 mask on a 2x2 image (smaller than the mask). */
static void test_stencil_2d_small_image(void **state)
{
    (void)state;
    /* rows of pitch 5: pixels a=1 b=2 / c=3 d=4, padding 99 must never be read */
    const uint8_t img[10] = {1, 2, 99, 99, 99, 3, 4, 99, 99, 99};
    ref_image in = {img, 2, 2, 5, CLS_PIXEL_U8};
    assert_true(ref_read(&in, 1, 1) == 4);
    /* mask picks the top-left neighbour only: out(x,y) = in(x-1, y-1) */
    const float tl[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    double out[4];
    assert_int_equal(ref_stencil(&in, tl, 3, 3, CLS_BORDER_REPEAT, 0, out), 0);
    assert_true(out[0] == 4 && out[1] == 3 && out[2] == 2 && out[3] == 1);
    assert_int_equal(ref_stencil(&in, tl, 3, 3, CLS_BORDER_MIRROR, 0, out), 0);
    assert_true(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == 1);
    assert_int_equal(ref_stencil(&in, tl, 3, 3, CLS_BORDER_MIRROR101, 0, out), 0);
    assert_true(out[0] == 4 && out[1] == 3 && out[2] == 2 && out[3] == 1);
    assert_int_equal(ref_stencil(&in, tl, 3, 3, CLS_BORDER_CLAMP, 0, out), 0);
    assert_true(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == 1);
    assert_int_equal(ref_stencil(&in, tl, 3, 3, CLS_BORDER_CONSTANT, 7, out), 0);
    assert_true(out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 1);

    /* box 3x3 with clamp: out(0,0) = a+a+b + a+a+b + c+c+d = 4a + 2b + 2c + d = 4+4+6+4 */
    const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(ref_stencil(&in, box, 3, 3, CLS_BORDER_CLAMP, 0, out), 0);
    assert_true(out[0] == 18);
    /* every pixel of a 1x1 image under every reading mode is 9 * the pixel */
    const uint16_t one = 1000;
    ref_image single = {&one, 1, 1, 0, CLS_PIXEL_U16};
    const cls_border modes[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                CLS_BORDER_REPEAT};
    for (size_t b = 0; b < 4; ++b) {
        assert_int_equal(ref_stencil(&single, box, 3, 3, modes[b], 0, out), 0);
        assert_true(out[0] == 9000);
    }
    assert_int_equal(ref_stencil(&single, box, 3, 3, CLS_BORDER_CONSTANT, 2, out), 0);
    assert_true(out[0] == 1016);

    /* bad arguments */
    assert_int_equal(ref_stencil(&in, box, 2, 3, CLS_BORDER_CLAMP, 0, out), -1);
    assert_int_equal(ref_stencil(NULL, box, 3, 3, CLS_BORDER_CLAMP, 0, out), -1);
}

static void test_conversions(void **state)
{
    (void)state;
    assert_true(ref_to_output(CLS_PIXEL_U8, 2.5) == 2);
    assert_true(ref_to_output(CLS_PIXEL_U8, 3.5) == 4);
    assert_true(ref_to_output(CLS_PIXEL_U8, 2.5000001) == 3);
    assert_true(ref_to_output(CLS_PIXEL_U8, 0.49) == 0);
    assert_true(ref_to_output(CLS_PIXEL_U8, -0.5) == 0);
    assert_true(ref_to_output(CLS_PIXEL_U8, -7) == 0);
    assert_true(ref_to_output(CLS_PIXEL_U8, 254.5) == 254);
    assert_true(ref_to_output(CLS_PIXEL_U8, 255.49) == 255);
    assert_true(ref_to_output(CLS_PIXEL_U8, 1e9) == 255);
    assert_true(ref_to_output(CLS_PIXEL_U8, NAN) == 0);
    assert_true(ref_to_output(CLS_PIXEL_U8, INFINITY) == 255);
    assert_true(ref_to_output(CLS_PIXEL_U16, 65534.5) == 65534);
    assert_true(ref_to_output(CLS_PIXEL_U16, 65533.5) == 65534);
    assert_true(ref_to_output(CLS_PIXEL_U16, 65535.7) == 65535);
    assert_true(ref_to_output(CLS_PIXEL_U16, 70000) == 65535);
    assert_true(ref_to_output(CLS_PIXEL_U16, NAN) == 0);
    assert_true(ref_to_output(CLS_PIXEL_I16, -2.5) == -2);
    assert_true(ref_to_output(CLS_PIXEL_I16, -3.5) == -4);
    assert_true(ref_to_output(CLS_PIXEL_I16, -40000) == -32768);
    assert_true(ref_to_output(CLS_PIXEL_I16, -32768.4) == -32768);
    assert_true(ref_to_output(CLS_PIXEL_I16, 32766.5) == 32766);
    assert_true(ref_to_output(CLS_PIXEL_I16, 1e9) == 32767);
    assert_true(ref_to_output(CLS_PIXEL_I16, -INFINITY) == -32768);
    assert_true(ref_to_output(CLS_PIXEL_I16, NAN) == 0);
    int16_t signed_pixel;
    ref_store(CLS_PIXEL_I16, -123.5, &signed_pixel);
    assert_int_equal(signed_pixel, -124);
    assert_true(ref_load(CLS_PIXEL_I16, &signed_pixel) == -124);
    assert_true(ref_to_output(CLS_PIXEL_F32, 0.1) == (double)0.1f);

    uint8_t b[3];
    ref_store(CLS_PIXEL_U8, 300, b);
    assert_int_equal(b[0], 255);
    uint16_t u;
    ref_store(CLS_PIXEL_U16, 1.5, &u);
    assert_int_equal(u, 2);
    assert_true(ref_load(CLS_PIXEL_U16, &u) == 2);
    float f;
    ref_store(CLS_PIXEL_F32, 0.25, &f);
    assert_true(f == 0.25f);
    assert_true(ref_load(CLS_PIXEL_F32, &f) == 0.25);
    assert_int_equal(ref_pixel_size(CLS_PIXEL_U16), 2);
    assert_true(ref_window_inside(1, 1, 3, 3, 3, 3));
    assert_false(ref_window_inside(0, 1, 3, 3, 3, 3));
    assert_false(ref_window_inside(1, 1, 3, 2, 3, 3));
    assert_true(ref_window_inside(0, 0, 1, 1, 1, 1));
}

/* Half precision by hand: bit patterns of IEEE binary16, ties to the even fraction, overflow to
 * infinity from 65520, subnormals down to 2^-24. */
static void test_half_precision(void **state)
{
    (void)state;
    static const struct {
        double value;
        uint16_t bits;
    } cases[] = {
        {1.0, 0x3c00},      {-2.0, 0xc000},   {65504.0, 0x7bff},    {65519.0, 0x7bff}, {65520.0, 0x7c00},
        {-1e6, 0xfc00},     {0x1p-24, 0x0001}, {0x1p-26, 0x0000},   {0x1p-14, 0x0400}, {1.0 / 3.0, 0x3555},
        {0.1, 0x2e66},      {2049.0, 0x6800}, {2051.0, 0x6802},     {0.0, 0x0000},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        uint16_t bits = 0;
        ref_store(CLS_PIXEL_F16, cases[k].value, &bits);
        if (bits != cases[k].bits) fail_msg("%g: 0x%04x, expected 0x%04x", cases[k].value, bits, cases[k].bits);
    }
    uint16_t third = 0x3555, nan_bits = 0x7e01, subnormal = 0x0003;
    assert_true(ref_load(CLS_PIXEL_F16, &third) == 0.333251953125);
    assert_true(isnan(ref_load(CLS_PIXEL_F16, &nan_bits)));
    assert_true(ref_load(CLS_PIXEL_F16, &subnormal) == 0x3p-24);
    assert_true(ref_f16_close(0.33349609375, 1.0 / 3.0)); /* the next half up */
    assert_false(ref_f16_close(0.33, 1.0 / 3.0));
    assert_int_equal(ref_pixel_size(CLS_PIXEL_F16), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns_n4),
        cmocka_unit_test(test_named_examples),
        cmocka_unit_test(test_small_axes),
        cmocka_unit_test(test_repeated_folds),
        cmocka_unit_test(test_stencil_1d_by_hand),
        cmocka_unit_test(test_stencil_2d_small_image),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_half_precision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
