/* test_disk_cache.c — the disk cache without a device: keys, round trips, every kind of
 * damaged entry (removed on read: links, FIFOs and oversized files unread), the checksum that
 * binds key and payload, the folder trust rule, eviction order at the size cap, the disabled cache, and an
 * unwritable folder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_trust.h"
#include "disk_cache.h"
#include "host.h"

static char folder[256];

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "/tmp/clstencil-cache-test-XXXXXX");
    assert_non_null(mkdtemp(folder));
    setenv("CLSTENCIL_CACHE_DIR", folder, 1);
    unsetenv("CLSTENCIL_CACHE");
    unsetenv("CLSTENCIL_CACHE_MAX");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char command[1024];
    snprintf(command, sizeof command, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", folder, folder);
    assert_int_equal(system(command), 0);
    return 0;
}

static void key_of(const char *fingerprint, const char *source, const char *options, char *out, size_t size)
{
    strbuf key;
    strbuf_init(&key);
    cls_disk_cache_key(fingerprint, source, options, &key);
    snprintf(out, size, "%s", strbuf_text(&key));
    strbuf_free(&key);
}

static void key_changes_with_every_input(void **state)
{
    (void)state;
    char base[128], other[128];
    key_of("0123456789abcdef", "kernel source", "-cl-std=CL1.2", base, sizeof base);
    key_of("0123456789abcdef", "kernel source", "-cl-std=CL1.2", other, sizeof other);
    assert_string_equal(base, other);
    key_of("0123456789abcdef", "kernel sourcE", "-cl-std=CL1.2", other, sizeof other);
    assert_string_not_equal(base, other);
    key_of("0123456789abcdef", "kernel source", "-cl-std=CL2.0", other, sizeof other);
    assert_string_not_equal(base, other);
    /* moving text between source and options must not give the same key */
    key_of("0123456789abcdef", "kernel source-cl-std=CL1.2", "", other, sizeof other);
    assert_string_not_equal(base, other);
    /* the fingerprint covers the driver and library versions */
    cls_device_caps caps = {CLS_DEVICE_CAPS_INIT};
    snprintf(caps.name, sizeof caps.name, "NVIDIA H200");
    snprintf(caps.driver_version, sizeof caps.driver_version, "580.159.04");
    char first[17], second[17];
    cls_device_fingerprint(&caps, first);
    snprintf(caps.driver_version, sizeof caps.driver_version, "580.160.01");
    cls_device_fingerprint(&caps, second);
    assert_string_not_equal(first, second);
    key_of(first, "kernel source", "-cl-std=CL1.2", base, sizeof base);
    key_of(second, "kernel source", "-cl-std=CL1.2", other, sizeof other);
    assert_string_not_equal(base, other);
    /* ... and a library upgrade changes it too */
    cls_fingerprint_with_version(&caps, CLS_VERSION_STRING, first);
    cls_fingerprint_with_version(&caps, "99.0.0", second);
    assert_string_not_equal(first, second);
    cls_device_fingerprint(&caps, second);
    assert_string_equal(first, second);
}

static cls_disk_cache open_cache(void)
{
    cls_disk_cache cache;
    assert_int_equal(cls_disk_cache_open(&cache), CLS_OK);
    return cache;
}

static void store(const cls_disk_cache *cache, const char *key, const char *payload)
{
    cls_build_info info = {.registers = 40, .spill_store_bytes = 8, .work_group_size = 1024};
    cls_disk_cache_store(cache, key, (const unsigned char *)payload, strlen(payload), &info);
}

static int load(const cls_disk_cache *cache, const char *key, const char *expected)
{
    unsigned char *binary = NULL;
    size_t size = 0;
    cls_build_info info;
    if (!cls_disk_cache_load(cache, key, &binary, &size, &info)) return 0;
    assert_int_equal(size, strlen(expected));
    assert_memory_equal(binary, expected, size);
    assert_int_equal(info.registers, 40);
    assert_int_equal(info.spill_store_bytes, 8);
    assert_int_equal(info.work_group_size, 1024);
    free(binary);
    return 1;
}

static void entry_file(const char *key, char *path, size_t size)
{
    snprintf(path, size, "%s/%s.clsbin", folder, key);
}

static void round_trip(void **state)
{
    (void)state;
    cls_disk_cache cache = open_cache();
    assert_false(load(&cache, "aaaa-1", "binary one"));
    store(&cache, "aaaa-1", "binary one");
    assert_true(load(&cache, "aaaa-1", "binary one"));
    char path[512];
    entry_file("aaaa-1", path, sizeof path);
    struct stat info;
    assert_int_equal(stat(folder, &info), 0);
    assert_int_equal(info.st_mode & 0777, 0700); /* owner-only (mkdtemp made it; the cache keeps it) */
    size_t entries;
    uint64_t bytes;
    cls_disk_cache_usage(&cache, &entries, &bytes);
    assert_int_equal(entries, 1);
    assert_int_equal(cls_disk_cache_clear(&cache), 1);
    cls_disk_cache_close(&cache);
}

/* Damages an entry with a shell command on $F, then expects a miss and the entry gone. */
static void expect_damaged(const char *damage)
{
    cls_disk_cache cache = open_cache();
    store(&cache, "dddd-1", "a binary payload of some length");
    char path[512], command[2048];
    entry_file("dddd-1", path, sizeof path);
    snprintf(command, sizeof command, "F='%s'; %s", path, damage);
    assert_int_equal(system(command), 0);
    assert_false(load(&cache, "dddd-1", "a binary payload of some length"));
    assert_int_not_equal(access(path, F_OK), 0); /* removed, so the rebuild replaces it */
    store(&cache, "dddd-1", "a binary payload of some length");
    assert_true(load(&cache, "dddd-1", "a binary payload of some length"));
    cls_disk_cache_close(&cache);
}

static void truncated_entry(void **state)
{
    (void)state;
    expect_damaged("truncate -s -5 \"$F\"");
}

static void flipped_payload_byte(void **state)
{
    (void)state;
    expect_damaged("size=$(stat -c %s \"$F\"); printf 'X' | dd of=\"$F\" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null");
}

static void wrong_magic(void **state)
{
    (void)state;
    expect_damaged("printf 'NOTCLS!!' | dd of=\"$F\" bs=1 seek=0 conv=notrunc 2>/dev/null");
}

static void wrong_version(void **state)
{
    (void)state;
    expect_damaged("printf '\\377' | dd of=\"$F\" bs=1 seek=8 conv=notrunc 2>/dev/null");
}

static void zero_length_file(void **state)
{
    (void)state;
    expect_damaged(": > \"$F\"");
}

/* Not a regular file: read without following the link or blocking on the FIFO, then removed. */
static void link_to_dev_zero(void **state)
{
    (void)state;
    expect_damaged("rm \"$F\" && ln -s /dev/zero \"$F\"");
}

static void fifo_entry(void **state)
{
    (void)state;
    expect_damaged("rm \"$F\" && mkfifo \"$F\"");
}

/* Larger than any program binary: refused before a byte is read. */
static void oversized_entry(void **state)
{
    (void)state;
    expect_damaged("truncate -s 65M \"$F\"");
}

/* Another kernel's entry, its key patched to this one: the checksum binds key and payload. */
static void entry_with_patched_key(void **state)
{
    (void)state;
    cls_disk_cache cache = open_cache();
    store(&cache, "kkkk-a", "kernel a's binary");
    char from[512], to[512], command[2048];
    entry_file("kkkk-a", from, sizeof from);
    entry_file("kkkk-b", to, sizeof to);
    snprintf(command, sizeof command, "mv '%s' '%s' && printf 'kkkk-b' | dd of='%s' bs=1 seek=16 conv=notrunc 2>/dev/null",
             from, to, to);
    assert_int_equal(system(command), 0);
    assert_false(load(&cache, "kkkk-b", "kernel a's binary"));
    assert_int_not_equal(access(to, F_OK), 0);
    cls_disk_cache_close(&cache);
}

/* A folder others may write to is not used (as git and ssh refuse such folders). */
static void untrusted_folder_is_bypassed(void **state)
{
    (void)state;
    assert_int_equal(chmod(folder, 0777), 0);
    char why[160] = "";
    assert_false(cls_cache_folder_trusted(folder, why, sizeof why));
    assert_non_null(strstr(why, "others may write to it"));
    cls_disk_cache cache = open_cache();
    assert_false(cache.enabled);
    store(&cache, "eeee-1", "binary");
    char path[512];
    entry_file("eeee-1", path, sizeof path);
    assert_int_not_equal(access(path, F_OK), 0);
    cls_disk_cache_close(&cache);
    assert_int_equal(chmod(folder, 0700), 0);
    cache = open_cache();
    assert_true(cache.enabled);
    cls_disk_cache_close(&cache);
    assert_true(cls_cache_folder_trusted("/nonexistent/clstencil-cache", NULL, 0)); /* made owner-only */
    assert_false(cls_cache_folder_trusted("/etc/hostname", why, sizeof why));
    assert_true(cls_cache_mode_off("off") && cls_cache_mode_off("0") && !cls_cache_mode_off("bogus"));
    assert_true(cls_cache_mode_known(NULL) && cls_cache_mode_known("on") && !cls_cache_mode_known("bogus"));
}

static void entry_from_another_device(void **state)
{
    (void)state;
    cls_disk_cache cache = open_cache();
    store(&cache, "1111111111111111-abc", "device one's binary");
    char from[512], to[512];
    entry_file("1111111111111111-abc", from, sizeof from);
    entry_file("2222222222222222-abc", to, sizeof to);
    assert_int_equal(rename(from, to), 0); /* a file under another device's name */
    assert_false(load(&cache, "2222222222222222-abc", "device one's binary"));
    assert_int_not_equal(access(to, F_OK), 0);
    cls_disk_cache_close(&cache);
}

static void unreadable_entry(void **state)
{
    (void)state;
    cls_disk_cache cache = open_cache();
    char path[512];
    entry_file("eeee-1", path, sizeof path);
    /* A folder where the entry should be cannot be read as one (chmod would not stop root). */
    assert_int_equal(mkdir(path, 0700), 0);
    assert_false(load(&cache, "eeee-1", "x"));
    store(&cache, "eeee-1", "fresh binary"); /* cannot replace a folder: stays uncached, no error */
    assert_false(load(&cache, "eeee-1", "fresh binary"));
    rmdir(path);
    cls_disk_cache_close(&cache);
}

static void unwritable_folder_is_uncached(void **state)
{
    (void)state;
    char blocker[512], inner[600];
    snprintf(blocker, sizeof blocker, "%s/a-file", folder);
    FILE *file = fopen(blocker, "w");
    assert_non_null(file);
    fclose(file);
    snprintf(inner, sizeof inner, "%s/cache", blocker); /* its parent is a file: never creatable */
    setenv("CLSTENCIL_CACHE_DIR", inner, 1);
    cls_disk_cache cache = open_cache();
    store(&cache, "ffff-1", "binary");
    assert_false(load(&cache, "ffff-1", "binary"));
    cls_disk_cache_close(&cache);
    setenv("CLSTENCIL_CACHE_DIR", folder, 1);
}

static void disabled_cache_writes_nothing(void **state)
{
    (void)state;
    setenv("CLSTENCIL_CACHE", "off", 1);
    cls_disk_cache cache = open_cache();
    assert_false(cache.enabled);
    store(&cache, "gggg-1", "binary");
    assert_false(load(&cache, "gggg-1", "binary"));
    cls_disk_cache_close(&cache);
    unsetenv("CLSTENCIL_CACHE");
    cache = open_cache();
    size_t entries;
    uint64_t bytes;
    cls_disk_cache_usage(&cache, &entries, &bytes);
    assert_int_equal(entries, 0);
    cls_disk_cache_close(&cache);
}

static void set_age(const char *key, long seconds_ago)
{
    char path[512];
    entry_file(key, path, sizeof path);
    struct timespec times[2];
    clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= seconds_ago;
    times[1] = times[0];
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static void cap_evicts_least_recently_used(void **state)
{
    (void)state;
    char payload[1001];
    memset(payload, 'p', 1000);
    payload[1000] = '\0';
    cls_disk_cache cache = open_cache();
    static const char *keys[] = {"k-a", "k-b", "k-c", "k-d"};
    for (int i = 0; i < 4; ++i) store(&cache, keys[i], payload);
    size_t entries;
    uint64_t bytes;
    cls_disk_cache_usage(&cache, &entries, &bytes);
    assert_int_equal(entries, 4);
    const uint64_t entry_bytes = bytes / 4;
    set_age("k-a", 400);
    set_age("k-b", 100);
    set_age("k-c", 300);
    set_age("k-d", 200);
    assert_true(load(&cache, "k-a", payload)); /* a use makes k-a the most recent */
    cls_disk_cache_close(&cache);
    char cap[32];
    snprintf(cap, sizeof cap, "%llu", (unsigned long long)(entry_bytes * 3));
    setenv("CLSTENCIL_CACHE_MAX", cap, 1);
    cache = open_cache();
    store(&cache, "k-e", payload); /* five entries, room for three: k-c, then k-d go */
    unsetenv("CLSTENCIL_CACHE_MAX");
    const char *present[] = {"k-a", "k-b", "k-e"}, *gone[] = {"k-c", "k-d"};
    char path[512];
    for (int i = 0; i < 3; ++i) {
        entry_file(present[i], path, sizeof path);
        if (access(path, F_OK) != 0) fail_msg("%s was evicted", present[i]);
    }
    for (int i = 0; i < 2; ++i) {
        entry_file(gone[i], path, sizeof path);
        if (access(path, F_OK) == 0) fail_msg("%s was kept", gone[i]);
    }
    cls_disk_cache_close(&cache);
}

static void bad_cap_is_an_error(void **state)
{
    (void)state;
    setenv("CLSTENCIL_CACHE_MAX", "lots", 1);
    cls_disk_cache cache;
    assert_int_equal(cls_disk_cache_open(&cache), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "CLSTENCIL_CACHE_MAX='lots'"));
    setenv("CLSTENCIL_CACHE_MAX", "64M", 1);
    assert_int_equal(cls_disk_cache_open(&cache), CLS_OK);
    assert_int_equal(cache.max_bytes, 64ull << 20);
    cls_disk_cache_close(&cache);
    unsetenv("CLSTENCIL_CACHE_MAX");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_changes_with_every_input),
        cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(flipped_payload_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_version, setup, teardown),
        cmocka_unit_test_setup_teardown(zero_length_file, setup, teardown),
        cmocka_unit_test_setup_teardown(entry_from_another_device, setup, teardown),
        cmocka_unit_test_setup_teardown(link_to_dev_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(fifo_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(oversized_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(entry_with_patched_key, setup, teardown),
        cmocka_unit_test_setup_teardown(untrusted_folder_is_bypassed, setup, teardown),
        cmocka_unit_test_setup_teardown(unreadable_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_folder_is_uncached, setup, teardown),
        cmocka_unit_test_setup_teardown(disabled_cache_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(cap_evicts_least_recently_used, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_cap_is_an_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
