/* test_emit_volume.c — properties of a volume's generated source without a device: the walk down
 * z written out step by step where the record vectorizes (PoCL) and within the unroll limit; a
 * rank over a box by sorted slices, another footprint by the forgetful network, past the record's
 * taps by Wirth's selection; several columns a work-item from the slice's tile in local memory
 * (its four f32 outputs stored as one float4; blocks of rows where the record says so) or as
 * vectors on the global path, a separable mask in one pass from the tile or, on the global path,
 * from the lanes of a warp. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "support/folded_source.h"

/* A SIDE x SIDE x SIDE box (up to 5), baked, in clamp mode. */
static cls_spec volume_box(unsigned side)
{
    static float ones[125];
    for (unsigned k = 0; k < 125; ++k) ones[k] = 1.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = spec.mask_depth = side;
    spec.coefficients = ones;
    spec.bake_coefficients = 1;
    spec.border = CLS_BORDER_CLAMP;
    return spec;
}

/* A volume's walk down z is written out step by step on a record that folds fully (PoCL: its
 * vectorizer takes no loop), where the written-out taps stay within the unroll limit: a 3x3x3
 * mask over 32 slices, not 5x5x5; elsewhere it loops to z_end. */
static void volume_walks_are_written_out_where_the_record_vectorizes(void **state)
{
    (void)state;
    const struct { unsigned side; int fold_fully, written_out; } cases[] = {{3, 1, 1}, {5, 1, 0}, {3, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = volume_box(cases[c].side);
        spec.rows_per_item = 32;
        char *source = folded_source(&spec, cases[c].fold_fully);
        assert_int_equal(strstr(source, "for (int i = 0; i < SLICES + MASK_D - 1; ++i)") != NULL, cases[c].written_out);
        assert_int_equal(strstr(source, "if (done >= z_first && done < z_end)") != NULL, cases[c].written_out);
        assert_int_equal(strstr(source, "for (int z = z_first - HALF_D; z < z_end + HALF_D; ++z)") != NULL,
                         !cases[c].written_out);
        free(source);
    }
}

/* A rank over a box runs by sorted slices where the record takes networks (each slice's window
 * sorted once, an output's slices merged and pruned); another footprint (a cross) as the forgetful
 * network; past the record's taps (or the quick kernel's naive partition) by Wirth's selection.
 * The networks' exchanges are fmin and fmax where the record says so (rank_minmax), else a
 * comparison and two selects. */
static void volume_ranks_sort_slices_of_a_box(void **state)
{
    (void)state;
    static float cross[27];
    for (unsigned k = 0; k < 27; ++k) cross[k] = (float)((k % 9 == 4) || (k / 9 == 1 && (k % 9) % 2 == 1) || k == 13);
    const struct { int box; unsigned taps_allowed, minmax; int slices, forgetful; } cases[] = {
        {1, 125, 0, 1, 0}, {1, 125, 1, 1, 0}, {0, 125, 0, 0, 1}, {0, 125, 1, 0, 1}, {1, 26, 1, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = volume_box(3);
        if (!cases[c].box) spec.coefficients = cross;
        spec.reduction = CLS_REDUCTION_RANK;
        spec.rank = cases[c].box ? 13 : 3;
        spec.partition = CLS_PARTITION_ISP_BLOCK;
        cls_generation_limits limits = cls_generation_limits_default();
        limits.rank_network_taps = cases[c].taps_allowed;
        limits.rank_minmax = cases[c].minmax;
        cls_kernel_config config;
        assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
        char *source = cls_emit_source(&config);
        assert_non_null(source);
        assert_int_equal(strstr(source, "Rank RANK by sorted slices, two outputs (z, z + 1) at a time: each input slice's window") != NULL,
                         cases[c].slices);
        assert_int_equal(strstr(source, "for (int zz = z_first - HALF_D; zz < z_end + HALF_D + 1; ++zz)") != NULL, cases[c].slices);
        assert_int_equal(strstr(source, "Rank RANK by a forgetful selection") != NULL, cases[c].forgetful);
        assert_int_equal(strstr(source, "select_rank(v, FOOTPRINT, RANK)") != NULL, !cases[c].slices && !cases[c].forgetful);
        const char *const exchange = cases[c].slices ? "#define CE(v, a, b)" : "#define ORDER(v, a, b)";
        const int network = cases[c].slices || cases[c].forgetful;
        assert_int_equal(strstr(source, exchange) != NULL, network);
        assert_int_equal(strstr(source, "v[a] = fmin(p_, q_); v[b] = fmax(p_, q_);") != NULL, network && cases[c].minmax);
        assert_int_equal(strstr(source, "const int swap_ = q_ < p_;") != NULL, network && !cases[c].minmax);
        assert_int_equal(strstr(source, "#define LO(v, a, b) v[a] = fmin(v[a], v[b]);") != NULL,
                         cases[c].slices && cases[c].minmax);
        free(source);
        cls_kernel_config_free(&config);
    }
    /* a pair of columns a work-item: the two windows from the slice's four sorted columns, the ring
     * of sorted slices turning (no slice moved) */
    cls_spec pair = volume_box(3);
    pair.reduction = CLS_REDUCTION_RANK, pair.rank = 13, pair.partition = CLS_PARTITION_ISP_BLOCK, pair.cols_per_item = 2;
    cls_generation_limits limits = cls_generation_limits_default();
    limits.rank_network_taps = 125;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, &pair, 32, &limits), CLS_OK);
    char *source = cls_emit_source(&config);
    assert_non_null(strstr(source, "in each of two columns (x, x + 1)"));
    assert_non_null(strstr(source, "for (int zz0 = z_first - HALF_D; zz0 < z_end + HALF_D + 1; zz0 += MASK_D + 1)"));
    assert_non_null(strstr(source, "const int x = roi.s0 + 2 * (int)get_global_id(0)"));
    assert_non_null(strstr(source, "(long)slice_index(zz, depth)")); /* bordered only outside */
    free(source);
    cls_kernel_config_free(&config);
    limits.rank_network_taps = 26; /* Wirth's selection: no pair */
    assert_int_equal(cls_kernel_config_init(&config, &pair, 32, &limits), CLS_ERR_INVALID_ARGUMENT);
}

/* With several columns a work-item, a volume's walk loads each slice's tile into local memory and
 * reads its rows as float4s (the local path, auto's form for several columns; four f32 outputs
 * stored as one float4), or on the global
 * path loads its window rows as vectors of outputs; a separable mask in a single pass also sums
 * the tile along x into local memory, its vectors baked (no whole mask); one column keeps the
 * plain walk. Each form borders a slice's index only where it lies outside the volume. */
static void volume_walks_read_the_slice_tile_with_columns(void **state)
{
    (void)state;
    const struct { unsigned cols; cls_separable separable; cls_input_path path; int tile, sums; } cases[] = {
        {4, CLS_SEPARABLE_NONE, CLS_INPUT_AUTO, 1, 0}, {8, CLS_SEPARABLE_SINGLE_PASS, CLS_INPUT_AUTO, 1, 1},
        {1, CLS_SEPARABLE_NONE, CLS_INPUT_AUTO, 0, 0}, {8, CLS_SEPARABLE_NONE, CLS_INPUT_GLOBAL, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = volume_box(5);
        spec.cols_per_item = cases[c].cols;
        spec.separable = cases[c].separable;
        spec.input_path = cases[c].path;
        char *source = NULL;
        assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
        const int vectors = cases[c].path == CLS_INPUT_GLOBAL;
        assert_int_equal(strstr(source, "typedef float8 vector_t;") != NULL, vectors);
        assert_int_equal(strstr(source, "inside_x ? vload8(0, line + x + dx - HALF_W) : (vector_t)(LANE(0), ") != NULL, vectors);
        assert_int_equal(strstr(source, "#define COLUMNS") != NULL, cases[c].tile || vectors);
        assert_int_equal(strstr(source, "tile[into[i]] = ") != NULL, cases[c].tile);
        assert_int_equal(strstr(source, "vstore4(tile4[get_local_id(1) + dy]") != NULL, cases[c].tile && !cases[c].sums);
        assert_int_equal(strstr(source, "__local float4 sums4[TILE_H][SUMS_FLOAT4S];") != NULL, cases[c].sums);
        assert_int_equal(strstr(source, "__constant float along_z[5]") != NULL, cases[c].sums);
        assert_int_equal(strstr(source, "baked_mask") == NULL, cases[c].sums);
        /* four f32 columns from the tile store as one float4 where aligned */
        assert_int_equal(strstr(source, "*(__global float4 *)(row_out + x) = ") != NULL, cases[c].tile && cases[c].cols == 4);
        assert_non_null(strstr(source, "int slice_index(int z, int depth) { return (uint)z < (uint)depth ? z : border_both(z, depth); }"));
        assert_non_null(strstr(source, "(long)slice_index("));
        assert_null(strstr(source, "(long)border_both(z"));
        free(source);
    }
    /* not into u8 outputs: one store a column */
    cls_spec spec = volume_box(5);
    spec.cols_per_item = 4;
    spec.output_type = CLS_PIXEL_U8;
    char *source = NULL;
    assert_int_equal(cls_generate_source(&spec, 32, &source), CLS_OK);
    assert_non_null(strstr(source, "tile[into[i]] = "));
    assert_null(strstr(source, "(__global float4 *)"));
    free(source);
}

/* Where the record says so (volume_block_rows), a work-item of the walk from the slice's tile sums
 * that many rows, each tile row it reaches read once for all of them, its tile offsets in 32 bits
 * and its tile index computed rather than kept; not for a mask past 5 on a side, a separable
 * single pass or a minimum, nor where the record says 0. */
static void volume_walks_sum_blocks_of_rows_where_the_record_says(void **state)
{
    (void)state;
    static float ones[343];
    for (unsigned k = 0; k < 343; ++k) ones[k] = 1.0f;
    const struct { unsigned side, record_rows; cls_separable separable; cls_reduction reduction; int blocked; } cases[] = {
        {3, 2, CLS_SEPARABLE_NONE, CLS_REDUCTION_SUM, 1},         {5, 2, CLS_SEPARABLE_NONE, CLS_REDUCTION_SUM, 1},
        {7, 2, CLS_SEPARABLE_NONE, CLS_REDUCTION_SUM, 0},         {3, 0, CLS_SEPARABLE_NONE, CLS_REDUCTION_SUM, 0},
        {3, 2, CLS_SEPARABLE_SINGLE_PASS, CLS_REDUCTION_SUM, 0}, {3, 2, CLS_SEPARABLE_NONE, CLS_REDUCTION_MIN, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = volume_box(3);
        spec.mask_width = spec.mask_height = spec.mask_depth = cases[c].side;
        spec.coefficients = ones;
        spec.cols_per_item = 4, spec.input_path = CLS_INPUT_LOCAL;
        spec.separable = cases[c].separable, spec.reduction = cases[c].reduction;
        cls_generation_limits limits = cls_generation_limits_default();
        limits.volume_block_rows = cases[c].record_rows;
        cls_kernel_config config;
        assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
        char *source = cls_emit_source(&config);
        assert_non_null(source);
        const int blocked = cases[c].blocked;
        assert_int_equal(cls_volume_block_rows(&config), blocked ? 2 : 1);
        assert_int_equal(strstr(source, "#define BLOCK_ROWS 2 ") != NULL, blocked);
        assert_int_equal(strstr(source, "#define TILE_H (GROUP_H * BLOCK_ROWS + 2 * HALF_H)") != NULL, blocked);
        assert_int_equal(strstr(source, "y = roi.s1 + (int)get_global_id(1) * BLOCK_ROWS;") != NULL, blocked);
        assert_int_equal(strstr(source, "for (int t = 0; t < BLOCK_ROWS + MASK_H - 1; ++t)") != NULL, blocked);
        assert_int_equal(strstr(source, "vstore4(tile4[get_local_id(1) * BLOCK_ROWS + t]") != NULL, blocked);
        assert_int_equal(strstr(source, "float sum[MASK_D][BLOCK_ROWS][COLUMNS];") != NULL, blocked);
        assert_int_equal(strstr(source, "const int row = y + b;") != NULL, blocked);
        assert_int_equal(strstr(source, "int at[TILE_LOADS];") != NULL && strstr(source, "long at[TILE_LOADS];") == NULL, blocked);
        assert_int_equal(strstr(source, "tile[e / TILE_W * TILE_FLOAT4S * 4 + e % TILE_W] = next[i];") != NULL, blocked);
        assert_int_equal(strstr(source, "tile[into[i]] = next[i];") != NULL, !blocked);
        /* the key tells the kernels apart, and the tile is as tall as the block's rows */
        char *key = cls_kernel_key(&config);
        assert_int_equal(strstr(key, ";block-rows=2") != NULL, blocked);
        free(key);
        const size_t halo = 2 * (cases[c].side / 2), float4s = (32 * 4 + halo + 3) / 4 + 1;
        if (cases[c].separable == CLS_SEPARABLE_NONE)
            assert_int_equal(cls_kernel_local_bytes(&config), (4 * (blocked ? 2 : 1) + halo) * float4s * 16);
        free(source);
        cls_kernel_config_free(&config);
    }
}

/* A separable single pass on the global path is the lanes walk: its rows from the record (else 4),
 * the halo's columns by PTX's shfl.sync where the compiler takes inline PTX, else through local
 * memory (which then counts as the kernel's), its key apart from the tile's. */
static void lanes_walks_exchange_by_ptx_or_local_memory(void **state)
{
    (void)state;
    for (int ptx = 0; ptx <= 1; ++ptx)
        for (unsigned record_rows = 0; record_rows <= 2; record_rows += 2) {
            cls_spec spec = volume_box(3);
            spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.input_path = CLS_INPUT_GLOBAL;
            spec.group_width = 32, spec.group_height = 8;
            cls_generation_limits limits = cls_generation_limits_default();
            limits.inline_ptx = (unsigned)ptx, limits.volume_lane_rows = record_rows;
            cls_kernel_config config;
            assert_int_equal(cls_kernel_config_init(&config, &spec, 32, &limits), CLS_OK);
            assert_true(cls_volume_lanes(&config));
            const unsigned rows = record_rows ? record_rows : CLS_VOLUME_LANE_ROWS;
            assert_int_equal(cls_volume_block_rows(&config), rows);
            char *source = cls_emit_source(&config), define[32];
            assert_non_null(source);
            snprintf(define, sizeof define, "#define BLOCK_ROWS %u ", rows);
            assert_non_null(strstr(source, define));
            assert_int_equal(strstr(source, "shfl.sync.up.b32") != NULL, ptx);
            assert_int_equal(strstr(source, "__local float exchange[ROWS_LOADED][GROUP_H][GROUP_W][COLUMNS];") != NULL, !ptx);
            assert_null(strstr(source, "tile4")); /* no slice's tile */
            assert_int_equal(cls_kernel_local_bytes(&config), ptx ? 0 : (size_t)(rows + 2) * 8 * 32 * 4 * sizeof(float));
            char *key = cls_kernel_key(&config);
            assert_null(strstr(key, ";input=local"));
            assert_non_null(strstr(key, ";separable=single-pass"));
            free(key);
            free(source);
            cls_kernel_config_free(&config);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(volume_walks_are_written_out_where_the_record_vectorizes),
        cmocka_unit_test(volume_ranks_sort_slices_of_a_box),
        cmocka_unit_test(volume_walks_read_the_slice_tile_with_columns),
        cmocka_unit_test(volume_walks_sum_blocks_of_rows_where_the_record_says),
        cmocka_unit_test(lanes_walks_exchange_by_ptx_or_local_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
