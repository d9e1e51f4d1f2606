/* test_regions.c — the region bounds against a brute-force oracle: a group needs the left
 * check iff its leftmost read (first column - hx) is negative, the right check iff its
 * rightmost read (last column of the full group + hx) is at or beyond the width or the group
 * is cut by the end of the region of interest; rows alike. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "generator.h"

static cls_region_bounds bounds_of(unsigned width, unsigned height, unsigned roi_x, unsigned roi_y,
                                   unsigned roi_width, unsigned roi_height, unsigned mask_width,
                                   unsigned mask_height, unsigned group_width, unsigned group_height)
{
    const cls_launch_geometry g = {width, height, roi_x, roi_y, roi_width, roi_height,
                                   mask_width, mask_height, group_width, group_height};
    cls_region_bounds b;
    cls_region_bounds_compute(&g, &b);
    return b;
}

static cls_region_bounds whole(unsigned width, unsigned height, unsigned mask_width, unsigned mask_height,
                               unsigned group_width, unsigned group_height)
{
    return bounds_of(width, height, 0, 0, width, height, mask_width, mask_height, group_width, group_height);
}

static void axis_bounds_match_brute_force(void **state)
{
    (void)state;
    static const unsigned groups[] = {1, 3, 8, 24, 32, 128};
    unsigned long checked = 0;
    for (unsigned size = 1; size <= 70; ++size)
        for (unsigned mask = 1; mask <= 41; mask += 4)
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; ++g)
                for (unsigned origin = 0; origin < size; origin += 1 + size / 5)
                    for (unsigned extent = size - origin; extent >= 1; extent = extent > 7 ? extent / 2 : extent - 1) {
                        const int t = (int)groups[g], h = (int)mask / 2, o = (int)origin, n = (int)extent;
                        const cls_region_bounds b = bounds_of(size, size, origin, origin, extent, extent, mask, mask,
                                                              (unsigned)t, (unsigned)t);
                        assert_int_equal(b.groups_x, (n + t - 1) / t);
                        assert_int_equal(b.body_x0, h);
                        assert_int_equal(b.body_x1, (int)size - h);
                        for (int block = 0; block < b.groups_x; ++block) {
                            /* the oracle: the reads of the group's columns, and whether it is whole */
                            const int needs_low = o + block * t - h < 0;
                            const int needs_high = o + (block + 1) * t - 1 + h >= (int)size || (block + 1) * t > n;
                            assert_int_equal(block < b.left, needs_low);
                            assert_int_equal(block >= b.right, needs_high);
                            assert_int_equal(block < b.top, needs_low);
                            assert_int_equal(block >= b.bottom, needs_high);
                            ++checked;
                        }
                    }
    assert_true(checked > 10000);
}

static void regions_of_a_large_image(void **state)
{
    (void)state;
    /* 4096x4096, 13x13, 32x6 groups (Hipacc's example): hx = hy = 6. */
    cls_region_bounds b = whole(4096, 4096, 13, 13, 32, 6);
    assert_int_equal(b.left, 1);   /* ceil(6/32) */
    assert_int_equal(b.right, 127); /* floor(4090/32) */
    assert_int_equal(b.top, 1);    /* ceil(6/6) */
    assert_int_equal(b.bottom, 681); /* floor(4090/6) */
    unsigned long counts[CLS_REGION_COUNT];
    cls_region_group_counts(&b, counts);
    assert_int_equal(counts[CLS_REGION_TL], 1);
    assert_int_equal(counts[CLS_REGION_T], 126);
    assert_int_equal(counts[CLS_REGION_TR], 1);
    assert_int_equal(counts[CLS_REGION_L], 680);
    assert_int_equal(counts[CLS_REGION_BODY], 126ul * 680);
    assert_int_equal(counts[CLS_REGION_B], 2ul * 126); /* groups_y = 683: rows 681 and 682 */
    assert_int_equal(counts[CLS_REGION_BR], 2);
    assert_int_equal(counts[CLS_REGION_FALLBACK], 0);
    unsigned long total = 0;
    for (int r = 0; r < CLS_REGION_COUNT; ++r) total += counts[r];
    assert_int_equal(total, (unsigned long)b.groups_x * b.groups_y);
}

static void narrow_image_falls_back(void **state)
{
    (void)state;
    /* 7x5 with 17x17 and 32x8 groups: the only group needs both sides on both axes. */
    cls_region_bounds b = whole(7, 5, 17, 17, 32, 8);
    assert_int_equal(cls_region_of_group(&b, 0, 0), CLS_REGION_FALLBACK);
    /* 40 wide, 9x1, 32x1: group 0 needs left only, group 1 right only. */
    b = whole(40, 1, 9, 1, 32, 1);
    assert_int_equal(cls_region_of_group(&b, 0, 0), CLS_REGION_L);
    assert_int_equal(cls_region_of_group(&b, 1, 0), CLS_REGION_R);
    assert_string_equal(cls_region_name(CLS_REGION_BODY), "Body");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(axis_bounds_match_brute_force),
        cmocka_unit_test(regions_of_a_large_image),
        cmocka_unit_test(narrow_image_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
