/* files.c — owner-only folders and atomic file replacement (see files.h). */
#include "files.h"

#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cls_make_directory(const char *path)
{
    strbuf partial;
    strbuf_init(&partial);
    strbuf_append(&partial, path);
    char *text = partial.data;
    int ok = text != NULL;
    for (char *p = text ? text + 1 : NULL; ok && p && *p; ++p)
        if (*p == '/') {
            *p = '\0';
            ok = mkdir(text, 0700) == 0 || errno == EEXIST;
            *p = '/';
        }
    if (ok) ok = mkdir(text, 0700) == 0 || errno == EEXIST;
    strbuf_free(&partial);
    return ok;
}

int cls_write_file_atomic(const char *path, const void *data, size_t size)
{
    strbuf temp;
    strbuf_init(&temp);
    const char *slash = strrchr(path, '/');
    if (slash) strbuf_append_n(&temp, path, (size_t)(slash - path) + 1);
    strbuf_append(&temp, CLS_TEMP_PREFIX "XXXXXX");
    const int fd = strbuf_failed(&temp) ? -1 : mkstemp(temp.data);
    int ok = fd >= 0;
    size_t written = 0;
    while (ok && written < size) {
        const ssize_t n = write(fd, (const char *)data + written, size - written);
        if (n <= 0 && errno != EINTR) ok = 0;
        if (n > 0) written += (size_t)n;
    }
    if (fd >= 0) {
        ok = ok && fsync(fd) == 0;
        ok = close(fd) == 0 && ok;
        ok = ok && rename(temp.data, path) == 0;
        if (!ok) unlink(temp.data);
    }
    strbuf_free(&temp);
    return ok;
}
