/* options.c — small command-line helpers shared by the subcommands. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "commands.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int parse_size(const char *text, unsigned *width, unsigned *height)
{
    char tail;
    return text && sscanf(text, "%ux%u%c", width, height, &tail) == 2 && *width > 0 && *height > 0;
}

static int remove_one(const char *path, const struct stat *info, int flag, struct FTW *walk)
{
    (void)info, (void)flag, (void)walk;
    return remove(path);
}

void remove_folder(const char *path) { nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int report_failure(const char *command, cls_status status)
{
    fprintf(stderr, "clstencil %s: %s\n", command, cls_last_error());
    switch (status) {
    case CLS_ERR_NO_PLATFORM:
    case CLS_ERR_NO_DEVICE: return EXIT_NO_DEVICE;
    case CLS_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    default: return EXIT_FAILURE_;
    }
}
