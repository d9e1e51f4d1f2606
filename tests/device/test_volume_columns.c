/* test_volume_columns.c — a volume's walks of several output columns a work-item, on the default
 * device against the CPU reference in 3-D: from the slice's tile in local memory (the local input
 * path, the GPUs' form; also in blocks of rows, the H200's), in explicit vectors (the global path,
 * CPU runtimes' form), and separable masks in one pass from the tile, in every border mode (tall
 * ones also along y first, the GPUs' form, by an overlay of the device's own record; extrema along
 * z by doubling). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"
#include "support/context_fixture.h"
#include "support/record_overlay.h"
#include "support/volume_check.h"

/* Every border mode, the undefined one included. */
static const cls_border borders[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                     CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
#define BORDERS (sizeof borders / sizeof borders[0])

/* A walk of several columns a work-item: mask, coefficient storage, columns and slices per
 * work-item, group (0: the device's). */
typedef struct columns_case {
    unsigned w, h, d;
    int bake;
    unsigned cols, slices, group_w, group_h;
} columns_case;

/* Each case on input PATH in every border mode (two of the three cases a mode, all under
 * CLS_TEST_EXHAUSTIVE) over volumes from 1x1x1 to 67x45x33, and a mode's extreme: the minimum
 * over a box (4 columns) or the maximum over a cross (8). */
static void columns_in_every_mode(cls_input_path path, const columns_case cases[3])
{
    static const unsigned volumes[][3] = {{1, 1, 1}, {4, 3, 2}, {17, 11, 9}, {67, 45, 33}};
    static const unsigned extremes[][3] = {{37, 5, 6}, {3, 2, 4}};
    float box[27], cross[27];
    for (unsigned k = 0; k < 27; ++k) box[k] = 1.0f, cross[k] = (k % 3 == 1) + (k / 3 % 3 == 1) + (k / 9 == 1) >= 2;
    for (size_t b = 0; b < BORDERS; ++b) {
        for (size_t m = 0; m < 3; ++m) {
            if (!cls_test_pick((unsigned)(b + m), 3) && !cls_test_pick((unsigned)(b + m + 1), 3)) continue;
            const columns_case *c = &cases[m];
            float *mask = make_mask(c->w, c->h, c->d);
            cls_spec spec = volume_spec(mask, c->w, c->h, c->d, borders[b], c->bake);
            spec.cols_per_item = c->cols, spec.rows_per_item = c->slices, spec.input_path = path;
            spec.group_width = c->group_w, spec.group_height = c->group_h;
            check_volumes(&spec, volumes, sizeof volumes / sizeof volumes[0]);
            free(mask);
        }
        const int extreme = (int)(b % 2);
        cls_spec spec = volume_spec(extreme ? cross : box, 3, 3, 3, borders[b], CLS_COEFFICIENTS_LITERALS);
        spec.reduction = extreme ? CLS_REDUCTION_MAX : CLS_REDUCTION_MIN;
        spec.cols_per_item = extreme ? 8 : 4, spec.input_path = path;
        check_volumes(&spec, extremes, sizeof extremes / sizeof extremes[0]);
    }
}

/* The walk with the slice's tile in local memory (the local path, the GPUs' form): groups' tiles
 * wider than the volume and several along a row, rows that end inside a group's columns, groups
 * of one row and of 16 under a window 29 tall (taller than most volumes), a mask wider than tall. */
static void columns_from_the_slice_tile(void **state)
{
    (void)state;
    static const columns_case cases[3] = {{3, 3, 3, CLS_COEFFICIENTS_LITERALS, 4, 0, 0, 0},
                                          {3, 29, 3, CLS_COEFFICIENTS_BUFFER, 8, 4, 8, 16},
                                          {7, 1, 3, CLS_COEFFICIENTS_LITERALS, 4, 2, 16, 1}};
    columns_in_every_mode(CLS_INPUT_LOCAL, cases);
}

/* Rows of outputs a work-item from the slice's tile (the record's volume_block_rows, by overlays
 * of the device's own record: 2, then 3): a 3x3x3 mask, a 5x3x5 one in a buffer with 8 columns in
 * groups of 8x2 walking 4 slices, and a 1x5x3 one in groups of one row, in every border mode (one
 * of the three a mode in turn at 2 rows, all under CLS_TEST_EXHAUSTIVE; the first in two modes at
 * 3) over volumes 1x1x1 to 67x45x33, whose rows end inside a block. */
static void rows_of_outputs_from_the_slice_tile(void **state)
{
    (void)state;
    static const unsigned volumes[][3] = {{1, 1, 1}, {4, 3, 2}, {17, 11, 9}, {67, 45, 33}};
    static const columns_case cases[3] = {{3, 3, 3, CLS_COEFFICIENTS_LITERALS, 4, 0, 0, 0},
                                          {5, 3, 5, CLS_COEFFICIENTS_BUFFER, 8, 4, 8, 2},
                                          {1, 5, 3, CLS_COEFFICIENTS_LITERALS, 4, 2, 16, 1}};
    for (unsigned rows = 2; rows <= 3; ++rows) {
        char keys[32], overlay[32], define[32];
        snprintf(keys, sizeof keys, "volume_block_rows = %u\n", rows);
        snprintf(define, sizeof define, "#define BLOCK_ROWS %u ", rows);
        cls_context *rows_context = record_overlay_context(context, keys, overlay);
        assert_non_null(rows_context);
        for (size_t b = 0; b < BORDERS; ++b)
            for (size_t m = 0; m < 3; ++m) {
                const int picked = rows == 2 ? cls_test_pick((unsigned)(b + m), 3) : m == 0 && (b == 2 || b == 4);
                if (!picked) continue;
                const columns_case *c = &cases[m];
                float *mask = make_mask(c->w, c->h, c->d);
                cls_spec spec = volume_spec(mask, c->w, c->h, c->d, borders[b], c->bake);
                spec.cols_per_item = c->cols, spec.rows_per_item = c->slices, spec.input_path = CLS_INPUT_LOCAL;
                spec.group_width = c->group_w, spec.group_height = c->group_h;
                cls_filter *filter = NULL;
                if (cls_filter_create(rows_context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
                assert_non_null(strstr(cls_filter_source(filter), define));
                for (size_t v = 0; v < sizeof volumes / sizeof volumes[0]; ++v)
                    check_volume(filter, &spec, volumes[v][0], volumes[v][1], volumes[v][2]);
                cls_filter_release(filter);
                free(mask);
            }
        record_overlay_release(rows_context, overlay);
    }
}

/* The walk in explicit vectors (the global path, CPU runtimes' form): volumes narrower than a
 * vector and rows that end inside one (lanes stored one by one), work-items whose windows leave
 * the volume along x (lanes loaded one by one) beside those that load vectors. */
static void columns_in_vectors(void **state)
{
    (void)state;
    static const columns_case cases[3] = {{3, 3, 3, CLS_COEFFICIENTS_LITERALS, 8, 0, 0, 0},
                                          {5, 3, 7, CLS_COEFFICIENTS_BUFFER, 4, 4, 8, 2},
                                          {13, 1, 3, CLS_COEFFICIENTS_LITERALS, 8, 2, 16, 1}};
    columns_in_every_mode(CLS_INPUT_GLOBAL, cases);
}

/* A separable mask in one pass along x, y and z from the slice's tile: a Gaussian and an asked
 * 3x5x3 product (4 and 8 columns a work-item), the minimum and maximum over a 5x3x5 box and over
 * a 9x3x9 box (wide enough that the x pass's windows share their middle columns; along z blocks
 * of 2 and of 4 slices by doubling), and an asked 3x3x21 product (84 partial sums down z, more
 * than a walk keeps), in every border mode (undefined included: one kernel leaves voxels
 * unwritten as the walk does), each mode with half of the seven (all under CLS_TEST_EXHAUSTIVE). */
static void separable_masks_in_a_single_pass(void **state)
{
    (void)state;
    cls_operator *gaussian = NULL;
    assert_int_equal(cls_operator_parse("gaussian3d:7,1.5", &gaussian), CLS_OK);
    static const float x[3] = {1, 2, -1}, y[5] = {0.5f, 1, 3, 1, 0.25f}, z[3] = {2, 1, 0.5f};
    static const float deep_z[21] = {1, -2, 3, 0.5f, 1, 2, -1, 4, 0.25f, 1, 3, 1, 0.25f, 4, -1, 2, 1, 0.5f, 3, -2, 1};
    float product[45], deep[189], box[243]; /* deep: 3x3x21, 84 partial sums down z */
    outer_product(x, 3, y, 5, z, 3, product);
    outer_product(x, 3, z, 3, deep_z, 21, deep);
    for (unsigned k = 0; k < 243; ++k) box[k] = 1.0f;
    for (size_t b = 0; b < BORDERS; ++b)
        for (int kind = 0; kind < 7; ++kind) {
            if (!cls_test_pick((unsigned)(b + (size_t)kind), 2)) continue;
            cls_spec spec = kind == 0   ? *cls_operator_spec(gaussian)
                            : kind == 6 ? volume_spec(deep, 3, 3, 21, borders[b], CLS_COEFFICIENTS_LITERALS)
                            : kind == 1 ? volume_spec(product, 3, 5, 3, borders[b], CLS_COEFFICIENTS_LITERALS)
                            : kind >= 4 ? volume_spec(box, 9, 3, 9, borders[b], CLS_COEFFICIENTS_LITERALS)
                                        : volume_spec(box, 5, 3, 5, borders[b], CLS_COEFFICIENTS_BUFFER);
            spec.border = borders[b], spec.border_value = 0.25f, spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
            spec.separable = CLS_SEPARABLE_SINGLE_PASS;
            spec.cols_per_item = kind == 1 ? 8 : 4;
            if (kind >= 2 && kind < 6) spec.reduction = kind % 2 ? CLS_REDUCTION_MAX : CLS_REDUCTION_MIN;
            if (kind == 1) spec.group_width = 8, spec.group_height = 2;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            assert_int_equal(cls_filter_separable(filter), CLS_SEPARABLE_SINGLE_PASS);
            assert_int_equal(cls_filter_kernel_count(filter), 1);
            if (kind == 4 || kind == 5) assert_non_null(strstr(cls_filter_source(filter), "joined once"));
            assert_true((strstr(cls_filter_source(filter), "Along z by doubling") != NULL) == (kind >= 2 && kind < 6));
            check_volume(filter, &spec, 1, 1, 1);
            check_volume(filter, &spec, 19, 6, 13);
            if (kind == 0) check_volume(filter, &spec, 67, 45, 33);
            if (kind == 6) check_volume(filter, &spec, 23, 9, 27); /* deeper than the mask's half */
            cls_filter_release(filter);
        }
    cls_operator_release(gaussian);
}

/* A separable mask at least 9 tall in one pass along y first, over the tile's columns in columns
 * of COLUMNS rows (the record's volume_y_first, here by an overlay of the device's own record):
 * an asked 3x9x3 product, a Gaussian 13 taps a side, the maximum over a 5x9x3 box and the minimum
 * over a 3x11x15 box (their rows sharing the middle; along z, blocks of 8 slices by doubling,
 * deeper than the lower volume; the boxes walking 256 and 512 slices, each volume one walk), in
 * every border mode, two of the four a mode (all under CLS_TEST_EXHAUSTIVE); volumes lower than
 * the mask and the group, and one of several groups with rows that end inside a group. */
static void tall_separable_masks_along_y_first(void **state)
{
    (void)state;
    char overlay[32];
    cls_context *rows_context = record_overlay_context(context, "volume_y_first = 1\n", overlay);
    assert_non_null(rows_context);
    cls_operator *gaussian = NULL;
    assert_int_equal(cls_operator_parse("gaussian3d:13,2", &gaussian), CLS_OK);
    static const float x[3] = {1, 2, -1}, y[9] = {0.5f, 1, 3, 1, 0.25f, -2, 1.5f, 0.75f, 2}, z[3] = {2, 1, 0.5f};
    float product[81], box[495];
    outer_product(x, 3, y, 9, z, 3, product);
    for (unsigned k = 0; k < 495; ++k) box[k] = 1.0f;
    for (size_t b = 0; b < BORDERS; ++b)
        for (int kind = 0; kind < 4; ++kind) {
            if (!cls_test_pick((unsigned)(b + (size_t)kind), 2)) continue;
            cls_spec spec = kind == 0   ? volume_spec(product, 3, 9, 3, borders[b], CLS_COEFFICIENTS_BUFFER)
                            : kind == 1 ? *cls_operator_spec(gaussian)
                            : kind == 2 ? volume_spec(box, 5, 9, 3, borders[b], CLS_COEFFICIENTS_LITERALS)
                                        : volume_spec(box, 3, 11, 15, borders[b], CLS_COEFFICIENTS_LITERALS);
            spec.border = borders[b], spec.border_value = 0.25f, spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
            spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.cols_per_item = 4;
            spec.group_width = 8, spec.group_height = kind == 1 ? 8 : 4;
            if (kind >= 2) spec.reduction = kind == 2 ? CLS_REDUCTION_MAX : CLS_REDUCTION_MIN;
            if (kind >= 2) spec.rows_per_item = kind == 2 ? 256 : 512; /* a walk deeper than the volume */
            cls_filter *filter = NULL;
            if (cls_filter_create(rows_context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            assert_int_equal(cls_filter_separable(filter), CLS_SEPARABLE_SINGLE_PASS);
            assert_non_null(strstr(cls_filter_source(filter), "the tile's columns summed along y"));
            assert_true((strstr(cls_filter_source(filter), "Along z by doubling") != NULL) == (kind >= 2));
            if (kind >= 2)
                assert_non_null(strstr(cls_filter_source(filter), kind == 2 ? "#define SLICES 256 " : "#define SLICES 512 "));
            check_volume(filter, &spec, 1, 1, 1);
            check_volume(filter, &spec, 19, 6, 13);
            if (kind != 1) check_volume(filter, &spec, 67, 45, 33);
            cls_filter_release(filter);
        }
    cls_operator_release(gaussian);
    record_overlay_release(rows_context, overlay);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(columns_from_the_slice_tile),
        cmocka_unit_test(rows_of_outputs_from_the_slice_tile),
        cmocka_unit_test(columns_in_vectors),
        cmocka_unit_test(separable_masks_in_a_single_pass),
        cmocka_unit_test(tall_separable_masks_along_y_first),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
