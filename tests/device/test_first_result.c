/* test_first_result.c — CLS_BUILD_FIRST_RESULT on the default device, with a disk cache of its own
 * that starts empty: the first filter is the quick kernel (mask read from its buffer, naive, one
 * output per work-item), equal to the CPU reference in every border mode, borders included, and
 * bit for bit equal to the specialized kernel built afterwards (same sums, same order); a second
 * context (as a new process would) then gets the specialized kernel from the disk cache without
 * building anything. CLS_BUILD_TIERED starts on the quick kernel and, once its background build
 * ends, launches the specialized one, with the same bits (on a CPU the build begins once the
 * quick kernel's first launch has completed); a filter released before any launch waits for its
 * build on a GPU and drops it on a CPU; on a GPU a separated Gaussian's quick and tiered kernels are both the single
 * pass, with the same bits. A body in lanes keeps them in the quick kernel. Also: a folded-tap spec builds its specialized kernel at once, and a bad build
 * goal is refused. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 45, H = 31, N = 5 };

static float mask[N * N], input[W * H];
static char cache_dir[] = "/tmp/clstencil-first-result-XXXXXX";

static int setup(void **state)
{
    (void)state;
    unsigned seed = 2024;
    for (int k = 0; k < N * N; ++k) {
        seed = seed * 1103515245u + 12345u;
        mask[k] = (float)((seed >> 8) % 1000) / 4000.0f - 0.05f; /* random, no zero-free pattern */
    }
    mask[7] = 0.0f; /* a zero tap: the specialized kernel skips it, the quick one multiplies it */
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        input[k] = (float)((seed >> 8) % 4096) / 1024.0f;
    }
    if (!mkdtemp(cache_dir)) return -1;
    setenv("CLSTENCIL_CACHE_DIR", cache_dir, 1);
    setenv("CLSTENCIL_CACHE", "on", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
    return system(command) == 0 ? 0 : -1;
}

static cls_spec spec_for(cls_border border, cls_build_goal goal)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = N;
    spec.coefficients = mask;
    spec.bake_coefficients = 1;
    spec.border = border;
    spec.border_value = 0.75f;
    spec.build_goal = goal;
    spec.expected_width = W;
    spec.expected_height = H;
    return spec;
}

static void run(cls_filter *filter, float *out)
{
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    for (int k = 0; k < W * H; ++k) out[k] = -1234.5f; /* undefined mode keeps its border pixels */
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
}

static int is_quick(const cls_filter *filter)
{
    unsigned rows = 0, cols = 0;
    cls_filter_outputs_per_item(filter, &rows, &cols);
    return cls_filter_partition(filter) == CLS_PARTITION_NAIVE && rows == 1 && cols == 1;
}

static unsigned long builds_from_source(void)
{
    cls_cache_status status = {CLS_CACHE_STATUS_INIT};
    assert_int_equal(cls_cache_query(&status), CLS_OK);
    return status.misses;
}

static void quick_then_specialized(cls_border border)
{
    cls_context *context = NULL;
    assert_int_equal(cls_context_create(NULL, &context), CLS_OK);
    const cls_spec first = spec_for(border, CLS_BUILD_FIRST_RESULT), fastest = spec_for(border, CLS_BUILD_FASTEST_KERNEL);
    cls_filter *quick = NULL, *specialized = NULL;
    assert_int_equal(cls_filter_create(context, &first, &quick), CLS_OK);
    assert_true(is_quick(quick));
    static float got_quick[W * H], got_specialized[W * H];
    static double expected[W * H];
    run(quick, got_quick);
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, mask, N, N, border, 0.75f, expected), 0);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside((size_t)x, (size_t)y, W, H, N, N)) continue;
            if (!ref_f32_close(got_quick[y * W + x], expected[y * W + x]))
                fail_msg("%s: quick kernel (%d, %d) is %.9g, expected %.9g", cls_border_name(border), x, y,
                         got_quick[y * W + x], expected[y * W + x]);
        }
    assert_int_equal(cls_filter_create(context, &fastest, &specialized), CLS_OK);
    if (border != CLS_BORDER_UNDEFINED) assert_false(is_quick(specialized));
    run(specialized, got_specialized);
    for (int k = 0; k < W * H; ++k)
        if (memcmp(&got_quick[k], &got_specialized[k], sizeof(float)) != 0)
            fail_msg("%s: (%d, %d) quick %.9g, specialized %.9g: not the same bits", cls_border_name(border), k % W,
                     k / W, got_quick[k], got_specialized[k]);
    cls_filter_release(quick);
    cls_filter_release(specialized);
    cls_context_release(context);

    /* A new context, as a new process: the specialized kernel from the disk cache, no build. */
    assert_int_equal(cls_context_create(NULL, &context), CLS_OK);
    const unsigned long before = builds_from_source();
    cls_filter *warm = NULL;
    assert_int_equal(cls_filter_create(context, &first, &warm), CLS_OK);
    cls_build_info info = {CLS_BUILD_INFO_INIT};
    cls_filter_build_info(warm, &info);
    assert_true(info.from_disk_cache);
    if (border != CLS_BORDER_UNDEFINED) assert_false(is_quick(warm));
    run(warm, got_quick);
    assert_memory_equal(got_quick, got_specialized, sizeof got_quick);
    assert_int_equal(builds_from_source(), before);
    cls_filter_release(warm);
    cls_context_release(context);
}

static void undefined(void **state) { (void)state, quick_then_specialized(CLS_BORDER_UNDEFINED); }
static void clamp(void **state) { (void)state, quick_then_specialized(CLS_BORDER_CLAMP); }
static void mirror(void **state) { (void)state, quick_then_specialized(CLS_BORDER_MIRROR); }
static void mirror101(void **state) { (void)state, quick_then_specialized(CLS_BORDER_MIRROR101); }
static void repeat(void **state) { (void)state, quick_then_specialized(CLS_BORDER_REPEAT); }
static void constant(void **state) { (void)state, quick_then_specialized(CLS_BORDER_CONSTANT); }

/* A body that runs in lanes keeps them in the quick kernel on a record with lanes (PoCL's): its
 * vectors compute as the specialized kernel's do, bit for bit, and match the CPU reference. */
static void a_lane_body_keeps_its_lanes_in_the_quick_kernel(void **state)
{
    (void)state;
    static const char body[] = "value_t total = 0.0f;\n"
                               "FOR_WINDOW(dx, dy) total += MASK(dx, dy) * exp2(IN(dx, dy) - IN(0, 0));\n"
                               "OUT = total;\n";
    cls_context *context = NULL;
    assert_int_equal(cls_context_create(NULL, &context), CLS_OK);
    cls_spec first = spec_for(CLS_BORDER_MIRROR, CLS_BUILD_FIRST_RESULT), fastest = first;
    first.body = fastest.body = body;
    fastest.build_goal = CLS_BUILD_FASTEST_KERNEL;
    cls_filter *quick = NULL, *specialized = NULL;
    assert_int_equal(cls_filter_create(context, &first, &quick), CLS_OK);
    unsigned rows = 0, cols = 0;
    cls_filter_outputs_per_item(quick, &rows, &cols);
    assert_int_equal(cls_filter_partition(quick), CLS_PARTITION_NAIVE);
    assert_int_equal(rows, 1);
    if (cls_context_device(context)->vendor == CLS_VENDOR_POCL) assert_int_equal(cols, 8);
    static float got_quick[W * H], got_specialized[W * H];
    run(quick, got_quick);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            double total = 0.0;
            for (int j = -N / 2; j <= N / 2; ++j)
                for (int i = -N / 2; i <= N / 2; ++i) {
                    const long xx = ref_border_index(CLS_BORDER_MIRROR, x + i, W);
                    const long yy = ref_border_index(CLS_BORDER_MIRROR, y + j, H);
                    total += mask[(j + N / 2) * N + i + N / 2] * exp2((double)input[yy * W + xx] - input[y * W + x]);
                }
            if (fabs(got_quick[y * W + x] - total) > 1e-4 * (1.0 + fabs(total)))
                fail_msg("lanes: quick kernel (%d, %d) is %.9g, expected %.9g", x, y, got_quick[y * W + x], total);
        }
    assert_int_equal(cls_filter_create(context, &fastest, &specialized), CLS_OK);
    run(specialized, got_specialized);
    assert_memory_equal(got_quick, got_specialized, sizeof got_quick);
    cls_filter_release(quick);
    cls_filter_release(specialized);
    cls_context_release(context);
}

static void tiered_swaps_in_the_specialized_kernel(void **state)
{
    (void)state;
    static float wide[7 * 7];
    for (int k = 0; k < 7 * 7; ++k) wide[k] = (float)((k * 37) % 23) / 256.0f - 0.02f;
    cls_context *context = NULL;
    assert_int_equal(cls_context_create(NULL, &context), CLS_OK);
    cls_spec spec = spec_for(CLS_BORDER_MIRROR101, CLS_BUILD_TIERED);
    spec.mask_width = spec.mask_height = 7; /* a size not built yet: the quick kernel comes first */
    spec.coefficients = wide;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    static float first[W * H], later[W * H];
    static double expected[W * H];
    assert_true(is_quick(filter) || cls_filter_wait(filter) == CLS_OK); /* the build may be done already */
    run(filter, first);
    assert_int_equal(cls_filter_wait(filter), CLS_OK);
    assert_false(is_quick(filter));
    run(filter, later);
    assert_memory_equal(first, later, sizeof first);
    const ref_image image = {input, W, H, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, wide, 7, 7, CLS_BORDER_MIRROR101, 0.75f, expected), 0);
    for (int k = 0; k < W * H; ++k)
        if (!ref_f32_close(later[k], expected[k]))
            fail_msg("tiered 7x7: (%d, %d) is %.9g, expected %.9g", k % W, k / W, later[k], expected[k]);
    cls_filter_release(filter);
    /* A mask of rank 1 (a Gaussian 9x9, not built yet): the quick kernel sums as the specialized
     * kernel that the tiered build swaps in does, whether or not the device would separate it. */
    static float gaussian[9 * 9];
    for (int k = 0; k < 9 * 9; ++k)
        gaussian[k] = expf(-(float)((k % 9 - 4) * (k % 9 - 4) + (k / 9 - 4) * (k / 9 - 4)) / 5.78f) / 18.2f;
    spec.mask_width = spec.mask_height = 9;
    spec.coefficients = gaussian;
    for (int pinned = 0; pinned < 2; ++pinned) { /* as the device separates it, then asked as the single pass */
        spec.separable = pinned ? CLS_SEPARABLE_SINGLE_PASS : CLS_SEPARABLE_AUTO;
        assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
        assert_true(is_quick(filter) || cls_filter_wait(filter) == CLS_OK);
        run(filter, first);
        assert_int_equal(cls_filter_wait(filter), CLS_OK);
        run(filter, later);
        for (int k = 0; k < W * H; ++k)
            if (memcmp(&first[k], &later[k], sizeof(float)) != 0)
                fail_msg("tiered Gaussian 9x9%s: (%d, %d) quick %.9g, specialized %.9g", pinned ? " (single pass)" : "",
                         k % W, k / W, first[k], later[k]);
        cls_filter_release(filter);
    }
    spec.separable = CLS_SEPARABLE_AUTO;
    /* On a GPU, a mask of rank 1 that the policy separates (a Gaussian 13x13 for a 4096x4096
     * image): the quick kernel and the tier's are the separable single pass with the coefficients
     * as an argument, with the same bits; another Gaussian of the size takes the tier's build. */
    if (cls_context_device(context)->type == CLS_DEVICE_GPU) {
        static float gaussian13[13 * 13];
        const float sigmas[2] = {2.0f, 3.0f};
        for (int g = 0; g < 2; ++g) {
            for (int k = 0; k < 13 * 13; ++k)
                gaussian13[k] = expf(-(float)((k % 13 - 6) * (k % 13 - 6) + (k / 13 - 6) * (k / 13 - 6)) /
                                     (2.0f * sigmas[g] * sigmas[g]));
            cls_spec wide13 = spec;
            wide13.mask_width = wide13.mask_height = 13;
            wide13.coefficients = gaussian13;
            wide13.expected_width = wide13.expected_height = 4096;
            cls_cache_status before = {CLS_CACHE_STATUS_INIT}, after = {CLS_CACHE_STATUS_INIT};
            assert_int_equal(cls_cache_query(&before), CLS_OK);
            assert_int_equal(cls_filter_create(context, &wide13, &filter), CLS_OK);
            assert_int_equal(cls_cache_query(&after), CLS_OK);
            if (g > 0) assert_int_equal(after.misses, before.misses);
            if (!strstr(cls_filter_source(filter), "/* the row, then the column */"))
                fail_msg("Gaussian 13x13, sigma %g: %s", sigmas[g], cls_filter_build_decision(filter));
            run(filter, first);
            assert_int_equal(cls_filter_wait(filter), CLS_OK);
            assert_false(is_quick(filter));
            run(filter, later);
            assert_memory_equal(first, later, sizeof first);
            assert_int_equal(ref_stencil(&image, gaussian13, 13, 13, CLS_BORDER_MIRROR101, 0.75f, expected), 0);
            for (int k = 0; k < W * H; ++k)
                if (!ref_f32_close(later[k], expected[k]))
                    fail_msg("Gaussian 13x13: (%d, %d) is %.9g, expected %.9g", k % W, k / W, later[k], expected[k]);
            cls_filter_release(filter);
        }
    }
    /* released before any launch: on a GPU the release waits for the background build; on a CPU,
     * where the build waits for the quick kernel's first launch, it is dropped (the quick kernel
     * alone built from source) */
    spec.mask_width = spec.mask_height = 3;
    spec.border = CLS_BORDER_REPEAT;
    const unsigned long before = builds_from_source();
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    const int quick = is_quick(filter);
    cls_filter_release(filter);
    const unsigned long built = builds_from_source() - before;
    if (quick && cls_context_device(context)->type == CLS_DEVICE_CPU) assert_int_equal(built, 1);
    if (quick && cls_context_device(context)->type == CLS_DEVICE_GPU) assert_true(built >= 2);
    cls_context_release(context);
}

static void folded_taps_build_the_specialized_kernel(void **state)
{
    (void)state;
    static const float gaussian[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};
    cls_context *context = NULL;
    assert_int_equal(cls_context_create(NULL, &context), CLS_OK);
    cls_spec spec = spec_for(CLS_BORDER_MIRROR, CLS_BUILD_FIRST_RESULT);
    spec.mask_width = spec.mask_height = 3;
    spec.coefficients = gaussian;
    spec.fold_equal_taps = 1;
    spec.partition = CLS_PARTITION_ISP_BLOCK;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_ISP_BLOCK);
    assert_non_null(strstr(cls_filter_source(filter), "equal taps folded"));
    cls_filter_release(filter);
    spec.build_goal = (cls_build_goal)7;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "build goal 7"));
    cls_context_release(context);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(undefined), cmocka_unit_test(clamp),  cmocka_unit_test(mirror),
        cmocka_unit_test(mirror101), cmocka_unit_test(repeat), cmocka_unit_test(constant),
        cmocka_unit_test(a_lane_body_keeps_its_lanes_in_the_quick_kernel),
        cmocka_unit_test(tiered_swaps_in_the_specialized_kernel), cmocka_unit_test(folded_taps_build_the_specialized_kernel),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
