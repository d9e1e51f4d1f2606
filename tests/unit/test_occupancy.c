/* test_occupancy.c — the analytic models of device-db/ against worked examples: resident groups
 * and warps on sm_90 and GCN worked by hand from the vendors' rules (CUDA occupancy calculator,
 * cuda_occupancy.h; AMD's GCN VGPR table), Guerfi et al.'s Table 1 device and the block sizes
 * their model picks, Hipacc's Algorithm 2 with border work-items counted exactly (checked against
 * a brute-force count written from DESIGN.md), and the ISP paper's gain model (eqs. 3-10). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clstencil.h"
#include "generator.h"
#include "../../device-db/models.h"

static cls_device_db *db;

static int setup(void **state)
{
    (void)state;
    unsetenv("CLSTENCIL_DEVICE_DB"); /* the built-in records only */
    setenv("XDG_CONFIG_HOME", "/nonexistent-clstencil-test", 1);
    return cls_device_db_load(NULL, &db) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_device_db_release(db);
    return 0;
}

static const cls_arch_record *record(const char *id)
{
    for (size_t k = 0; k < cls_device_db_count(db); ++k)
        if (strcmp(cls_device_db_get(db, k)->id, id) == 0) return cls_device_db_get(db, k);
    fail_msg("no built-in record %s", id);
    return NULL;
}

static void assert_close(double actual, double expected, const char *what)
{
    if (fabs(actual - expected) > 1e-9 * fmax(1.0, fabs(expected)))
        fail_msg("%s = %.12g, expected %.12g", what, actual, expected);
}

static cls_occupancy occupancy_of(const cls_arch_record *r, unsigned registers, unsigned local_bytes,
                                  unsigned group_items)
{
    const cls_kernel_usage usage = {registers, local_bytes};
    cls_occupancy o;
    assert_int_equal(cls_occupancy_compute(r, NULL, &usage, group_items, &o), CLS_OK);
    return o;
}

/* ------------------------------------------------------------------ sm_90 */

/* The sm_90 record holds what NVIDIA documents for compute capability 9.0. */
static void sm90_record_is_nvidia_documented(void **state)
{
    (void)state;
    const cls_arch_record *r = record("nvidia-sm90");
    assert_int_equal(r->simd_width, 32);
    assert_int_equal(r->max_threads_per_cu, 2048);
    assert_int_equal(r->max_warps_per_cu, 64);
    assert_int_equal(r->max_groups_per_cu, 32);
    assert_int_equal(r->registers_per_cu, 65536);
    assert_int_equal(r->register_alloc_unit, 256);
    assert_true(r->register_alloc_per_warp);
    assert_int_equal(r->max_registers_per_thread, 255);
    assert_int_equal(r->local_mem_per_cu, 228 * 1024);
    assert_int_equal(r->local_mem_alloc_unit, 128);
    cls_occupancy_extras x;
    cls_occupancy_extras_default(r, &x);
    assert_int_equal(x.register_partitions, 4);           /* cudaOccSubPartitionsPerMultiprocessor */
    assert_int_equal(x.local_mem_reserved_per_group, 1024); /* reservedSharedMemPerBlock, 8.0 on */
    assert_int_equal(x.registers_per_group, 65536);
}

/* 32x4, 40 registers: 40 * 32 = 1280 registers per warp (a multiple of 256); a quarter of the
 * file, 16384, holds 12 such warps, so 48 warps = 12 groups; warps alone allow 64 / 4 = 16 groups;
 * local memory: the 1 KB reserve, 233472 / 1024 = 228 groups. 48 / 64 = 75%. */
static void sm90_register_limited(void **state)
{
    (void)state;
    const cls_occupancy o = occupancy_of(record("nvidia-sm90"), 40, 0, 128);
    assert_int_equal(o.warps_per_group, 4);
    assert_int_equal(o.groups_by_warps, 16);
    assert_int_equal(o.groups_by_groups, 32);
    assert_int_equal(o.groups_by_registers, 12);
    assert_int_equal(o.groups_by_local, 228);
    assert_int_equal(o.resident_groups, 12);
    assert_int_equal(o.resident_warps, 48);
    assert_int_equal(o.limits, CLS_LIMIT_REGISTERS);
    assert_close(o.occupancy, 0.75, "occupancy");
}

/* 32x8, 32 registers, 48 KB local memory (NVIDIA OpenCL's per-group maximum): registers allow 64
 * warps = 8 groups; local memory 49152 + 1024 reserved = 50176 bytes (a multiple of 128), and
 * 233472 / 50176 = 4.65, so 4 groups = 32 warps = 50%. */
static void sm90_local_memory_limited(void **state)
{
    (void)state;
    const cls_occupancy o = occupancy_of(record("nvidia-sm90"), 32, 49152, 256);
    assert_int_equal(o.groups_by_registers, 8);
    assert_int_equal(o.groups_by_local, 4);
    assert_int_equal(o.resident_groups, 4);
    assert_int_equal(o.resident_warps, 32);
    assert_int_equal(o.limits, CLS_LIMIT_LOCAL_MEMORY);
    assert_close(o.occupancy, 0.5, "occupancy");
    assert_string_equal(cls_occupancy_limit_name(CLS_LIMIT_LOCAL_MEMORY), "local memory");
}

/* One-warp groups: 32 groups per SM at most, so 32 warps = 50% however few the registers. */
static void sm90_group_limited(void **state)
{
    (void)state;
    const cls_occupancy o = occupancy_of(record("nvidia-sm90"), 16, 0, 32);
    assert_int_equal(o.groups_by_registers, 128); /* 512 per warp: 32 per partition, 128 warps */
    assert_int_equal(o.resident_groups, 32);
    assert_int_equal(o.resident_warps, 32);
    assert_int_equal(o.limits, CLS_LIMIT_GROUPS);
    assert_close(o.occupancy, 0.5, "occupancy");
}

/* The per-partition rule of the calculator: 2-warp groups with 40 registers get 12 warps per
 * partition = 48 warps = 24 groups; the whole file would hold 65536 / 1280 = 51 warps = 25. */
static void sm90_register_partitions(void **state)
{
    (void)state;
    const cls_arch_record *r = record("nvidia-sm90");
    assert_int_equal(occupancy_of(r, 40, 0, 64).resident_groups, 24);
    cls_occupancy_extras whole;
    cls_occupancy_extras_default(r, &whole);
    whole.register_partitions = 1;
    const cls_kernel_usage usage = {40, 0};
    cls_occupancy o;
    assert_int_equal(cls_occupancy_compute(r, &whole, &usage, 64, &o), CLS_OK);
    assert_int_equal(o.resident_groups, 25);
    /* 3-warp groups, 32 registers: 64 warps by registers and by the warp limit, 21 groups each. */
    const cls_occupancy tie = occupancy_of(r, 32, 0, 96);
    assert_int_equal(tie.resident_groups, 21);
    assert_int_equal(tie.resident_warps, 63);
    assert_int_equal(tie.limits, CLS_LIMIT_WARPS | CLS_LIMIT_REGISTERS);
}

/* 1024 work-items (32 warps): 64 registers is 2048 per warp, 8 warps per partition = 32 warps,
 * exactly one group (and 2048 * 32 = 65536 passes the per-block check). 65 registers round up to
 * 2304 per warp: 7 per partition = 28 warps, less than one group. 256 exceeds the 255 limit. */
static void sm90_groups_that_do_not_fit(void **state)
{
    (void)state;
    const cls_arch_record *r = record("nvidia-sm90");
    const cls_occupancy fits = occupancy_of(r, 64, 0, 1024);
    assert_int_equal(fits.resident_groups, 1);
    assert_close(fits.occupancy, 0.5, "occupancy");
    const cls_occupancy too_many = occupancy_of(r, 65, 0, 1024);
    assert_int_equal(too_many.resident_groups, 0);
    assert_int_equal(too_many.limits, CLS_LIMIT_REGISTERS);
    assert_int_equal(occupancy_of(r, 256, 0, 32).resident_groups, 0);
    /* 255 registers: 8160 rounds to 8192 per warp, 2 per partition = 8 warps = 2 groups of 4. */
    assert_int_equal(occupancy_of(r, 255, 0, 128).resident_warps, 8);
    /* more warps than a compute unit holds */
    const cls_occupancy huge = occupancy_of(r, 0, 0, 4096);
    assert_int_equal(huge.resident_groups, 0);
    assert_int_equal(huge.limits, CLS_LIMIT_WARPS);
}

static void bad_arguments_are_reported(void **state)
{
    (void)state;
    const cls_kernel_usage usage = {32, 0};
    cls_occupancy o;
    assert_int_equal(cls_occupancy_compute(NULL, NULL, &usage, 128, &o), CLS_ERR_INVALID_ARGUMENT);
    assert_int_equal(cls_occupancy_compute(record("nvidia-sm90"), NULL, &usage, 0, &o), CLS_ERR_INVALID_ARGUMENT);
    assert_true(strstr(cls_last_error(), "empty work-group") != NULL);
    cls_arch_record broken = *record("nvidia-sm90");
    broken.simd_width = 0;
    assert_int_equal(cls_occupancy_compute(&broken, NULL, &usage, 128, &o), CLS_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ GCN */

/* GCN (gfx906): 256 VGPRs per lane per SIMD, granted in steps of 4, 10 waves per SIMD. AMD's
 * table of waves per SIMD by VGPRs: <=24: 10, <=28: 9, <=32: 8, <=36: 7, <=40: 6, <=48: 5,
 * <=64: 4, <=84: 3, <=128: 2, <=256: 1. A 64x4 group puts one wave on each SIMD, so the resident
 * groups equal the waves per SIMD. */
static void gcn_waves_per_simd_by_vgprs(void **state)
{
    (void)state;
    const cls_arch_record *r = record("amd-gfx906");
    assert_int_equal(r->simd_width, 64);
    assert_int_equal(r->max_warps_per_cu, 40);
    static const struct { unsigned vgprs, waves; } table[] = {
        {24, 10}, {25, 9}, {28, 9}, {29, 8}, {32, 8}, {36, 7}, {40, 6}, {41, 5}, {48, 5},
        {49, 4}, {64, 4}, {84, 3}, {85, 2}, {128, 2}, {129, 1}, {256, 1}, {257, 0}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        const cls_occupancy o = occupancy_of(r, table[k].vgprs, 0, 256);
        if (o.resident_groups != table[k].waves)
            fail_msg("%u VGPRs: %u groups, expected %u", table[k].vgprs, o.resident_groups, table[k].waves);
    }
}

/* 64x4 with 40 VGPRs and 8 KB LDS: registers 6 groups (24 waves), LDS 65536 / 8192 = 8, the wave
 * limit 10, barriers 16: 24 of 40 waves = 60%. With 20 VGPRs and 16000 bytes (rounded to 16384 in
 * 512-byte blocks) LDS allows 4 groups: 16 waves = 40%. */
static void gcn_register_and_lds_limits(void **state)
{
    (void)state;
    const cls_arch_record *r = record("amd-gfx906");
    const cls_occupancy a = occupancy_of(r, 40, 8192, 256);
    assert_int_equal(a.groups_by_registers, 6);
    assert_int_equal(a.groups_by_local, 8);
    assert_int_equal(a.groups_by_warps, 10);
    assert_int_equal(a.groups_by_groups, 16);
    assert_int_equal(a.resident_warps, 24);
    assert_int_equal(a.limits, CLS_LIMIT_REGISTERS);
    assert_close(a.occupancy, 0.6, "occupancy");
    const cls_occupancy b = occupancy_of(r, 20, 16000, 256);
    assert_int_equal(b.groups_by_local, 4);
    assert_int_equal(b.resident_warps, 16);
    assert_int_equal(b.limits, CLS_LIMIT_LOCAL_MEMORY);
    assert_close(b.occupancy, 0.4, "occupancy");
}

/* ------------------------------------------------------------------ Guerfi et al. */

/* Table 1 (GeForce GTX 1650 Ti, compute capability 7.5): warp 32, 1024 threads per block and per
 * SM, 16 blocks and 32 warps per SM, 16 SMs. The sm_75 record holds the per-SM figures. */
static const cls_arch_record *table1(void)
{
    const cls_arch_record *r = record("nvidia-sm75");
    assert_int_equal(r->simd_width, 32);
    assert_int_equal(r->max_threads_per_cu, 1024);
    assert_int_equal(r->max_groups_per_cu, 16);
    assert_int_equal(r->max_warps_per_cu, 32);
    return r;
}

#define TABLE1_SMS 16u

/* Eqs. 6-12 for a 1-D problem of `elements` with blocks of `size` (no register or shared
 * memory use: their model has none). */
static cls_problem_occupancy guerfi(unsigned size, unsigned elements, cls_occupancy *unit)
{
    *unit = occupancy_of(table1(), 0, 0, size);
    const cls_problem problem = {elements, 1, 1, TABLE1_SMS};
    cls_problem_occupancy p;
    assert_int_equal(cls_problem_occupancy_compute(unit, size, 1, &problem, &p), CLS_OK);
    return p;
}

/* Eq. 4: B_SM = floor(1024 / B) up to 16; eq. 5: W_SM = W_B * B_SM; eq. 6: O_w = W_SM / 32. */
static void guerfi_warp_occupancy(void **state)
{
    (void)state;
    static const struct { unsigned size, blocks, warps; } table[] = {
        {32, 16, 16}, {64, 16, 32}, {96, 10, 30}, {128, 8, 32}, {160, 6, 30}, {192, 5, 30},
        {224, 4, 28}, {256, 4, 32}, {288, 3, 27}, {352, 2, 22}, {512, 2, 32}, {1024, 1, 32}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        cls_occupancy unit;
        const cls_problem_occupancy p = guerfi(table[k].size, 100000, &unit);
        assert_int_equal(unit.resident_groups, table[k].blocks);
        assert_int_equal(unit.resident_warps, table[k].warps);
        assert_close(p.warp, table[k].warps / 32.0, "O_w");
    }
    /* eq. 6: no more elements than one block holds gives 0 */
    cls_occupancy unit;
    assert_close(guerfi(128, 128, &unit).warp, 0.0, "O_w");
    assert_close(guerfi(128, 129, &unit).warp, 1.0, "O_w");
}

/* 2913 threads (the "Set Image for Cascade Classifier" kernel) with 96 and 128: G = 31 and 23
 * (eq. 7), B_device = 160 and 128 (eq. 8), one iteration (eq. 9), O_B = 31/160 and 23/128
 * (eq. 10), all 16 SMs busy (eqs. 11-12). 1280 threads with 96: G = 14, O_B = 14/160, 14 SMs:
 * O_SM = 14/16. */
static void guerfi_block_and_sm_occupancy(void **state)
{
    (void)state;
    cls_occupancy unit;
    cls_problem_occupancy p = guerfi(96, 2913, &unit);
    assert_int_equal(p.grid_groups, 31);
    assert_int_equal(p.device_groups, 160);
    assert_int_equal(p.iterations, 1);
    assert_int_equal(p.last_units, 16);
    assert_close(p.block, 31.0 / 160.0, "O_B");
    assert_close(p.sm, 1.0, "O_SM");
    p = guerfi(128, 2913, &unit);
    assert_int_equal(p.grid_groups, 23);
    assert_close(p.block, 23.0 / 128.0, "O_B");
    p = guerfi(96, 1280, &unit);
    assert_int_equal(p.grid_groups, 14);
    assert_int_equal(p.last_units, 14);
    assert_close(p.block, 14.0 / 160.0, "O_B");
    assert_close(p.sm, 14.0 / 16.0, "O_SM");
    /* several iterations: 133 blocks of 128 on 128 resident blocks: 2 iterations, the last with 5
     * blocks on 5 SMs: O_B = 133/256, O_SM = (5/16 + 1) / 2 */
    p = guerfi(128, 128 * 133, &unit);
    assert_int_equal(p.iterations, 2);
    assert_int_equal(p.last_units, 5);
    assert_close(p.block, 133.0 / 256.0, "O_B");
    assert_close(p.sm, (5.0 / 16.0 + 1.0) / 2.0, "O_SM");
    /* the 1024x1280 cascade kernel: (1024*1280 - 24*24) threads, 10236 blocks of 128, 80 iterations */
    p = guerfi(128, 1024 * 1280 - 24 * 24, &unit);
    assert_int_equal(p.grid_groups, 10236);
    assert_int_equal(p.iterations, 80);
    assert_close(p.block, 10236.0 / 10240.0, "O_B");
    assert_close(p.sm, 1.0, "O_SM");
}

/* Sec. 4.3.4: the block size that maximizes the three occupancies, over the search space
 * {32, ..., 512} without the sizes below MaxT_SM / MaxB_SM (eq. 13) or that need MaxB_SM resident
 * blocks. "Maximizes the three most" read as the largest sum O_w + O_B + O_SM. */
static unsigned guerfi_choice(unsigned elements)
{
    unsigned best = 0;
    double best_score = -1.0;
    for (unsigned size = 32; size <= 512; size += 32) {
        cls_occupancy unit;
        const cls_problem_occupancy p = guerfi(size, elements, &unit);
        if (size < 1024 / 16 || unit.resident_groups == 16) continue;
        const double score = p.warp + p.block + p.sm;
        if (score > best_score) {
            best_score = score;
            best = size;
        }
    }
    return best;
}

/* Their Sec. 5.2 at 1024x1280: the model picks 96 for the nearest-neighbour kernel and the
 * integral-image kernel (one thread per row or column: 1280 and 1024 threads) and 128 for "Set
 * Image For Cascade Classifier" (2913 threads). */
static void guerfi_model_picks_their_block_sizes(void **state)
{
    (void)state;
    assert_int_equal(guerfi_choice(1280), 96);
    assert_int_equal(guerfi_choice(1024), 96);
    assert_int_equal(guerfi_choice(2913), 128);
}

/* ------------------------------------------------------------------ border work-items */

/* The oracle, from DESIGN.md alone: group column b of width t is free of both x checks iff its
 * reads b*t - hx .. (b+1)*t - 1 + hx lie inside [0, size) and the group lies whole inside the
 * image; rows alike. Work-items of other groups with output run border code. */
static unsigned long brute_border_items(unsigned size_x, unsigned size_y, unsigned mask, unsigned tx,
                                        unsigned ty, unsigned rows)
{
    const long h = mask / 2, cover = (long)ty * rows;
    const long groups_x = (size_x + tx - 1) / tx, groups_y = (size_y + cover - 1) / cover;
    unsigned long items = 0;
    for (long gy = 0; gy < groups_y; ++gy) {
        const int body_y = gy * cover - h >= 0 && (gy + 1) * cover - 1 + h < (long)size_y &&
                           (gy + 1) * cover <= (long)size_y;
        for (long gx = 0; gx < groups_x; ++gx) {
            const int body_x = gx * (long)tx - h >= 0 && (gx + 1) * (long)tx - 1 + h < (long)size_x &&
                               (gx + 1) * (long)tx <= (long)size_x;
            if (body_x && body_y) continue;
            const long columns = (gx + 1) * (long)tx <= (long)size_x ? (long)tx : (long)size_x - gx * (long)tx;
            long item_rows = 0; /* rows of work-items whose first output row is in the image */
            for (long ly = 0; ly < (long)ty; ++ly) item_rows += gy * cover + ly * (long)rows < (long)size_y;
            items += (unsigned long)(columns * item_rows);
        }
    }
    return items;
}

static unsigned long border_items(unsigned size, unsigned mask, unsigned tx, unsigned ty, unsigned rows)
{
    const cls_launch_geometry g = {size, size, 0, 0, size, size, mask, mask, tx, ty};
    const unsigned long counted = cls_border_work_items(&g, rows);
    assert_int_equal(counted, brute_border_items(size, size, mask, tx, ty, rows));
    return counted;
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
    const cls_arch_record *r = record("nvidia-sm90");
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
    const cls_config_request q = request_for(record("nvidia-sm90"), 32, 4096, 13, 0);
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

/* sm_90, 32 registers, 13x13 on 4096x4096: full occupancy at 64 work-items already, and 32x2
 * leaves the fewest in border code (12 rows and 64 columns: 4096^2 - 4032*4084 = 310528). */
static void sm90_13x13_with_border_handling(void **state)
{
    (void)state;
    const cls_config_request q = request_for(record("nvidia-sm90"), 32, 4096, 13, 1);
    cls_config_result result;
    assert_int_equal(cls_configure(&q, &result), CLS_OK);
    assert_int_equal(chosen(&result)->group_width, 32);
    assert_int_equal(chosen(&result)->group_height, 2);
    assert_int_equal(chosen(&result)->border_items, 310528);
    cls_config_result_free(&result);
}

/* ------------------------------------------------------------------ ISP model */

static cls_isp_request isp_request(const cls_arch_record *r, unsigned size, unsigned mask,
                                   unsigned naive_registers, unsigned isp_registers, cls_border border)
{
    cls_isp_request q;
    memset(&q, 0, sizeof q);
    q.record = r;
    const cls_launch_geometry g = {size, size, 0, 0, size, size, mask, mask, 32, 4};
    q.geometry = g;
    q.rows_per_item = 1;
    q.naive_registers = naive_registers;
    q.isp_registers = isp_registers;
    cls_isp_costs_default(border, mask, &q.costs);
    return q;
}

/* 4096x4096, 3x3, 32x4 groups: 128 x 1024 blocks; BH_L = 1, BH_R = 127, BH_T = 1, BH_B = 1023
 * (eq. 2 with ceil), so eq. 8a gives T = B = 126, L = R = 1022, one block per corner, and eq. 8b
 * Body = 131072 - 2300 = 128772. Eq. 3 with clamp defaults (kernel 4, both sides 2 per axis, the
 * y check once per mask row: 2/3 per tap): 131072 * 128 * 9 * 20/3 = 1006632960. Same occupancy:
 * G = R_reduced > 1. */
static void isp_pays_on_a_large_image(void **state)
{
    (void)state;
    const cls_isp_request q = isp_request(record("nvidia-sm90"), 4096, 3, 20, 24, CLS_BORDER_CLAMP);
    cls_isp_prediction p;
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_int_equal(p.blocks[CLS_REGION_T], 126);
    assert_int_equal(p.blocks[CLS_REGION_B], 126);
    assert_int_equal(p.blocks[CLS_REGION_L], 1022);
    assert_int_equal(p.blocks[CLS_REGION_R], 1022);
    assert_int_equal(p.blocks[CLS_REGION_TL] + p.blocks[CLS_REGION_TR] + p.blocks[CLS_REGION_BL] +
                         p.blocks[CLS_REGION_BR], 4);
    assert_int_equal(p.blocks[CLS_REGION_BODY], 128772);
    assert_int_equal(p.blocks[CLS_REGION_FALLBACK], 0);
    assert_close(p.n_naive, 1006632960.0, "N_naive");
    assert_close(p.occupancy_naive, 1.0, "O_naive");
    assert_close(p.occupancy_isp, 1.0, "O_ISP");
    assert_close(p.gain, p.reduced, "G");
    assert_true(p.gain > 1.2);
    assert_int_equal(p.choice, CLS_PARTITION_ISP_BLOCK);
}

/* An image smaller than the mask: every group needs both checks (the fallback region), so ISP
 * saves nothing and pays the region switch: R = 169 t / (169 t + 12), t = 4 + 2 + 2/13. */
static void isp_loses_when_every_group_is_fallback(void **state)
{
    (void)state;
    const cls_isp_request q = isp_request(record("nvidia-sm90"), 16, 13, 32, 32, CLS_BORDER_CLAMP);
    cls_isp_prediction p;
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_int_equal(p.blocks[CLS_REGION_FALLBACK], 4);
    const double tap = 4.0 + 2.0 + 2.0 / 13.0;
    assert_close(p.reduced, 169.0 * tap / (169.0 * tap + 12.0), "R_reduced");
    assert_true(p.gain < 1.0);
    assert_int_equal(p.choice, CLS_PARTITION_NAIVE);
}

/* 64x64, 5x5, 32x4: no body and no T or B block (2 x 16 blocks: 4 corners, 14 L, 14 R). Per work-item
 * naive 25 * 6.4 = 160, L and R 25 * 5 + 12 = 137, corners 25 * 5.2 + 12 = 142: R_reduced =
 * 32*160 / (28*137 + 4*142) = 5120 / 4404. With ISP at 40 registers (75% on sm_90) against 32
 * (100%), G = 0.872: naive; on 4096x4096 the body makes up for it: isp-block. */
static void isp_on_a_tiny_image_with_fewer_warps(void **state)
{
    (void)state;
    const cls_arch_record *r = record("nvidia-sm90");
    cls_isp_request q = isp_request(r, 64, 5, 32, 40, CLS_BORDER_CLAMP);
    cls_isp_prediction p;
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_int_equal(p.blocks[CLS_REGION_BODY], 0);
    assert_int_equal(p.blocks[CLS_REGION_L], 14);
    assert_int_equal(p.blocks[CLS_REGION_R], 14);
    assert_close(p.reduced, 5120.0 / 4404.0, "R_reduced");
    assert_close(p.occupancy_isp, 0.75, "O_ISP");
    assert_close(p.gain, 5120.0 / 4404.0 * 0.75, "G");
    assert_int_equal(p.choice, CLS_PARTITION_NAIVE);
    q = isp_request(r, 4096, 5, 32, 40, CLS_BORDER_CLAMP);
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_true(p.gain > 1.0);
    assert_int_equal(p.choice, CLS_PARTITION_ISP_BLOCK);
}

/* Fig. 3: the larger the image, the larger the share of body blocks, hence the gain. */
static void isp_gain_grows_with_image_size(void **state)
{
    (void)state;
    double previous = 0.0;
    for (unsigned size = 128; size <= 8192; size *= 2) {
        const cls_isp_request q = isp_request(record("nvidia-sm90"), size, 5, 32, 32, CLS_BORDER_MIRROR);
        cls_isp_prediction p;
        assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
        if (p.gain < previous) fail_msg("gain %.6f at %u is below %.6f", p.gain, size, previous);
        previous = p.gain;
    }
    assert_true(previous > 2.0); /* mirror's fold is dear: the body avoids it */
}

/* Kepler GK104 (GTX 680, compute capability 3.0): 2048 threads, 64 warps, 16 blocks per SM, 65536
 * registers in units of 256 per warp, 63 per thread. */
static cls_arch_record kepler_gtx680(void)
{
    cls_arch_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "geforce-gtx680");
    r.vendor = CLS_VENDOR_NVIDIA;
    r.type = CLS_DEVICE_GPU;
    snprintf(r.arch, sizeof r.arch, "sm_30");
    r.simd_width = 32;
    r.max_threads_per_cu = 2048;
    r.max_groups_per_cu = 16;
    r.max_warps_per_cu = 64;
    r.registers_per_cu = 65536;
    r.register_alloc_unit = 256;
    r.register_alloc_per_warp = 1;
    r.max_registers_per_thread = 63;
    r.local_mem_per_cu = 49152;
    r.local_mem_alloc_unit = 256;
    return r;
}

/* The ISP paper's Table II (bilateral on the GTX 680): registers naive / ISP and theoretical
 * occupancy: clamp and mirror 32 / 40 -> 100% / 75%, repeat 18 / 32 -> 100% / 100%, constant
 * 32 / 63 -> 100% / 50%. On the RTX 2080 (sm_75, 32 warps per SM) 40 and 63 registers keep 100%,
 * which is why their model kept choosing ISP there (Sec. VI-A.2). */
static void isp_paper_table2_occupancies(void **state)
{
    (void)state;
    const cls_arch_record kepler = kepler_gtx680();
    static const struct { unsigned naive, isp; double o_naive, o_isp; } table[] = {
        {32, 40, 1.0, 0.75}, {18, 32, 1.0, 1.0}, {32, 63, 1.0, 0.5}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        const cls_isp_request q = isp_request(&kepler, 1024, 13, table[k].naive, table[k].isp, CLS_BORDER_CLAMP);
        cls_isp_prediction p;
        assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
        assert_close(p.occupancy_naive, table[k].o_naive, "O_naive");
        assert_close(p.occupancy_isp, table[k].o_isp, "O_ISP");
        assert_close(p.gain, p.reduced * table[k].o_isp / table[k].o_naive, "G");
    }
    const cls_arch_record *turing = record("nvidia-sm75");
    assert_close(occupancy_of(turing, 40, 0, 128).occupancy, 1.0, "sm_75 at 40 registers");
    assert_close(occupancy_of(turing, 63, 0, 128).occupancy, 1.0, "sm_75 at 63 registers");
}

/* Undefined borders have no per-tap checks: ISP only adds the switch. When the ISP build fits
 * nowhere the gain is 0; when only it fits, infinite; when neither, the model refuses. */
static void isp_edge_cases(void **state)
{
    (void)state;
    const cls_arch_record *r = record("nvidia-sm90");
    cls_isp_request q = isp_request(r, 4096, 3, 32, 32, CLS_BORDER_UNDEFINED);
    cls_isp_prediction p;
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_true(p.reduced < 1.0);
    assert_int_equal(p.choice, CLS_PARTITION_NAIVE);
    q = isp_request(r, 4096, 3, 32, 256, CLS_BORDER_CLAMP);
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_close(p.gain, 0.0, "G");
    assert_int_equal(p.choice, CLS_PARTITION_NAIVE);
    q = isp_request(r, 4096, 3, 256, 32, CLS_BORDER_CLAMP);
    assert_int_equal(cls_isp_predict(&q, &p), CLS_OK);
    assert_true(isinf(p.gain));
    assert_int_equal(p.choice, CLS_PARTITION_ISP_BLOCK);
    q = isp_request(r, 4096, 3, 256, 256, CLS_BORDER_CLAMP);
    assert_int_equal(cls_isp_predict(&q, &p), CLS_ERR_UNSUPPORTED);
    q.geometry.group_width = 0;
    assert_int_equal(cls_isp_predict(&q, &p), CLS_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sm90_record_is_nvidia_documented),
        cmocka_unit_test(sm90_register_limited),
        cmocka_unit_test(sm90_local_memory_limited),
        cmocka_unit_test(sm90_group_limited),
        cmocka_unit_test(sm90_register_partitions),
        cmocka_unit_test(sm90_groups_that_do_not_fit),
        cmocka_unit_test(bad_arguments_are_reported),
        cmocka_unit_test(gcn_waves_per_simd_by_vgprs),
        cmocka_unit_test(gcn_register_and_lds_limits),
        cmocka_unit_test(guerfi_warp_occupancy),
        cmocka_unit_test(guerfi_block_and_sm_occupancy),
        cmocka_unit_test(guerfi_model_picks_their_block_sizes),
        cmocka_unit_test(hipacc_13x13_border_counts),
        cmocka_unit_test(candidates_are_valid_and_sorted),
        cmocka_unit_test(without_border_handling_prefer_x),
        cmocka_unit_test(hipacc_bilateral_picks_32x6_on_fermi),
        cmocka_unit_test(algorithm2_counts_rows_per_item),
        cmocka_unit_test(sm90_13x13_with_border_handling),
        cmocka_unit_test(isp_pays_on_a_large_image),
        cmocka_unit_test(isp_loses_when_every_group_is_fallback),
        cmocka_unit_test(isp_on_a_tiny_image_with_fewer_warps),
        cmocka_unit_test(isp_gain_grows_with_image_size),
        cmocka_unit_test(isp_paper_table2_occupancies),
        cmocka_unit_test(isp_edge_cases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
