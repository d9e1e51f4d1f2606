/* cache_warning.c — the warnings about the binary cache that the library cannot print: an
 * unknown CLSTENCIL_CACHE value (ignored: the cache stays on), and a cache folder the library
 * bypasses because it is not trusted (another user's, or writable by others, as git and ssh
 * refuse such folders). The words match the library's (host/cache_trust.c). */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const words[] = {"on", "1", "yes", "true", "off", "0", "no", "false"};

static int known(const char *value, int off_only)
{
    for (size_t i = off_only ? 4 : 0; i < sizeof words / sizeof words[0]; ++i)
        if (strcasecmp(value, words[i]) == 0) return 1;
    return 0;
}

void cache_warning(const char *command)
{
    const char *mode = getenv("CLSTENCIL_CACHE");
    char excerpt[256];
    if (mode && *mode && !known(mode, 0)) {
        printable_excerpt(mode, excerpt, sizeof excerpt);
        fprintf(stderr,
                "clstencil %s: warning: CLSTENCIL_CACHE='%s' is not on, off, 1, 0, yes, no, true or false; "
                "ignored (the binary cache stays on)\n", command, excerpt);
        return;
    }
    if (mode && known(mode, 1)) return; /* off on purpose */
    cls_cache_status status = {CLS_CACHE_STATUS_INIT};
    if (cls_cache_query(&status) != CLS_OK || status.enabled || !status.directory[0]) return;
    struct stat info;
    if (stat(status.directory, &info) != 0) return;
    const char *why = !S_ISDIR(info.st_mode)                 ? "it is not a folder"
                      : info.st_uid != geteuid()              ? "it belongs to another user"
                      : info.st_mode & (S_IWGRP | S_IWOTH)    ? "others may write to it"
                                                              : NULL;
    if (why)
        fprintf(stderr,
                "clstencil %s: warning: the binary cache %s is not used: %s (binaries are loaded only "
                "from a folder of your own that no one else may write to; chmod go-w it or set "
                "CLSTENCIL_CACHE_DIR)\n", command, status.directory, why);
}
