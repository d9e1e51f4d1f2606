/* programs.c — where a context's programs come from: this process's cache (one build per
 * source and options), else the disk cache, else a build from source, which is then stored (on
 * a runtime with its own cache of builds, PoCL, the entry records the build and the runtime's
 * cache holds the program; without it, each program loaded from a binary unpacks into a folder
 * of its own).
 * Builds run outside the cache's lock, so threads build different programs at once; a thread
 * that asks for a program another is building waits for that build. Within a thread's
 * cached-only scope a program that would need a build from source is refused instead. */
#include "build.h"

#include "disk_cache.h"
#include "error.h"
#include "pocl_binary.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cls_program_entry {
    char *key;
    int building;          /* 1 while a thread builds it: program and info are not set yet */
    cl_program program;
    cls_build_info info;
    struct cls_program_entry *next;
};

static struct cls_program_entry *find_entry(cls_context *context, const char *key)
{
    struct cls_program_entry *entry = context->programs;
    while (entry && strcmp(entry->key, key) != 0) entry = entry->next;
    return entry;
}

static void unlink_entry(cls_context *context, struct cls_program_entry *gone)
{
    struct cls_program_entry **link = &context->programs;
    while (*link != gone) link = &(*link)->next;
    *link = gone->next;
}

/* The calling thread's cached-only scope: open, and whether a build was refused in it. */
static _Thread_local struct { int open, refused; } cached_only;

void cls_programs_cached_only_begin(void)
{
    cached_only.open = 1;
    cached_only.refused = 0;
}

int cls_programs_cached_only_end(void)
{
    cached_only.open = 0;
    return cached_only.refused;
}

static double now_milliseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Whether the device's runtime keeps its own cache of builds on disk: PoCL, unless
 * POCL_KERNEL_CACHE=0. */
static int runtime_caches_builds(const cls_device_caps *caps)
{
    const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
    return caps->vendor == CLS_VENDOR_POCL && !(pocl_cache && strcmp(pocl_cache, "0") == 0);
}

static int runtime_held(const unsigned char *binary, size_t size)
{
    return size == sizeof CLS_CACHE_RUNTIME_HELD - 1 && memcmp(binary, CLS_CACHE_RUNTIME_HELD, size) == 0;
}

/* Loads from the disk cache or builds, and stores what was built: its binary, or where the
 * runtime keeps its own cache, that it was built. */
static cls_status load_or_build(cls_context *context, const cls_kernel_source *kernel, const char *options,
                                const char *key, cl_program *program, cls_build_info *info)
{
    cls_disk_cache cache;
    cls_status status = cls_disk_cache_open(&cache);
    if (status != CLS_OK) return status;
    const double start = now_milliseconds();
    unsigned char *binary = NULL;
    size_t size = 0;
    const int runtime_caches = runtime_caches_builds(&context->caps);
    if (cls_disk_cache_load(&cache, key, &binary, &size, info)) {
        /* A record of a build serves only while the runtime's cache is on; else it is a miss, kept. */
        const int held = runtime_held(binary, size);
        /* PoCL without its cache deletes the folder a binary names when the program goes */
        const int loadable = context->caps.vendor != CLS_VENDOR_POCL || runtime_caches ||
                             cls_pocl_binary_make_private(binary, size);
        status = !held ? loadable ? cls_build_from_binary(context->context, context->device, binary, size, options,
                                                          program)
                                  : CLS_ERR_UNSUPPORTED
                 : runtime_caches ? cls_build_from_source(context->context, context->device, &context->caps, kernel,
                                                          options, program, &(cls_build_info){CLS_BUILD_INFO_INIT})
                                  : CLS_ERR_UNSUPPORTED;
        free(binary);
        if (status == CLS_OK) {
            cls_disk_cache_count(1);
            info->from_disk_cache = 1;
            info->build_milliseconds = now_milliseconds() - start;
            cls_disk_cache_close(&cache);
            return CLS_OK;
        }
        if (!held) cls_disk_cache_remove(&cache, key); /* the device refused it: never again */
    }
    if (cached_only.open) {
        cached_only.refused = 1;
        cls_disk_cache_close(&cache);
        return cls_fail(CLS_ERR_UNSUPPORTED, "the program is not in the disk cache (cached-only scope)");
    }
    if (cache.enabled) cls_disk_cache_count(0);
    status = cls_build_from_source(context->context, context->device, &context->caps, kernel, options, program,
                                   info);
    if (status == CLS_OK) {
        info->build_milliseconds = now_milliseconds() - start;
        if (cache.enabled && runtime_caches) {
            cls_disk_cache_store(&cache, key, (const unsigned char *)CLS_CACHE_RUNTIME_HELD,
                                 sizeof CLS_CACHE_RUNTIME_HELD - 1, info);
        } else if (cache.enabled && cls_program_binary(*program, &binary, &size)) {
            cls_disk_cache_store(&cache, key, binary, size, info);
            free(binary);
        }
    }
    cls_disk_cache_close(&cache);
    return status;
}

/* The program's build options for the context's device and its disk-cache key. */
static cls_status program_key(const cls_context *context, const cls_kernel_source *kernel, strbuf *options,
                              strbuf *key)
{
    cls_build_options(&context->caps, options);
    char fingerprint[17];
    cls_device_fingerprint(&context->caps, fingerprint);
    cls_disk_cache_key(fingerprint, kernel->text, strbuf_text(options), key);
    return strbuf_failed(options) || strbuf_failed(key) ? cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory") : CLS_OK;
}

int cls_program_cached_info(const cls_context *context, const cls_kernel_source *kernel, cls_build_info *info)
{
    strbuf options, key;
    strbuf_init(&options);
    strbuf_init(&key);
    cls_disk_cache cache;
    int found = 0;
    if (program_key(context, kernel, &options, &key) == CLS_OK && cls_disk_cache_open(&cache) == CLS_OK) {
        unsigned char *binary = NULL;
        size_t size = 0;
        found = cls_disk_cache_load(&cache, strbuf_text(&key), &binary, &size, info);
        free(binary);
        cls_disk_cache_close(&cache);
    }
    strbuf_free(&options);
    strbuf_free(&key);
    return found;
}

cls_status cls_program_get(cls_context *context, const cls_kernel_source *kernel, cl_program *program,
                           cls_build_info *info)
{
    strbuf options, key;
    strbuf_init(&options);
    strbuf_init(&key);
    cls_status status = program_key(context, kernel, &options, &key);

    pthread_mutex_lock(&context->programs_lock);
    struct cls_program_entry *entry = NULL;
    /* Wait while another thread builds this program; an entry is looked up afresh each time,
     * since a failed build removes its entry. */
    while (status == CLS_OK && (entry = find_entry(context, strbuf_text(&key))) && entry->building)
        pthread_cond_wait(&context->program_built, &context->programs_lock);
    if (status == CLS_OK && !entry) {
        entry = calloc(1, sizeof *entry);
        if (!entry) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (status == CLS_OK && !entry->key) { /* a new entry: build it without holding the lock */
        entry->key = strbuf_take(&key);
        entry->building = 1;
        entry->next = context->programs;
        context->programs = entry;
        pthread_mutex_unlock(&context->programs_lock);
        status = load_or_build(context, kernel, strbuf_text(&options), entry->key, &entry->program, &entry->info);
        pthread_mutex_lock(&context->programs_lock);
        entry->building = 0;
        if (status != CLS_OK) {
            unlink_entry(context, entry);
            free(entry->key);
            free(entry);
            entry = NULL;
        }
        pthread_cond_broadcast(&context->program_built);
    }
    if (status == CLS_OK && entry) {
        clRetainProgram(entry->program);
        *program = entry->program;
        *info = entry->info;
    }
    pthread_mutex_unlock(&context->programs_lock);
    strbuf_free(&options);
    strbuf_free(&key);
    return status;
}

void cls_programs_release(cls_context *context)
{
    struct cls_program_entry *entry = context->programs;
    while (entry) {
        struct cls_program_entry *next = entry->next;
        clReleaseProgram(entry->program);
        free(entry->key);
        free(entry);
        entry = next;
    }
    context->programs = NULL;
}
