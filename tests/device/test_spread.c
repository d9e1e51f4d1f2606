/* test_spread.c — cls_filter_run_host_spread on the default device opened as three contexts (a
 * "device" each): bands of one image equal to one filter's run bit for bit in every border mode
 * (repeat's wrapped rows among them), with a region of interest, pitches and offsets, with more
 * filters than rows, the undefined border keeping the output's pixels, and the refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

enum { CONTEXTS = 3 };
static cls_context *contexts[CONTEXTS];
/* a 5x3 mask: rows reach 1 above and below, columns 2 */
static const float mask[15] = {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1};

static int setup(void **state)
{
    (void)state;
    for (int k = 0; k < CONTEXTS; ++k)
        if (cls_context_create(NULL, &contexts[k]) != CLS_OK) {
            fprintf(stderr, "no OpenCL device: %s\n", cls_last_error());
            return -1;
        }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 0; k < CONTEXTS; ++k) cls_context_release(contexts[k]);
    return 0;
}

/* A filter of the 5x3 mask (7x3 with WIDE) on each context. */
static void make_filters(cls_border border, int wide, cls_filter **filters)
{
    static const float wide_mask[21] = {1, 1, 2, 3, 2, 1, 1, 2, 2, 4, 6, 4, 2, 2, 1, 1, 2, 3, 2, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = wide ? 7 : 5;
    spec.mask_height = 3;
    spec.coefficients = wide ? wide_mask : mask;
    spec.border = border;
    spec.border_value = 0.25f;
    for (int k = 0; k < CONTEXTS; ++k) assert_int_equal(cls_filter_create(contexts[k], &spec, &filters[k]), CLS_OK);
}

static void release(cls_filter **filters)
{
    for (int k = 0; k < CONTEXTS; ++k) cls_filter_release(filters[k]);
}

/* Pseudo-random pixels in [0, 1), and SENTINEL everywhere in OUT. */
static void fill(float *pixels, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; ++i) {
        seed = seed * 1103515245u + 12345u;
        pixels[i] = (float)(seed >> 8 & 0xffff) / 65536.0f;
    }
}

static void set_all(float *pixels, size_t count, float value)
{
    for (size_t i = 0; i < count; ++i) pixels[i] = value;
}

/* The spread run against filters[0]'s own run, over WxH with the image geometry IMAGE. */
static void check_equal_to_one(cls_filter **filters, size_t count, const cls_image_desc *image, size_t in_floats,
                               size_t out_floats)
{
    float *in = malloc(in_floats * sizeof *in), *one = malloc(out_floats * sizeof *one),
          *spread = malloc(out_floats * sizeof *spread);
    assert_non_null(in);
    assert_non_null(one);
    assert_non_null(spread);
    fill(in, in_floats, 7);
    set_all(one, out_floats, -9.0f);
    set_all(spread, out_floats, -9.0f);
    assert_int_equal(cls_filter_run_host(filters[0], in, one, image), CLS_OK);
    const cls_status status = cls_filter_run_host_spread(filters, count, in, spread, image);
    if (status != CLS_OK) fprintf(stderr, "%s\n", cls_last_error());
    assert_int_equal(status, CLS_OK);
    assert_memory_equal(one, spread, out_floats * sizeof *one); /* unwritten pixels included */
    free(in);
    free(one);
    free(spread);
}

static void every_border_mode_equals_one_device(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP,     CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                         CLS_BORDER_REPEAT,    CLS_BORDER_CONSTANT, CLS_BORDER_UNDEFINED};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        cls_filter *filters[CONTEXTS];
        make_filters(borders[b], 0, filters);
        const size_t w = 37, h = 29; /* bands of 9, 10 and 10 rows */
        const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
        check_equal_to_one(filters, CONTEXTS, &image, w * h, w * h);
        /* two bands, and more filters than rows (two rows: two bands) */
        check_equal_to_one(filters, 2, &image, w * h, w * h);
        const cls_image_desc flat = {CLS_IMAGE_DESC_INIT, .width = w, .height = 2};
        check_equal_to_one(filters, CONTEXTS, &flat, w * 2, w * 2);
        release(filters);
    }
}

static void region_pitches_and_offsets(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_REPEAT, CLS_BORDER_MIRROR101};
    for (size_t b = 0; b < 2; ++b) {
        cls_filter *filters[CONTEXTS];
        make_filters(borders[b], 1, filters);
        /* rows of 41 and 45 floats, 3 and 5 pixels before (0, 0); rows 2..24, columns 4..30 */
        const size_t w = 33, h = 26;
        const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = w, .height = h,
                                      .input_row_pitch = 41 * sizeof(float), .output_row_pitch = 45 * sizeof(float),
                                      .input_offset = 3 * sizeof(float), .output_offset = 5 * sizeof(float),
                                      .roi_x = 4, .roi_y = 2, .roi_width = 27, .roi_height = 23};
        check_equal_to_one(filters, CONTEXTS, &image, 41 * h + 3, 45 * h + 5);
        release(filters);
    }
}

static void refusals(void **state)
{
    (void)state;
    cls_filter *filters[CONTEXTS], *mixed[2];
    make_filters(CLS_BORDER_CLAMP, 0, filters);
    cls_filter *wide[CONTEXTS];
    make_filters(CLS_BORDER_CLAMP, 1, wide);
    float in[64] = {0}, out[64];
    const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = 8, .height = 8};
    assert_int_equal(cls_filter_run_host_spread(NULL, 2, in, out, &image), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_filter_run_host_spread(filters, 0, in, out, &image), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_filter_run_host_spread(filters, 2, NULL, out, &image), CLS_ERR_INVALID_ARGUMENT);
    mixed[0] = filters[0];
    mixed[1] = wide[1];
    assert_int_equal(cls_filter_run_host_spread(mixed, 2, in, out, &image), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "filter 1 differs from filter 0"));
    const cls_image_desc outside = {CLS_IMAGE_DESC_INIT, .width = 8, .height = 8, .roi_y = 6, .roi_height = 4,
                                    .roi_width = 8};
    assert_int_equal(cls_filter_run_host_spread(filters, 2, in, out, &outside), CLS_ERR_INVALID_ARGUMENT);
    release(filters);
    release(wide);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_mode_equals_one_device),
        cmocka_unit_test(region_pitches_and_offsets),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
