/* test_tuning_device.c — where `auto` gets its choices, on the default device: a stored tuning
 * result reaches `auto` in contexts created afterwards (partition, shape, rows, columns, input
 * path), fields the spec sets itself win, the nearest size class serves other sizes, the tuned
 * filter still matches the CPU reference (borders included), a malformed tuning file is
 * skipped with a warning naming its file and line, a result of an older key format is reported
 * and not used, and the policy's rows per work-item shrink until a
 * local tile fits; where the record uses the models (an overlay says so for this device),
 * `auto` takes their choice for the spec's expected size when nothing is tuned, and the
 * policy's without one; a streaming kernel keeps the policy's shape; an ISP calibration applies
 * to weighted sums and not to operator bodies; eq. 10 weighs occupancy only where it limits.
 * CLSTENCIL_TUNING_DB and CLSTENCIL_DEVICE_DB point at temporary files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clstencil_tuning.h>

#include "generator.h" /* CLS_STREAM_MIN_ROWS */
#include "host.h"      /* cls_plan_weighs_occupancy (planner.h) */
#include "reference/reference.h"

static char folder[] = "/tmp/clstencil-tuning-XXXXXX";
static char path[64];
static const float gauss[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};

static cls_spec gauss_spec(cls_border border)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = gauss;
    spec.border = border;
    return spec;
}

static cls_context *new_context(void)
{
    cls_context *context = NULL;
    if (cls_context_create(NULL, &context) != CLS_OK) fail_msg("context: %s", cls_last_error());
    return context;
}

/* Every pixel of the filter's output on a w x h image against the CPU reference of the 3x3
 * Gaussian in the given border mode. */
static void expect_reference(cls_filter *filter, const float *mask, unsigned size, cls_border border, unsigned w,
                             unsigned h)
{
    enum { MAX = 64 * 64 };
    static float in[MAX], out[MAX];
    static double expected[MAX];
    assert_true(w * h <= MAX);
    for (unsigned k = 0; k < w * h; ++k) in[k] = (float)((k * 7) % 32) / 32.0f;
    const ref_image image = {in, w, h, 0, CLS_PIXEL_F32};
    assert_int_equal(ref_stencil(&image, mask, size, size, border, 0.0f, expected), 0);
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = w, .height = h};
    assert_int_equal(cls_filter_run_host(filter, in, out, &desc), CLS_OK);
    for (unsigned k = 0; k < w * h; ++k)
        if (!ref_f32_close(out[k], expected[k]))
            fail_msg("pixel (%u, %u) is %.9g, expected %.9g", k % w, k / w, (double)out[k], expected[k]);
}

static void expect_gauss_reference(cls_filter *filter, cls_border border, unsigned w, unsigned h)
{
    expect_reference(filter, gauss, 3, border, w, h);
}

static const cls_tuning TUNED = {CLS_TUNING_INIT, .partition = CLS_PARTITION_ISP_WARP, .input_path = CLS_INPUT_LOCAL,
                                 .group_width = 16, .group_height = 2, .rows_per_item = 2, .cols_per_item = 2,
                                 .kernel_us = 10.0, .width = 64, .height = 64};

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(folder)) return -1;
    snprintf(path, sizeof path, "%s/tuning.ini", folder);
    setenv("CLSTENCIL_TUNING_DB", path, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(folder);
    return 0;
}

static void stored_result_reaches_auto(void **state)
{
    (void)state;
    cls_context *context = new_context();
    const cls_spec spec = gauss_spec(CLS_BORDER_MIRROR);
    int found = 1;
    cls_tuning tuning = {CLS_TUNING_INIT};
    assert_int_equal(cls_tuning_lookup(context, &spec, 64, 64, &tuning, &found), CLS_OK);
    assert_int_equal(found, 0);
    assert_int_equal(cls_tuning_store(context, &spec, &TUNED, "gaussian 3x3 mirror"), CLS_OK);
    cls_context_release(context);

    context = new_context(); /* results load with the context */
    assert_int_equal(cls_tuning_lookup(context, &spec, 4096, 4096, &tuning, &found), CLS_OK);
    assert_int_equal(found, 1); /* the nearest class */
    assert_int_equal(tuning.group_width, 16);
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_ISP_WARP);
    unsigned w = 0, h = 0;
    cls_filter_group_shape(filter, &w, &h);
    assert_int_equal(w, 16);
    assert_int_equal(h, 2);
    unsigned rows = 0, cols = 0;
    cls_filter_outputs_per_item(filter, &rows, &cols);
    assert_int_equal(rows, 2);
    assert_int_equal(cols, 2);
    assert_non_null(strstr(cls_filter_source(filter), "__local"));

    /* the tuned kernel against the reference, every pixel of an image smaller than a tile row */
    expect_gauss_reference(filter, CLS_BORDER_MIRROR, 37, 23);
    cls_filter_release(filter);

    /* fields the spec sets itself win; another border is another operator */
    cls_spec own = spec;
    own.rows_per_item = 1;
    own.partition = CLS_PARTITION_NAIVE;
    assert_int_equal(cls_filter_create(context, &own, &filter), CLS_OK);
    assert_int_equal(cls_filter_partition(filter), CLS_PARTITION_NAIVE);
    cls_filter_outputs_per_item(filter, &rows, &cols);
    assert_int_equal(rows, 1);
    assert_int_equal(cols, 2);
    cls_filter_group_shape(filter, &w, &h);
    assert_int_equal(w, 16);
    cls_filter_release(filter);
    const cls_spec clamp = gauss_spec(CLS_BORDER_CLAMP);
    assert_int_equal(cls_tuning_lookup(context, &clamp, 64, 64, &tuning, &found), CLS_OK);
    assert_int_equal(found, 0);
    cls_context_release(context);
}

/* A malformed tuning file does not stop a context: it is skipped, and the context's warnings name
 * it and its line; storing refuses to rewrite a file it cannot read. The host can name the files
 * itself (cls_set_config_paths), "" for none. */
static void malformed_file_is_skipped_with_a_warning(void **state)
{
    (void)state;
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs("[pocl-cpu 0123456789abcdef 12]\npartition = fastest\n", file);
    fclose(file);
    cls_context *context = new_context();
    char expected[256];
    snprintf(expected, sizeof expected, "%s:2: 'partition' must be", path);
    if (!strstr(cls_context_warnings(context), expected))
        fail_msg("'%s' lacks '%s'", cls_context_warnings(context), expected);
    const cls_spec spec = gauss_spec(CLS_BORDER_CLAMP);
    assert_int_equal(cls_tuning_store(context, &spec, &TUNED, NULL), CLS_ERR_PARSE);
    cls_tuning bad = TUNED;
    bad.partition = CLS_PARTITION_AUTO;
    assert_int_equal(cls_tuning_store(context, &spec, &bad, NULL), CLS_ERR_INVALID_ARGUMENT);
    cls_context_release(context);

    /* The host's own choice over the environment's: no tuning file, and an overlay that is bad. */
    char overlay[96];
    snprintf(overlay, sizeof overlay, "%s.ini", path);
    file = fopen(overlay, "w");
    assert_non_null(file);
    fputs("[my-device]\ncolour = blue\n", file);
    fclose(file);
    assert_int_equal(cls_set_config_paths(overlay, ""), CLS_OK);
    assert_string_equal(cls_tuning_path(), "");
    context = new_context();
    snprintf(expected, sizeof expected, "%s:2: unknown key 'colour'", overlay);
    if (!strstr(cls_context_warnings(context), expected))
        fail_msg("'%s' lacks '%s'", cls_context_warnings(context), expected);
    assert_null(strstr(cls_context_warnings(context), "'partition'")); /* the tuning file unread */
    cls_context_release(context);
    assert_int_equal(cls_set_config_paths(NULL, NULL), CLS_OK);
    assert_string_equal(cls_tuning_path(), path);
    context = new_context();
    assert_non_null(strstr(cls_context_warnings(context), "'partition' must be"));
    cls_context_release(context);
    unlink(overlay);
    unlink(path);
}

/* A result keyed in an older format (a file written before the key line) is not used, and the
 * context's warnings say how many there are and what to do; a result stored now is found. */
static void stale_results_are_reported(void **state)
{
    (void)state;
    cls_context *context = new_context();
    const cls_spec spec = gauss_spec(CLS_BORDER_CLAMP);
    char hash[17];
    assert_int_equal(cls_operator_hash(&spec, hash), CLS_OK);
    char arch[64]; /* the context's, copied: it is released before the file is written */
    snprintf(arch, sizeof arch, "%s", cls_context_device(context)->arch[0] ? cls_context_device(context)->arch
                                                                           : context->record.id);
    cls_context_release(context);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "[%s %s 6]\npartition = naive\ninput = global\ngroup = 8x8\nrows = 1\ncols = 1\n", arch, hash);
    fclose(file);
    context = new_context();
    char expected[256];
    snprintf(expected, sizeof expected, "%s: 1 tuning result keyed in another format", path);
    if (!strstr(cls_context_warnings(context), expected))
        fail_msg("'%s' lacks '%s'", cls_context_warnings(context), expected);
    cls_tuning tuning = {CLS_TUNING_INIT};
    int found = -1;
    assert_int_equal(cls_tuning_lookup(context, &spec, 64, 64, &tuning, &found), CLS_OK);
    assert_int_equal(found, 0);
    cls_context_release(context);
    unlink(path);
    context = new_context();
    assert_int_equal(cls_tuning_store(context, &spec, &TUNED, "gaussian:3 clamp"), CLS_OK);
    cls_context_release(context);
    context = new_context();
    assert_string_equal(cls_context_warnings(context), "");
    assert_int_equal(cls_tuning_lookup(context, &spec, 64, 64, &tuning, &found), CLS_OK);
    assert_int_equal(found, 1);
    cls_context_release(context);
    unlink(path);
}

/* With a policy of 8 rows (an overlay), a local-memory 63x63 filter one work-item wide whose tile
 * fits the device's local memory with one row but not with 8 gets fewer rows, not an error. */
static void policy_rows_shrink_to_fit_local_memory(void **state)
{
    (void)state;
    cls_context *context = new_context();
    const cls_device_caps device = *cls_context_device(context), *caps = &device;
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    char overlay[64];
    snprintf(overlay, sizeof overlay, "%s/devices.ini", folder);
    FILE *file = fopen(overlay, "w");
    assert_non_null(file);
    fprintf(file, "[%s]\ndefault_rows = 8\n", cls_device_db_match(db, caps, NULL)->id);
    fclose(file);
    cls_device_db_release(db);
    /* A tile row is 1 + 62 + 1 padding floats; the tile height is height * rows + 62. */
    unsigned height = 0;
    for (unsigned h = 1; h <= caps->max_work_item_sizes[1] && h <= caps->max_work_group_size; h *= 2)
        if (64ull * (h + 62) * 4 <= caps->local_mem_size && 64ull * (8 * h + 62) * 4 > caps->local_mem_size) height = h;
    cls_context_release(context);
    if (!height) {
        unlink(overlay);
        skip();
    }
    setenv("CLSTENCIL_DEVICE_DB", overlay, 1);
    context = new_context();
    static float mask[63 * 63];
    for (size_t k = 0; k < 63 * 63; ++k) mask[k] = 1.0f / (63 * 63);
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 63;
    spec.coefficients = mask;
    spec.input_path = CLS_INPUT_LOCAL;
    spec.group_width = 1;
    spec.group_height = height;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) fail_msg("%s", cls_last_error());
    unsigned rows = 0;
    cls_filter_outputs_per_item(filter, &rows, NULL);
    assert_true(rows >= 1 && rows < 8);
    assert_true(64ull * (height * rows + 62) * 4 <= caps->local_mem_size);
    cls_filter_release(filter);
    spec.rows_per_item = 8; /* asked for explicitly: refused */
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_ERR_UNSUPPORTED);
    assert_non_null(strstr(cls_last_error(), "local-memory tile needs"));
    cls_context_release(context);
    unsetenv("CLSTENCIL_DEVICE_DB");
    unlink(overlay);
}

/* An overlay for the default device's record with the given keys; its path in overlay. */
static void write_record_overlay(const char *keys, char *overlay, size_t size)
{
    cls_context *context = new_context();
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    snprintf(overlay, size, "%s/devices.ini", folder);
    FILE *file = fopen(overlay, "w");
    assert_non_null(file);
    fprintf(file, "[%s]\n%s", cls_device_db_match(db, cls_context_device(context), NULL)->id, keys);
    fclose(file);
    cls_device_db_release(db);
    cls_context_release(context);
}

/* A context whose record takes the keys (an overlay named by CLSTENCIL_DEVICE_DB, its path in
 * overlay), with nothing tuned. */
static cls_context *context_with_record(const char *keys, char *overlay, size_t size)
{
    write_record_overlay(keys, overlay, size);
    setenv("CLSTENCIL_DEVICE_DB", overlay, 1);
    unlink(path);
    return new_context();
}

/* The 3x3 Gaussian with a 640x480 image expected. */
static cls_spec gauss_spec_for_640x480(cls_border border)
{
    cls_spec spec = gauss_spec(border);
    spec.expected_width = 640;
    spec.expected_height = 480;
    return spec;
}

static void filter_choice(const cls_filter *filter, cls_tuning *t)
{
    *t = (cls_tuning){CLS_TUNING_INIT};
    t->partition = cls_filter_partition(filter);
    cls_filter_group_shape(filter, &t->group_width, &t->group_height);
    cls_filter_outputs_per_item(filter, &t->rows_per_item, &t->cols_per_item);
}

static void models_choose_for_the_expected_size(void **state)
{
    (void)state;
    char overlay[64];
    cls_context *context = context_with_record("use_models = yes\ndefault_rows = 1\ndefault_wg = 4x4\n", overlay,
                                               sizeof overlay);
    cls_spec spec = gauss_spec_for_640x480(CLS_BORDER_REPEAT);
    cls_tuning model = {CLS_TUNING_INIT}, chosen = {CLS_TUNING_INIT};
    assert_int_equal(cls_model_choose(context, &spec, 640, 480, &model), CLS_OK);
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    filter_choice(filter, &chosen);
    assert_int_equal(chosen.partition, model.partition);
    assert_int_equal(chosen.group_width, model.group_width);
    assert_int_equal(chosen.group_height, model.group_height);
    assert_int_equal(chosen.rows_per_item, model.rows_per_item);
    /* Algorithm 2 fills the SIMD width: not the overlay's 4x4 policy shape */
    assert_true(chosen.group_width * chosen.group_height >= cls_context_device(context)->simd_width);
    assert_false(chosen.group_width == 4 && chosen.group_height == 4);

    /* the model's kernel against the reference, borders included */
    expect_gauss_reference(filter, CLS_BORDER_REPEAT, 29, 19);
    cls_filter_release(filter);

    /* without an expected size: the policy */
    spec.expected_width = spec.expected_height = 0;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    filter_choice(filter, &chosen);
    assert_int_equal(chosen.group_width, 4);
    assert_int_equal(chosen.group_height, 4);
    assert_int_equal(chosen.partition, CLS_PARTITION_ISP_BLOCK);
    cls_filter_release(filter);

    /* a tuned result comes first */
    spec.expected_width = 640;
    assert_int_equal(cls_tuning_store(context, &spec, &TUNED, "gaussian 3x3 repeat"), CLS_OK);
    cls_context_release(context);
    context = new_context();
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    filter_choice(filter, &chosen);
    assert_int_equal(chosen.partition, CLS_PARTITION_ISP_WARP);
    assert_int_equal(chosen.group_width, 16);
    cls_filter_release(filter);
    cls_context_release(context);
    unsetenv("CLSTENCIL_DEVICE_DB");
    unlink(overlay);
    unlink(path);
}

/* A streaming kernel is one wave whose occupancy does not limit it: the models keep the
 * policy's shape and choose between naive and isp-block only (no warp refinement). */
static void models_keep_a_streaming_policys_shape(void **state)
{
    (void)state;
    char overlay[64];
    /* stream_min_taps = 0: the 3x3 Gaussian streams too (PoCL's record leaves it at one row) */
    cls_context *context = context_with_record("use_models = yes\ndefault_rows = 64\ndefault_wg = 8x4\n"
                                               "stream_min_taps = 0\n", overlay, sizeof overlay);
    const cls_spec spec = gauss_spec_for_640x480(CLS_BORDER_MIRROR);
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    cls_tuning chosen = {CLS_TUNING_INIT};
    filter_choice(filter, &chosen);
    assert_int_equal(chosen.rows_per_item, 64);
    assert_int_equal(chosen.group_width, 8);
    assert_int_equal(chosen.group_height, 4);
    assert_true(chosen.partition == CLS_PARTITION_ISP_BLOCK || chosen.partition == CLS_PARTITION_NAIVE);
    expect_gauss_reference(filter, CLS_BORDER_MIRROR, 29, 19);
    cls_filter_release(filter);
    cls_context_release(context);
    unsetenv("CLSTENCIL_DEVICE_DB");
    unlink(overlay);
}

/* So does a weighted sum of 81 multiply-adds per output or more (a 9x9 mask), which occupancy
 * does not limit either; the kernel still matches the reference. */
static void models_keep_a_compute_bound_sums_shape(void **state)
{
    (void)state;
    char overlay[64];
    cls_context *context = context_with_record("use_models = yes\ndefault_rows = 1\ndefault_wg = 8x4\n", overlay,
                                               sizeof overlay);
    float mask[81];
    for (int k = 0; k < 81; ++k) mask[k] = (float)(k % 7 + 1) / 324.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 9;
    spec.coefficients = mask;
    spec.border = CLS_BORDER_REPEAT;
    cls_tuning model = {CLS_TUNING_INIT};
    assert_int_equal(cls_model_choose(context, &spec, 640, 480, &model), CLS_OK);
    assert_int_equal(model.group_width, 8);
    assert_int_equal(model.group_height, 4);
    spec.expected_width = 640;
    spec.expected_height = 480;
    cls_filter *filter = NULL;
    assert_int_equal(cls_filter_create(context, &spec, &filter), CLS_OK);
    cls_tuning chosen = {CLS_TUNING_INIT};
    filter_choice(filter, &chosen);
    assert_int_equal(chosen.group_width, 8);
    assert_int_equal(chosen.partition, model.partition);
    expect_reference(filter, mask, 9, CLS_BORDER_REPEAT, 29, 19);
    cls_filter_release(filter);
    cls_context_release(context);
    unsetenv("CLSTENCIL_DEVICE_DB");
    unlink(overlay);
}

/* A calibration (here: a check cost of 0, from a reference where naive was twice as fast)
 * applies to weighted sums; an operator body, whose naive kernel folds every tap, gets the ISP
 * paper's per-tap equations, which keep ISP. */
static void calibration_applies_to_weighted_sums_only(void **state)
{
    (void)state;
    unlink(path);
    cls_context *context = new_context();
    cls_spec reference = gauss_spec(CLS_BORDER_CLAMP);
    reference.group_width = 16;
    reference.group_height = 2;
    reference.rows_per_item = reference.cols_per_item = 1;
    reference.input_path = CLS_INPUT_GLOBAL;
    double check = -1.0;
    assert_int_equal(cls_isp_calibrate(context, &reference, 256, 256, 10.0, 20.0, "test", &check), CLS_OK);
    assert_true(check >= 0.0 && check < 1e-6);
    cls_context_release(context);
    context = new_context(); /* the calibration loads with the context */
    cls_tuning choice = {CLS_TUNING_INIT};
    cls_spec sum = gauss_spec(CLS_BORDER_CLAMP);
    assert_int_equal(cls_model_choose(context, &sum, 256, 256, &choice), CLS_OK);
    assert_int_equal(choice.partition, CLS_PARTITION_NAIVE); /* nothing left to save */
    cls_spec body = gauss_spec(CLS_BORDER_CLAMP);
    body.body = "OUT = IN(-1, -1) + IN(1, 1);";
    if (cls_model_choose(context, &body, 256, 256, &choice) != CLS_OK) fail_msg("%s", cls_last_error());
    assert_int_not_equal(choice.partition, CLS_PARTITION_NAIVE);
    body.group_width = 16; /* nor can a body be the reference */
    body.group_height = 2;
    body.rows_per_item = body.cols_per_item = 1;
    body.input_path = CLS_INPUT_GLOBAL;
    assert_int_equal(cls_isp_calibrate(context, &body, 256, 256, 10.0, 20.0, NULL, &check), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "weighted sum"));
    cls_context_release(context);
    unlink(path);
}

/* Eq. 10 weighs the naive build's occupancy where occupancy limits the kernel: small weighted
 * sums and operator bodies, not weighted sums of 81 or more multiply-adds per output (a baked
 * mask's zeros do not count) nor streaming kernels. */

/* cls_plan_weighs_occupancy for spec, read as the planner's entrance reads it. */
static int weighs_occupancy(const cls_spec *spec, unsigned rows_per_item)
{
    cls_request request;
    assert_int_equal(cls_request_init(&request, spec), CLS_OK);
    const int weighs = cls_plan_weighs_occupancy(&request, rows_per_item);
    cls_request_free(&request);
    return weighs;
}
static void occupancy_weighs_where_it_limits(void **state)
{
    (void)state;
    float mask[81];
    for (int k = 0; k < 81; ++k) mask[k] = 1.0f + (float)k;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 9;
    spec.coefficients = mask;
    assert_false(weighs_occupancy(&spec, 8));
    spec.bake_coefficients = 1;
    assert_false(weighs_occupancy(&spec, 1));
    mask[40] = 0.0f; /* 80 multiply-adds baked */
    assert_true(weighs_occupancy(&spec, 8));
    spec.bake_coefficients = 0; /* a runtime mask multiplies its zeros too */
    assert_false(weighs_occupancy(&spec, 8));
    spec.body = "OUT = IN(0, 0);";
    assert_true(weighs_occupancy(&spec, 8));
    cls_spec small = gauss_spec(CLS_BORDER_CLAMP);
    assert_true(weighs_occupancy(&small, 8));
    assert_false(weighs_occupancy(&small, CLS_STREAM_MIN_ROWS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stored_result_reaches_auto),
        cmocka_unit_test(malformed_file_is_skipped_with_a_warning),
        cmocka_unit_test(stale_results_are_reported),
        cmocka_unit_test(policy_rows_shrink_to_fit_local_memory),
        cmocka_unit_test(models_choose_for_the_expected_size),
        cmocka_unit_test(models_keep_a_streaming_policys_shape),
        cmocka_unit_test(models_keep_a_compute_bound_sums_shape),
        cmocka_unit_test(calibration_applies_to_weighted_sums_only),
        cmocka_unit_test(occupancy_weighs_where_it_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
