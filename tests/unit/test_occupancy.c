/* test_occupancy.c — the occupancy model of device-db/ against worked examples: resident groups
 * and warps on sm_90 and GCN worked by hand from the vendors' rules (CUDA occupancy calculator,
 * cuda_occupancy.h; AMD's GCN VGPR table), and Guerfi et al.'s problem occupancies on their
 * Table 1 device with the block sizes their model picks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models_fixture.h"

/* ------------------------------------------------------------------ sm_90 */

/* The sm_90 record holds what NVIDIA documents for compute capability 9.0. */
static void sm90_record_is_nvidia_documented(void **state)
{
    (void)state;
    const cls_arch_record *r = model_record("nvidia-sm90");
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
    const cls_occupancy o = occupancy_of(model_record("nvidia-sm90"), 40, 0, 128);
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
    const cls_occupancy o = occupancy_of(model_record("nvidia-sm90"), 32, 49152, 256);
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
    const cls_occupancy o = occupancy_of(model_record("nvidia-sm90"), 16, 0, 32);
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
    const cls_arch_record *r = model_record("nvidia-sm90");
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
    const cls_arch_record *r = model_record("nvidia-sm90");
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
    assert_int_equal(cls_occupancy_compute(model_record("nvidia-sm90"), NULL, &usage, 0, &o), CLS_ERR_INVALID_ARGUMENT);
    assert_true(strstr(cls_last_error(), "empty work-group") != NULL);
    cls_arch_record broken = *model_record("nvidia-sm90");
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
    const cls_arch_record *r = model_record("amd-gfx906");
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
    const cls_arch_record *r = model_record("amd-gfx906");
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
    const cls_arch_record *r = model_record("nvidia-sm75");
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
    const cls_problem problem = {elements, 1, 1, TABLE1_SMS, 1};
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
    };
    return cmocka_run_group_tests(tests, models_setup, models_teardown);
}
