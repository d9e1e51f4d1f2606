/* test_cache_device.c — the binary cache with a real device, across processes: what an entry
 * holds, a miss then a hit, damaged and refused entries rebuilt and replaced, 4 processes racing
 * to build and then to load the same entries,
 * and a disabled cache. Every run checks the filter's output against the CPU reference. The parent never
 * touches OpenCL; each step runs in a forked child. */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "host.h"
#include "disk_cache.h"
#include "reference/reference.h"

enum { W = 37, H = 23 };
enum { MISS = 10, HIT = 11, WRONG = 12, FAILED = 13 };

static char folder[256];

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "/tmp/clstencil-cache-device-XXXXXX");
    assert_non_null(mkdtemp(folder));
    setenv("CLSTENCIL_CACHE_DIR", folder, 1);
    unsetenv("CLSTENCIL_CACHE");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    assert_int_equal(system(command), 0);
    return 0;
}

/* Variant v gives a distinct kernel (mask size and border). */
static void spec_of(int variant, cls_spec *spec, float *mask)
{
    cls_spec_init(spec);
    const unsigned size = 3 + 2 * (unsigned)(variant % 3);
    for (unsigned k = 0; k < size * size; ++k) mask[k] = (float)(1 + (k + (unsigned)variant) % 4) / 16.0f;
    spec->mask_width = spec->mask_height = size;
    spec->coefficients = mask;
    spec->border = (cls_border)(1 + variant % 5); /* clamp .. constant */
    spec->border_value = 0.5f;
}

/* An entry for SOURCE under its real key on the context's device: PAYLOAD and INFO. */
static void store_entry(cls_context *context, const char *source, const char *payload, const cls_build_info *info)
{
    const cls_device_caps *caps = cls_context_device(context);
    strbuf options, key;
    strbuf_init(&options);
    strbuf_init(&key);
    cls_build_options(caps, &options);
    char fingerprint[17];
    cls_device_fingerprint(caps, fingerprint);
    cls_disk_cache_key(fingerprint, source, strbuf_text(&options), &key);
    cls_disk_cache cache;
    cls_disk_cache_open(&cache);
    cls_disk_cache_store(&cache, strbuf_text(&key), (const unsigned char *)payload, strlen(payload), info);
    cls_disk_cache_close(&cache);
    strbuf_free(&options);
    strbuf_free(&key);
}

/* A well-formed entry for variant v's kernel whose payload the device refuses, under the real key. */
static void store_garbage(cls_context *context, const cls_spec *spec)
{
    char *source = NULL;
    cls_generate_source(spec, cls_context_device(context)->simd_width, &source);
    const cls_build_info info = {0};
    store_entry(context, source, "not a binary", &info);
    cls_free(source);
}

/* Runs a filter of variant v and checks it against the CPU reference; returns MISS or HIT (where
 * its program came from), or WRONG/FAILED. */
static int run_and_check(cls_filter *filter, const cls_spec *spec)
{
    float in[W * H], out[W * H];
    double expected[W * H];
    for (int k = 0; k < W * H; ++k) in[k] = (float)((k * 7) % 31) / 31.0f;
    const cls_image_desc image = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    if (cls_filter_run_host(filter, in, out, &image) != CLS_OK) return FAILED;
    const ref_image reference_in = {in, W, H, 0, CLS_PIXEL_F32};
    ref_stencil(&reference_in, spec->coefficients, (int)spec->mask_width, (int)spec->mask_height, spec->border,
                spec->border_value, expected);
    for (int k = 0; k < W * H; ++k)
        if (fabs(out[k] - expected[k]) > 1e-5) return WRONG;
    cls_build_info info = {CLS_BUILD_INFO_INIT};
    cls_filter_build_info(filter, &info);
    return info.from_disk_cache ? HIT : MISS;
}

/* In a child: builds variant v, runs it, checks it; returns MISS or HIT, or WRONG/FAILED. */
static int run_variant(int variant, int corrupt_with_garbage)
{
    cls_context *context = NULL;
    if (cls_context_create(NULL, &context) != CLS_OK) return FAILED;
    float mask[49];
    cls_spec spec;
    spec_of(variant, &spec, mask);
    if (corrupt_with_garbage) store_garbage(context, &spec);
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK) return FAILED;
    const int result = run_and_check(filter, &spec);
    cls_filter_release(filter);
    cls_context_release(context);
    return result;
}

static int in_child(int variant, int corrupt)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) _exit(run_variant(variant, corrupt));
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : FAILED;
}

static size_t count_files(const char *prefix)
{
    size_t count = 0;
    DIR *dir = opendir(folder);
    if (!dir) return 0;
    struct dirent *item;
    while ((item = readdir(dir))) count += strncmp(item->d_name, prefix, strlen(prefix)) == 0;
    closedir(dir);
    return count;
}

static void entry_path(char *path, size_t size)
{
    DIR *dir = opendir(folder);
    assert_non_null(dir);
    struct dirent *item;
    path[0] = '\0';
    while ((item = readdir(dir)))
        if (strstr(item->d_name, ".clsbin")) snprintf(path, size, "%s/%s", folder, item->d_name);
    closedir(dir);
    assert_true(path[0] != '\0');
}

static void miss_then_hit_across_processes(void **state)
{
    (void)state;
    assert_int_equal(in_child(0, 0), MISS);
    assert_int_equal(in_child(0, 0), HIT);
    assert_int_equal(in_child(1, 0), MISS); /* another kernel */
}

static void damaged_entry_is_rebuilt_and_replaced(void **state)
{
    (void)state;
    assert_int_equal(in_child(2, 0), MISS);
    char path[512], command[1024];
    entry_path(path, sizeof path);
    snprintf(command, sizeof command,
             "F='%s'; size=$(stat -c %%s \"$F\"); printf 'X' | dd of=\"$F\" bs=1 seek=$((size - 9)) conv=notrunc 2>/dev/null",
             path);
    assert_int_equal(system(command), 0);
    assert_int_equal(in_child(2, 0), MISS); /* rebuilt, correct */
    assert_int_equal(in_child(2, 0), HIT);  /* and replaced */
}

static void refused_binary_is_rebuilt_and_replaced(void **state)
{
    (void)state;
    assert_int_equal(in_child(3, 1), MISS);
    assert_int_equal(in_child(3, 0), HIT);
}

enum { PROCESSES = 4 }; /* more than the cores of the suite's 2-core machine: they still race */

/* Waits for every child; each must have exited with EXPECTED. */
static void wait_for_all(const pid_t *children, int expected)
{
    for (int p = 0; p < PROCESSES; ++p) {
        int status = 0;
        waitpid(children[p], &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), expected);
    }
}

static void processes_race(void **state)
{
    (void)state;
    pid_t children[PROCESSES];
    fflush(NULL);
    for (int p = 0; p < PROCESSES; ++p) {
        children[p] = fork();
        if (children[p] == 0) {
            /* two kernels every process builds, and one of its own */
            int worst = MISS;
            const int variants[3] = {4, 5, 6 + p};
            for (int v = 0; v < 3; ++v) {
                const int result = run_variant(variants[v], 0);
                if (result != MISS && result != HIT) worst = result;
            }
            _exit(worst);
        }
    }
    wait_for_all(children, MISS);
    assert_int_equal(count_files(".tmp-"), 0); /* no temp file left behind */
    assert_int_equal(in_child(4, 0), HIT);     /* whole entries */
    assert_int_equal(in_child(6 + PROCESSES - 1, 0), HIT); /* the last process's own */
    /* and loaded by all at once (PoCL without its cache: each program unpacks in a folder of its own) */
    fflush(NULL);
    for (int p = 0; p < PROCESSES; ++p) {
        children[p] = fork();
        if (children[p] == 0) {
            int worst = HIT;
            for (int round = 0; round < 3; ++round) {
                const int result = run_variant(4 + round % 2, 0);
                if (result != HIT) worst = result;
            }
            _exit(worst);
        }
    }
    wait_for_all(children, HIT);
}

/* Whether the device's runtime keeps its own cache of builds (PoCL, unless POCL_KERNEL_CACHE=0):
 * then an entry records the build instead of holding the binary. */
static int runtime_holds_builds(void)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        cls_context *context = NULL;
        if (cls_context_create(NULL, &context) != CLS_OK) _exit(FAILED);
        const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
        const int held = cls_context_device(context)->vendor == CLS_VENDOR_POCL && !(pocl_cache && !strcmp(pocl_cache, "0"));
        cls_context_release(context);
        _exit(held);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
    return WEXITSTATUS(status);
}

static void entry_holds_the_binary_or_records_the_build(void **state)
{
    (void)state;
    assert_int_equal(in_child(0, 0), MISS);
    char path[512];
    entry_path(path, sizeof path);
    struct stat entry;
    assert_int_equal(stat(path, &entry), 0);
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    char bytes[4096] = "";
    const size_t got = fread(bytes, 1, sizeof bytes - 1, file);
    fclose(file);
    const int recorded = memmem(bytes, got, CLS_CACHE_RUNTIME_HELD, strlen(CLS_CACHE_RUNTIME_HELD)) != NULL;
    if (runtime_holds_builds()) {
        assert_true(recorded);
        assert_true(entry.st_size < 1024);
    } else {
        assert_false(recorded);
        assert_true(entry.st_size > 1024); /* a program's binary */
    }
    assert_int_equal(in_child(0, 0), HIT);
}

static void disabled_cache_writes_nothing(void **state)
{
    (void)state;
    setenv("CLSTENCIL_CACHE", "off", 1);
    assert_int_equal(in_child(0, 0), MISS);
    assert_int_equal(in_child(0, 0), MISS);
    unsetenv("CLSTENCIL_CACHE");
    DIR *dir = opendir(folder);
    assert_non_null(dir);
    struct dirent *item;
    int files = 0;
    while ((item = readdir(dir))) files += item->d_name[0] != '.';
    closedir(dir);
    assert_int_equal(files, 0);
}

/* In a child: where the device needs the probe kernel for its work-group multiple, stores an entry
 * under the probe's key that records MULTIPLE and exits with the multiple a new context then has;
 * on PoCL, which answers the device query, exits with HIT where a context left no probe entry and
 * its multiple is the probe kernel's (built apart); else 0 (a vendor's width). */
static int multiple_after_probe_entry(size_t multiple)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        cls_context *context = NULL;
        if (cls_context_create(NULL, &context) != CLS_OK) _exit(FAILED);
        const cls_device_caps *caps = cls_context_device(context);
        if (caps->vendor == CLS_VENDOR_POCL) {
            cls_build_info info = {0};
            const cls_kernel_source probe = {CLS_PROBE_SOURCE, CLS_PROBE_KERNEL, 0, 0};
            if (cls_device_caps_need_probe(caps) || cls_program_cached_info(context, &probe, &info)) _exit(WRONG);
            const size_t kernels = cls_probe_kernel_multiple(context->device);
            _exit(kernels && kernels == caps->preferred_work_group_multiple ? HIT : WRONG);
        }
        if (!cls_device_caps_need_probe(caps)) _exit(0);
        const cls_build_info info = {.preferred_multiple = multiple};
        store_entry(context, CLS_PROBE_SOURCE, CLS_CACHE_RUNTIME_HELD, &info);
        cls_context_release(context);
        if (cls_context_create(NULL, &context) != CLS_OK) _exit(FAILED);
        _exit((int)cls_context_device(context)->preferred_work_group_multiple);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : FAILED;
}

/* A device without a vendor's work-group multiple never makes the probe program twice: PoCL's
 * comes from its device query, the probe kernel's own (no probe built for a context); another's
 * from the entry the probe's build left (an entry recording 7 gives 7). */
static void work_group_multiple_without_a_probe_build(void **state)
{
    (void)state;
    const int multiple = multiple_after_probe_entry(7);
    assert_true(multiple == 0 || multiple == 7 || multiple == HIT);
}

/* The tests run as the environment is (on PoCL: entries that record builds), then on PoCL with
 * its cache of builds off (entries that hold binaries, as on GPUs); CLS_CACHE_FORMS=runtime runs
 * the first alone, =binaries the second alone (nothing where the runtime keeps no builds). */
int main(void)
{
    const char *forms = getenv("CLS_CACHE_FORMS");
    const int as_set = !forms || strcmp(forms, "binaries") != 0, binaries = !forms || strcmp(forms, "runtime") != 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(entry_holds_the_binary_or_records_the_build, setup, teardown),
        cmocka_unit_test_setup_teardown(miss_then_hit_across_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_entry_is_rebuilt_and_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_binary_is_rebuilt_and_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(processes_race, setup, teardown),
        cmocka_unit_test_setup_teardown(disabled_cache_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(work_group_multiple_without_a_probe_build, setup, teardown),
    };
    int failed = as_set ? cmocka_run_group_tests_name("as set", tests, NULL, NULL) : 0;
    if (!binaries || !runtime_holds_builds()) return failed;
    setenv("POCL_KERNEL_CACHE", "0", 1);
    failed += cmocka_run_group_tests_name("POCL_KERNEL_CACHE=0", tests, NULL, NULL);
    return failed;
}
