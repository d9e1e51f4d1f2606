/* test_fast_builds.c — the kernel forms that build fast, on the default device.
 * Coefficients as a by-value kernel argument (CLS_COEFFICIENTS_ARGUMENT): in every border mode the
 * unrolled kernel equals the CPU reference, borders included, and the literal kernel of the same
 * configuration bit for bit; two masks of one size share one source and one build; large blocks
 * whose border regions loop read the buffer there; several masks with an epilogue; the refusals
 * (folding, separable passes, an argument larger than the device takes, an unknown storage). The
 * separable single pass in each of its forms: the reference, the same bits in each and as the
 * literals', one build a size.
 * ISP regions sharing one copy of the sums (CLS_REGION_CODE_SHARED): every border mode, both
 * storages, both ISP partitions, blocks of several rows and columns, on images whose groups take
 * every region (the fallback included) and a region of interest: the reference, and the separate
 * regions' bits; the same for the body region apart (CLS_REGION_CODE_BODY_APART, what AUTO gives).
 * The build goals' ladder: tiered builds the body apart after the quick kernel; a new context's
 * first result and tiered filter take it from the disk cache. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 53, H = 37, MAX_TAPS = 2 * 13 * 13 };

static float input[W * H];
static char cache_dir[] = "/tmp/clstencil-argument-XXXXXX";
static cls_context *context;

static void random_mask(unsigned seed, float *mask, size_t taps)
{
    for (size_t k = 0; k < taps; ++k) {
        seed = seed * 1103515245u + 12345u;
        mask[k] = (float)((seed >> 8) % 1000) / 4000.0f - 0.05f;
    }
    mask[taps / 3] = 0.0f; /* a zero tap: literals skip it, the argument multiplies it */
}

static int setup(void **state)
{
    (void)state;
    unsigned seed = 77;
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        input[k] = (float)((seed >> 8) % 4096) / 1024.0f;
    }
    if (!mkdtemp(cache_dir)) return -1;
    setenv("CLSTENCIL_CACHE_DIR", cache_dir, 1);
    setenv("CLSTENCIL_CACHE", "on", 1);
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
    return system(command) == 0 ? 0 : -1;
}

static cls_spec spec_for(const float *mask, unsigned size, cls_border border, int storage, unsigned rows, unsigned cols,
                         cls_partition partition)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = size;
    spec.coefficients = mask;
    spec.bake_coefficients = storage;
    spec.border = border;
    spec.border_value = 0.75f;
    spec.partition = partition;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    return spec;
}

static void run(const cls_spec *spec, float *out)
{
    cls_filter *filter = NULL;
    if (cls_filter_create(context, spec, &filter) != CLS_OK) fail_msg("create: %s", cls_last_error());
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    for (int k = 0; k < W * H; ++k) out[k] = -1234.5f; /* undefined mode keeps its border pixels */
    if (cls_filter_run_host(filter, input, out, &desc) != CLS_OK) fail_msg("run: %s", cls_last_error());
    cls_filter_release(filter);
}

static void expect_reference(const char *what, const float *got, const float *mask, unsigned size, cls_border border)
{
    static double expected[W * H];
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, mask, (int)size, (int)size, border, 0.75f, expected), 0);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside((size_t)x, (size_t)y, W, H, (int)size, (int)size))
                continue;
            if (!ref_f32_close(got[y * W + x], expected[y * W + x]))
                fail_msg("%s %s: (%d, %d) is %.9g, expected %.9g", what, cls_border_name(border), x, y,
                         got[y * W + x], expected[y * W + x]);
        }
}

static void expect_same_bits(const char *what, const float *a, const float *b)
{
    for (int k = 0; k < W * H; ++k)
        if (memcmp(&a[k], &b[k], sizeof(float)) != 0)
            fail_msg("%s: (%d, %d) argument %.9g, literals %.9g", what, k % W, k / W, a[k], b[k]);
}

static unsigned long builds_from_source(void)
{
    cls_cache_status status = {CLS_CACHE_STATUS_INIT};
    assert_int_equal(cls_cache_query(&status), CLS_OK);
    return status.misses;
}

/* Every border mode against the reference, the partitions taking turns (undefined: one output
 * per work-item); the literals' bits in two modes. */
static void test_every_border(void **state)
{
    (void)state;
    float mask[25];
    random_mask(5, mask, 25);
    static float argument[W * H], literals[W * H];
    for (int b = CLS_BORDER_UNDEFINED; b <= CLS_BORDER_CONSTANT; ++b) {
        const unsigned items = b == CLS_BORDER_UNDEFINED ? 1 : 2;
        const cls_partition partition = b % 2 ? CLS_PARTITION_ISP_WARP : CLS_PARTITION_NAIVE;
        const cls_spec a = spec_for(mask, 5, (cls_border)b, CLS_COEFFICIENTS_ARGUMENT, items, items, partition);
        run(&a, argument);
        expect_reference("argument", argument, mask, 5, (cls_border)b);
        if (b != CLS_BORDER_CLAMP && b != CLS_BORDER_MIRROR101) continue;
        const cls_spec l = spec_for(mask, 5, (cls_border)b, CLS_COEFFICIENTS_LITERALS, items, items, partition);
        run(&l, literals);
        expect_same_bits(cls_border_name((cls_border)b), argument, literals);
    }
}

/* A second mask of the same size, shape and border: the same source, no build. */
static void test_one_build_per_size(void **state)
{
    (void)state;
    float first[49], second[49];
    random_mask(11, first, 49);
    random_mask(12, second, 49);
    const cls_spec a = spec_for(first, 7, CLS_BORDER_MIRROR, CLS_COEFFICIENTS_ARGUMENT, 2, 2, CLS_PARTITION_NAIVE);
    const cls_spec b = spec_for(second, 7, CLS_BORDER_MIRROR, CLS_COEFFICIENTS_ARGUMENT, 2, 2, CLS_PARTITION_NAIVE);
    cls_filter *fa = NULL, *fb = NULL;
    assert_int_equal(cls_filter_create(context, &a, &fa), CLS_OK);
    const unsigned long before = builds_from_source();
    assert_int_equal(cls_filter_create(context, &b, &fb), CLS_OK);
    assert_int_equal(builds_from_source(), before);
    assert_string_equal(cls_filter_source(fa), cls_filter_source(fb));
    assert_non_null(strstr(cls_filter_source(fa), "coefficients_t coef"));
    static float got[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(fa, input, got, &desc), CLS_OK);
    expect_reference("first mask", got, first, 7, CLS_BORDER_MIRROR);
    assert_int_equal(cls_filter_run_host(fb, input, got, &desc), CLS_OK);
    expect_reference("second mask", got, second, 7, CLS_BORDER_MIRROR);
    cls_filter_release(fa);
    cls_filter_release(fb);
}

/* A mask of rank 1 as the separable single pass, in each of its forms (its row sums through local
 * memory, streaming, its input rows staged), the coefficients as an argument (the row, then the
 * column): the reference in clamp (and in mirror101 and constant, whose folds the literal forms'
 * tests cover in every mode); in clamp the same bits in every form (the quick kernel of a first
 * result is the first, the tiered build's the last) and, for the last, the literal kernel's bits
 * (a zero tap in either vector); and a second mask of the size from the same build. */
static void test_separable_single_pass(void **state)
{
    (void)state;
    static const float row[7] = {0.05f, 0.15f, 0.2f, 0.3f, 0.0f, 0.25f, 0.05f};
    static const float column[7] = {0.1f, 0.0f, 0.2f, 0.35f, 0.2f, 0.1f, 0.05f};
    static const struct { unsigned rows, cols; cls_input_path input; const char *form; } forms[] = {
        {2, 1, CLS_INPUT_AUTO, "row sums staged"},
        {16, 4, CLS_INPUT_GLOBAL, "streaming"},
        {16, 4, CLS_INPUT_LOCAL, "input rows staged"},
    };
    float mask[49];
    for (int k = 0; k < 49; ++k) mask[k] = column[k / 7] * row[k % 7];
    static float argument[W * H], literals[W * H];
    static const cls_border borders[3][2] = {{CLS_BORDER_CLAMP},
                                             {CLS_BORDER_CLAMP, CLS_BORDER_MIRROR101},
                                             {CLS_BORDER_CLAMP, CLS_BORDER_CONSTANT}};
    static float clamped[W * H]; /* the first form's, in clamp */
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f)
        for (size_t m = 0; m < 2 && borders[f][m] != CLS_BORDER_UNDEFINED; ++m) { /* the rows end in undefined */
            const cls_border b = borders[f][m];
            cls_spec a = spec_for(NULL, 7, b, CLS_COEFFICIENTS_ARGUMENT, forms[f].rows, forms[f].cols, CLS_PARTITION_AUTO);
            a.row_coefficients = row;
            a.column_coefficients = column;
            a.separable = CLS_SEPARABLE_SINGLE_PASS;
            a.input_path = forms[f].input;
            cls_filter *filter = NULL;
            if (cls_filter_create(context, &a, &filter) != CLS_OK) fail_msg("%s: %s", forms[f].form, cls_last_error());
            assert_non_null(strstr(cls_filter_source(filter), "/* the row, then the column */"));
            cls_filter_release(filter);
            run(&a, argument);
            expect_reference(forms[f].form, argument, mask, 7, b);
            if (b != CLS_BORDER_CLAMP) continue; /* the sums are the same in every mode */
            if (f == 0) memcpy(clamped, argument, sizeof clamped);
            else expect_same_bits("the forms", argument, clamped);
            if (f + 1 < sizeof forms / sizeof forms[0]) continue;
            cls_spec l = a;
            l.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
            run(&l, literals);
            expect_same_bits(forms[f].form, argument, literals);
        }
    /* another mask of rank 1, the same form: no build */
    static const float wide[7] = {0.1f, 0.1f, 0.15f, 0.3f, 0.15f, 0.1f, 0.1f};
    cls_spec a = spec_for(NULL, 7, CLS_BORDER_CONSTANT, CLS_COEFFICIENTS_ARGUMENT, 16, 4, CLS_PARTITION_AUTO);
    a.row_coefficients = a.column_coefficients = wide;
    a.separable = CLS_SEPARABLE_SINGLE_PASS;
    a.input_path = CLS_INPUT_LOCAL;
    const unsigned long before = builds_from_source();
    run(&a, argument);
    assert_int_equal(builds_from_source(), before);
    for (int k = 0; k < 49; ++k) mask[k] = wide[k / 7] * wide[k % 7];
    expect_reference("second mask", argument, mask, 7, CLS_BORDER_CONSTANT);
}

/* Blocks past the unroll limit: the border regions loop over the buffer, the body reads coef. */
static void test_rolled_borders(void **state)
{
    (void)state;
    float mask[49];
    random_mask(21, mask, 49);
    const cls_spec a = spec_for(mask, 7, CLS_BORDER_MIRROR101, CLS_COEFFICIENTS_ARGUMENT, 8, 4, CLS_PARTITION_ISP_BLOCK);
    static float got[W * H];
    run(&a, got);
    expect_reference("rolled borders", got, mask, 7, CLS_BORDER_MIRROR101);
}

/* Two masks and an epilogue: the literals' bits. */
static void test_two_masks(void **state)
{
    (void)state;
    float masks[18];
    random_mask(31, masks, 18);
    cls_spec a = spec_for(masks, 3, CLS_BORDER_REPEAT, CLS_COEFFICIENTS_ARGUMENT, 2, 1, CLS_PARTITION_NAIVE);
    a.mask_count = 2;
    a.epilogue = "hypot(r0, r1)";
    cls_spec l = a;
    l.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    static float argument[W * H], literals[W * H];
    run(&a, argument);
    run(&l, literals);
    expect_same_bits("two masks", argument, literals);
}

/* Shared regions, and the body apart (four regions): image sizes that give every region, a
 * one-group image (the fallback) and partial work-items, with a region of interest on the first. */
static void test_shared_regions(void **state)
{
    (void)state;
    float mask[15];
    random_mask(51, mask, 15); /* 5 wide, 3 high */
    static const struct { unsigned w, h; } sizes[] = {{W, H}, {6, 5}, {37, 3}};
    static float shared[W * H], separate[W * H];
    static double expected[W * H];
    for (int b = CLS_BORDER_CLAMP; b <= CLS_BORDER_CONSTANT; ++b)
        for (int code = CLS_REGION_CODE_SHARED; code <= CLS_REGION_CODE_BODY_APART; ++code) {
            cls_spec spec = spec_for(mask, 5, (cls_border)b, b % 2 ? CLS_COEFFICIENTS_ARGUMENT : CLS_COEFFICIENTS_LITERALS,
                                     b % 3 ? 4 : 2, b % 3 ? 1 : 2, b % 2 ? CLS_PARTITION_ISP_WARP : CLS_PARTITION_ISP_BLOCK);
            spec.mask_height = 3;
            spec.group_width = 8;
            spec.group_height = 2;
            spec.region_code = (cls_region_code)code;
            const char *form = code == CLS_REGION_CODE_SHARED ? "shared" : "body apart";
            cls_spec other = spec;
            other.region_code = CLS_REGION_CODE_SEPARATE;
            cls_filter *fs = NULL, *fo = NULL;
            if (cls_filter_create(context, &spec, &fs) != CLS_OK) fail_msg("%s: %s", form, cls_last_error());
            assert_non_null(strstr(cls_filter_source(fs), code == CLS_REGION_CODE_SHARED ? "border_once" : "Four copies of the sums"));
            if (cls_filter_create(context, &other, &fo) != CLS_OK) fail_msg("separate: %s", cls_last_error());
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                const unsigned w = sizes[s].w, h = sizes[s].h;
                cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
                if (s == 0) desc.roi_x = 3, desc.roi_y = 2, desc.roi_width = w - 7, desc.roi_height = h - 3;
                for (unsigned k = 0; k < w * h; ++k) shared[k] = separate[k] = -1234.5f;
                assert_int_equal(cls_filter_run_host(fs, input, shared, &desc), CLS_OK);
                assert_int_equal(cls_filter_run_host(fo, input, separate, &desc), CLS_OK);
                const ref_image image = {input, w, h, 0, CLS_PIXEL_F32};
                assert_int_equal(ref_stencil(&image, mask, 5, 3, (cls_border)b, 0.75f, expected), 0);
                for (unsigned y = 0; y < h; ++y)
                    for (unsigned x = 0; x < w; ++x) {
                        const size_t k = (size_t)y * w + x;
                        const int inside = s || (x >= desc.roi_x && x < desc.roi_x + desc.roi_width && y >= desc.roi_y &&
                                                 y < desc.roi_y + desc.roi_height);
                        if (memcmp(&shared[k], &separate[k], sizeof(float)) != 0)
                            fail_msg("%s %s %ux%u: (%u, %u) %.9g, separate %.9g", form, cls_border_name((cls_border)b), w, h,
                                     x, y, shared[k], separate[k]);
                        if (inside ? !ref_f32_close(shared[k], expected[k]) : shared[k] != -1234.5f)
                            fail_msg("%s %s %ux%u: (%u, %u) is %.9g, expected %.9g", form, cls_border_name((cls_border)b), w,
                                     h, x, y, shared[k], inside ? expected[k] : -1234.5);
                    }
            }
            cls_filter_release(fs);
            cls_filter_release(fo);
        }
}

/* The build goals' ladder on an ISP configuration: a tiered filter serves its first launch with
 * the quick kernel and then the body apart; in a new context (as a new process) a first result
 * and a tiered filter take the body-apart kernel from the disk cache, with the same bits
 * throughout and no build. */
static void test_tiered_ladder(void **state)
{
    (void)state;
    float mask[25];
    random_mask(61, mask, 25);
    cls_spec spec = spec_for(mask, 5, CLS_BORDER_MIRROR, CLS_COEFFICIENTS_LITERALS, 2, 2, CLS_PARTITION_ISP_WARP);
    spec.group_width = 8;
    spec.group_height = 4;
    spec.build_goal = CLS_BUILD_TIERED;
    static float quick[W * H], specialized[W * H], again[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W - 1,
                                 .height = H}; /* an even pitch: the aligned kernels only */
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_NAIVE);
    assert_int_equal(cls_filter_run_host(filter, input, quick, &desc), CLS_OK);
    assert_int_equal(cls_filter_wait(filter), CLS_OK);
    assert_non_null(strstr(cls_filter_source(filter), "Four copies of the sums")); /* the body apart serves */
    assert_int_equal(cls_filter_run_host(filter, input, specialized, &desc), CLS_OK);
    expect_same_bits("body apart after quick", specialized, quick);
    cls_filter_release(filter);

    cls_context *fresh = NULL;
    assert_int_equal(cls_context_create(NULL, &fresh), CLS_OK);
    const unsigned long before = builds_from_source();
    for (int goal = CLS_BUILD_FIRST_RESULT; goal <= CLS_BUILD_TIERED; ++goal) {
        spec.build_goal = (cls_build_goal)goal;
        assert_int_equal(cls_filter_create(fresh, &spec, &filter), CLS_OK);
        assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_ISP_WARP);
        assert_non_null(strstr(cls_filter_source(filter), "Four copies of the sums"));
        assert_int_equal(cls_filter_run_host(filter, input, again, &desc), CLS_OK);
        expect_same_bits("body apart from the disk cache", again, specialized);
        cls_filter_release(filter);
    }
    assert_int_equal(builds_from_source(), before);
    cls_context_release(fresh);
}

static void test_refusals(void **state)
{
    (void)state;
    float mask[25];
    random_mask(41, mask, 25);
    cls_spec spec = spec_for(mask, 5, CLS_BORDER_CLAMP, CLS_COEFFICIENTS_ARGUMENT, 1, 1, CLS_PARTITION_NAIVE);
    spec.fold_equal_taps = 1;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "literals"));
    spec.fold_equal_taps = 0;
    spec.separable = CLS_SEPARABLE_TWO_PASS;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "kernel argument"));
    spec.separable = CLS_SEPARABLE_LOW_RANK;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    spec.separable = CLS_SEPARABLE_NONE;
    spec.region_code = (cls_region_code)4;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "region code 4"));
    spec.region_code = CLS_REGION_CODE_AUTO;
    spec.bake_coefficients = 3;
    assert_int_equal(cls_spec_validate(&spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "coefficient storage 3"));

    /* A mask larger than the device's argument space: refused before any build, naming both. */
    const cls_device_caps *caps = cls_context_device(context);
    static float big[63 * 63];
    random_mask(42, big, 63 * 63);
    cls_spec large = spec_for(big, 63, CLS_BORDER_CLAMP, CLS_COEFFICIENTS_ARGUMENT, 1, 1, CLS_PARTITION_NAIVE);
    cls_filter *filter = NULL;
    if (caps->max_parameter_size && caps->max_parameter_size < sizeof big) {
        const unsigned long before = builds_from_source();
        assert_int_equal(cls_filter_create(context, &large, &filter), CLS_ERR_UNSUPPORTED);
        assert_null(filter);
        assert_non_null(strstr(cls_last_error(), "15876 bytes"));
        assert_int_equal(builds_from_source(), before);
    } else {
        printf("the device takes %zu bytes of arguments: no refusal to check\n", caps->max_parameter_size);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_border), cmocka_unit_test(test_one_build_per_size),
        cmocka_unit_test(test_separable_single_pass),
        cmocka_unit_test(test_rolled_borders), cmocka_unit_test(test_two_masks), cmocka_unit_test(test_shared_regions),
        cmocka_unit_test(test_tiered_ladder), cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
