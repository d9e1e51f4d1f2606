/* test_chunked_run.c — host runs in overlapping chunks of rows (chunked_run.c) on the default
 * device, made to take chunks of a few KiB by CLSTENCIL_HOST_CHUNK_BYTES: every border mode (the
 * repeat mode's wrapped rows among them) on the whole image and on regions of whole rows, whose
 * other rows keep their values, in place, two outputs, against the CPU reference; a malformed size
 * refused; and, whatever the timing, every chunk's copies before its launch holding every row it
 * reads, and no copy after it reading the rows its result overwrites (in place). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "host.h"
#include "reference/reference.h"
#include "support/context_fixture.h"

enum { W = 61, H = 203 }; /* 48 KiB of f32: 12 chunks of 4 KiB */
#define SENTINEL -7.0f
/* lopsided, so that a flipped axis or a row from the wrong chunk shows */
static const float mask[25] = {0.1f, 0.3f, -0.2f, 0.05f, 0.4f, 0.2f,  -0.1f, 0.6f, 0.3f, 0.1f, 0.7f,  0.2f, 1.0f,
                               -0.3f, 0.2f, 0.1f, 0.5f, 0.3f, -0.4f, 0.2f, 0.05f, 0.1f, 0.2f, 0.3f, -0.15f};
static const float sobel_xy[18] = {-1, 0, 1, -2, 0, 2, -1, 0, 1, /* x */ -1, -2, -1, 0, 0, 0, 1, 2, 1 /* y */};

static void fill_input(float *in)
{
    unsigned seed = 7;
    for (size_t k = 0; k < (size_t)W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        in[k] = (float)(seed >> 8 & 0xffff) / 65536.0f;
    }
}

/* OUT holds EXPECTED in rows [y0, y0 + rows) and the sentinel in every other row. */
static void check_rows(const float *out, const double *expected, size_t y0, size_t rows, const char *what)
{
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            const float got = out[y * W + x];
            if (y >= y0 && y < y0 + rows) {
                if (!ref_f32_close(got, expected[y * W + x]))
                    fail_msg("%s: pixel (%zu, %zu) is %.9g, expected %.9g", what, x, y, (double)got,
                             expected[y * W + x]);
            } else if (got != SENTINEL) {
                fail_msg("%s: pixel (%zu, %zu) outside the rows computed was written (%.9g)", what, x, y, (double)got);
            }
        }
}

static void every_border_on_whole_images_and_rows(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT,
                                         CLS_BORDER_CONSTANT};
    static const size_t regions[][2] = {{0, H}, {37, 120}, {1, 201}, {150, 53}}; /* first row, rows */
    static float in[W * H], out[W * H];
    static double expected[W * H];
    fill_input(in);
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = 5;
        spec.coefficients = mask;
        spec.border = borders[b];
        spec.border_value = 0.25f;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
        assert_int_equal(ref_stencil(&image, mask, 5, 5, borders[b], 0.25f, expected), 0);
        for (size_t r = 0; r < sizeof regions / sizeof regions[0]; ++r) {
            for (size_t k = 0; k < (size_t)W * H; ++k) out[k] = SENTINEL;
            const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .roi_width = W,
                                         .roi_y = regions[r][0], .roi_height = regions[r][1]};
            if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("the run: %s", cls_last_error());
            char what[64];
            snprintf(what, sizeof what, "%s, rows %zu to %zu", cls_border_name(borders[b]), regions[r][0],
                     regions[r][0] + regions[r][1]);
            check_rows(out, expected, regions[r][0], regions[r][1], what);
        }
        cls_filter_release(filter);
    }
}

/* The output in the input's own memory: a chunk's rows come back only once no later copy reads them. */
static void in_place_in_chunks(void **state)
{
    (void)state;
    static float image_in[W * H], pixels[W * H];
    static double expected[W * H];
    fill_input(image_in);
    memcpy(pixels, image_in, sizeof pixels);
    const ref_image image = {image_in, W, H, 0, CLS_PIXEL_F32};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 5;
    spec.coefficients = mask;
    spec.border = CLS_BORDER_REPEAT;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
    assert_int_equal(ref_stencil(&image, mask, 5, 5, CLS_BORDER_REPEAT, 0.0f, expected), 0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    if (cls_filter_run_host(filter, pixels, pixels, &desc) != CLS_OK) fail_msg("the run: %s", cls_last_error());
    check_rows(pixels, expected, 0, H, "in place, repeat");
    cls_filter_release(filter);
}

static void two_outputs_in_chunks(void **state)
{
    (void)state;
    static float in[W * H], out[2][W * H];
    static double expected[2][W * H];
    fill_input(in);
    const ref_image image = {in, W, H, 0, CLS_PIXEL_F32};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = sobel_xy;
    spec.mask_count = 2;
    spec.border = CLS_BORDER_MIRROR;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("creating the filter: %s", cls_last_error());
    for (int m = 0; m < 2; ++m) {
        assert_int_equal(ref_stencil(&image, sobel_xy + 9 * m, 3, 3, CLS_BORDER_MIRROR, 0.0f, expected[m]), 0);
        for (size_t k = 0; k < (size_t)W * H; ++k) out[m][k] = SENTINEL;
    }
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    void *const outputs[2] = {out[0], out[1]};
    if (cls_filter_run_host_outputs(filter, in, 2, outputs, &desc) != CLS_OK) fail_msg("the run: %s", cls_last_error());
    check_rows(out[0], expected[0], 0, H, "sobel x");
    check_rows(out[1], expected[1], 0, H, "sobel y");
    cls_filter_release(filter);
}

/* Where row V of an image of HEIGHT rows is read from: wrapped (REPEAT), else reflected without
 * its edge (mirror101 reaches furthest from the edge of the folding modes; clamp reads the edge). */
static size_t row_read(long v, size_t height, int repeat)
{
    return (size_t)ref_border_index(repeat ? CLS_BORDER_REPEAT : CLS_BORDER_MIRROR101, v, (long)height);
}

static void every_chunk_has_its_rows_copied_before_its_launch(void **state)
{
    (void)state;
    static const size_t heights[] = {9, 40, 203, 1000};
    static unsigned char copied[1000], returned[1000];
    for (size_t h = 0; h < sizeof heights / sizeof heights[0]; ++h)
        for (unsigned reach = 0; reach <= 4; ++reach)
            for (int repeat = 0; repeat <= 1; ++repeat)
                for (size_t y0 = 0; y0 < heights[h]; y0 += 1 + heights[h] / 7)
                    for (size_t rows = 1; y0 + rows <= heights[h]; rows += 1 + heights[h] / 5)
                        for (unsigned chunks = 2; chunks <= 16 && rows / chunks > 2 * reach; ++chunks) {
                            const size_t height = heights[h];
                            memset(copied, 0, height);
                            memset(returned, 0, height);
                            if (repeat) { /* the wrapped rows that go first */
                                cls_chunk_rows top;
                                cls_chunk_span(height, y0, rows, reach, chunks, 0, &top);
                                for (size_t v = height - reach; v < height; ++v) copied[v] = 1;
                                for (size_t v = 0; v < reach && v < top.copy_first; ++v) copied[v] = 1;
                            }
                            size_t next = y0;
                            for (unsigned k = 0; k < chunks; ++k) {
                                cls_chunk_rows span;
                                cls_chunk_span(height, y0, rows, reach, chunks, k, &span);
                                assert_int_equal(span.first, next); /* the chunks tile the rows in order */
                                assert_true(span.last > span.first);
                                next = span.last;
                                for (size_t v = span.copy_first; v < span.copy_last; ++v) {
                                    if (returned[v]) fail_msg("chunk %u copies row %zu, already overwritten", k, v);
                                    copied[v] = 1;
                                }
                                for (size_t y = span.first; y < span.last; ++y)
                                    for (long dy = -(long)reach; dy <= (long)reach; ++dy)
                                        if (!copied[row_read((long)y + dy, height, repeat)])
                                            fail_msg("height %zu, rows %zu+%zu, reach %u, %u chunks%s: chunk %u's "
                                                     "row %zu reads row %zu before its copy", height, y0, rows,
                                                     reach, chunks, repeat ? ", repeat" : "", k, y,
                                                     row_read((long)y + dy, height, repeat));
                                for (size_t y = span.first; y < span.last; ++y) returned[y] = 1;
                            }
                            assert_int_equal(next, y0 + rows);
                        }
}

static void a_malformed_chunk_size_is_refused(void **state)
{
    (void)state;
    static float in[W * H], out[W * H];
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = sobel_xy;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    setenv("CLSTENCIL_HOST_CHUNK_BYTES", "4 KiB", 1);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), "CLSTENCIL_HOST_CHUNK_BYTES='4 KiB' is not a size"))
        fail_msg("unexpected message: %s", cls_last_error());
    setenv("CLSTENCIL_HOST_CHUNK_BYTES", "4K", 1);
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK); /* the context is still usable */
    cls_filter_release(filter);
}

int main(void)
{
    setenv("CLSTENCIL_HOST_CHUNK_BYTES", "4K", 1); /* read at every run */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_on_whole_images_and_rows),
        cmocka_unit_test(in_place_in_chunks),
        cmocka_unit_test(two_outputs_in_chunks),
        cmocka_unit_test(a_malformed_chunk_size_is_refused),
        cmocka_unit_test(every_chunk_has_its_rows_copied_before_its_launch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
