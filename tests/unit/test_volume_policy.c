/* test_volume_policy.c — auto's policy for a volume's walk (plan/policy.c): the slice's tile and
 * its columns where the record reads tiles (in taller groups for tall windows), one pass for
 * separable masks (small sums from a warp's lanes where the record says so), vectors on CPU
 * runtimes, the deep masks' longer walks, the columns a volume refuses, and large masks by FFT. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "support/policy_check.h"

/* A volume's walk takes the record's volume_columns where its slice's tile fits (a sum, minimum or
 * maximum; a work-item's loads and partial sums within their limits), one column elsewhere and
 * where the record sets none; a separable mask runs in one pass from the tile, in groups of more
 * rows, where the tile fits; a spec's own columns stay, and those a volume does not take are
 * refused by name. */
static void a_policy_tiles_volume_walks_where_the_record_says(void **state)
{
    (void)state;
    static float values[31 * 31 * 17];
    for (unsigned k = 0; k < sizeof values / sizeof values[0]; ++k) values[k] = (float)((k * 37) % 11) - 5.0f;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.group_width = 32, policy.group_height = 4, policy.volume_columns = 4;
    static const struct { unsigned w, h, d; cls_reduction reduction; unsigned asked, cols; } cases[] = {
        {3, 3, 3, CLS_REDUCTION_SUM, 0, 4},  {5, 5, 5, CLS_REDUCTION_SUM, 0, 4},  {3, 3, 5, CLS_REDUCTION_MAX, 0, 4},
        {3, 3, 3, CLS_REDUCTION_RANK, 0, 1}, /* a rank gathers its footprint */
        {31, 31, 3, CLS_REDUCTION_SUM, 0, 4}, /* 42 tile pixels a work-item in 32x4, 14.2 in 32x16 */
        {31, 31, 5, CLS_REDUCTION_SUM, 0, 4}, {31, 31, 17, CLS_REDUCTION_SUM, 0, 1}, /* 68 partial sums */
        {1, 1, 31, CLS_REDUCTION_SUM, 0, 1},  /* 124 partial sums */
        {3, 3, 17, CLS_REDUCTION_SUM, 0, 1},  /* 68 partial sums besides the window's rows */
        {3, 3, 3, CLS_REDUCTION_SUM, 8, 8},   {3, 3, 3, CLS_REDUCTION_SUM, 1, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = valid_spec(), resolved;
        spec.coefficients = values;
        spec.mask_width = cases[c].w, spec.mask_height = cases[c].h, spec.mask_depth = cases[c].d;
        spec.reduction = cases[c].reduction;
        spec.cols_per_item = cases[c].asked;
        assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
        if (resolved.cols_per_item != cases[c].cols)
            fail_msg("%ux%ux%u: %u columns, expected %u", cases[c].w, cases[c].h, cases[c].d, resolved.cols_per_item,
                     cases[c].cols);
        if (c == 0) {
            const cls_kernel_policy plain = cls_kernel_policy_default(); /* a record without the key */
            assert_int_equal(resolve(&plain, &spec, &resolved), CLS_OK);
            assert_int_equal(resolved.cols_per_item, 1);
        }
    }
    static float ones[31 * 31 * 31]; /* separable masks of 2,197 taps and more: one pass in 8-row groups */
    for (unsigned k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_spec box = valid_spec(), resolved;
    box.coefficients = ones;
    box.mask_width = box.mask_height = box.mask_depth = 13;
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.cols_per_item, 4);
    assert_int_equal(resolved.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(resolved.group_height, CLS_VOLUME_SINGLE_PASS_ROWS);
    box.mask_width = box.mask_height = box.mask_depth = 15; /* 60 partial sums: 16-row groups */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.group_height, CLS_VOLUME_TALL_PASS_ROWS);
    box.mask_width = box.mask_height = 11; /* narrower: 8 rows */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.group_height, CLS_VOLUME_SINGLE_PASS_ROWS);
    box.mask_width = box.mask_height = box.mask_depth = 19; /* 76: 8 rows */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.group_height, CLS_VOLUME_SINGLE_PASS_ROWS);
    box.mask_width = box.mask_height = box.mask_depth = 31; /* 124 sums and 23.5 tile pixels a work-item: one pass */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.group_height, CLS_VOLUME_SINGLE_PASS_ROWS);
    box.mask_width = box.mask_height = 3, box.mask_depth = 21; /* 84 sums instead of passes */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    box.mask_width = box.mask_height = box.mask_depth = 13;
    const cls_kernel_policy plain = cls_kernel_policy_default(); /* no tiles: a pass an axis */
    assert_int_equal(resolve(&plain, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_TWO_PASS);
    box.mask_width = box.mask_height = box.mask_depth = 3; /* a box of 27 taps: one pass, the record's group */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.group_height, 4);
    assert_int_equal(resolve(&plain, &box, &resolved), CLS_OK); /* and the plain walk without tiles */
    assert_int_equal(resolved.separable, CLS_SEPARABLE_NONE);
    box.mask_width = box.mask_height = box.mask_depth = 13;
    box.group_width = 32, box.group_height = 4; /* a group of the caller's whose tile does not fit: passes */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_TWO_PASS);
    box.mask_width = box.mask_height = box.mask_depth = 31; /* 42 tile pixels a work-item, past the deep masks' 24 too */
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_TWO_PASS);
    cls_kernel_policy cpu = cls_kernel_policy_default(); /* a CPU runtime's: vectors, no tile, no one pass */
    cpu.group_width = 64, cpu.group_height = 2, cpu.rows = 64, cpu.volume_columns = 8;
    cpu.limits.border_groups_fold_fully = 1;
    box.mask_width = box.mask_height = box.mask_depth = 3, box.group_width = box.group_height = 0;
    assert_int_equal(resolve(&cpu, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_NONE);
    assert_int_equal(resolved.cols_per_item, 8);
    assert_int_equal(resolved.input_path, CLS_INPUT_GLOBAL);
    assert_int_equal(resolved.group_width, CLS_VOLUME_VECTOR_GROUP_WIDTH);
    assert_int_equal(resolved.group_height, CLS_VOLUME_VECTOR_GROUP_HEIGHT);
    box.mask_width = box.mask_height = box.mask_depth = 13; /* passes, each planned for its mask */
    assert_int_equal(resolve(&cpu, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_TWO_PASS);
    box.mask_width = box.mask_height = 1; /* the z pass's mask: vectors whatever its partial sums */
    assert_int_equal(resolve(&cpu, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 8);
    box.mask_depth = 31; /* 31 partial sums a column: vectors; the tile's do not fit */
    assert_int_equal(resolve(&cpu, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 8);
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 1);
    cls_spec spec = valid_spec();
    spec.coefficients = values;
    spec.mask_width = spec.mask_height = spec.mask_depth = 3;
    spec.cols_per_item = 2;
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "2 columns per work-item (1, 4 or 8"));
    spec.cols_per_item = 4, spec.reduction = CLS_REDUCTION_RANK; /* a rank: one column or a pair */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "more than 2 columns per work-item for a rank"));
}

/* A mask more than 3 deep walks the record's volume_deep_slices from the tile, and a separable
 * mask's single pass at least 9 deep and tall the record's volume_pass_slices where it gives
 * them; a spec's own slices stay, and a mask 3 deep, or a record without the keys, keeps
 * volume_slices. */
static void deep_masks_walk_the_records_deep_slices(void **state)
{
    (void)state;
    static float ones[13 * 13 * 13];
    for (unsigned k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.group_width = 32, policy.group_height = 4, policy.volume_columns = 4;
    cls_spec box = valid_spec(), resolved;
    box.coefficients = ones;
    box.mask_width = box.mask_height = box.mask_depth = 13;
    assert_int_equal(resolve(&policy, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(resolved.rows_per_item, CLS_VOLUME_SLICES);
    cls_kernel_policy deep = policy; /* a record whose deep masks walk further: those from the tile */
    deep.volume_deep_slices = 128;
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.rows_per_item, 128);
    deep.volume_pass_slices = 512; /* the single pass walks further; a walk that sums keeps 128 */
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.rows_per_item, 512);
    box.separable = CLS_SEPARABLE_NONE;
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.rows_per_item, 128);
    box.separable = CLS_SEPARABLE_AUTO, box.mask_width = box.mask_height = box.mask_depth = 7; /* under 9 */
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(resolved.rows_per_item, 128);
    box.mask_width = box.mask_height = box.mask_depth = 13;
    box.rows_per_item = 16; /* the spec's own */
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.rows_per_item, 16);
    box.rows_per_item = 0, box.mask_depth = 3; /* a mask 3 deep keeps the record's slices */
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.rows_per_item, CLS_VOLUME_SLICES);
    box.mask_width = box.mask_height = 1, box.mask_depth = 21; /* a column a work-item (84 partial sums) */
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK);
    assert_int_equal(resolved.input_path, CLS_INPUT_GLOBAL);
    assert_int_equal(resolved.cols_per_item, 1);
    assert_int_equal(resolved.rows_per_item, 128);
    box.mask_width = box.mask_height = box.mask_depth = 5, box.reduction = CLS_REDUCTION_RANK, box.rank = 62;
    assert_int_equal(resolve(&deep, &box, &resolved), CLS_OK); /* a rank's walk keeps the record's slices */
    assert_int_equal(resolved.rows_per_item, CLS_VOLUME_SLICES);
}

/* A window too tall for the tile of the record's group (a deep separable mask's y pass) reads the
 * tile of CLS_VOLUME_SINGLE_PASS_ROWS rows where that fits, else of CLS_VOLUME_TALL_PASS_ROWS; a
 * group of the spec's own stays. */
static void tall_windows_take_taller_tiles(void **state)
{
    (void)state;
    static float ones[31];
    for (unsigned k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.group_width = 32, policy.group_height = 4, policy.volume_columns = 4;
    cls_spec column = valid_spec(), resolved;
    column.coefficients = ones;
    column.mask_width = 1, column.mask_height = 21, column.mask_depth = 1; /* 24 tile pixels a work-item in 32x4 */
    assert_int_equal(resolve(&policy, &column, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 4);
    assert_int_equal(resolved.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(resolved.group_height, CLS_VOLUME_SINGLE_PASS_ROWS);
    column.mask_height = 31; /* 19 in 32x8, 11.5 in 32x16 */
    assert_int_equal(resolve(&policy, &column, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 4);
    assert_int_equal(resolved.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(resolved.group_height, CLS_VOLUME_TALL_PASS_ROWS);
    column.group_width = 32, column.group_height = 4;
    assert_int_equal(resolve(&policy, &column, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, 1);
    assert_int_equal(resolved.group_height, 4);
}

/* From the record's volume_fft_min_taps a volume's weighted sum runs by FFT where its method is
 * left to auto: not a mask that separates, a minimum, a rank, a body, or a spec that asks for a
 * direct kernel's form; a record without the key never; the FFT asked for takes a separable mask
 * whole. */
static void large_masks_run_by_fft_from_the_records_taps(void **state)
{
    (void)state;
    static float random[9 * 9 * 9], ones[9 * 9 * 9];
    for (unsigned k = 0; k < sizeof random / sizeof random[0]; ++k)
        random[k] = (float)((k * 37) % 11) - 5.0f, ones[k] = 1.0f;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.group_width = 32, policy.group_height = 4, policy.volume_columns = 4;
    policy.volume_fft_min_taps = 600;
    cls_spec spec = valid_spec(), resolved;
    spec.coefficients = random;
    spec.mask_width = spec.mask_height = spec.mask_depth = 9; /* 729 taps */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_FFT);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_NONE);
    spec.mask_depth = 7; /* 567 taps */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_DIRECT);
    spec.mask_depth = 9;
    spec.reduction = CLS_REDUCTION_MIN;
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_DIRECT);
    spec.reduction = CLS_REDUCTION_SUM, spec.rows_per_item = 16; /* a walk's slices asked for */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_DIRECT);
    spec.rows_per_item = 0;
    cls_kernel_policy without = policy;
    without.volume_fft_min_taps = 0;
    assert_int_equal(resolve(&without, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_DIRECT);
    spec.coefficients = ones; /* a box separates: passes, not transforms */
    assert_int_equal(resolve(&policy, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_DIRECT);
    assert_int_not_equal(resolved.separable, CLS_SEPARABLE_NONE);
    spec.method = CLS_METHOD_FFT; /* asked for: the mask whole */
    assert_int_equal(resolve(&without, &spec, &resolved), CLS_OK);
    assert_int_equal(resolved.method, CLS_METHOD_FFT);
    assert_int_equal(resolved.separable, CLS_SEPARABLE_NONE);
}

/* Where the record gives the lanes walk rows (volume_lane_rows), a separable sum at most 9 wide, 3
 * tall and 3 deep runs its single pass on the global path in groups a warp wide and 16 tall, 4
 * columns a work-item; a constant border, a 5-tall or 5-deep mask, a minimum and a spec's own
 * input path keep the tile, and without the key every one does. */
static void small_separable_sums_walk_from_the_lanes(void **state)
{
    (void)state;
    static float ones[9 * 5 * 5];
    for (unsigned k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.group_width = 32, policy.group_height = 4, policy.volume_columns = 4, policy.limits.volume_lane_rows = 4;
    static const struct { unsigned w, h, d; cls_border border; cls_reduction reduction; cls_input_path asked; int lanes; } cases[] = {
        {3, 3, 3, CLS_BORDER_CLAMP, CLS_REDUCTION_SUM, CLS_INPUT_AUTO, 1},
        {9, 3, 3, CLS_BORDER_MIRROR, CLS_REDUCTION_SUM, CLS_INPUT_AUTO, 1},
        {3, 3, 3, CLS_BORDER_CONSTANT, CLS_REDUCTION_SUM, CLS_INPUT_AUTO, 0},
        {3, 5, 3, CLS_BORDER_CLAMP, CLS_REDUCTION_SUM, CLS_INPUT_AUTO, 0},
        {3, 3, 5, CLS_BORDER_CLAMP, CLS_REDUCTION_SUM, CLS_INPUT_AUTO, 0},
        {3, 3, 3, CLS_BORDER_CLAMP, CLS_REDUCTION_MIN, CLS_INPUT_AUTO, 0},
        {3, 3, 3, CLS_BORDER_CLAMP, CLS_REDUCTION_SUM, CLS_INPUT_LOCAL, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int keyed = 0; keyed <= 1; ++keyed) {
            cls_spec spec = valid_spec(), resolved;
            spec.coefficients = ones;
            spec.mask_width = cases[c].w, spec.mask_height = cases[c].h, spec.mask_depth = cases[c].d;
            spec.border = cases[c].border, spec.reduction = cases[c].reduction, spec.input_path = cases[c].asked;
            if (cases[c].asked == CLS_INPUT_LOCAL) spec.cols_per_item = 4;
            cls_kernel_policy p = policy;
            if (!keyed) p.limits.volume_lane_rows = 0;
            assert_int_equal(resolve(&p, &spec, &resolved), CLS_OK);
            const int lanes = keyed && cases[c].lanes;
            if ((resolved.input_path == CLS_INPUT_GLOBAL) != lanes)
                fail_msg("case %zu, key %d: input path %d", c, keyed, (int)resolved.input_path);
            if (lanes) {
                assert_int_equal(resolved.separable, CLS_SEPARABLE_SINGLE_PASS);
                assert_int_equal(resolved.cols_per_item, 4);
                assert_int_equal(resolved.group_width, CLS_VOLUME_LANES);
                assert_int_equal(resolved.group_height, CLS_VOLUME_LANES_GROUP_HEIGHT);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_policy_tiles_volume_walks_where_the_record_says),
        cmocka_unit_test(deep_masks_walk_the_records_deep_slices),
        cmocka_unit_test(tall_windows_take_taller_tiles),
        cmocka_unit_test(large_masks_run_by_fft_from_the_records_taps),
        cmocka_unit_test(small_separable_sums_walk_from_the_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
