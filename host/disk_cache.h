/* disk_cache.h — the on-disk cache of program binaries (internal). Entries are keyed by the
 * device fingerprint and a hash of (source, build options); every read is verified, and any
 * defect removes the entry so that the caller rebuilds from source. */
#ifndef CLS_DISK_CACHE_H
#define CLS_DISK_CACHE_H

#include "clstencil.h"
#include "strbuf.h"

#include <stdint.h>

#define CLS_CACHE_MAGIC "CLSBIN\r\n"
#define CLS_CACHE_FORMAT_VERSION 2u /* 2: the checksum covers key, build info and payload */
#define CLS_CACHE_DEFAULT_MAX (256ull << 20)
/* The largest entry file read; larger ones are defective (program binaries are a few MB). */
#define CLS_CACHE_MAX_ENTRY (64ull << 20)

/* The payload of an entry for a runtime that keeps its own cache of builds (PoCL): the entry
 * records that the program was built, and a build from source then takes the runtime's cache (27
 * ms on PoCL). Asking PoCL for a binary compiles a work-group function for any local size, 0.26 s
 * of a 1.6 s first run on two cores. */
#define CLS_CACHE_RUNTIME_HELD "built; held by the runtime's own cache of builds\n"

/* Process-wide counters behind cls_cache_query. */
void cls_disk_cache_count(int hit);

/* The cache's folder and policy, from the environment. */
typedef struct cls_disk_cache {
    int enabled;           /* CLSTENCIL_CACHE=off disables; so does an untrusted folder */
    strbuf directory;      /* CLSTENCIL_CACHE_DIR, else $XDG_CACHE_HOME/clstencil, else ~/.cache/clstencil */
    uint64_t max_bytes;    /* CLSTENCIL_CACHE_MAX (bytes; K, M, G suffixes), default 256 MiB */
} cls_disk_cache;

/* Reads the environment; an unusable CLSTENCIL_CACHE_MAX is CLS_ERR_INVALID_ARGUMENT. */
cls_status cls_disk_cache_open(cls_disk_cache *cache);
void cls_disk_cache_close(cls_disk_cache *cache);

/* The entry key: fingerprint + XXH3-128 of source and options, as text; and its file name. */
void cls_disk_cache_key(const char *fingerprint, const char *source, const char *options, strbuf *key);

/* Looks an entry up. On success *binary (malloc'd) and *info are set and the entry's time of
 * last use is refreshed. A missing entry returns 0; a defective one is removed and returns 0. */
int cls_disk_cache_load(const cls_disk_cache *cache, const char *key, unsigned char **binary,
                        size_t *size, cls_build_info *info);
/* Checks an entry's bytes against KEY; on success points *payload into BYTES and fills *info.
 * 1 for a whole, matching entry, 0 for anything else (any bytes are safe to pass). */
int cls_disk_cache_parse_entry(const unsigned char *bytes, size_t size, const char *key,
                               const unsigned char **payload, size_t *payload_size, cls_build_info *info);
/* Removes an entry (after the device refused its binary). */
void cls_disk_cache_remove(const cls_disk_cache *cache, const char *key);
/* Writes an entry atomically (temp file, flush, rename), then evicts least recently used
 * entries while the folder holds more than max_bytes. Failures leave the cache as it was and
 * are not errors: the program works, uncached. */
void cls_disk_cache_store(const cls_disk_cache *cache, const char *key, const unsigned char *binary,
                          size_t size, const cls_build_info *info);

/* Entries and bytes in the folder. */
void cls_disk_cache_usage(const cls_disk_cache *cache, size_t *entries, uint64_t *bytes);
/* Removes every entry (and stale temp file); returns how many files went. */
size_t cls_disk_cache_clear(const cls_disk_cache *cache);

#endif
