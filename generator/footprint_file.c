/* footprint_file.c — reads a footprint drawn in 0s and 1s (see footprint_file.h), checking every
 * line as it goes so that a message can point at the first bad one. */
#include "footprint_file.h"

#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct footprint_reader {
    const char *path;
    unsigned char cells[CLS_MAX_MASK * CLS_MAX_MASK];
    unsigned width, height, ones;
} footprint_reader;

static cls_status bad_line(const footprint_reader *r, unsigned line, const char *why, ...)
    __attribute__((format(printf, 3, 4)));
static cls_status bad_line(const footprint_reader *r, unsigned line, const char *why, ...)
{
    char text[160];
    va_list args;
    va_start(args, why);
    vsnprintf(text, sizeof text, why, args);
    va_end(args);
    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s, line %u: %s", r->path, line, text);
}

/* Appends the row of LINE (its text, NUL-terminated, without the newline) to the footprint. */
static cls_status read_row(footprint_reader *r, unsigned line, const char *text)
{
    if (r->height == CLS_MAX_MASK) return bad_line(r, line, "more than %d rows: at most %d", CLS_MAX_MASK, CLS_MAX_MASK);
    unsigned count = 0;
    for (const char *p = text; *p; ++p) {
        if (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r') continue;
        if (*p != '0' && *p != '1') {
            if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
                return bad_line(r, line, "byte 0x%02x is not a cell (0 or 1)", (unsigned char)*p);
            return bad_line(r, line, "'%c' is not a cell (0 or 1)", *p);
        }
        if (count == CLS_MAX_MASK) return bad_line(r, line, "more than %d cells: at most %d", CLS_MAX_MASK, CLS_MAX_MASK);
        r->cells[r->height * CLS_MAX_MASK + count++] = (unsigned char)(*p == '1');
        r->ones += *p == '1';
    }
    if (r->height == 0) r->width = count;
    else if (count != r->width)
        return bad_line(r, line, "%u cells, but the first row has %u: every row is as wide", count, r->width);
    ++r->height;
    return CLS_OK;
}

/* Whether LINE holds nothing to read: blanks only, or a comment ('#' first). */
static int skipped(const char *line)
{
    line += strspn(line, " \t\r");
    return *line == '\0' || *line == '#';
}

static cls_status read_lines(footprint_reader *r, FILE *file)
{
    char *text = NULL;
    size_t capacity = 0;
    ssize_t length;
    unsigned line = 0;
    cls_status status = CLS_OK;
    while (status == CLS_OK && (length = getline(&text, &capacity, file)) >= 0) {
        ++line;
        if (length > 0 && text[length - 1] == '\n') text[--length] = '\0';
        if (strlen(text) != (size_t)length) status = bad_line(r, line, "a NUL byte: not a text file");
        else if (!skipped(text)) status = read_row(r, line, text);
    }
    free(text);
    if (status == CLS_OK && ferror(file)) status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: cannot read it", r->path);
    return status;
}

/* The footprint's size and content rules, once every row is read. */
static cls_status check_footprint(const footprint_reader *r)
{
    if (r->height == 0 || r->width == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: no rows of 0s and 1s in it", r->path);
    if (r->ones == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: no cell is 1, the footprint is empty", r->path);
    return CLS_OK;
}

cls_status cls_footprint_file_read(const char *path, unsigned char **cells, unsigned *width, unsigned *height)
{
    *cells = NULL;
    struct stat info;
    if (stat(path, &info) != 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: %s", path, strerror(errno));
    if (!S_ISREG(info.st_mode)) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: not a regular file", path);
    if (info.st_size > CLS_FOOTPRINT_FILE_MAX_BYTES)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: %lld bytes, more than %d (at most %d rows of %d cells)",
                        path, (long long)info.st_size, CLS_FOOTPRINT_FILE_MAX_BYTES, CLS_MAX_MASK, CLS_MAX_MASK);
    FILE *file = fopen(path, "r");
    if (!file) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "footprint file %s: %s", path, strerror(errno));
    footprint_reader *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(file);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    r->path = path;
    cls_status status = read_lines(r, file);
    fclose(file);
    if (status == CLS_OK) status = check_footprint(r);
    if (status == CLS_OK && !(*cells = malloc((size_t)r->width * r->height)))
        status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK) {
        for (unsigned j = 0; j < r->height; ++j) memcpy(*cells + (size_t)j * r->width, r->cells + j * CLS_MAX_MASK, r->width);
        *width = r->width;
        *height = r->height;
    }
    free(r);
    return status;
}
