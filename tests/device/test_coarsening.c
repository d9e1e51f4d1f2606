/* test_coarsening.c — several output rows per work-item (3, 6 and 8) against the CPU reference:
 * every border mode but undefined, every partition, runtime and baked masks, both work-group
 * shapes, images shorter than a group's rows and images whose last rows leave a group partly
 * empty; every pixel compared. A baked 17x17 mask with 8 rows passes CLS_UNROLL_LIMIT, so its
 * border regions are the rolled ones.
 *
 * The default run builds 12 filters: each border mode takes two of the nine (small mask, rows)
 * pairs, one baked and one at runtime, with partition (mask + rows) % 3, so that mask, rows and
 * partition meet in every pair; the 17x17 mask is built baked under clamp and at runtime under
 * constant. Every filter runs on every image size. CLS_TEST_EXHAUSTIVE=1 builds the full product
 * (300 filters). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "generator.h" /* CLS_UNROLL_LIMIT */
#include "reference/reference.h"
#include "support/test_level.h"
#include "support/context_fixture.h"

/* Whether the default run builds mask m with rows r, baked or not, in partition p, under border
 * mode `mode` (0 for clamp to 4 for constant); see the top comment. */
static int in_default_run(unsigned mode, size_t m, size_t r, int bake, size_t p)
{
    if (cls_test_exhaustive()) return 1;
    if (p != (m + r) % 3) return 0;
    if (m == 3) return mode == 0 ? bake : mode == 4 ? !bake : 0; /* 17x17 */
    const unsigned pair = 3 * (unsigned)((m + 3 - r) % 3) + (unsigned)r; /* the rows change from pair to pair */
    const unsigned slot = (pair + 9 - 2 * mode) % 9;                    /* mode takes pairs 2 mode and 2 mode + 1 */
    return slot < 2 && bake == (int)((slot + mode) % 2);
}

static void check_mode(cls_border border)
{
    const unsigned mode = (unsigned)(border - CLS_BORDER_CLAMP);
    static const unsigned masks[][2] = {{3, 3}, {9, 3}, {3, 9}, {17, 17}};
    static const unsigned images[][2] = {{1, 1}, {7, 5}, {37, 9}, {23, 41}, {97, 64}};
    static const unsigned shapes[][2] = {{16, 1}, {8, 4}};
    static const unsigned rows[] = {3, 6, 8};
    static const cls_partition partitions[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};
    long compared = 0;
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; ++m) {
        const unsigned mw = masks[m][0], mh = masks[m][1];
        float mask[17 * 17];
        for (unsigned k = 0; k < mw * mh; ++k) mask[k] = (float)(1 + (k * 7) % 5) / (float)(3 * mw * mh);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
            if (mw == 17 && rows[r] != 8) continue; /* each 17x17 build takes PoCL seconds */
            /* baked: the small masks, and 17x17 with 8 rows, past CLS_UNROLL_LIMIT (border regions loop) */
            for (int bake = 0; bake <= ((mw <= 9 && mh <= 9) || mw * mh * rows[r] > CLS_UNROLL_LIMIT); ++bake)
                for (size_t p = 0; p < 3; ++p) {
                    if (!in_default_run(mode, m, r, bake, p)) continue;
                    const unsigned *shape = shapes[(m + r) % 2];
                    cls_spec spec;
                    cls_spec_init(&spec);
                    spec.mask_width = mw;
                    spec.mask_height = mh;
                    spec.coefficients = mask;
                    spec.bake_coefficients = bake;
                    spec.border = border;
                    spec.border_value = 0.75f;
                    spec.partition = partitions[p];
                    spec.group_width = shape[0];
                    spec.group_height = shape[1];
                    spec.rows_per_item = rows[r];
                    cls_filter *filter = NULL;
                    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
                    for (size_t i = 0; i < sizeof images / sizeof images[0]; ++i) {
                        const unsigned w = images[i][0], h = images[i][1];
                        float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
                        double *expected = malloc(sizeof(double) * w * h);
                        for (unsigned k = 0; k < w * h; ++k) in[k] = (float)((k * 29) % 37) / 37.0f + 0.5f;
                        const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
                        ref_stencil(&image, mask, (int)mw, (int)mh, border, 0.75f, expected);
                        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
                        assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
                        for (unsigned k = 0; k < w * h; ++k) {
                            const double e = expected[k];
                            if (!ref_f32_close(out[k], e))
                                fail_msg("%s %s %ux%u rows %u bake %d group %ux%u on %ux%u: (%u, %u) is %g, expected %g",
                                         cls_border_name(border), cls_partition_name(partitions[p]), mw, mh, rows[r],
                                         bake, shape[0], shape[1], w, h, k % w, k / w, (double)out[k], e);
                        }
                        compared += w * h;
                        free(in), free(out), free(expected);
                    }
                    cls_filter_release(filter);
                }
        }
    }
    assert_true(compared > (cls_test_exhaustive() ? 50000 : 15000)); /* two filters at least by default */
}

static void clamp_mode(void **state) { (void)state; check_mode(CLS_BORDER_CLAMP); }
static void mirror_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR); }
static void mirror101_mode(void **state) { (void)state; check_mode(CLS_BORDER_MIRROR101); }
static void repeat_mode(void **state) { (void)state; check_mode(CLS_BORDER_REPEAT); }
static void constant_mode(void **state) { (void)state; check_mode(CLS_BORDER_CONSTANT); }

static void unsupported_combinations_are_refused(void **state)
{
    (void)state;
    static const float box[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box;
    spec.rows_per_item = 9;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "rows per work-item 9 is not 1 to 8, 16, 32, 64 or 128"));
    spec.rows_per_item = 4;
    spec.border = CLS_BORDER_UNDEFINED;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    spec.border = CLS_BORDER_CLAMP;
    spec.body = "OUT = IN(0, 0);"; /* a body runs once per output of the block */
    assert_int_equal(cls_spec_validate(&spec), CLS_OK);
    spec.rows_per_item = 16; /* but streams no window */
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "an operator body takes 1 to 8"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clamp_mode),     cmocka_unit_test(mirror_mode),   cmocka_unit_test(mirror101_mode),
        cmocka_unit_test(repeat_mode),    cmocka_unit_test(constant_mode),
        cmocka_unit_test(unsupported_combinations_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
