/* test_volume_lanes.c — a volume's separable single pass on the global input path, the lanes walk
 * (generator/emit_volume_lanes.c), on the default device against the CPU reference in 3-D: a
 * warp's work-items hand each other the window's halo columns (PTX on NVIDIA; through local
 * memory on other devices, the same generated code path), in every border mode, over volumes
 * narrower than a warp, wider than two (a warp's ends inside the volume, groups of two warps a
 * row), rows not a multiple of 4 (unaligned: vload4; the last columns one by one); other pixel
 * types against the tile's single pass; `auto` taking it where the record gives it rows (an
 * overlay of the device's own record); and what it refuses. */
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

static const cls_border borders[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                     CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
#define BORDERS (sizeof borders / sizeof borders[0])

/* Asked products 3x3x3, 3x5x3 and 9x3x5 (the widest halo a lane beside holds: 4 columns), each in
 * every border mode, two of the three a mode (all under CLS_TEST_EXHAUSTIVE), in groups of one
 * warp and of two a row (and a group the policy gives: a warp wide), walking 4 and 8 slices. */
static void separable_sums_from_the_lanes(void **state)
{
    (void)state;
    static const unsigned volumes[][3] = {{1, 1, 1}, {4, 3, 2}, {17, 11, 9}, {67, 45, 33}, {136, 5, 7}, {131, 4, 3}};
    static const float x3[3] = {1, 2, -1}, y5[5] = {0.5f, 1, 3, 1, 0.25f}, z3[3] = {2, 1, 0.5f},
                       x9[9] = {0.5f, -1, 2, 1, 3, 0.25f, 1, -2, 1.5f}, z5[5] = {1, 0.5f, 2, -1, 0.75f};
    float cube[27], tall[45], wide[135];
    outer_product(x3, 3, x3, 3, z3, 3, cube);
    outer_product(x3, 3, y5, 5, z3, 3, tall);
    outer_product(x9, 9, x3, 3, z5, 5, wide);
    const struct { const float *mask; unsigned w, h, d, group_w, slices; } cases[3] = {
        {cube, 3, 3, 3, 32, 8}, {tall, 3, 5, 3, 64, 4}, {wide, 9, 3, 5, 0, 0}}; /* 0: the group auto */
    for (size_t b = 0; b < BORDERS; ++b)
        for (size_t m = 0; m < 3; ++m) {
            if (!cls_test_pick((unsigned)(b + m), 3) && !cls_test_pick((unsigned)(b + m + 1), 3)) continue;
            cls_spec spec = volume_spec(cases[m].mask, cases[m].w, cases[m].h, cases[m].d, borders[b],
                                        m == 1 ? CLS_COEFFICIENTS_BUFFER : CLS_COEFFICIENTS_LITERALS);
            spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.input_path = CLS_INPUT_GLOBAL;
            spec.group_width = cases[m].group_w, spec.group_height = cases[m].group_w ? 2 : 0;
            spec.rows_per_item = cases[m].slices;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            assert_int_equal(cls_filter_separable(filter), CLS_SEPARABLE_SINGLE_PASS);
            assert_non_null(strstr(cls_filter_source(filter), "the halo's columns from the lanes beside it"));
            if (!cases[m].group_w) assert_non_null(strstr(cls_filter_source(filter), "#define GROUP_W 32\n"));
            for (size_t v = 0; v < sizeof volumes / sizeof volumes[0]; ++v)
                check_volume(filter, &spec, volumes[v][0], volumes[v][1], volumes[v][2]);
            cls_filter_release(filter);
        }
}

/* Other pixel types (u8 in and out, f16 into f32) give the same bytes as the slice tile's single
 * pass, the sums' order being the same: in mirror and in constant mode, a volume 70 wide. */
static void pixel_types_as_the_tile(void **state)
{
    (void)state;
    static const float x[3] = {1, 2, -1}, z[3] = {2, 1, 0.5f};
    float mask[27];
    outer_product(x, 3, x, 3, z, 3, mask);
    enum { W = 70, H = 9, D = 6, N = W * H * D };
    static unsigned char u8[N];
    static unsigned short f16[N];
    for (unsigned k = 0; k < N; ++k) u8[k] = (unsigned char)(k * 37 % 251), f16[k] = (unsigned short)(0x3c00 + k % 700);
    const struct { cls_pixel_type in, out; const void *input; size_t out_size; cls_border border; } cases[] = {
        {CLS_PIXEL_U8, CLS_PIXEL_U8, u8, 1, CLS_BORDER_MIRROR}, {CLS_PIXEL_F16, CLS_PIXEL_F32, f16, 4, CLS_BORDER_CONSTANT}};
    const cls_image_desc volume = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .depth = D};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        void *outputs[2];
        for (int tile = 0; tile <= 1; ++tile) {
            cls_spec spec = volume_spec(mask, 3, 3, 3, cases[c].border, CLS_COEFFICIENTS_LITERALS);
            spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.input_path = tile ? CLS_INPUT_LOCAL : CLS_INPUT_GLOBAL;
            spec.cols_per_item = 4, spec.group_width = 32, spec.group_height = 2;
            spec.input_type = cases[c].in, spec.output_type = cases[c].out;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            outputs[tile] = calloc(N, cases[c].out_size);
            assert_non_null(outputs[tile]);
            if (cls_filter_run_host(filter, cases[c].input, outputs[tile], &volume) != CLS_OK) fail_msg("%s", cls_last_error());
            cls_filter_release(filter);
        }
        assert_memory_equal(outputs[0], outputs[1], N * cases[c].out_size);
        free(outputs[0]), free(outputs[1]);
    }
}

/* `auto` takes the lanes walk for a separable sum at most 9 wide, 3 tall and 3 deep where the
 * record gives it rows (2 and 3 here, by an overlay), in groups a warp wide; a Gaussian 5 a side
 * keeps the tile. */
static void auto_takes_the_lanes_where_the_record_says(void **state)
{
    (void)state;
    for (unsigned rows = 2; rows <= 3; ++rows) {
        char keys[128], overlay[32], define[32];
        /* a GPU's walks from the tile (PoCL's record runs explicit vectors), and rows for the lanes */
        snprintf(keys, sizeof keys, "border_groups_fold_fully = 0\nvolume_columns = 4\nvolume_lane_rows = %u\n", rows);
        snprintf(define, sizeof define, "#define BLOCK_ROWS %u ", rows);
        cls_context *lanes_context = record_overlay_context(context, keys, overlay);
        assert_non_null(lanes_context);
        const char *const names[2] = {rows == 2 ? "box3d:3" : "gaussian3d:3,0.8", "gaussian3d:5,1"};
        for (int k = 0; k < 2; ++k) {
            cls_operator *op = NULL;
            assert_int_equal(cls_operator_parse(names[k], &op), CLS_OK);
            cls_spec spec = *cls_operator_spec(op);
            spec.border = borders[rows + (unsigned)k], spec.build_goal = CLS_BUILD_FASTEST_KERNEL; /* not constant */
            cls_filter *filter = NULL;
            if (cls_filter_create(lanes_context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            const char *source = cls_filter_source(filter);
            if (k == 0) {
                assert_non_null(strstr(source, define));
                assert_non_null(strstr(source, "#define GROUP_W 32\n"));
            } else {
                assert_null(strstr(source, "lanes beside"));
            }
            check_volume(filter, &spec, 70, 9, 6);
            check_volume(filter, &spec, 68, 6, 5);
            cls_filter_release(filter);
            cls_operator_release(op);
        }
        record_overlay_release(lanes_context, overlay);
    }
}

/* What the global path's single pass does not take, each refused with its reason. */
static void refusals_name_the_reason(void **state)
{
    (void)state;
    float box[11 * 3 * 3];
    for (unsigned k = 0; k < 99; ++k) box[k] = 1.0f;
    const struct { unsigned w, cols, group_w; cls_reduction reduction; const char *reason; } cases[] = {
        {3, 4, 32, CLS_REDUCTION_MIN, "a minimum's or maximum's single pass on the global input path"},
        {11, 4, 32, CLS_REDUCTION_SUM, "over a mask wider than 9"},
        {3, 8, 32, CLS_REDUCTION_SUM, "other than 4 columns per work-item"},
        {3, 4, 48, CLS_REDUCTION_SUM, "not a multiple of 32"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_spec spec = volume_spec(box, cases[c].w, 3, 3, CLS_BORDER_CLAMP, CLS_COEFFICIENTS_LITERALS);
        spec.separable = CLS_SEPARABLE_SINGLE_PASS, spec.input_path = CLS_INPUT_GLOBAL;
        spec.cols_per_item = cases[c].cols, spec.group_width = cases[c].group_w, spec.group_height = 4;
        spec.reduction = cases[c].reduction;
        cls_filter *filter = NULL;
        assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
        if (!strstr(cls_last_error(), cases[c].reason)) fail_msg("case %zu: %s", c, cls_last_error());
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(separable_sums_from_the_lanes),
        cmocka_unit_test(pixel_types_as_the_tile),
        cmocka_unit_test(auto_takes_the_lanes_where_the_record_says),
        cmocka_unit_test(refusals_name_the_reason),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
