/* test_planner.c — the planner without OpenCL or a device: an H100's capability record and the
 * sm_90 database record, the shipped tuning results, and a runtime whose builds are made up (it
 * reports registers the test chooses and counts the builds asked for). A tuned operator is
 * planned from its result with no build; a register-capped compute-bound weighted sum on NVIDIA
 * from the policy with no build; an operator body from three builds (the policy's, then naive and
 * isp-block at Algorithm 2's shape, at least 256 work-items a group on a GPU), its partition by
 * the ISP gain of those registers; the record's generated-code policy (unroll budget, register
 * cap) reaches the configuration; a failing build fails the plan; the spec's own knobs stay. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/planner_fixture.h"

static void tuned_operator_needs_no_build(void **state)
{
    fixture *f = *state;
    cls_operator *op = NULL;
    const cls_spec spec = operator_spec("gaussian:3,0.8", CLS_BORDER_CLAMP, 4096, &op);
    cls_tuning choice = {CLS_TUNING_INIT};
    assert_true(plan_choice(&f->planner, &spec, &choice));
    assert_int_equal(f->runtime.builds, 0);
    /* device-db/tuning/nvidia-sm90.ini: isp-block, global, 32x4, 4 rows, 4 columns */
    assert_int_equal(choice.partition, CLS_PARTITION_ISP_BLOCK);
    assert_int_equal(choice.input_path, CLS_INPUT_GLOBAL);
    assert_int_equal(choice.group_width, 32);
    assert_int_equal(choice.group_height, 4);
    assert_int_equal(choice.rows_per_item, 4);
    assert_int_equal(choice.cols_per_item, 4);
    cls_operator_release(op);
}

/* A 13x13 mask of mixed coefficients, baked: a compute-bound weighted sum. */
static cls_spec baked_13x13(void)
{
    static float mask[13 * 13];
    for (unsigned i = 0; i < 13 * 13; ++i) mask[i] = (float)((i * 37) % 19) - 9.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 13;
    spec.coefficients = mask;
    spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    return spec;
}

static void capped_weighted_sum_needs_no_build(void **state)
{
    fixture *f = *state;
    cls_spec spec = baked_13x13();
    spec.border = CLS_BORDER_MIRROR101;
    cls_tuning choice = {CLS_TUNING_INIT};
    assert_int_equal(cls_plan_models(&f->planner, &spec, 4096, 4096, &choice), CLS_OK);
    assert_int_equal(f->runtime.builds, 0);
    assert_true(choice.partition == CLS_PARTITION_NAIVE || choice.partition == CLS_PARTITION_ISP_BLOCK ||
                choice.partition == CLS_PARTITION_ISP_WARP);
    cls_kernel_config policy;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &policy), CLS_OK);
    assert_int_equal(choice.group_width, policy.group_width); /* the policy's shape */
    assert_int_equal(choice.rows_per_item, policy.rows);
    cls_kernel_config_free(&policy);
}

/* The record's generated-code policy reaches the configuration: sm_90 names the defaults; a
 * record with a smaller budget and cap (and no streaming for the blocks it leaves) gives fewer
 * rows and that cap. */
static void record_sets_the_generated_code_policy(void **state)
{
    fixture *f = *state;
    assert_int_equal(f->record.unroll_limit, CLS_UNROLL_LIMIT);
    assert_int_equal(f->record.register_cap, CLS_REGISTER_CAP);
    cls_spec spec = baked_13x13();
    spec.partition = CLS_PARTITION_ISP_WARP;
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    const unsigned rows = config.rows;
    assert_int_equal(cls_kernel_register_cap(&config), CLS_REGISTER_CAP);
    cls_kernel_config_free(&config);
    f->record.block_budget = 700;
    f->record.stream_below_rows = 1; /* blocks of 2 rows stay blocks */
    f->record.register_cap = 48;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_true(config.rows < rows);
    assert_true(169u * config.rows * config.cols <= 700u);
    assert_int_equal(cls_kernel_register_cap(&config), 48);
    cls_kernel_config_free(&config);
}

/* A rank-1 mask of 25 taps or more on sm_90 (single_pass_stages_rows) runs as the single pass
 * whose group stages its input rows: 64 rows x 4 columns a work-item in one-row groups of the
 * default's 128 work-items; a 3x3 mask stays a 2-D mask, a spec's global input path keeps the
 * single pass streaming from global memory, and so do a device whose local memory cannot hold its
 * tiles and a record without the key. */
static void single_pass_stages_rows_where_the_record_says(void **state)
{
    fixture *f = *state;
    cls_operator *op;
    cls_spec spec = operator_spec("gaussian:5,1.1", CLS_BORDER_MIRROR101, 4096, &op);
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_true(cls_kernel_stages_input_rows(&config));
    assert_int_equal(config.rows, 64);
    assert_int_equal(config.cols, 4);
    assert_int_equal(config.group_width, 128);
    assert_int_equal(config.group_height, 1);
    cls_kernel_config_free(&config);
    spec.input_path = CLS_INPUT_GLOBAL;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_false(cls_kernel_stages_input_rows(&config));
    assert_int_equal(config.cols, 2); /* single_pass_cols */
    cls_kernel_config_free(&config);
    spec.input_path = CLS_INPUT_AUTO;
    f->caps.local_mem_size = 4096; /* too small for the staged rows' tiles: the single pass streams */
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_false(cls_kernel_stages_input_rows(&config));
    cls_kernel_config_free(&config);
    f->caps.local_mem_size = 48 * 1024;
    f->record.single_pass_stages_rows = 0;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_false(cls_kernel_stages_input_rows(&config));
    cls_kernel_config_free(&config);
    cls_operator_release(op);
    spec = operator_spec("gaussian:3,0.8", CLS_BORDER_CLAMP, 4096, &op);
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_NONE);
    cls_kernel_config_free(&config);
    cls_operator_release(op);
}

/* The staged single pass keeps two groups a compute unit busy: fewer rows on smaller images (a
 * 2048^2 image's 4 columns of 128 x 1 groups x 128 strips of 16 rows: 512 groups for 132 units),
 * and a mask below 81 taps whose image leaves too few groups even at 16 rows stays a 2-D mask. A
 * mask 23 rows tall or more (single_pass_tall_mask) needs a group a unit only: 128 rows where the
 * image keeps that many busy at that length (4096^2: 256 groups), else fewer (2048^2: 32 rows, 256
 * groups). */
static void staged_rows_fill_the_device(void **state)
{
    fixture *f = *state;
    static const struct { const char *op; unsigned size, rows; } cases[] = {
        {"gaussian:5,1.1", 8192, 64}, {"gaussian:5,1.1", 2048, 16}, {"gaussian:5,1.1", 1024, 0},
        {"gaussian:13,2", 4096, 64}, {"gaussian:13,2", 1024, 16}, {"gaussian:13,2", 512, 16},
        {"gaussian:21", 4096, 64},   {"gaussian:23", 4096, 128},  {"gaussian:31", 8192, 128},
        {"box:25", 4096, 128},       {"gaussian:31", 2048, 32},   {"gaussian:31", 1024, 16},
        {"gaussian:21", 2048, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cls_operator *op;
        const cls_spec spec = operator_spec(cases[i].op, CLS_BORDER_CLAMP, cases[i].size, &op);
        cls_kernel_config config;
        assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
        if (cases[i].rows) {
            assert_true(cls_kernel_stages_input_rows(&config));
            assert_int_equal(config.rows, cases[i].rows);
        } else {
            assert_int_equal(config.separable, CLS_SEPARABLE_NONE);
        }
        cls_kernel_config_free(&config);
        cls_operator_release(op);
    }
}

/* A separable volume mask in one pass from the slice's tile alternates two tiles where they fit
 * the device's local memory, and keeps one (the same groups and columns) where only that fits;
 * the walk of any mask keeps one. */
static void single_pass_alternates_two_tiles_where_they_fit(void **state)
{
    fixture *f = *state;
    cls_operator *op;
    cls_spec spec = operator_spec("gaussian3d:13,2", CLS_BORDER_CLAMP, 512, &op);
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(cls_volume_tile_buffers(&config), 2);
    const size_t two = cls_kernel_local_bytes(&config);
    assert_true(two <= f->caps.local_mem_size);
    const unsigned group_height = config.group_height, cols = config.cols;
    config.tile_buffers = 1;
    const size_t one = cls_kernel_local_bytes(&config);
    cls_kernel_config_free(&config);
    f->caps.local_mem_size = one; /* room for one tile only */
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(cls_volume_tile_buffers(&config), 1);
    assert_int_equal(cls_kernel_local_bytes(&config), one);
    assert_int_equal(config.group_height, group_height);
    assert_int_equal(config.cols, cols);
    cls_kernel_config_free(&config);
    cls_operator_release(op);
    spec = operator_spec("correlate:3x3x3,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,-9", CLS_BORDER_CLAMP, 512, &op);
    f->caps.local_mem_size = 48 * 1024;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    assert_int_equal(config.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(cls_volume_tile_buffers(&config), 1);
    cls_kernel_config_free(&config);
    cls_operator_release(op);
}

static void operator_body_is_planned_from_three_builds(void **state)
{
    fixture *f = *state;
    cls_operator *op = NULL;
    const cls_spec spec = operator_spec("min:3", CLS_BORDER_CLAMP, 4096, &op);
    cls_tuning choice = {CLS_TUNING_INIT};
    /* ISP at naive's registers saves the border checks: ISP */
    f->runtime.isp_registers = f->runtime.naive_registers;
    assert_int_equal(cls_plan_models(&f->planner, &spec, 4096, 4096, &choice), CLS_OK);
    assert_int_equal(f->runtime.builds, 3);
    assert_true(choice.group_width * choice.group_height >= 256); /* a body's group floor on GPUs */
    assert_int_not_equal(choice.partition, CLS_PARTITION_NAIVE);
    /* ISP with far more registers than naive loses occupancy: the gain flips to naive */
    f->runtime.isp_registers = 255;
    f->runtime.builds = 0;
    assert_int_equal(cls_plan_models(&f->planner, &spec, 4096, 4096, &choice), CLS_OK);
    assert_int_equal(f->runtime.builds, 3);
    assert_int_equal(choice.partition, CLS_PARTITION_NAIVE);
    cls_operator_release(op);
}

/* A body that writes its column of outputs (the 3x3 median) in blocks of rows gets the models'
 * shape without that floor (H200: 32x2 ran it 20% faster than 32x8 did the body of one output). */
static void column_body_has_no_group_floor(void **state)
{
    fixture *f = *state;
    cls_operator *op = NULL;
    const cls_spec spec = operator_spec("median:3", CLS_BORDER_CLAMP, 4096, &op);
    cls_tuning choice = {CLS_TUNING_INIT};
    f->runtime.isp_registers = f->runtime.naive_registers; /* as above: the ISP build costs nothing */
    assert_int_equal(cls_plan_models(&f->planner, &spec, 4096, 4096, &choice), CLS_OK);
    assert_true(choice.rows_per_item > 1);
    assert_true(choice.group_width * choice.group_height < 256);
    cls_operator_release(op);
}

static void failing_build_fails_the_plan(void **state)
{
    fixture *f = *state;
    cls_operator *op = NULL;
    /* repeat: a mode that device-db/tuning/nvidia-sm90.ini holds no median:3 for */
    const cls_spec spec = operator_spec("median:3", CLS_BORDER_REPEAT, 1024, &op);
    f->runtime.fail_with = CLS_ERR_BUILD;
    cls_tuning choice = {CLS_TUNING_INIT};
    assert_int_equal(cls_plan_models(&f->planner, &spec, 1024, 1024, &choice), CLS_ERR_BUILD);
    assert_false(plan_choice(&f->planner, &spec, &choice)); /* then the policy decides */
    cls_operator_release(op);
}

static void spec_knobs_stay(void **state)
{
    (void)state;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.group_width = 16;
    spec.group_height = 16;
    spec.rows_per_item = 2;
    const cls_tuning t = {CLS_TUNING_INIT, .partition = CLS_PARTITION_ISP_WARP, .input_path = CLS_INPUT_LOCAL,
                          .group_width = 64, .group_height = 4, .rows_per_item = 8, .cols_per_item = 2};
    const cls_spec chosen = cls_plan_apply(&spec, &t);
    assert_int_equal(chosen.partition, CLS_PARTITION_ISP_WARP);
    assert_int_equal(chosen.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(chosen.group_width, 16);
    assert_int_equal(chosen.group_height, 16);
    assert_int_equal(chosen.rows_per_item, 2);
    assert_int_equal(chosen.cols_per_item, 2);
}

/* CLS_BUILD_AUTO: the specialized kernel built now only where its build and run are expected to
 * take less than the quick kernel's run: never on an H100 for a single image (builds of seconds,
 * quick kernels of milliseconds); with a CPU runtime's costs in the record, for a 13x13 mask at
 * 8192^2 (6.6 s quick against 5.1 s to build) but not at 1024^2, nor for a Gaussian 5x5 at 8192^2
 * (about 1 s quick against 1.1 s to build), nor without an expected size; a body's build by the
 * taps its source writes out. */
static void build_goal_weighs_expected_time(void **state)
{
    fixture *f = *state;
    char reason[320];
    cls_spec mask = baked_13x13();
    mask.expected_width = mask.expected_height = 16384;
    assert_false(cls_plan_build_now(&f->planner, &mask, reason, sizeof reason));
    assert_non_null(strstr(reason, "the quick kernel: expected"));
    f->record.build_ms = 400, f->record.build_tap_us = 28000;
    f->record.quick_tap_fs = 580000, f->record.specialized_tap_fs = 40000;
    mask.expected_width = mask.expected_height = 8192;
    assert_true(cls_plan_build_now(&f->planner, &mask, reason, sizeof reason));
    assert_non_null(strstr(reason, "built now: expected 5132 ms to build"));
    mask.expected_width = mask.expected_height = 1024;
    assert_false(cls_plan_build_now(&f->planner, &mask, reason, sizeof reason));
    mask.expected_width = mask.expected_height = 0;
    assert_false(cls_plan_build_now(&f->planner, &mask, reason, sizeof reason));
    assert_non_null(strstr(reason, "no expected image size"));
    cls_operator *op = NULL;
    const cls_spec gaussian = operator_spec("gaussian:5,1.2", CLS_BORDER_CLAMP, 8192, &op);
    assert_false(cls_plan_build_now(&f->planner, &gaussian, reason, sizeof reason));
    cls_operator_release(op);
    /* A body's build pays for the taps its FOR_WINDOW writes out: on a record that inlines by
     * force, the 13x13 bilateral filter's 13 columns (its rows stay a loop), elsewhere all 169. */
    f->record.build_ms = 150, f->record.build_tap_us = 15000;
    const cls_spec bilateral = operator_spec("bilateral:3,0.1,13", CLS_BORDER_CLAMP, 2048, &op);
    f->record.border_groups_fold_fully = 1;
    assert_true(cls_plan_build_now(&f->planner, &bilateral, reason, sizeof reason));
    assert_non_null(strstr(reason, "built now: expected 345 ms to build"));
    f->record.border_groups_fold_fully = 0;
    assert_false(cls_plan_build_now(&f->planner, &bilateral, reason, sizeof reason));
    assert_non_null(strstr(reason, "expected 2685 ms to build"));
    cls_operator_release(op);
}

/* The entrance reads the caller's spec once: an older, smaller spec at this library's size with
 * the rest defaulted; the facts the rules read; the operator's key as cls_operator_hash gives it;
 * an invalid spec refused there with its message. */
static void request_reads_the_spec_once(void **state)
{
    (void)state;
    static const float mask[9] = {0.0f, 1.0f, -0.0f, 1.0f, 4.0f, 1.0f, -0.0f, 1.0f, 0.0f};
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = mask;
    spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    spec.border_y = CLS_BORDER_MIRROR; /* past the older size: not read */
    spec.struct_size = offsetof(cls_spec, border_y); /* a program built before borders per axis */
    cls_request request;
    assert_int_equal(cls_request_init(&request, &spec), CLS_OK);
    assert_int_equal(request.spec.struct_size, sizeof(cls_spec));
    assert_int_equal(request.spec.border_y, CLS_BORDER_SAME);
    assert_int_equal(request.masks, 1);
    assert_int_equal(request.depth, 1);
    assert_false(request.volume);
    assert_false(request.in_double);
    assert_int_equal(request.computed_taps, 5); /* literals skip the zeros */
    assert_false(signbit(request.values[2]));   /* -0 as +0 */
    char by_spec[17], by_request[17];
    assert_int_equal(cls_operator_hash(&spec, by_spec), CLS_OK);
    assert_int_equal(cls_operator_hash_of(&request.spec, request.masks, request.values, by_request), CLS_OK);
    assert_string_equal(by_spec, by_request);
    cls_request_free(&request);
    spec.struct_size = sizeof spec;
    spec.mask_width = 4;
    assert_int_equal(cls_request_init(&request, &spec), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "odd"));
    cls_request_free(&request);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tuned_operator_needs_no_build, set_up, tear_down),
        cmocka_unit_test_setup_teardown(capped_weighted_sum_needs_no_build, set_up, tear_down),
        cmocka_unit_test_setup_teardown(record_sets_the_generated_code_policy, set_up, tear_down),
        cmocka_unit_test_setup_teardown(column_body_has_no_group_floor, set_up, tear_down),
        cmocka_unit_test_setup_teardown(operator_body_is_planned_from_three_builds, set_up, tear_down),
        cmocka_unit_test_setup_teardown(single_pass_stages_rows_where_the_record_says, set_up, tear_down),
        cmocka_unit_test_setup_teardown(staged_rows_fill_the_device, set_up, tear_down),
        cmocka_unit_test_setup_teardown(single_pass_alternates_two_tiles_where_they_fit, set_up, tear_down),
        cmocka_unit_test_setup_teardown(failing_build_fails_the_plan, set_up, tear_down),
        cmocka_unit_test(spec_knobs_stay),
        cmocka_unit_test(request_reads_the_spec_once),
        cmocka_unit_test_setup_teardown(build_goal_weighs_expected_time, set_up, tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
