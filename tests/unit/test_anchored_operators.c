/* test_anchored_operators.c — operators from arrays of any sides with an origin, without a
 * device: where the weights and footprint cells (2-D and a volume's) land in the centred odd window that runs them
 * (scipy.ndimage's rule: the output pixel is cell side/2 + origin), even sides in correlate:,
 * convolve: and mask files, and the refusals, whose messages name the axis and the limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generator.h"

/* The coefficient of OP's window at offset (dx, dy) from its centre. */
static float tap(const cls_operator *op, int dx, int dy)
{
    const cls_spec *s = cls_operator_spec(op);
    return s->coefficients[(unsigned)(dy + (int)s->mask_height / 2) * s->mask_width + (unsigned)(dx + (int)s->mask_width / 2)];
}

/* The sum of OP's coefficients (a padded window adds only zeros). */
static float total(const cls_operator *op)
{
    const cls_spec *s = cls_operator_spec(op);
    float sum = 0;
    for (unsigned k = 0; k < s->mask_width * s->mask_height * (s->mask_depth ? s->mask_depth : 1); ++k) sum += s->coefficients[k];
    return sum;
}

static void even_weights_sit_around_cell_half_the_side(void **state)
{
    (void)state;
    /* 4 weights along x: cell 2 is the output pixel, so the cells reach -2..1: a 5-wide window */
    const float row[4] = {1, 2, 3, 4};
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_weights(row, 4, 1, 0, NULL, &op), CLS_OK);
    assert_int_equal(cls_operator_spec(op)->mask_width, 5);
    assert_int_equal(cls_operator_spec(op)->mask_height, 1);
    for (int dx = -2; dx <= 1; ++dx) assert_float_equal(tap(op, dx, 0), (float)(dx + 3), 0);
    assert_float_equal(tap(op, 2, 0), 0, 0);
    assert_string_equal(cls_operator_name(op), "correlate:4x1");
    cls_operator_release(op);
    /* origin -1: cell 1 is the output pixel, cells reach -1..2 */
    const int left[3] = {-1, 0, 0};
    assert_int_equal(cls_operator_weights(row, 4, 1, 0, left, &op), CLS_OK);
    for (int dx = -1; dx <= 2; ++dx) assert_float_equal(tap(op, dx, 0), (float)(dx + 2), 0);
    assert_float_equal(tap(op, -2, 0), 0, 0);
    assert_string_equal(cls_operator_name(op), "correlate:4x1@-1,0,0");
    cls_operator_release(op);
    /* an odd side moved by its origin: 3 rows, origin 1 along y puts row 2 on the output row */
    const float column[3] = {5, 6, 7};
    const int down[3] = {0, 1, 0};
    assert_int_equal(cls_operator_weights(column, 1, 3, 0, down, &op), CLS_OK);
    assert_int_equal(cls_operator_spec(op)->mask_height, 5);
    assert_float_equal(tap(op, 0, -2), 5, 0);
    assert_float_equal(tap(op, 0, 0), 7, 0);
    assert_float_equal(total(op), 18, 0);
    cls_operator_release(op);
}

static void volumes_take_an_origin_along_z(void **state)
{
    (void)state;
    float cube[2 * 2 * 2];
    for (unsigned k = 0; k < 8; ++k) cube[k] = (float)(k + 1);
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_weights(cube, 2, 2, 2, NULL, &op), CLS_OK);
    const cls_spec *s = cls_operator_spec(op);
    assert_int_equal(s->mask_width, 3);
    assert_int_equal(s->mask_depth, 3);
    /* cell (0, 0, 0) lands at offset (-1, -1, -1): the first coefficient of the 3x3x3 window */
    assert_float_equal(s->coefficients[0], 1, 0);
    assert_float_equal(s->coefficients[26], 0, 0);
    assert_float_equal(s->coefficients[13], 8, 0); /* cell (1, 1, 1) on the output voxel */
    assert_float_equal(total(op), 36, 0);
    cls_operator_release(op);
}

static void text_takes_even_sides(void **state)
{
    (void)state;
    cls_operator *c = NULL, *r = NULL;
    assert_int_equal(cls_operator_parse("correlate:2x1,1,2", &r), CLS_OK);
    assert_int_equal(cls_operator_parse("convolve:2x1,1,2", &c), CLS_OK);
    /* correlate: cell 1 on the output pixel, 1 to its left; convolve (scipy's): flipped, origin -1,
     * so the flipped cell 0 (weight 2) is the output's and weight 1 is to its right */
    assert_float_equal(tap(r, -1, 0), 1, 0);
    assert_float_equal(tap(r, 0, 0), 2, 0);
    assert_float_equal(tap(c, 0, 0), 2, 0);
    assert_float_equal(tap(c, 1, 0), 1, 0);
    assert_string_equal(cls_operator_name(c), "convolve:2x1");
    cls_operator_release(c);
    cls_operator_release(r);
    /* a mask file with an even side: anchored at cell 2 of 4 */
    char folder[] = "/tmp/cls_anchored_XXXXXX", path[128], text[160];
    assert_non_null(mkdtemp(folder));
    snprintf(path, sizeof path, "%s/even.txt", folder);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    fputs("1001\n", file);
    fclose(file);
    snprintf(text, sizeof text, "max:mask:%s", path);
    assert_int_equal(cls_operator_parse(text, &c), CLS_OK);
    assert_int_equal(cls_operator_spec(c)->mask_width, 5);
    assert_float_equal(tap(c, -2, 0), 1, 0);
    assert_float_equal(tap(c, 1, 0), 1, 0);
    assert_float_equal(tap(c, 0, 0), 0, 0);
    cls_operator_release(c);
    remove(path);
    rmdir(folder);
}

/* correlate:WxH@X,Y and convolve:WxH@X,Y: scipy's origins, the convolution's mirrored. */
static void text_takes_an_origin(void **state)
{
    (void)state;
    cls_operator *c = NULL, *r = NULL;
    assert_int_equal(cls_operator_parse("correlate:3x1@1,0,1,2,3", &r), CLS_OK);
    assert_int_equal(cls_operator_parse("convolve:3x1@1,0,1,2,3", &c), CLS_OK);
    /* correlate, origin 1: cell 2 (weight 3) on the output pixel, the others to its left */
    assert_float_equal(tap(r, -2, 0), 1, 0);
    assert_float_equal(tap(r, -1, 0), 2, 0);
    assert_float_equal(tap(r, 0, 0), 3, 0);
    /* convolve, origin 1: flipped (3, 2, 1) at origin -1: weight 3 on the output pixel */
    assert_float_equal(tap(c, 0, 0), 3, 0);
    assert_float_equal(tap(c, 1, 0), 2, 0);
    assert_float_equal(tap(c, 2, 0), 1, 0);
    assert_string_equal(cls_operator_name(r), "correlate:3x1@1,0");
    cls_operator_release(c);
    cls_operator_release(r);
    assert_int_equal(cls_operator_parse("correlate:1x1x3@0,0,-1,1,2,3", &r), CLS_OK);
    assert_int_equal(cls_operator_spec(r)->mask_depth, 5);
    assert_float_equal(cls_operator_spec(r)->coefficients[2], 1, 0); /* slice 2 of 5: the output's */
    assert_string_equal(cls_operator_name(r), "correlate:1x1x3@0,0,-1");
    cls_operator_release(r);
    assert_int_equal(cls_operator_parse("correlate:3x1@2,0,1,2,3", &r), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "origin 2 along x"));
    assert_int_equal(cls_operator_parse("correlate:3x3x3@0,1,1,1,1", &r), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_operator_parse("correlate:3x1@1,1,2,3", &r), CLS_ERR_INVALID_ARGUMENT);
}

static void footprints_of_any_sides(void **state)
{
    (void)state;
    const unsigned char cells[2 * 3] = {1, 0, 1, 0, 7, 0}; /* 3 wide, 2 high; any non-zero is inside */
    const int origin[3] = {0, -1, 0};
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_footprint("Median", 0, cells, 3, 2, 0, origin, &op), CLS_OK);
    /* origin -1 along y: row 0 is the output's row, row 1 below it: a 3x3 window */
    assert_int_equal(cls_operator_spec(op)->mask_height, 3);
    assert_float_equal(tap(op, -1, 0), 1, 0);
    assert_float_equal(tap(op, 0, 1), 1, 0);
    assert_float_equal(tap(op, 0, 0), 0, 0);
    assert_float_equal(tap(op, 0, -1), 0, 0);
    assert_non_null(strstr(cls_operator_name(op), "median:3x2@0,-1"));
    cls_operator_release(op);
    /* a whole centred rectangle is the plain rectangle */
    const unsigned char full[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(cls_operator_footprint("opening", 0, full, 3, 3, 0, NULL, &op), CLS_OK);
    assert_string_equal(cls_operator_name(op), "opening:3x3,rect");
    cls_operator_release(op);
    assert_int_equal(cls_operator_footprint("percentile", 25, full, 3, 3, 0, NULL, &op), CLS_OK);
    assert_string_equal(cls_operator_name(op), "percentile:25,3x3,rect");
    cls_operator_release(op);
    /* a volume's footprint: a minimum or maximum reduction over the cells; dilate reflects them */
    const unsigned char corner[2 * 2 * 2] = {1, 0, 0, 0, 0, 0, 0, 1}; /* cells (0,0,0) and (1,1,1) */
    assert_int_equal(cls_operator_footprint("dilate", 0, corner, 2, 2, 2, NULL, &op), CLS_OK);
    const cls_spec *s = cls_operator_spec(op);
    assert_int_equal(s->reduction, CLS_REDUCTION_MAX);
    assert_int_equal(s->mask_depth, 3);
    /* as given: offsets (-1,-1,-1) and (0,0,0); reflected: (1,1,1) and (0,0,0) */
    assert_float_equal(s->coefficients[26], 1, 0);
    assert_float_equal(s->coefficients[13], 1, 0);
    assert_float_equal(s->coefficients[0], 0, 0);
    cls_operator_release(op);
    assert_int_equal(cls_operator_footprint("erode", 0, corner, 2, 2, 2, NULL, &op), CLS_OK);
    assert_int_equal(cls_operator_spec(op)->reduction, CLS_REDUCTION_MIN);
    assert_float_equal(cls_operator_spec(op)->coefficients[0], 1, 0);
    cls_operator_release(op);
}

/* The call's status is CLS_ERR_INVALID_ARGUMENT, *out NULL, and the message holds MESSAGE. */
static void refused(cls_status status, const cls_operator *op, const char *message)
{
    assert_int_equal(status, CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' lacks '%s'", cls_last_error(), message);
}

static void refusals_name_the_axis_and_the_limit(void **state)
{
    (void)state;
    static float weights[64 * 2];
    const unsigned char cells[4] = {1, 1, 0, 0}, none[4] = {0};
    cls_operator *op = NULL;
    const int outside[3] = {2, 0, 0}, far[3] = {0, 0, 0}, along_z[3] = {0, 0, 1};
    refused(cls_operator_weights(weights, 4, 1, 0, outside, &op), op, "origin 2 along x puts the output pixel outside the 4 cells (from -2 to 1)");
    refused(cls_operator_weights(weights, 64, 1, 0, far, &op), op, "a side of 64 along x: sides are 1 to 63");
    refused(cls_operator_weights(weights, 1, 1, 0, along_z, &op), op, "origin 1 along z");
    const int edge[3] = {0, 31, 0};
    refused(cls_operator_weights(weights, 1, 63, 0, edge, &op), op, "63 cells with origin 31 along y reach 62");
    weights[1] = 1.0f / 0.0f;
    refused(cls_operator_weights(weights, 2, 1, 0, NULL, &op), op, "weight 1 is not finite");
    weights[1] = 0;
    refused(cls_operator_footprint("blur", 0, cells, 2, 2, 0, NULL, &op), op, "expected median, percentile");
    refused(cls_operator_footprint("percentile", 101, cells, 2, 2, 0, NULL, &op), op, "101 is not from 0 to 100");
    refused(cls_operator_footprint("min", 0, none, 2, 2, 0, NULL, &op), op, "the footprint holds no pixel");
    refused(cls_operator_footprint("opening", 0, cells, 2, 2, 1, NULL, &op), op,
            "a volume's footprint takes min, erode, max, dilate, median or percentile");
    refused(cls_operator_footprint("min", 0, cells, 2, 2, 0, along_z, &op), op, "origin 1 along z of a 2-D footprint");
    refused(cls_operator_weights(NULL, 1, 1, 0, NULL, &op), op, "NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_weights_sit_around_cell_half_the_side),
        cmocka_unit_test(volumes_take_an_origin_along_z),
        cmocka_unit_test(text_takes_even_sides),
        cmocka_unit_test(text_takes_an_origin),
        cmocka_unit_test(footprints_of_any_sides),
        cmocka_unit_test(refusals_name_the_axis_and_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
