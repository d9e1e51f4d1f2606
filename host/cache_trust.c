/* cache_trust.c — the CLSTENCIL_CACHE switch and the cache folder's trust rule (see cache_trust.h). */
#include "cache_trust.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const off_words[] = {"off", "0", "no", "false"};
static const char *const on_words[] = {"on", "1", "yes", "true"};

static int one_of(const char *value, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (strcasecmp(value, words[i]) == 0) return 1;
    return 0;
}

int cls_cache_mode_off(const char *value) { return value && one_of(value, off_words, 4); }

int cls_cache_mode_known(const char *value)
{
    return !value || !*value || one_of(value, off_words, 4) || one_of(value, on_words, 4);
}

int cls_cache_folder_trusted(const char *folder, char *why, size_t why_size)
{
    struct stat info;
    const char *reason = NULL;
    if (stat(folder, &info) != 0) return errno == ENOENT; /* created owner-only on first store */
    if (!S_ISDIR(info.st_mode)) reason = "it is not a folder";
    else if (info.st_uid != geteuid()) reason = "it belongs to another user";
    else if (info.st_mode & (S_IWGRP | S_IWOTH)) reason = "others may write to it (group or world write permission)";
    if (reason && why && why_size) snprintf(why, why_size, "%s", reason);
    return reason == NULL;
}
