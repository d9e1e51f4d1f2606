/* test_configure.c — Hipacc's Algorithm 2 (plan/configure.c): border work-items counted
 * exactly (checked against a brute-force count written from DESIGN.md), candidates valid and
 * sorted, and the shapes Hipacc reports (32x6 for the 13x13 bilateral filter on a Fermi GPU). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models_fixture.h"

/* ------------------------------------------------------------------ border work-items */

/* The oracle, from DESIGN.md alone: group column b of width t is free of both x checks iff its
 * reads b*t - hx .. (b+1)*t - 1 + hx lie inside [0, size) and the group lies whole inside the
 * image; rows alike. Work-items of other groups with output run border code. */
static unsigned long brute_border_items(unsigned size_x, unsigned size_y, unsigned mask, unsigned tx,
                                        unsigned ty, unsigned rows, unsigned cols)
{
    const long h = mask / 2, cover_y = (long)ty * rows, cover_x = (long)tx * cols;
    const long groups_x = (size_x + cover_x - 1) / cover_x, groups_y = (size_y + cover_y - 1) / cover_y;
    unsigned long items = 0;
    for (long gy = 0; gy < groups_y; ++gy) {
        const int body_y = gy * cover_y - h >= 0 && (gy + 1) * cover_y - 1 + h < (long)size_y &&
                           (gy + 1) * cover_y <= (long)size_y;
        for (long gx = 0; gx < groups_x; ++gx) {
            const int body_x = gx * cover_x - h >= 0 && (gx + 1) * cover_x - 1 + h < (long)size_x &&
                               (gx + 1) * cover_x <= (long)size_x;
            if (body_x && body_y) continue;
            long item_columns = 0, item_rows = 0; /* work-items whose first output is in the image */
            for (long lx = 0; lx < (long)tx; ++lx) item_columns += gx * cover_x + lx * (long)cols < (long)size_x;
            for (long ly = 0; ly < (long)ty; ++ly) item_rows += gy * cover_y + ly * (long)rows < (long)size_y;
            items += (unsigned long)(item_columns * item_rows);
        }
    }
    return items;
}

static unsigned long border_items_blocked(unsigned size, unsigned mask, unsigned tx, unsigned ty, unsigned rows,
                                          unsigned cols)
{
    const cls_launch_geometry g = {size, size, 0, 0, size, size, mask, mask, tx, ty};
    const unsigned long counted = cls_border_work_items(&g, rows, cols);
    assert_int_equal(counted, brute_border_items(size, size, mask, tx, ty, rows, cols));
    return counted;
}

static unsigned long border_items(unsigned size, unsigned mask, unsigned tx, unsigned ty, unsigned rows)
{
    return border_items_blocked(size, mask, tx, ty, rows, 1);
}

/* Hipacc prefers 32x6 over 32x4 for 13x13 (hy = 6): the top border takes ceil(6/ty)*ty rows, 6 for
 * ty = 3 or 6 and 8 for ty = 4, and "32x3 would be preferred to the two". Counted exactly on
 * 4092x4092 (the bottom border alike) that holds: 32x6 = 32x3 = 4092^2 - 4032*4080 = 293904 <
 * 32x4 = 4092^2 - 4032*4076 = 310032. On 4096x4096 the bottom evens it out: 32x4 = 32x6 =
 * 4096^2 - 4032*4080 = 326656, and 32x3 = 4096^2 - 4032*4083 = 314560. */
static void hipacc_13x13_border_counts(void **state)
{
    (void)state;
    assert_int_equal(border_items(4092, 13, 32, 6, 1), 293904);
    assert_int_equal(border_items(4092, 13, 32, 3, 1), 293904);
    assert_int_equal(border_items(4092, 13, 32, 4, 1), 310032);
    assert_int_equal(border_items(4096, 13, 32, 4, 1), 326656);
    assert_int_equal(border_items(4096, 13, 32, 6, 1), 326656);
    assert_int_equal(border_items(4096, 13, 32, 8, 1), 326656);
    assert_int_equal(border_items(4096, 13, 32, 3, 1), 314560);
    assert_int_equal(border_items(4096, 13, 32, 2, 1), 4096 * 4096 - 4032 * 4084);
    /* two rows per work-item: a 32x3 group covers 6 rows, half the items of 32x6 */
    assert_int_equal(border_items(4092, 13, 32, 3, 2), 293904 / 2);
    /* small and odd sizes against the oracle */
    for (unsigned size = 1; size <= 80; size += 7)
        for (unsigned mask = 1; mask <= 15; mask += 2)
            for (unsigned rows = 1; rows <= 4; rows *= 2) {
                (void)border_items(size, mask, 32, 3, rows);
                (void)border_items(size, mask, 64, 1, rows);
                (void)border_items(size, mask, 32, 8, rows);
            }
}

/* ------------------------------------------------------------------ Algorithm 2 */

static cls_config_request request_for(const cls_arch_record *r, unsigned registers, unsigned size,
                                      unsigned mask, int border_handling)
{
    cls_config_request q;
    memset(&q, 0, sizeof q);
    q.record = r;
    q.usage.registers = registers;
    q.max_group_items = 1024;
    q.max_item_sizes[0] = q.max_item_sizes[1] = 1024;
    q.max_local_bytes = 49152;
    q.border_handling = border_handling;
    const cls_launch_geometry g = {size, size, 0, 0, size, size, mask, mask, 0, 0};
    q.geometry = g;
    q.rows_per_item = 1;
    return q;
}

static const cls_config_candidate *chosen(const cls_config_result *result)
{
    assert_true(result->chosen < result->count);
    return &result->candidates[result->chosen];
}

/* Lines 1-3: every shape is a multiple of the SIMD width, within the limits, resident, sorted by
 * occupancy and then work-items. sm_90 with 32 registers: widths 32k, heights up to 1024 / 32k:
 * sum over k = 1..32 of floor(32 / k) = 119 shapes. */
static void candidates_are_valid_and_sorted(void **state)
{
    (void)state;
    const cls_arch_record *r = model_record("nvidia-sm90");
    cls_config_request q = request_for(r, 32, 1024, 5, 1);
    q.compute_units = 132;
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(result.count, 119);
    for (size_t k = 0; k < result.count; ++k) {
        const cls_config_candidate *c = &result.candidates[k];
        const unsigned items = c->group_width * c->group_height;
        assert_int_equal(c->group_width % 32, 0);
        assert_int_equal(items % 32, 0);
        assert_true(items <= 1024);
        assert_true(c->occupancy.resident_groups >= 1);
        assert_true(c->problem.grid_groups > 0);
        if (k) {
            const cls_config_candidate *p = &result.candidates[k - 1];
            assert_true(p->occupancy.resident_warps >= c->occupancy.resident_warps);
            if (p->occupancy.resident_warps == c->occupancy.resident_warps)
                assert_true(p->occupancy.group_items <= c->occupancy.group_items);
        }
    }
    cls_config_result_free(&result);
    /* tighter device limits: widths 32 and 64, heights up to 4, at most 128 work-items */
    q.max_group_items = 128;
    q.max_item_sizes[0] = 64;
    q.max_item_sizes[1] = 4;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(result.count, 6); /* 32x1..32x4, 64x1, 64x2 */
    for (size_t k = 0; k < result.count; ++k) {
        assert_true(result.candidates[k].group_width <= 64);
        assert_true(result.candidates[k].group_height <= 4);
        assert_true(result.candidates[k].group_width * result.candidates[k].group_height <= 128);
    }
    cls_config_result_free(&result);
    /* 255 registers: 8 warps per SM, so only shapes of up to 8 warps stay; then kernels that fit
     * nowhere (more local memory than a group may have; no width that is a SIMD multiple) */
    q = request_for(r, 255, 1024, 5, 1);
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    for (size_t k = 0; k < result.count; ++k) assert_true(result.candidates[k].occupancy.warps_per_group <= 8);
    cls_config_result_free(&result);
    q.usage.local_bytes = 65536;
    assert_int_equal(cls_configure(&q, &result), CLS_ERR_UNSUPPORTED);
    q.usage.local_bytes = 0;
    q.max_item_sizes[0] = 16;
    assert_int_equal(cls_configure(&q, &result), CLS_ERR_UNSUPPORTED);
    assert_null(result.candidates);
}

/* Without border handling: the highest occupancy, the fewest work-items, the x-component first.
 * sm_90 with 32 registers: 64 warps at 64, 128, 256, 512 and 1024 work-items; 64x1. */
static void without_border_handling_prefer_x(void **state)
{
    (void)state;
    const cls_config_request q = request_for(model_record("nvidia-sm90"), 32, 4096, 13, 0);
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 64);
    assert_int_equal(chosen(&result)->group_height, 1);
    assert_int_equal(chosen(&result)->occupancy.resident_warps, 64);
    assert_int_equal(chosen(&result)->border_counted, 0);
    cls_config_result_free(&result);
}

/* Tesla C2050 (compute capability 2.0, Hipacc's Fig. 4): 1536 threads, 48 warps, 8 blocks per SM,
 * 32768 registers granted 64 per warp, 63 per thread, 48 KB shared memory. */
static cls_arch_record fermi_c2050(void)
{
    cls_arch_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "tesla-c2050");
    r.vendor = CLS_VENDOR_NVIDIA;
    r.type = CLS_DEVICE_GPU;
    snprintf(r.arch, sizeof r.arch, "sm_20");
    r.simd_width = 32;
    r.max_threads_per_cu = 1536;
    r.max_groups_per_cu = 8;
    r.max_warps_per_cu = 48;
    r.registers_per_cu = 32768;
    r.register_alloc_unit = 64;
    r.register_alloc_per_warp = 1;
    r.max_registers_per_thread = 63;
    r.local_mem_per_cu = 49152;
    r.local_mem_alloc_unit = 128;
    return r;
}

/* Hipacc's bilateral 13x13 on 4096x4096 on the C2050, with 20 registers: full occupancy (48
 * warps) at 192, 256, 384, 512 and 768 work-items; 128 (32x4) reaches 32 warps only. Among the
 * full ones 32x6 and 32x8 leave the fewest work-items in border code (326656); 32x6 has fewer
 * work-items: the configuration of Hipacc's Fig. 4. */
static void hipacc_bilateral_picks_32x6_on_fermi(void **state)
{
    (void)state;
    const cls_arch_record r = fermi_c2050();
    const cls_config_request q = request_for(&r, 20, 4096, 13, 1);
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    const cls_config_candidate *c = chosen(&result);
    assert_int_equal(c->group_width, 32);
    assert_int_equal(c->group_height, 6);
    assert_int_equal(c->occupancy.resident_warps, 48);
    assert_true(c->border_counted);
    assert_int_equal(c->border_items, 326656);
    for (size_t k = 0; k < result.count; ++k) {
        const cls_config_candidate *o = &result.candidates[k];
        if (o->group_width == 32 && o->group_height == 4) assert_int_equal(o->occupancy.resident_warps, 32);
        if (o->border_counted) {
            assert_int_equal(o->occupancy.resident_warps, 48);
            assert_true(o->border_items >= c->border_items);
        }
    }
    cls_config_result_free(&result);
}

/* The same with two rows per work-item: a 32x6 group covers 12 rows; the body holds 126 x 339
 * groups of 192 work-items, of 4096 x 2048 work-items with output: 187520 in border code, fewer
 * than 32x8 (16 rows, 195584) or 32x12 (24 rows, 211712). */
static void algorithm2_counts_rows_per_item(void **state)
{
    (void)state;
    const cls_arch_record r = fermi_c2050();
    cls_config_request q = request_for(&r, 20, 4096, 13, 1);
    q.rows_per_item = 2;
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    const cls_config_candidate *c = chosen(&result);
    assert_int_equal(c->group_width, 32);
    assert_int_equal(c->group_height, 6);
    assert_int_equal(c->border_items, 187520);
    assert_int_equal(border_items(4096, 13, 32, 8, 2), 195584);
    assert_int_equal(border_items(4096, 13, 32, 12, 2), 211712);
    cls_config_result_free(&result);
}

/* Two columns per work-item: a 32x4 group covers 64 columns; counted against the brute force on
 * images the groups divide and do not. */
static void border_items_count_columns_per_item(void **state)
{
    (void)state;
    static const unsigned sizes[] = {100, 517, 1024};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        border_items_blocked(sizes[k], 9, 32, 4, 4, 2);
        border_items_blocked(sizes[k], 5, 32, 2, 8, 4);
    }
    /* 1024^2, 9x9, 32x4 with 4 rows and 2 columns: the body holds 14 x 62 groups of 128 work-items,
     * of 512 x 256 with output */
    assert_int_equal(border_items_blocked(1024, 9, 32, 4, 4, 2), 512ul * 256 - 14ul * 62 * 128);
}

/* sm_90 with 132 SMs, 48 registers (40 resident warps at best), 3x3 with 8 rows and 2 columns
 * per work-item: 4096^2 holds 249 warps per SM, past any shape's residency, so Algorithm 2
 * chooses as without the problem (32x2: highest occupancy, fewest work-items, fewest in border
 * code); 1024^2 holds 2048 warps, 16 per SM, which every shape of 16 resident warps or more keeps
 * busy alike: one partial wave, and the smallest shape (32x1, 2048 groups over 132 SMs) spreads
 * it the widest. */
static void sm90_small_problem_takes_the_smallest_shape(void **state)
{
    (void)state;
    const unsigned sizes[] = {4096, 1024}, widths[] = {32, 32}, heights[] = {2, 1};
    for (size_t k = 0; k < 2; ++k) {
        cls_config_request q = request_for(model_record("nvidia-sm90"), 48, sizes[k], 3, 1);
        q.rows_per_item = 8;
        q.cols_per_item = 2;
        q.compute_units = 132;
        cls_config_result result;
        assert_int_equal(cls_configure(&q, &result), CLS_OK);
        const cls_config_candidate *c = chosen(&result);
        assert_int_equal(c->group_width, widths[k]);
        assert_int_equal(c->group_height, heights[k]);
        assert_int_equal(c->problem.elements, (unsigned long)sizes[k] / 2 * (sizes[k] / 8));
        assert_int_equal(c->busy_warps, k == 0 ? c->occupancy.resident_warps : 16);
        cls_config_result_free(&result);
    }
}

/* sm_90, 32 registers, 13x13 on 4096x4096: full occupancy at 64 work-items already, and 32x2
 * leaves the fewest in border code (12 rows and 64 columns: 4096^2 - 4032*4084 = 310528). */
static void sm90_13x13_with_border_handling(void **state)
{
    (void)state;
    const cls_config_request q = request_for(model_record("nvidia-sm90"), 32, 4096, 13, 1);
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 32);
    assert_int_equal(chosen(&result)->group_height, 2);
    assert_int_equal(chosen(&result)->border_items, 310528);
    cls_config_result_free(&result);
}

/* The input-per-output limit (weighted sums): a random 13x13 mask with 2x2 outputs per item and
 * 72 registers on sm_90 at 2048^2. Algorithm 2 alone takes 32x1 (the fewest border work-items),
 * whose group reads (64 + 12) x (2 + 12) pixels for 128 outputs; within 3 per output it takes
 * 32x4 (76 x 20 for 512). A limit no shape of the highest occupancy meets changes nothing: the
 * Fermi bilateral keeps Hipacc's 32x6. */
static void input_per_output_limit(void **state)
{
    (void)state;
    cls_config_request q = request_for(model_record("nvidia-sm90"), 72, 2048, 13, 1);
    q.rows_per_item = q.cols_per_item = 2;
    q.compute_units = 132;
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 32);
    assert_int_equal(chosen(&result)->group_height, 1);
    assert_true(fabs(chosen(&result)->input_per_output - 76.0 * 14 / 128) < 1e-9);
    cls_config_result_free(&result);
    q.max_input_per_output = 3.0;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 32);
    assert_int_equal(chosen(&result)->group_height, 4);
    assert_true(fabs(chosen(&result)->input_per_output - 76.0 * 20 / 512) < 1e-9);
    for (size_t k = 0; k < result.count; ++k)
        if (result.candidates[k].border_counted) assert_true(result.candidates[k].input_per_output <= 3.0);
    cls_config_result_free(&result);

    const cls_arch_record fermi = fermi_c2050();
    cls_config_request bilateral = request_for(&fermi, 20, 4096, 13, 1);
    bilateral.max_input_per_output = 1.5;
    assert_int_equal(cls_configure(&bilateral, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 32);
    assert_int_equal(chosen(&result)->group_height, 6);
    cls_config_result_free(&result);
}

/* The least work-items a group (operator bodies on GPUs): an sm_90 body of 32 registers over a 3x3
 * window at 4096^2 gets Algorithm 2's 32x2 without it, a shape of at least 256 work-items with it,
 * every candidate that large; a floor above the device's largest group changes nothing, and one
 * the kernel's registers allow no group of falls back to every shape. */
static void least_work_items_a_group(void **state)
{
    (void)state;
    cls_config_request q = request_for(model_record("nvidia-sm90"), 32, 4096, 3, 1);
    q.compute_units = 132;
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width * chosen(&result)->group_height, 64);
    cls_config_result_free(&result);
    q.min_group_items = CLS_BODY_MIN_GROUP_ITEMS;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_true(chosen(&result)->group_width * chosen(&result)->group_height >= 256);
    for (size_t k = 0; k < result.count; ++k)
        assert_true(result.candidates[k].group_width * result.candidates[k].group_height >= 256);
    cls_config_result_free(&result);
    q.min_group_items = 4096;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width * chosen(&result)->group_height, 64);
    cls_config_result_free(&result);
    q.min_group_items = 1024;
    q.usage.registers = 255; /* 255 x 1024 registers exceed the multiprocessor's 65536 */
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_true(result.count > 0);
    cls_config_result_free(&result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hipacc_13x13_border_counts),
        cmocka_unit_test(candidates_are_valid_and_sorted),
        cmocka_unit_test(without_border_handling_prefer_x),
        cmocka_unit_test(hipacc_bilateral_picks_32x6_on_fermi),
        cmocka_unit_test(algorithm2_counts_rows_per_item),
        cmocka_unit_test(border_items_count_columns_per_item),
        cmocka_unit_test(sm90_small_problem_takes_the_smallest_shape),
        cmocka_unit_test(sm90_13x13_with_border_handling),
        cmocka_unit_test(input_per_output_limit),
        cmocka_unit_test(least_work_items_a_group),
    };
    return cmocka_run_group_tests(tests, models_setup, models_teardown);
}
