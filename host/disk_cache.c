/* disk_cache.c — program binaries on disk. One file per entry:
 *   magic (8) | format version (u32) | key length (u32) | key | build info (8 x u64) |
 *   payload length (u64) | checksum (XXH3-64 of key, build info and payload, u64) | payload
 * all integers little-endian. Writers fill a unique temp file, flush it and rename it into
 * place, so readers see a whole entry or none; a defective entry is removed on sight. Reads
 * open the entry without following links or blocking, and take only a regular file of this
 * user of at most CLS_CACHE_MAX_ENTRY bytes. The folder is used only when it is this user's
 * and no one else may write to it (cache_trust.c). The time of last use is the file's
 * modification time, which eviction sorts by. */
#include "disk_cache.h"

#include "byte_size.h"
#include "cache_trust.h"
#include "error.h"
#include "files.h"
#include "struct_size.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#define ENTRY_SUFFIX ".clsbin"
#define INFO_FIELDS 8

static atomic_ulong cache_hits, cache_misses;

void cls_disk_cache_count(int hit) { atomic_fetch_add(hit ? &cache_hits : &cache_misses, 1); }

cls_status cls_disk_cache_open(cls_disk_cache *cache)
{
    memset(cache, 0, sizeof *cache);
    strbuf_init(&cache->directory);
    const char *mode = getenv("CLSTENCIL_CACHE");
    cache->enabled = !cls_cache_mode_off(mode);
    const char *dir = getenv("CLSTENCIL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir && *dir) strbuf_append(&cache->directory, dir);
    else if (xdg && *xdg) strbuf_printf(&cache->directory, "%s/clstencil", xdg);
    else if (home && *home) strbuf_printf(&cache->directory, "%s/.cache/clstencil", home);
    else cache->enabled = 0; /* nowhere to put it */
    /* Another user's folder, or one others may write to, could hand us their binaries. */
    if (cache->enabled && !cls_cache_folder_trusted(strbuf_text(&cache->directory), NULL, 0)) cache->enabled = 0;
    cache->max_bytes = CLS_CACHE_DEFAULT_MAX;
    const char *max = getenv("CLSTENCIL_CACHE_MAX");
    if (max && *max && !cls_byte_size_parse(max, &cache->max_bytes)) {
        strbuf_free(&cache->directory);
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "CLSTENCIL_CACHE_MAX='%s' is not a size (bytes, or a number with K, M or G)", max);
    }
    return CLS_OK;
}

void cls_disk_cache_close(cls_disk_cache *cache) { strbuf_free(&cache->directory); }

void cls_disk_cache_key(const char *fingerprint, const char *source, const char *options, strbuf *key)
{
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    XXH3_128bits_update(&state, source, strlen(source) + 1); /* the NUL separates the two */
    XXH3_128bits_update(&state, options, strlen(options));
    const XXH128_hash_t hash = XXH3_128bits_digest(&state);
    strbuf_printf(key, "%s-%016llx%016llx", fingerprint, (unsigned long long)hash.high64,
                  (unsigned long long)hash.low64);
}

static void entry_path(const cls_disk_cache *cache, const char *key, strbuf *path)
{
    strbuf_printf(path, "%s/%s" ENTRY_SUFFIX, strbuf_text(&cache->directory), key);
}

static void put_u32(strbuf *out, uint32_t v)
{
    unsigned char bytes[4];
    for (int i = 0; i < 4; ++i) bytes[i] = (unsigned char)(v >> (8 * i));
    strbuf_append_n(out, (const char *)bytes, 4);
}

static void put_u64(strbuf *out, uint64_t v)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = (unsigned char)(v >> (8 * i));
    strbuf_append_n(out, (const char *)bytes, 8);
}

static uint64_t get_le(const unsigned char *bytes, int count)
{
    uint64_t v = 0;
    for (int i = count - 1; i >= 0; --i) v = (v << 8) | bytes[i];
    return v;
}

static void info_to_fields(const cls_build_info *info, uint64_t fields[INFO_FIELDS])
{
    const uint64_t values[INFO_FIELDS] = {info->registers, info->spill_store_bytes, info->spill_load_bytes,
                                          info->stack_frame_bytes, info->work_group_size, info->private_mem_size,
                                          info->local_mem_size, info->preferred_multiple};
    memcpy(fields, values, sizeof values);
}

static void fields_to_info(const uint64_t fields[INFO_FIELDS], cls_build_info *info)
{
    memset(info, 0, sizeof *info);
    info->registers = (uint32_t)fields[0];
    info->spill_store_bytes = (uint32_t)fields[1];
    info->spill_load_bytes = (uint32_t)fields[2];
    info->stack_frame_bytes = (uint32_t)fields[3];
    info->work_group_size = fields[4];
    info->private_mem_size = fields[5];
    info->local_mem_size = fields[6];
    info->preferred_multiple = fields[7];
}

/* Reads the entry at PATH: 1 with its bytes, 0 when it is absent, -1 when it is not a regular
 * file of this user within the size cap, or cannot be read (the caller removes it). */
static int read_entry(const char *path, unsigned char **contents, size_t *length)
{
    *contents = NULL;
    *length = 0;
    /* O_NOFOLLOW: a link (to /dev/zero, say) is refused; O_NONBLOCK: a FIFO does not block. */
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat info;
    int ok = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == geteuid() && info.st_size > 0 &&
             (uint64_t)info.st_size <= CLS_CACHE_MAX_ENTRY;
    const size_t size = ok ? (size_t)info.st_size : 0;
    if (ok) ok = (*contents = malloc(size)) != NULL;
    size_t got = 0;
    while (ok && got < size) { /* never more than fstat said, even if the file grows */
        const ssize_t n = read(fd, *contents + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ok = 0;
        else got += (size_t)n;
    }
    *length = got;
    close(fd);
    return ok ? 1 : -1;
}

/* The checksum that binds the key and build info to the payload. */
static uint64_t entry_checksum(const char *key, const uint64_t fields[INFO_FIELDS], const unsigned char *payload,
                               size_t size)
{
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, key, strlen(key) + 1);
    unsigned char bytes[8 * INFO_FIELDS];
    for (int i = 0; i < INFO_FIELDS; ++i)
        for (int b = 0; b < 8; ++b) bytes[8 * i + b] = (unsigned char)(fields[i] >> (8 * b));
    XXH3_64bits_update(&state, bytes, sizeof bytes);
    XXH3_64bits_update(&state, payload, size);
    return XXH3_64bits_digest(&state);
}

int cls_disk_cache_parse_entry(const unsigned char *bytes, size_t size, const char *key,
                               const unsigned char **payload, size_t *payload_size, cls_build_info *info)
{
    const unsigned char *p = bytes, *end = p + size;
    const size_t key_length = strlen(key);
    if (!p || (size_t)(end - p) < 8 + 4 + 4) return 0;
    if (memcmp(p, CLS_CACHE_MAGIC, 8) != 0) return 0;
    if (get_le(p + 8, 4) != CLS_CACHE_FORMAT_VERSION) return 0;
    if (get_le(p + 12, 4) != key_length) return 0;
    p += 16;
    if ((size_t)(end - p) < key_length + 8 * INFO_FIELDS + 16 || memcmp(p, key, key_length) != 0) return 0;
    p += key_length;
    uint64_t fields[INFO_FIELDS];
    for (int i = 0; i < INFO_FIELDS; ++i, p += 8) fields[i] = get_le(p, 8);
    const uint64_t length = get_le(p, 8), checksum = get_le(p + 8, 8);
    p += 16;
    if (length == 0 || length != (uint64_t)(end - p)) return 0;
    if (entry_checksum(key, fields, p, (size_t)length) != checksum) return 0;
    fields_to_info(fields, info);
    *payload = p;
    *payload_size = (size_t)length;
    return 1;
}

int cls_disk_cache_load(const cls_disk_cache *cache, const char *key, unsigned char **binary,
                        size_t *size, cls_build_info *info)
{
    if (!cache->enabled) return 0;
    strbuf path;
    strbuf_init(&path);
    entry_path(cache, key, &path);
    int found = 0;
    unsigned char *contents;
    size_t length;
    const int read = read_entry(strbuf_text(&path), &contents, &length);
    if (read != 0) {
        const unsigned char *payload;
        size_t payload_size;
        if (read > 0 &&
            cls_disk_cache_parse_entry(contents, length, key, &payload,
                                       &payload_size, info) &&
            (*binary = malloc(payload_size))) {
            memcpy(*binary, payload, payload_size);
            *size = payload_size;
            found = 1;
            utimensat(AT_FDCWD, strbuf_text(&path), NULL, AT_SYMLINK_NOFOLLOW); /* now: most recently used */
        } else {
            unlink(strbuf_text(&path)); /* truncated, corrupt, foreign, oversized, not a file, unreadable */
        }
    }
    strbuf_free(&path);
    free(contents);
    return found;
}

void cls_disk_cache_remove(const cls_disk_cache *cache, const char *key)
{
    strbuf path;
    strbuf_init(&path);
    entry_path(cache, key, &path);
    unlink(strbuf_text(&path));
    strbuf_free(&path);
}

typedef struct entry_file {
    char *path;
    uint64_t bytes;
    struct timespec used;
} entry_file;

static int older_first(const void *a, const void *b)
{
    const entry_file *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Lists the entries (and, when temps is set, stale temp files) of the folder. */
static size_t list_entries(const cls_disk_cache *cache, entry_file **out, int temps)
{
    *out = NULL;
    DIR *dir = opendir(strbuf_text(&cache->directory));
    if (!dir) return 0;
    size_t count = 0, capacity = 0;
    struct dirent *item;
    while ((item = readdir(dir))) {
        const size_t length = strlen(item->d_name), suffix = strlen(ENTRY_SUFFIX);
        const int is_entry = length > suffix && strcmp(item->d_name + length - suffix, ENTRY_SUFFIX) == 0 &&
                             item->d_name[0] != '.';
        const int is_temp = strncmp(item->d_name, CLS_TEMP_PREFIX, strlen(CLS_TEMP_PREFIX)) == 0;
        if (!is_entry && !(temps && is_temp)) continue;
        strbuf path;
        strbuf_init(&path);
        strbuf_printf(&path, "%s/%s", strbuf_text(&cache->directory), item->d_name);
        struct stat info;
        if (stat(strbuf_text(&path), &info) != 0) {
            strbuf_free(&path);
            continue;
        }
        if (count == capacity) {
            entry_file *grown = realloc(*out, (capacity = capacity ? 2 * capacity : 64) * sizeof *grown);
            if (!grown) {
                strbuf_free(&path);
                break;
            }
            *out = grown;
        }
        (*out)[count++] = (entry_file){strbuf_take(&path), (uint64_t)info.st_size, info.st_mtim};
    }
    closedir(dir);
    return count;
}

static void free_entries(entry_file *entries, size_t count)
{
    for (size_t i = 0; i < count; ++i) free(entries[i].path);
    free(entries);
}

/* Removes least recently used entries until the folder fits the cap. */
static void evict(const cls_disk_cache *cache)
{
    entry_file *entries;
    const size_t count = list_entries(cache, &entries, 0);
    uint64_t total = 0;
    for (size_t i = 0; i < count; ++i) total += entries[i].bytes;
    if (total > cache->max_bytes) {
        qsort(entries, count, sizeof *entries, older_first);
        for (size_t i = 0; i < count && total > cache->max_bytes; ++i)
            if (unlink(entries[i].path) == 0 || errno == ENOENT) total -= entries[i].bytes;
    }
    free_entries(entries, count);
}

void cls_disk_cache_store(const cls_disk_cache *cache, const char *key, const unsigned char *binary,
                          size_t size, const cls_build_info *info)
{
    if (!cache->enabled || !binary || size == 0 || size > CLS_CACHE_MAX_ENTRY / 2 ||
        !cls_make_directory(strbuf_text(&cache->directory)))
        return;
    strbuf entry, path;
    strbuf_init(&entry);
    strbuf_init(&path);
    strbuf_append_n(&entry, CLS_CACHE_MAGIC, 8);
    put_u32(&entry, CLS_CACHE_FORMAT_VERSION);
    put_u32(&entry, (uint32_t)strlen(key));
    strbuf_append(&entry, key);
    uint64_t fields[INFO_FIELDS];
    info_to_fields(info, fields);
    for (int i = 0; i < INFO_FIELDS; ++i) put_u64(&entry, fields[i]);
    put_u64(&entry, size);
    put_u64(&entry, entry_checksum(key, fields, binary, size));
    strbuf_append_n(&entry, (const char *)binary, size);
    entry_path(cache, key, &path);
    if (!strbuf_failed(&entry) && !strbuf_failed(&path) && cls_write_file_atomic(strbuf_text(&path), entry.data, entry.length))
        evict(cache);
    strbuf_free(&entry);
    strbuf_free(&path);
}

void cls_disk_cache_usage(const cls_disk_cache *cache, size_t *entries_out, uint64_t *bytes)
{
    entry_file *entries;
    const size_t count = list_entries(cache, &entries, 0);
    *entries_out = count;
    *bytes = 0;
    for (size_t i = 0; i < count; ++i) *bytes += entries[i].bytes;
    free_entries(entries, count);
}

size_t cls_disk_cache_clear(const cls_disk_cache *cache)
{
    entry_file *entries;
    const size_t count = list_entries(cache, &entries, 1);
    size_t removed = 0;
    for (size_t i = 0; i < count; ++i) removed += unlink(entries[i].path) == 0;
    free_entries(entries, count);
    return removed;
}

cls_status cls_cache_query(cls_cache_status *caller_status)
{
    if (!caller_status) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "status pointer is NULL");
    cls_status result = cls_struct_check(&cls_cache_status_layout, caller_status);
    if (result != CLS_OK) return result;
    cls_disk_cache cache;
    result = cls_disk_cache_open(&cache);
    if (result != CLS_OK) return result;
    cls_cache_status status = {CLS_CACHE_STATUS_INIT, .enabled = cache.enabled, .max_bytes = cache.max_bytes};
    snprintf(status.directory, sizeof status.directory, "%s", strbuf_text(&cache.directory));
    cls_disk_cache_usage(&cache, &status.entries, &status.bytes);
    status.hits = atomic_load(&cache_hits);
    status.misses = atomic_load(&cache_misses);
    cls_disk_cache_close(&cache);
    return cls_struct_write(&cls_cache_status_layout, caller_status, &status);
}

cls_status cls_cache_clear(size_t *removed)
{
    cls_disk_cache cache;
    cls_status result = cls_disk_cache_open(&cache);
    if (result != CLS_OK) return result;
    const size_t count = cls_disk_cache_clear(&cache);
    if (removed) *removed = count;
    cls_disk_cache_close(&cache);
    return CLS_OK;
}
