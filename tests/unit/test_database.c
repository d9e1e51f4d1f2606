/* test_database.c — the device database: built-in records, matching at every fallback level,
 * overlay precedence (corrections and new records), and malformed overlays (file and line named,
 * nothing of them used). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clstencil_tuning.h"

static char overlay_path[256];

static void write_overlay(const char *text)
{
    snprintf(overlay_path, sizeof overlay_path, "/tmp/clstencil-test-overlay-%d.ini", (int)getpid());
    FILE *file = fopen(overlay_path, "w");
    assert_non_null(file);
    fputs(text, file);
    fclose(file);
}

static int teardown(void **state)
{
    (void)state;
    if (overlay_path[0]) unlink(overlay_path);
    overlay_path[0] = '\0';
    return 0;
}

static int setup(void **state)
{
    (void)state;
    /* no user overlay from the environment may leak into the tests */
    unsetenv("CLSTENCIL_DEVICE_DB");
    setenv("XDG_CONFIG_HOME", "/nonexistent-clstencil-test", 1);
    return 0;
}

static cls_device_caps device(cls_vendor vendor, cls_device_type type, const char *arch, const char *name)
{
    cls_device_caps caps = {CLS_DEVICE_CAPS_INIT};
    caps.vendor = vendor;
    caps.type = type;
    snprintf(caps.arch, sizeof caps.arch, "%s", arch);
    snprintf(caps.name, sizeof caps.name, "%s", name);
    return caps;
}

static const char *matched(const cls_device_db *db, const cls_device_caps *caps, cls_match_level expected)
{
    cls_match_level level = CLS_MATCH_GENERIC;
    const cls_arch_record *r = cls_device_db_match(db, caps, &level);
    assert_non_null(r);
    assert_int_equal(level, expected);
    return r->id;
}

static void builtin_records_load_and_are_complete(void **state)
{
    (void)state;
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    assert_true(cls_device_db_count(db) >= 30);
    static const char *required[] = {"nvidia-sm50", "nvidia-sm60", "nvidia-sm61", "nvidia-sm70", "nvidia-sm75",
                                     "nvidia-sm80", "nvidia-sm86", "nvidia-sm89", "nvidia-sm90", "nvidia-sm100",
                                     "nvidia-sm120", "amd-gfx803", "amd-gfx900", "amd-gfx906", "amd-gfx908",
                                     "amd-gfx90a", "amd-gfx942", "amd-gfx1030", "amd-gfx1100", "intel-xe",
                                     "pocl-cpu", "generic"};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; ++k) {
        int found = 0;
        for (size_t i = 0; i < cls_device_db_count(db); ++i) {
            const cls_arch_record *r = cls_device_db_get(db, i);
            if (strcmp(r->id, required[k]) != 0) continue;
            found = 1;
            assert_true(r->simd_width > 0 && r->max_threads_per_cu >= r->simd_width);
            assert_true(r->source[0] != '\0');
            assert_string_equal(r->origin, "built-in");
        }
        if (!found) fail_msg("built-in record %s is missing", required[k]);
    }
    cls_device_db_release(db);
}

static void matching_falls_back_level_by_level(void **state)
{
    (void)state;
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    cls_device_caps h200 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_90", "NVIDIA H200");
    assert_string_equal(matched(db, &h200, CLS_MATCH_ARCH), "nvidia-sm90");
    const cls_arch_record *r = cls_device_db_match(db, &h200, NULL);
    assert_int_equal(r->simd_width, 32);
    assert_int_equal(r->max_threads_per_cu, 2048);
    assert_int_equal(r->registers_per_cu, 65536);
    assert_int_equal(r->fft_min_taps, 169); /* 13x13 and up by FFT when the method is auto */
    assert_int_equal(r->fft_tile_max_mask, 41); /* up to 41x41 in one kernel, the tiles on chip */
    assert_int_equal(r->body_lanes, 0);     /* a GPU's work-items are its lanes ... */
    assert_int_equal(r->row_body_lanes, 4); /* ... but for the 3x3 median's column of rows */
    assert_int_equal(r->volume_deep_slices, 128); /* deep masks' walks from the tile */
    assert_int_equal(r->volume_pass_slices, 512); /* and their single passes */
    assert_int_equal(r->fft_max_tile, 512);
    assert_int_equal(r->single_pass_rows, 64); /* the single pass streams, four rows ahead */
    assert_int_equal(r->single_pass_cols, 2);
    assert_int_equal(r->single_pass_ahead, 4);
    assert_int_equal(r->single_pass_min_taps, 25); /* from 5x5, its group's input rows staged */
    assert_int_equal(r->single_pass_stages_rows, 1);
    assert_int_equal(r->single_pass_tall_mask, 23); /* 128-row strips from 23 rows tall */
    assert_int_equal(r->volume_columns, 4); /* the slice's tile in local memory */
    assert_int_equal(r->volume_fft_min_taps, 600); /* volumes' masks from 9x9x9 by FFT */
    assert_int_equal(r->inline_ptx, 1); /* FAST_EXP2 in one PTX instruction */
    assert_int_equal(r->rank_minmax, 1); /* volume ranks' exchanges by fmin and fmax */
    assert_int_equal(r->rank_columns, 2); /* a box's sorted slices in pairs of columns */
    assert_int_equal(r->rank_register_cap, 80); /* those pairs: three groups of 256 a compute unit */
    assert_int_equal(r->wide_block_max_taps, 25); /* 3x3 and 5x5 blocks: 4 x 4, rows as float4s */
    assert_int_equal(r->volume_y_first, 1); /* tall single passes along y first */
    assert_int_equal(r->volume_block_rows, 2); /* walks from the slice's tile: 2 rows a work-item */
    cls_device_caps future = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_190", "NVIDIA Future");
    assert_string_equal(matched(db, &future, CLS_MATCH_VENDOR_TYPE), "nvidia-gpu");
    cls_device_caps mi = device(CLS_VENDOR_AMD, CLS_DEVICE_GPU, "gfx90a", "gfx90a:sramecc+:xnack-");
    assert_string_equal(matched(db, &mi, CLS_MATCH_ARCH), "amd-gfx90a");
    cls_device_caps pocl = device(CLS_VENDOR_POCL, CLS_DEVICE_CPU, "", "pthread-skylake");
    assert_string_equal(matched(db, &pocl, CLS_MATCH_VENDOR_TYPE), "pocl-cpu");
    const cls_arch_record *pocl_record = cls_device_db_match(db, &pocl, NULL);
    assert_int_equal(pocl_record->default_rows, 64); /* streams masks of 26 computed taps and more */
    assert_int_equal(pocl_record->stream_min_taps, 26);
    assert_int_equal(pocl_record->border_groups_fold_fully, 1);
    assert_int_equal(pocl_record->fft_min_taps, 300);
    assert_int_equal(pocl_record->fft_max_tile, 1024);
    assert_int_equal(pocl_record->volume_fft_min_taps, 600);
    assert_int_equal(pocl_record->inline_ptx, 0);
    assert_int_equal(pocl_record->rank_minmax, 0); /* comparisons: PoCL vectorizes those */
    assert_int_equal(pocl_record->rank_columns, 0);
    assert_int_equal(pocl_record->rank_register_cap, 0);
    assert_int_equal(pocl_record->wide_block_max_taps, 0);
    assert_int_equal(pocl_record->volume_y_first, 0);
    assert_int_equal(pocl_record->volume_block_rows, 0);
    assert_int_equal(pocl_record->fft_tile_max_mask, 0); /* VkFFT's transforms */
    assert_int_equal(pocl_record->volume_slices, 8); /* a walk written out: fewer slices, shorter builds */
    assert_int_equal(pocl_record->volume_columns, 8); /* in vectors of 8 columns */
    assert_int_equal(pocl_record->body_lanes, 8);     /* bodies in value_t: 8 outputs in a float8 */
    cls_device_caps odd = device(CLS_VENDOR_UNKNOWN, CLS_DEVICE_ACCELERATOR, "", "Odd Thing");
    assert_string_equal(matched(db, &odd, CLS_MATCH_GENERIC), "generic");
    /* an architecture key of another vendor does not match */
    cls_device_caps confused = device(CLS_VENDOR_AMD, CLS_DEVICE_GPU, "sm_90", "x");
    assert_string_equal(matched(db, &confused, CLS_MATCH_VENDOR_TYPE), "amd-gpu");
    cls_device_db_release(db);
}

static void overlay_corrects_and_adds(void **state)
{
    (void)state;
    write_overlay("; a user's corrections\n"
                  "[nvidia-sm90]\n"
                  "default_wg = 64x2\n"
                  "\n"
                  "[lab-h200]\n"
                  "device = NVIDIA H200\n"
                  "vendor = nvidia\ntype = gpu\narch = sm_90\n"
                  "source = measured in our lab\n"
                  "simd_width = 32\nmax_threads_per_cu = 2048\nmax_groups_per_cu = 32\nmax_warps_per_cu = 64\n"
                  "registers_per_cu = 65536\nregister_alloc_unit = 256\nregister_alloc = warp\n"
                  "max_registers_per_thread = 255\nlocal_mem_per_cu = 233472\nlocal_mem_alloc_unit = 128\n"
                  "default_wg = 32x8\n"
                  "\n"
                  "[my-sm90]\n"
                  "vendor = nvidia\ntype = gpu\narch = sm_90\nsource = tuned\n"
                  "simd_width = 32\nmax_threads_per_cu = 2048\nmax_groups_per_cu = 32\nmax_warps_per_cu = 64\n"
                  "registers_per_cu = 65536\nregister_alloc_unit = 256\nregister_alloc = warp\n"
                  "max_registers_per_thread = 255\nlocal_mem_per_cu = 233472\nlocal_mem_alloc_unit = 128\n"
                  "default_wg = 128x1\n");
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(overlay_path, &db), CLS_OK);
    cls_device_caps h200 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_90", "NVIDIA H200");
    assert_string_equal(matched(db, &h200, CLS_MATCH_DEVICE), "lab-h200");
    cls_device_caps h100 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_90", "NVIDIA H100 80GB HBM3");
    /* at architecture level the overlay's new record (defined last) wins over the corrected built-in */
    assert_string_equal(matched(db, &h100, CLS_MATCH_ARCH), "my-sm90");
    const cls_arch_record *corrected = NULL;
    for (size_t i = 0; i < cls_device_db_count(db); ++i)
        if (strcmp(cls_device_db_get(db, i)->id, "nvidia-sm90") == 0) corrected = cls_device_db_get(db, i);
    assert_non_null(corrected);
    assert_int_equal(corrected->default_wg_x, 64);
    assert_int_equal(corrected->default_wg_y, 2);
    assert_int_equal(corrected->max_threads_per_cu, 2048); /* untouched keys stay */
    assert_string_equal(corrected->origin, overlay_path);
    cls_device_db_release(db);
}

static void overlay_from_environment(void **state)
{
    (void)state;
    write_overlay("[nvidia-sm90]\ndefault_wg = 16x16\ndefault_rows = 2\n");
    setenv("CLSTENCIL_DEVICE_DB", overlay_path, 1);
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    unsetenv("CLSTENCIL_DEVICE_DB");
    cls_device_caps h200 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_90", "NVIDIA H200");
    assert_int_equal(cls_device_db_match(db, &h200, NULL)->default_wg_x, 16);
    assert_int_equal(cls_device_db_match(db, &h200, NULL)->default_rows, 2);
    cls_device_db_release(db);
}

/* `auto` asks the models on GPUs and not on CPU runtimes unless a record says otherwise. */
static void use_models_follows_the_type_unless_set(void **state)
{
    (void)state;
    write_overlay("[nvidia-sm90]\nuse_models = no\n[pocl-cpu]\nuse_models = yes\n");
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(overlay_path, &db), CLS_OK);
    const cls_device_caps h200 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_90", "NVIDIA H200");
    const cls_device_caps a100 = device(CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU, "sm_80", "NVIDIA A100");
    const cls_device_caps pocl = device(CLS_VENDOR_POCL, CLS_DEVICE_CPU, "", "cpu-haswell");
    assert_int_equal(cls_device_db_match(db, &h200, NULL)->use_models, 0);
    assert_int_equal(cls_device_db_match(db, &a100, NULL)->use_models, 1);
    assert_int_equal(cls_device_db_match(db, &pocl, NULL)->use_models, 1);
    cls_device_db_release(db);
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    assert_int_equal(cls_device_db_match(db, &pocl, NULL)->use_models, 0);
    cls_device_db_release(db);
}

static void expect_parse_error(const char *text, const char *message_part)
{
    write_overlay(text);
    cls_device_db *db = (cls_device_db *)0x1;
    assert_int_equal(cls_device_db_load(overlay_path, &db), CLS_ERR_PARSE);
    assert_null(db); /* nothing of a malformed overlay is used: no database at all */
    char expected[512];
    snprintf(expected, sizeof expected, "%s:%s", overlay_path, message_part);
    if (!strstr(cls_last_error(), expected)) fail_msg("message '%s' lacks '%s'", cls_last_error(), expected);
}

static void malformed_overlay_names_file_and_line(void **state)
{
    (void)state;
    expect_parse_error("[nvidia-sm90]\ndefault_wg = 64x2\nthis line is not ini\n", "3: ");
    expect_parse_error("; comment\n[nvidia-sm90]\nsimd_width = thirty-two\n", "3: 'simd_width' must be");
    expect_parse_error("[nvidia-sm90]\nwarp_width = 32\n", "2: unknown key 'warp_width'");
    expect_parse_error("[nvidia-sm90]\ndefault_wg = 32\n", "2: 'default_wg' must be WxH");
    expect_parse_error("[nvidia-sm90]\nvendor = nvidya\n", "2: 'vendor' must be a vendor name");
    expect_parse_error("[nvidia-sm90]\nuse_models = maybe\n", "2: 'use_models' must be yes or no, not 'maybe'");
    expect_parse_error("[pocl-cpu]\nfft_max_tile = 32\n", "2: 'fft_max_tile' must be a decimal integer from 64 to 16384, not '32'");
    expect_parse_error("[nvidia-sm90]\nsingle_pass_rows = 12\n", "2: 'single_pass_rows' must be 1 to 8, 16, 32, 64 or 128, not '12'");
    expect_parse_error("[pocl-cpu]\nvolume_slices = 0\n", "2: 'volume_slices' must be 1 to 8, 16, 32, 64, 128, 256 or 512, not '0'");
    expect_parse_error("[nvidia-sm90]\nvolume_columns = 2\n", "2: 'volume_columns' must be 1, 4 or 8, not '2'");
    expect_parse_error("[pocl-cpu]\nbody_lanes = 16\n", "2: 'body_lanes' must be 1, 2, 4 or 8, not '16'");
    expect_parse_error("[nvidia-sm90]\nrow_body_lanes = 3\n", "2: 'row_body_lanes' must be 1, 2, 4 or 8, not '3'");
    expect_parse_error("[nvidia-sm90]\nvolume_deep_slices = 100\n", "2: 'volume_deep_slices' must be");
    expect_parse_error("[nvidia-sm90]\nvolume_pass_slices = 1024\n",
                       "2: 'volume_pass_slices' must be 1 to 8, 16, 32, 64, 128, 256 or 512, not '1024'");
    expect_parse_error("[nvidia-sm90]\nsingle_pass_rows = 256\n", "2: 'single_pass_rows' must be 1 to 8, 16, 32, 64 or 128");
    expect_parse_error("[nvidia-sm90]\nsingle_pass_cols = 3\n", "2: 'single_pass_cols' must be 1, 2, 4 or 8, not '3'");
    expect_parse_error("[nvidia-sm90]\nsingle_pass_stages_rows = 2\n",
                       "2: 'single_pass_stages_rows' must be a decimal integer from 0 to 1, not '2'");
    expect_parse_error("[pocl-cpu]\nborder_groups_fold_fully = 2\n",
                       "2: 'border_groups_fold_fully' must be a decimal integer from 0 to 1, not '2'");
    expect_parse_error("[nvidia-sm90]\ninline_ptx = 2\n", "2: 'inline_ptx' must be a decimal integer from 0 to 1, not '2'");
    expect_parse_error("[nvidia-sm90]\nrank_minmax = 2\n", "2: 'rank_minmax' must be a decimal integer from 0 to 1, not '2'");
    expect_parse_error("[nvidia-sm90]\nrank_columns = 4\n", "2: 'rank_columns' must be a decimal integer from 1 to 2, not '4'");
    expect_parse_error("[nvidia-sm90]\nvolume_y_first = 4\n",
                       "2: 'volume_y_first' must be a decimal integer from 0 to 1, not '4'");
    expect_parse_error("[nvidia-sm90]\nrank_register_cap = 0\n", "2: 'rank_register_cap' must be a decimal integer from 1");
    expect_parse_error("[nvidia-sm90]\nvolume_fft_min_taps = -1\n", "2: 'volume_fft_min_taps' must be");
    expect_parse_error("[nvidia-sm90]\nwide_block_max_taps = 3x3\n", "2: 'wide_block_max_taps' must be");
    expect_parse_error("[nvidia-sm90]\nvolume_block_rows = 9\n",
                       "2: 'volume_block_rows' must be a decimal integer from 0 to 8, not '9'");
    expect_parse_error("[nvidia-sm90]\ndefault_rows = 3\n", "1: record [nvidia-sm90]: default_rows must be 1, 2, 4, 8 (a block) or 16, 32, 64, 128 (streaming)");
    expect_parse_error("\n\n[half-record]\nvendor = amd\nsimd_width = 64\n", "3: record [half-record] is incomplete");
    /* a new record gives register_alloc and local_mem_per_cu, whose absence reads as a value */
#define WHOLE_BUT_TWO "source = s\nsimd_width = 32\nmax_threads_per_cu = 2048\nmax_groups_per_cu = 32\n" \
                      "max_warps_per_cu = 64\nregisters_per_cu = 65536\nregister_alloc_unit = 256\n" \
                      "max_registers_per_thread = 255\nlocal_mem_alloc_unit = 128\ndefault_wg = 32x4\n"
    expect_parse_error("[no-alloc]\n" WHOLE_BUT_TWO "local_mem_per_cu = 0\n", "1: record [no-alloc] is incomplete");
    expect_parse_error("[no-local]\n" WHOLE_BUT_TWO "register_alloc = warp\n", "1: record [no-local] is incomplete");
    write_overlay("[both]\n" WHOLE_BUT_TWO "register_alloc = group\nlocal_mem_per_cu = 0\n");
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load(overlay_path, &db), CLS_OK);
    cls_device_db_release(db);
#undef WHOLE_BUT_TWO
    expect_parse_error("[a]\nsimd_width = 1\n[b]\nsimd_width = 2\n[a]\nsimd_width = 3\n",
                       "6: record [a] appears twice");
}

static void missing_named_overlay_is_an_error(void **state)
{
    (void)state;
    cls_device_db *db = NULL;
    assert_int_equal(cls_device_db_load("/nonexistent/devices.ini", &db), CLS_ERR_IO);
    assert_non_null(strstr(cls_last_error(), "/nonexistent/devices.ini"));
    /* a missing default overlay is fine */
    assert_int_equal(cls_device_db_load(NULL, &db), CLS_OK);
    cls_device_db_release(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(builtin_records_load_and_are_complete, teardown),
        cmocka_unit_test_teardown(matching_falls_back_level_by_level, teardown),
        cmocka_unit_test_teardown(overlay_corrects_and_adds, teardown),
        cmocka_unit_test_teardown(overlay_from_environment, teardown),
        cmocka_unit_test_teardown(use_models_follows_the_type_unless_set, teardown),
        cmocka_unit_test_teardown(malformed_overlay_names_file_and_line, teardown),
        cmocka_unit_test_teardown(missing_named_overlay_is_an_error, teardown),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
