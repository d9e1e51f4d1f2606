/* record_overlay.h — a context on the default device whose database record takes some keys from
 * an overlay file (the device's own record, named by its id), so that a test runs on PoCL the
 * generated-code policy of another device's record. Header-only, like the other support files. */
#ifndef CLS_TEST_RECORD_OVERLAY_H
#define CLS_TEST_RECORD_OVERLAY_H

#include <clstencil.h>
#include <clstencil_tuning.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A new context on BASE's device whose record takes KEYS ("name = value" lines) over its own; the
 * overlay's path into PATH. NULL where a step fails. Release with record_overlay_release. */
static cls_context *record_overlay_context(const cls_context *base, const char *keys, char path[32])
{
    cls_device_db *db = NULL;
    if (cls_device_db_load("", &db) != CLS_OK) return NULL;
    const cls_arch_record *record = cls_device_db_match(db, cls_context_device(base), NULL);
    snprintf(path, 32, "/tmp/clstencil-record-XXXXXX");
    const int fd = record ? mkstemp(path) : -1;
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (file) fprintf(file, "[%s]\n%s", record->id, keys), fclose(file);
    cls_device_db_release(db);
    cls_context *overlaid = NULL;
    if (!file || cls_set_config_paths(path, "") != CLS_OK || cls_context_create(NULL, &overlaid) != CLS_OK) return NULL;
    return overlaid;
}

/* The context released, the default configuration back, the overlay removed. */
static void record_overlay_release(cls_context *overlaid, const char *path)
{
    cls_context_release(overlaid);
    cls_set_config_paths(NULL, NULL);
    unlink(path);
}

#endif
