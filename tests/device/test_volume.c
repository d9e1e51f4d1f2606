/* test_volume.c — volumes: weighted sums with a mask depth, on the default device, against the CPU
 * reference in 3-D (every axis bordered alike). Every border mode with masks 1x1x3, 3x3x3 and 3x5x7
 * (baked and from the buffer) over volumes from 1x1x1 to 67x45x33, blocks of slices that end
 * inside the volume, the quick kernel of the first-result goal, regions of interest with padded
 * rows and slices and offsets (nothing outside the region written), pixel types (also by the
 * walks of several columns a work-item, whose other cases are test_volume_columns.c's), and what
 * a volume refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"
#include "support/context_fixture.h"
#include "support/record_overlay.h"
#include "support/volume_check.h"

static void every_border_mode_and_mask(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                         CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
    /* mask, coefficient storage, slices per work-item (0: the device's) */
    static const struct { unsigned w, h, d; int bake; unsigned slices; } masks[] = {
        {3, 3, 3, CLS_COEFFICIENTS_LITERALS, 0}, {3, 5, 7, CLS_COEFFICIENTS_BUFFER, 4}, {1, 1, 3, CLS_COEFFICIENTS_LITERALS, 2}};
    static const unsigned volumes[][3] = {{1, 1, 1}, {4, 3, 2}, {17, 11, 9}, {67, 45, 33}};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b)
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; ++m) {
            float *mask = make_mask(masks[m].w, masks[m].h, masks[m].d);
            cls_spec spec = volume_spec(mask, masks[m].w, masks[m].h, masks[m].d, borders[b], masks[m].bake);
            spec.rows_per_item = masks[m].slices;
            check_volumes(&spec, volumes, sizeof volumes / sizeof volumes[0]);
            free(mask);
        }
}

/* A separable mask as a pass an axis (auto's choice for a Gaussian of 7^3 taps where the device
 * record reads no tiles, else one pass from the tile; asked for a 3x5x3 mask): every border mode
 * that takes passes, the constant's value carried through them, and a region of a padded volume. */
static void separable_masks_run_a_pass_an_axis(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT,
                                         CLS_BORDER_CONSTANT};
    cls_operator *gaussian = NULL;
    assert_int_equal(cls_operator_parse("gaussian3d:7,1.5", &gaussian), CLS_OK);
    static const float x[3] = {1, 2, -1}, y[5] = {0.5f, 1, 3, 1, 0.25f}, z[3] = {2, 1, 0.5f};
    float product[45];
    for (unsigned k = 0; k < 45; ++k) product[k] = z[k / 15] * y[k / 3 % 5] * x[k % 3];
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b)
        for (int asked = 0; asked < 2; ++asked) {
            cls_spec spec = asked ? volume_spec(product, 3, 5, 3, borders[b], CLS_COEFFICIENTS_LITERALS)
                                  : *cls_operator_spec(gaussian);
            spec.border = borders[b];
            spec.border_value = 0.25f;
            spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
            if (asked) spec.separable = CLS_SEPARABLE_TWO_PASS;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            const cls_separable separable = cls_filter_separable(filter); /* auto: passes, or one pass from the tile */
            assert_true(separable == CLS_SEPARABLE_TWO_PASS || (!asked && separable == CLS_SEPARABLE_SINGLE_PASS));
            assert_int_equal(cls_filter_kernel_count(filter), separable == CLS_SEPARABLE_TWO_PASS ? 3 : 1);
            check_volume(filter, &spec, 1, 1, 1);
            check_volume(filter, &spec, 19, 6, 13);
            cls_filter_release(filter);
        }
    cls_operator_release(gaussian);
    float random[27]; /* not of rank 1: refused as passes */
    for (unsigned k = 0; k < 27; ++k) random[k] = (float)((k * 7) % 5) - 2.0f;
    cls_spec spec = volume_spec(random, 3, 3, 3, CLS_BORDER_CLAMP, CLS_COEFFICIENTS_LITERALS);
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "not separable"));
}

/* The minimum and maximum over a footprint: a 3x3x3 box (one walk) and a 5x5x5 box (a pass an
 * axis) by name, and a 3x3x3 cross, in every border mode (the constant's value taking part). */
static void minimum_and_maximum(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                         CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
    static const char *const names[] = {"min3d:3", "max3d:5"};
    float cross[27] = {0};
    for (unsigned k = 0; k < 27; ++k) {
        const unsigned x = k % 3, y = k / 3 % 3, z = k / 9;
        cross[k] = (x == 1) + (y == 1) + (z == 1) >= 2;
    }
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        for (size_t n = 0; n < 2; ++n) {
            cls_operator *op = NULL;
            assert_int_equal(cls_operator_parse(names[n], &op), CLS_OK);
            cls_spec spec = *cls_operator_spec(op);
            spec.border = borders[b], spec.border_value = 0.25f, spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            assert_int_equal(cls_filter_kernel_count(filter), cls_filter_separable(filter) == CLS_SEPARABLE_TWO_PASS ? 3 : 1);
            if (n == 1 && borders[b] != CLS_BORDER_UNDEFINED) /* a box of 125 taps separates, by passes or in one */
                assert_int_not_equal(cls_filter_separable(filter), CLS_SEPARABLE_NONE);
            check_volume(filter, &spec, 17, 11, 9);
            check_volume(filter, &spec, 2, 3, 1);
            cls_filter_release(filter);
            cls_operator_release(op);
        }
        cls_spec spec = volume_spec(cross, 3, 3, 3, borders[b], CLS_COEFFICIENTS_BUFFER);
        spec.reduction = CLS_REDUCTION_MAX;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        check_volume(filter, &spec, 13, 7, 10);
        cls_filter_release(filter);
    }
}

/* The filter of a rank SPEC on a packed f32 volume against the reference's sorted footprints; the
 * input has ties (a few distinct values), as images do. */
static void check_rank(cls_filter *filter, const cls_spec *spec, unsigned w, unsigned h, unsigned d)
{
    const size_t voxels = (size_t)w * h * d;
    float *in = malloc(sizeof(float) * voxels), *out = malloc(sizeof(float) * voxels);
    double *expected = malloc(sizeof(double) * voxels);
    assert_true(in && out && expected);
    for (size_t k = 0; k < voxels; ++k) in[k] = (float)((k * 37) % 23) - 4.0f, out[k] = SENTINEL;
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    const cls_border borders[3] = {spec->border, spec->border_y == CLS_BORDER_SAME ? spec->border : spec->border_y,
                                   spec->border_z == CLS_BORDER_SAME ? spec->border : spec->border_z};
    assert_int_equal(ref_rank3d_axes(&image, d, 0, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height,
                                     (int)spec->mask_depth, borders, spec->border_value, spec->rank, expected), 0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .depth = d};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    for (size_t k = 0; k < voxels; ++k) {
        const int unwritten = isnan(expected[k]);
        if (unwritten ? out[k] == SENTINEL : out[k] == (float)expected[k]) continue;
        fail_msg("rank %u of %ux%ux%u, %s, %ux%ux%u volume: voxel (%zu, %zu, %zu) is %.9g, expected %.9g", spec->rank,
                 spec->mask_width, spec->mask_height, spec->mask_depth, cls_border_name(spec->border), w, h, d, k % w,
                 k / w % h, k / w / h, (double)out[k], unwritten ? (double)SENTINEL : expected[k]);
    }
    free(in), free(out), free(expected);
}

/* Medians and percentiles over cubes by name and over a footprint of any shape (a cross with an
 * origin), operators FIRST to END - 1 of four, in border modes FIRST_MODE to END_MODE - 1 of six
 * and with a mode per axis, from the specialized kernel and the quick one. */
static void check_medians(size_t first, size_t end, size_t first_mode, size_t end_mode)
{
    static const cls_border borders[] = {CLS_BORDER_UNDEFINED, CLS_BORDER_CLAMP,  CLS_BORDER_MIRROR,
                                         CLS_BORDER_MIRROR101, CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
    static const char *const names[] = {"median3d:3", "percentile3d:30,3", "median3d:5"};
    unsigned char cross[4 * 3 * 3] = {0}; /* 4 wide: an even side */
    for (unsigned k = 0; k < sizeof cross; ++k) cross[k] = (k % 4 == 1) + (k / 4 % 3 == 1) + (k / 12 == 1) >= 2;
    const int origin[3] = {1, 0, -1};
    assert_true(end_mode <= sizeof borders / sizeof borders[0]);
    for (size_t b = first_mode; b < end_mode; ++b)
        for (size_t n = first; n < end; ++n) {
            /* every operator in three of the six modes, the 5^3 median (125 values a voxel) in two */
            if (!(n == 2 ? cls_test_pick((unsigned)b, 3) : cls_test_pick((unsigned)(b + n), 2))) continue;
            cls_operator *op = NULL;
            if (n < 3) assert_int_equal(cls_operator_parse(names[n], &op), CLS_OK);
            else assert_int_equal(cls_operator_footprint("median", 0, cross, 4, 3, 3, origin, &op), CLS_OK);
            cls_spec spec = *cls_operator_spec(op);
            spec.border = borders[b], spec.border_value = 2.5f;
            spec.build_goal = n == 1 && b == 2 ? CLS_BUILD_FIRST_RESULT : CLS_BUILD_FASTEST_KERNEL;
            if (b == 4 && n == 0) spec.border_y = CLS_BORDER_CONSTANT, spec.border_z = CLS_BORDER_MIRROR;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
            check_rank(filter, &spec, 13, 7, 6);
            check_rank(filter, &spec, 2, 3, 1);
            cls_filter_release(filter);
            cls_operator_release(op);
        }
}

/* The 3x3x3 median and the 30th percentile in every border mode (check_medians). */
static void medians_and_percentiles(void **state)
{
    (void)state;
    check_medians(0, 2, 0, 6);
}

/* The 5x5x5 median and a cross's in the first three border modes (check_medians). */
static void larger_medians_first_modes(void **state)
{
    (void)state;
    check_medians(2, 4, 0, 3);
}

/* The 5x5x5 median and a cross's in the last three border modes (check_medians); every rank of a
 * 3x3x3 cube, the percentiles' names, and the ranks refused. */
static void larger_medians_last_modes_and_ranks(void **state)
{
    (void)state;
    check_medians(2, 4, 3, 6);
    /* the smallest, the median and the largest of a 3x3x3 cube, every rank when exhaustive (the
     * exchange network's on devices whose record says so, PoCL's and the H200's among them) */
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse("median3d:3", &op), CLS_OK);
    for (unsigned rank = 0; rank < 27; rank += cls_test_exhaustive() ? 1 : 13) {
        cls_spec spec = *cls_operator_spec(op);
        spec.rank = rank, spec.border = CLS_BORDER_REPEAT, spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        check_rank(filter, &spec, 9, 5, 4);
        cls_filter_release(filter);
    }
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("percentile3d:30,3", &op), CLS_OK);
    assert_int_equal(cls_operator_spec(op)->rank, 8); /* floor(27 * 30 / 100) */
    assert_string_equal(cls_operator_name(op), "percentile3d:30,3");
    cls_spec spec = *cls_operator_spec(op);
    spec.rank = 27;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "ranks go from 0 to 26"));
    spec.rank = 3, spec.separable = CLS_SEPARABLE_TWO_PASS;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("median3d:11", &op), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "1,024"));
    assert_int_equal(cls_operator_parse("percentile3d:101,3", &op), CLS_ERR_INVALID_ARGUMENT);
}

/* The rank networks as GPUs run them: their exchanges by fmin and fmax (a record's rank_minmax, set
 * here by an overlay of the device's own record), a box's sorted slices one column or a pair of
 * columns a work-item (cols_per_item 2: the last pair of an odd width half outside), the forgetful
 * network of a cross; every border mode gives the reference's ranks. A cross refuses the pair. */
static void ranks_as_gpus_run_them(void **state)
{
    (void)state;
    char overlay[32];
    cls_context *minmax_context = record_overlay_context(context, "rank_minmax = 1\n", overlay);
    assert_non_null(minmax_context);
    unsigned char cross[27] = {0};
    for (unsigned k = 0; k < sizeof cross; ++k) cross[k] = (k % 3 == 1) + (k / 3 % 3 == 1) + (k / 9 == 1) >= 2;
    const int origin[3] = {0, 0, 0};
    static const struct { const char *name; cls_border border; unsigned cols; } cases[] = {
        {"median3d:3", CLS_BORDER_UNDEFINED, 2}, {"median3d:3", CLS_BORDER_CLAMP, 2}, {NULL, CLS_BORDER_MIRROR, 1},
        {"percentile3d:30,3", CLS_BORDER_MIRROR101, 2}, {"median3d:3", CLS_BORDER_REPEAT, 1},
        {"median3d:3", CLS_BORDER_CONSTANT, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_operator *op = NULL;
        if (cases[c].name) assert_int_equal(cls_operator_parse(cases[c].name, &op), CLS_OK);
        else assert_int_equal(cls_operator_footprint("median", 0, cross, 3, 3, 3, origin, &op), CLS_OK);
        cls_spec spec = *cls_operator_spec(op);
        spec.border = cases[c].border, spec.border_value = 2.5f, spec.build_goal = CLS_BUILD_FASTEST_KERNEL;
        spec.cols_per_item = cases[c].cols;
        cls_filter *filter = NULL;
        if (cls_filter_create(minmax_context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        const char *source = cls_filter_source(filter);
        assert_non_null(strstr(source, "v[a] = fmin(p_, q_); v[b] = fmax(p_, q_);"));
        assert_int_equal(strstr(source, "in each of two columns (x, x + 1)") != NULL, cases[c].cols == 2);
        check_rank(filter, &spec, 13, 7, 6);
        check_rank(filter, &spec, 2, 3, 1);
        cls_filter_release(filter);
        if (!cases[c].name) { /* a cross has no sorted slices to pair */
            spec.cols_per_item = 2;
            assert_int_equal(cls_filter_create(minmax_context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(cls_last_error(), "by sorted slices only"));
        }
        cls_operator_release(op);
    }
    record_overlay_release(minmax_context, overlay);
}

/* The first-result goal's quick kernel (the mask from its buffer, a slice per work-item) sums
 * alike; so does the specialized kernel it builds meanwhile, for a random mask and for a Gaussian
 * (of rank 1: the separable single pass of a large volume's specialized kernel). */
static void the_quick_kernel_and_the_tiered_build(void **state)
{
    (void)state;
    float *mask = make_mask(5, 3, 5);
    cls_operator *gaussian = NULL;
    assert_int_equal(cls_operator_parse("gaussian3d:5,1", &gaussian), CLS_OK);
    for (int rank1 = 0; rank1 < 2; ++rank1) {
        cls_spec spec = rank1 ? *cls_operator_spec(gaussian)
                              : volume_spec(mask, 5, 3, 5, CLS_BORDER_MIRROR, CLS_COEFFICIENTS_LITERALS);
        spec.build_goal = CLS_BUILD_TIERED;
        if (rank1) spec.expected_width = spec.expected_height = spec.expected_depth = 512;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        check_volume(filter, &spec, 19, 13, 11);
        if (cls_filter_wait(filter) != CLS_OK) fail_msg("%s", cls_last_error());
        check_volume(filter, &spec, 19, 13, 11);
        cls_filter_release(filter);
    }
    cls_operator_release(gaussian);
    free(mask);
}

/* A region of interest of a volume with padded rows and slices and offsets: the region computed
 * with the whole volume's borders, every other voxel (and the padding) left as it was. */
static void check_region(const float *mask, cls_separable separable, unsigned cols, cls_input_path path)
{
    enum { W = 13, H = 9, D = 8, PITCH = 16, SLICE = PITCH * H + 5, IN_OFFSET = 3, OUT_OFFSET = 2 };
    cls_spec spec = volume_spec(mask, 3, 3, 5, CLS_BORDER_REPEAT, CLS_COEFFICIENTS_LITERALS);
    spec.rows_per_item = separable == CLS_SEPARABLE_NONE ? 2 : 0;
    spec.cols_per_item = cols, spec.input_path = path;
    spec.separable = separable;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    static float in[IN_OFFSET + SLICE * D], out[OUT_OFFSET + SLICE * D], packed[W * H * D];
    static double expected[W * H * D];
    for (size_t k = 0; k < sizeof in / sizeof in[0]; ++k) in[k] = (float)((k * 17) % 41) / 41.0f;
    for (size_t k = 0; k < sizeof out / sizeof out[0]; ++k) out[k] = SENTINEL;
    for (unsigned z = 0; z < D; ++z)
        for (unsigned y = 0; y < H; ++y)
            for (unsigned x = 0; x < W; ++x) packed[(z * H + y) * W + x] = in[IN_OFFSET + z * SLICE + y * PITCH + x];
    const ref_image image = {packed, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil3d(&image, D, 0, mask, 3, 3, 5, spec.border, 0.0f, expected), 0);
    const unsigned rx = 2, ry = 1, rz = 3, rw = 9, rh = 7, rd = 4;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT,
                                 .width = W, .height = H, .depth = D,
                                 .input_row_pitch = PITCH * sizeof(float), .output_row_pitch = PITCH * sizeof(float),
                                 .input_slice_pitch = SLICE * sizeof(float), .output_slice_pitch = SLICE * sizeof(float),
                                 .input_offset = IN_OFFSET * sizeof(float), .output_offset = OUT_OFFSET * sizeof(float),
                                 .roi_x = rx, .roi_y = ry, .roi_width = rw, .roi_height = rh,
                                 .roi_z = rz, .roi_depth = rd};
    if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
    for (size_t k = 0; k < sizeof out / sizeof out[0]; ++k) {
        const long at = (long)k - OUT_OFFSET;
        const long z = at / SLICE, y = at % SLICE / PITCH, x = at % SLICE % PITCH;
        const int inside = at >= 0 && at % SLICE < PITCH * H && x < W && x >= (long)rx && x < (long)(rx + rw) &&
                           y >= (long)ry && y < (long)(ry + rh) && z >= (long)rz && z < (long)(rz + rd);
        if (!inside) {
            if (out[k] != SENTINEL) fail_msg("element %zu outside the region was written: %g", k, (double)out[k]);
            continue;
        }
        const double want = expected[((size_t)z * H + (size_t)y) * W + (size_t)x];
        if (!ref_f32_close(out[k], want))
            fail_msg("voxel (%ld, %ld, %ld) is %.9g, expected %.9g", x, y, z, (double)out[k], want);
    }
    cls_filter_release(filter);
}

static void a_region_of_a_padded_volume(void **state)
{
    (void)state;
    float *mask = make_mask(3, 3, 5);
    check_region(mask, CLS_SEPARABLE_NONE, 1, CLS_INPUT_AUTO);
    check_region(mask, CLS_SEPARABLE_NONE, 4, CLS_INPUT_LOCAL); /* the slice's tile in local memory */
    check_region(mask, CLS_SEPARABLE_NONE, 8, CLS_INPUT_GLOBAL); /* vectors */
    for (unsigned k = 0; k < 45; ++k) mask[k] = (float)(1 + k % 3) * (float)(2 + k / 3 % 3) * (float)(k / 9) / 10.0f;
    check_region(mask, CLS_SEPARABLE_TWO_PASS, 0, CLS_INPUT_AUTO); /* the passes: x and y over the whole volume, z over the region */
    free(mask);
}

/* u8 in and out (rounded and saturated), u16 and f16 in, f32 out; by the plain walk, from
 * the slice's tile and in vectors. */
static void pixel_types(void **state)
{
    (void)state;
    enum { W = 11, H = 7, D = 6 };
    static const float box[27] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    /* types, and columns a work-item (from the slice's tile, local, or in vectors, global) */
    static const struct { cls_pixel_type in, out; unsigned cols; cls_input_path path; } types[] = {
        {CLS_PIXEL_U8, CLS_PIXEL_U8, 1, CLS_INPUT_AUTO},   {CLS_PIXEL_U16, CLS_PIXEL_F32, 1, CLS_INPUT_AUTO},
        {CLS_PIXEL_U8, CLS_PIXEL_U8, 4, CLS_INPUT_LOCAL},  {CLS_PIXEL_U16, CLS_PIXEL_F32, 4, CLS_INPUT_LOCAL},
        {CLS_PIXEL_U8, CLS_PIXEL_U8, 8, CLS_INPUT_GLOBAL}, {CLS_PIXEL_F16, CLS_PIXEL_F32, 8, CLS_INPUT_GLOBAL}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        cls_spec spec = volume_spec(box, 3, 3, 3, CLS_BORDER_MIRROR101, CLS_COEFFICIENTS_LITERALS);
        spec.input_type = types[t].in, spec.output_type = types[t].out, spec.cols_per_item = types[t].cols;
        spec.input_path = types[t].path;
        cls_filter *filter = NULL;
        if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
        const size_t in_size = ref_pixel_size(types[t].in), out_size = ref_pixel_size(types[t].out);
        static unsigned char in[W * H * D * 2], out[W * H * D * 4];
        static double expected[W * H * D];
        for (size_t k = 0; k < W * H * D; ++k) {
            const double value = (double)((k * 37) % 251) / (types[t].in == CLS_PIXEL_U8 ? 10.0 : 1.0);
            ref_store(types[t].in, types[t].in == CLS_PIXEL_U8 ? value * 10.0 : value * 200.0, in + k * in_size);
        }
        const ref_image image = {in, W, H, 0, types[t].in};
        assert_int_equal(ref_stencil3d(&image, D, 0, box, 3, 3, 3, spec.border, 0.0f, expected), 0);
        const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H, .depth = D};
        if (cls_filter_run_host(filter, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
        for (size_t k = 0; k < W * H * D; ++k) {
            const double got = ref_load(types[t].out, out + k * out_size);
            const double want = ref_to_output(types[t].out, expected[k]);
            if (types[t].out == CLS_PIXEL_F32 ? !ref_f32_close(got, want) : got != want)
                fail_msg("%s -> %s, voxel %zu: %g, expected %g", cls_pixel_type_name(types[t].in),
                         cls_pixel_type_name(types[t].out), k, got, want);
        }
        cls_filter_release(filter);
    }
}

/* What a volume refuses, by name: even and too deep masks, what a volume's sum does not take, a
 * 2-D filter given a volume, a region past the slices, spreading a volume over filters, a volume
 * stage in a pipeline. */
static void refusals(void **state)
{
    (void)state;
    float *mask = make_mask(3, 3, 33);
    cls_filter *filter = NULL;
    cls_spec spec = volume_spec(mask, 3, 3, 4, CLS_BORDER_CLAMP, 1);
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "mask depth 4"));
    spec.mask_depth = 33;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    spec.mask_depth = 3;
    spec.body = "OUT_AT(0) = IN(0, 0, 0);"; /* a volume's body writes OUT */
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "OUT_AT"));
    spec.body = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    float in[4 * 4 * 4] = {0}, out[4 * 4 * 4];
    cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = 4, .height = 4, .depth = 4, .roi_z = 2, .roi_depth = 3};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "slices"));
    desc.roi_z = 0, desc.roi_depth = 0;
    assert_int_equal(cls_filter_run_host_spread(&filter, 1, in, out, &desc), CLS_ERR_UNSUPPORTED);
    cls_filter_release(filter);
    cls_pipeline *pipeline = NULL; /* a pipeline's stencil stages: all 2-D or all volumes' */
    assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
    cls_spec flat_stage = volume_spec(mask, 3, 3, 0, CLS_BORDER_CLAMP, 1);
    assert_int_equal(cls_pipeline_add(pipeline, &flat_stage), CLS_OK);
    assert_int_equal(cls_pipeline_run_host(pipeline, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "2-D operators"));
    assert_int_equal(cls_pipeline_add(pipeline, &spec), CLS_ERR_UNSUPPORTED);
    assert_non_null(strstr(cls_last_error(), "all 2-D operators (images) or all volumes'"));
    cls_pipeline_release(pipeline);
    cls_spec flat = volume_spec(mask, 3, 3, 0, CLS_BORDER_CLAMP, 1);
    flat.reduction = CLS_REDUCTION_MIN;
    assert_int_equal(cls_filter_create(context, &flat, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "min:, max:"));
    flat.reduction = CLS_REDUCTION_SUM;
    if (cls_filter_create(context, &flat, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "mask is 2-D"));
    cls_filter_release(filter);
    free(mask);
}

/* A pipeline of volumes' operators: an opening (a minimum, then a maximum over 3x3x3) in one run
 * equals the two filters run one after the other, and a top-hat (the input less the opening, an
 * element-wise stage voxel by voxel) equals that difference, in every border mode but undefined;
 * slices that are not packed refuse the element-wise stage. */
static void volume_pipelines(void **state)
{
    (void)state;
    static const cls_border borders[] = {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR, CLS_BORDER_MIRROR101,
                                         CLS_BORDER_REPEAT, CLS_BORDER_CONSTANT};
    const unsigned w = 17, h = 11, d = 9;
    const size_t voxels = (size_t)w * h * d;
    float *in = malloc(sizeof(float) * voxels), *mid = malloc(sizeof(float) * voxels),
          *opened = malloc(sizeof(float) * voxels), *out = malloc(sizeof(float) * voxels);
    assert_true(in && mid && opened && out);
    for (size_t k = 0; k < voxels; ++k) in[k] = (float)((k * 37) % 101) / 7.0f - 3.0f;
    float *ones = make_mask(3, 3, 3);
    for (unsigned k = 0; k < 27; ++k) ones[k] = 1.0f;
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h, .depth = d};
    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; ++b) {
        cls_spec minimum = volume_spec(ones, 3, 3, 3, borders[b], CLS_COEFFICIENTS_LITERALS);
        minimum.reduction = CLS_REDUCTION_MIN;
        minimum.border_value = 0.5f;
        cls_spec maximum = minimum;
        maximum.reduction = CLS_REDUCTION_MAX;
        cls_filter *first = NULL, *second = NULL;
        if (cls_filter_create(context, &minimum, &first) != CLS_OK || cls_filter_create(context, &maximum, &second) != CLS_OK)
            fail_msg("%s", cls_last_error());
        assert_int_equal(cls_filter_run_host(first, in, mid, &desc), CLS_OK);
        assert_int_equal(cls_filter_run_host(second, mid, opened, &desc), CLS_OK);
        cls_filter_release(first);
        cls_filter_release(second);
        cls_pipeline *pipeline = NULL;
        assert_int_equal(cls_pipeline_create(context, &pipeline), CLS_OK);
        assert_int_equal(cls_pipeline_add_stage(pipeline, "eroded", &minimum, NULL), CLS_OK);
        assert_int_equal(cls_pipeline_add_stage(pipeline, "opened", &maximum, NULL), CLS_OK);
        if (cls_pipeline_run_host(pipeline, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
        if (memcmp(out, opened, sizeof(float) * voxels) != 0)
            fail_msg("%s: the opening's pipeline differs from its two filters", cls_border_name(borders[b]));
        assert_int_equal(cls_pipeline_add_elementwise(pipeline, "tophat", "input - opened", CLS_PIXEL_F32), CLS_OK);
        if (cls_pipeline_run_host(pipeline, in, out, &desc) != CLS_OK) fail_msg("%s", cls_last_error());
        for (size_t k = 0; k < voxels; ++k)
            if (out[k] != in[k] - opened[k])
                fail_msg("%s: top-hat voxel %zu is %g, expected %g", cls_border_name(borders[b]), k, (double)out[k],
                         (double)(in[k] - opened[k]));
        cls_image_desc padded = desc; /* slices further apart than their rows */
        padded.input_slice_pitch = padded.output_slice_pitch = (size_t)w * (h + 1) * sizeof(float);
        float *wide = calloc((size_t)w * (h + 1) * d, sizeof(float));
        assert_non_null(wide);
        assert_int_equal(cls_pipeline_run_host(pipeline, wide, wide, &padded), CLS_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(cls_last_error(), "slices are packed"));
        free(wide);
        cls_pipeline_release(pipeline);
    }
    free(ones);
    free(in), free(mid), free(opened), free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_border_mode_and_mask),
        cmocka_unit_test(separable_masks_run_a_pass_an_axis),
        cmocka_unit_test(minimum_and_maximum),
        cmocka_unit_test(medians_and_percentiles),
        cmocka_unit_test(larger_medians_first_modes),
        cmocka_unit_test(larger_medians_last_modes_and_ranks),
        cmocka_unit_test(ranks_as_gpus_run_them),
        cmocka_unit_test(volume_pipelines),
        cmocka_unit_test(the_quick_kernel_and_the_tiered_build),
        cmocka_unit_test(a_region_of_a_padded_volume),
        cmocka_unit_test(pixel_types),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
