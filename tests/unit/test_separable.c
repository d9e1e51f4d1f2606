/* test_separable.c — splitting rank-1 masks into a row and a column within the documented
 * tolerance, and refusing masks of higher rank (generator/separable.c); masks of rank 2 to
 * CLS_LOW_RANK_MAX as sums of such terms by their singular value decomposition (low_rank.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

/* |mask(i, j) - column[j] * row[i]| within the documented tolerance everywhere. */
static void assert_reproduces(const float *mask, unsigned w, unsigned h, const float *row, const float *column)
{
    float largest = 0.0f;
    for (unsigned k = 0; k < w * h; ++k) largest = fmaxf(largest, fabsf(mask[k]));
    for (unsigned j = 0; j < h; ++j)
        for (unsigned i = 0; i < w; ++i) {
            const double residual = fabs((double)mask[j * w + i] - (double)column[j] * row[i]);
            if (residual > (double)CLS_SEPARABLE_TOLERANCE * largest)
                fail_msg("(%u, %u): %g vs %g x %g", i, j, (double)mask[j * w + i], (double)column[j], (double)row[i]);
        }
}

static void separate_gaussian(void **state)
{
    (void)state;
    enum { W = 7, H = 5 };
    float gx[W], gy[H], mask[W * H], row[W], column[H];
    for (int i = 0; i < W; ++i) gx[i] = expf(-(float)((i - 3) * (i - 3)) / (2.0f * 1.3f * 1.3f));
    for (int j = 0; j < H; ++j) gy[j] = expf(-(float)((j - 2) * (j - 2)) / (2.0f * 0.9f * 0.9f)) / 3.1f;
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) mask[j * W + i] = gy[j] * gx[i];
    assert_int_equal(cls_mask_separate(mask, W, H, row, column), CLS_OK);
    assert_reproduces(mask, W, H, row, column);
    for (int i = 0; i < W; ++i) /* row proportional to gx */
        assert_true(fabsf(row[i] / row[3] - gx[i] / gx[3]) < 1e-6f);
    for (int j = 0; j < H; ++j)
        assert_true(fabsf(column[j] / column[2] - gy[j] / gy[2]) < 1e-6f);
}

static void separate_sobel(void **state)
{
    (void)state;
    const float sobel[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1}; /* [1 2 1]^T x [-1 0 1] */
    float row[3], column[3];
    assert_int_equal(cls_mask_separate(sobel, 3, 3, row, column), CLS_OK);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) assert_true(column[j] * row[i] == sobel[j * 3 + i]);
    assert_true(row[1] == 0.0f && row[2] == -row[0] && row[0] != 0.0f);
    assert_true(column[0] == column[2] && column[1] == 2.0f * column[0]);
}

static void separate_rank_two_fails(void **state)
{
    (void)state;
    const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 2}; /* one coefficient off a rank-1 mask */
    float row[3], column[3];
    assert_int_equal(cls_mask_separate(mask, 3, 3, row, column), CLS_ERR_INVALID_ARGUMENT);
    const char *message = cls_last_error();
    if (!strstr(message, "not separable") || !strstr(message, "column 2, row 2") || !strstr(message, "differs"))
        fail_msg("message '%s' does not name the residual", message);
    assert_int_equal(cls_mask_separate(NULL, 3, 3, row, column), CLS_ERR_INVALID_ARGUMENT);
}

/* A difference of Gaussians is of rank 2, a sum of three outer products of rank 3, a random
 * mask of full rank; each term set reproduces its mask within the tolerance. */
static void low_rank_terms(void **state)
{
    (void)state;
    enum { W = 17, H = 13 };
    float dog[W * H], three[W * H], random[W * H], rows[CLS_LOW_RANK_MAX * W], columns[CLS_LOW_RANK_MAX * H];
    for (unsigned j = 0; j < H; ++j)
        for (unsigned i = 0; i < W; ++i) {
            const float x = (float)i - 8, y = (float)j - 6;
            dog[j * W + i] = expf(-(x * x + y * y) / 4.5f) / 14.1f - expf(-(x * x + y * y) / 18.0f) / 56.5f;
            three[j * W + i] = (float)(i + 1) * (float)(j % 3) - (float)(i % 4) * (float)j + (float)(i * i % 5) * 0.5f;
            random[j * W + i] = (float)((i * 37 + j * 101) % 23) - 11.0f;
        }
    const struct { const float *mask; unsigned rank; } cases[] = {{dog, 2}, {three, 3}, {random, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double residual = -1;
        assert_int_equal(cls_mask_low_rank(cases[c].mask, W, H, rows, columns, &residual), cases[c].rank);
        float largest = 0.0f;
        for (unsigned k = 0; k < W * H; ++k) largest = fmaxf(largest, fabsf(cases[c].mask[k]));
        if (cases[c].rank) assert_true(residual <= CLS_SEPARABLE_TOLERANCE * largest);
        else assert_true(residual > CLS_SEPARABLE_TOLERANCE * largest);
    }
    float gaussian[W * H]; /* rank 1 is found as well */
    for (unsigned k = 0; k < W * H; ++k) gaussian[k] = expf(-(float)((k % W - 8) * (k % W - 8)) / 9.0f) * (float)(1 + k / W);
    double residual;
    assert_int_equal(cls_mask_low_rank(gaussian, W, H, rows, columns, &residual), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(separate_gaussian),
        cmocka_unit_test(separate_sobel),
        cmocka_unit_test(separate_rank_two_fails),
        cmocka_unit_test(low_rank_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
