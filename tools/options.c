/* options.c — small command-line helpers shared by the subcommands. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "commands.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One side of a size: 1 to 2^20 in decimal digits only (no sign: sscanf's %u wraps "-64"). */
static int parse_side(const char *text, const char **end, unsigned *value)
{
    unsigned long number = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9' && p - text < 8; ++p) number = number * 10 + (unsigned long)(*p - '0');
    *end = p;
    *value = (unsigned)number;
    return p > text && number >= 1 && number <= (1ul << 20);
}

int parse_size(const char *text, unsigned *width, unsigned *height)
{
    const char *p;
    return text && parse_side(text, &p, width) && *p == 'x' && parse_side(p + 1, &p, height) && *p == '\0';
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

void printable_excerpt(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && n + 5 < size; ++p) {
        if (p - (const unsigned char *)text >= 60) {
            n += (size_t)snprintf(out + n, size - n, "...");
            break;
        }
        if (*p >= 0x20 && *p < 0x7f) out[n++] = (char)*p;
        else n += (size_t)snprintf(out + n, size - n, "\\x%02x", *p);
    }
    out[n < size ? n : size - 1] = '\0';
}

/* The --device the command line gave, for messages: the library names CLSTENCIL_DEVICE, which
 * was not where the selector came from. */
static const char *device_option;

void note_device_option(const char *selector) { device_option = selector; }

static void print_error(const char *command, cls_status status)
{
    static const char library_name[] = "CLSTENCIL_DEVICE '";
    const char *message = cls_last_error();
    const char *named = status == CLS_ERR_NO_DEVICE && device_option ? strstr(message, library_name) : NULL;
    if (!named) {
        fprintf(stderr, "clstencil %s: %s\n", command, message);
        return;
    }
    fprintf(stderr, "clstencil %s: %.*s--device '%s\n", command, (int)(named - message), message,
            named + sizeof library_name - 1);
}

void report_context_warnings(const char *command, const cls_context *context)
{
    const char *line = cls_context_warnings(context);
    while (*line) {
        const size_t length = strcspn(line, "\n");
        fprintf(stderr, "clstencil %s: warning: %.*s\n", command, (int)length, line);
        line += length + (line[length] == '\n');
    }
}

int report_failure(const char *command, cls_status status)
{
    print_error(command, status);
    switch (status) {
    case CLS_ERR_NO_PLATFORM:
    case CLS_ERR_NO_DEVICE: return EXIT_NO_DEVICE;
    case CLS_ERR_INVALID_ARGUMENT: return EXIT_USAGE;
    default: return EXIT_FAILURE_;
    }
}
