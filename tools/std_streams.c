/* std_streams.c — standard input and output as `filter`'s IN and OUT: standard input is copied
 * into a temporary file named after the format its first bytes show, and an output bound for
 * standard output is written to a temporary file (by the same atomic writer as any output) and
 * then copied out; the temporary files live in $TMPDIR (else /tmp) and the caller removes them. */
#define _GNU_SOURCE
#include "std_streams.h"

#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *image_extension_of(const unsigned char *head, unsigned long size)
{
    if (size >= 2 && head[0] == 'P' && head[1] == '5') return "pgm";
    if (size >= 2 && head[0] == 'P' && head[1] == '6') return "ppm";
    if (size >= 2 && head[0] == 'P' && (head[1] == 'f' || head[1] == 'F')) return "pfm";
    /* TIFF and BigTIFF: byte order "II" or "MM", then 42 or 43 in that order */
    if (size >= 4 && head[0] == 'I' && head[1] == 'I' && (head[2] == 42 || head[2] == 43) && head[3] == 0) return "tif";
    if (size >= 4 && head[0] == 'M' && head[1] == 'M' && head[2] == 0 && (head[3] == 42 || head[3] == 43)) return "tif";
    return NULL;
}

/* A new empty temporary file "clstencil-ROLE-XXXXXX.EXT": its path (malloc'd) and open
 * descriptor, or NULL. */
static char *temporary(const char *role, const char *ext, int *fd)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char *path = NULL;
    if (asprintf(&path, "%s/clstencil-%s-XXXXXX.%s", dir, role, ext) < 0) return NULL;
    *fd = mkstemps(path, (int)strlen(ext) + 1);
    if (*fd < 0) {
        fprintf(stderr, "clstencil filter: cannot create a temporary file in %s: %s\n", dir, strerror(errno));
        free(path);
        return NULL;
    }
    return path;
}

static int write_all(int fd, const unsigned char *data, size_t size)
{
    while (size) {
        const ssize_t done = write(fd, data, size);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        data += done;
        size -= (size_t)done;
    }
    return 0;
}

/* Up to SIZE bytes of standard input (fewer only at its end); -1 on a read error. */
static ssize_t read_some(unsigned char *buffer, size_t size)
{
    size_t got = 0;
    while (got < size) {
        const ssize_t n = read(STDIN_FILENO, buffer + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

char *stdin_spool(int *code)
{
    unsigned char buffer[1 << 16];
    ssize_t got = read_some(buffer, 4);
    const char *ext = got > 0 ? image_extension_of(buffer, (unsigned long)got) : NULL;
    if (got < 0 || got == 0 || !ext) {
        if (got < 0) fprintf(stderr, "clstencil filter: cannot read standard input: %s\n", strerror(errno));
        else if (got == 0) fprintf(stderr, "clstencil filter: standard input is empty: no image to read\n");
        else fprintf(stderr, "clstencil filter: standard input is not a PGM, PPM, PFM or TIFF image\n");
        *code = got < 0 ? EXIT_INPUT_MISSING : got == 0 ? EXIT_INPUT_CORRUPT : EXIT_INPUT_UNSUPPORTED;
        return NULL;
    }
    int fd;
    char *path = temporary("stdin", ext, &fd);
    *code = EXIT_OUTPUT;
    if (!path) return NULL;
    int failed = 0;
    while (!failed && got > 0) {
        failed = write_all(fd, buffer, (size_t)got) != 0;
        got = read_some(buffer, sizeof buffer);
    }
    if (close(fd) != 0) failed = 1;
    if (failed || got < 0) {
        fprintf(stderr, "clstencil filter: cannot %s: %s\n",
                got < 0 ? "read standard input" : "copy standard input to a temporary file", strerror(errno));
        *code = got < 0 ? EXIT_INPUT_MISSING : EXIT_OUTPUT;
        unlink(path);
        free(path);
        return NULL;
    }
    *code = EXIT_OK_;
    return path;
}

char *stdout_spool(const char *ext)
{
    int fd;
    char *path = temporary("stdout", ext, &fd);
    if (path) close(fd);
    return path;
}

int stdout_copy(const char *path)
{
    FILE *in = fopen(path, "rb");
    unsigned char buffer[1 << 16];
    size_t got = 0;
    int failed = !in;
    while (!failed && (got = fread(buffer, 1, sizeof buffer, in)) > 0)
        failed = write_all(STDOUT_FILENO, buffer, got) != 0;
    if (in && ferror(in)) failed = 1;
    if (in) fclose(in);
    if (failed) fprintf(stderr, "clstencil filter: cannot write the image to standard output: %s\n", strerror(errno));
    return failed ? -1 : 0;
}
