/* files.h — file-system helpers of the library (internal): folders created owner-only, and
 * files replaced atomically so that readers see the old or the new contents, never a part. */
#ifndef CLS_FILES_H
#define CLS_FILES_H

#include <stddef.h>

/* The prefix of the temporary files cls_write_file_atomic leaves only when it is interrupted. */
#define CLS_TEMP_PREFIX ".tmp-"

/* mkdir -p, with owner-only permissions for the folders it creates; 0 on failure (errno set). */
int cls_make_directory(const char *path);
/* Writes data to a temporary file beside path, flushes it to disk and renames it over path;
 * 0 on failure (errno set), leaving path as it was. */
int cls_write_file_atomic(const char *path, const void *data, size_t size);

#endif
