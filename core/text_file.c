/* text_file.c — data files as text: a whole file, a section's line, WxH values, printable
 * excerpts and duplicate keys (see text_file.h). */
#include "text_file.h"

#include "error.h"
#include "strbuf.h"

#include <ctype.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

char *cls_read_text_file(const char *path, const char *what, int missing_is_empty, cls_status *status)
{
    *status = CLS_OK;
    FILE *file = fopen(path, "rb");
    if (!file) {
        if (!missing_is_empty || errno != ENOENT)
            *status = cls_fail(CLS_ERR_IO, "%s: cannot open %s: %s", path, what, strerror(errno));
        return NULL;
    }
    strbuf text;
    strbuf_init(&text);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) strbuf_append_n(&text, chunk, got);
    const int failed = ferror(file);
    fclose(file);
    if (failed || strbuf_failed(&text)) {
        strbuf_free(&text);
        *status = cls_fail(CLS_ERR_IO, "%s: cannot read %s", path, what);
        return NULL;
    }
    return strbuf_take(&text);
}

int cls_ini_section_line(const char *text, const char *section)
{
    int line = 1;
    const size_t length = strlen(section);
    for (const char *p = text; *p; ++line) {
        const char *start = p + strspn(p, " \t");
        if (*start == '[' && strncmp(start + 1, section, length) == 0 && start[1 + length] == ']') return line;
        p += strcspn(p, "\n");
        if (*p) ++p;
    }
    return 0;
}

static int parse_side(const char *text, const char **end, unsigned *value)
{
    unsigned long number = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9' && p - text < 8; ++p) number = number * 10 + (unsigned long)(*p - '0');
    *end = p;
    *value = (unsigned)number;
    return p > text && number >= 1 && number <= (1ul << 20);
}

int cls_parse_size(const char *text, unsigned *width, unsigned *height, unsigned *depth)
{
    const char *p;
    unsigned w, h, d = 0;
    if (!parse_side(text, &p, &w) || *p != 'x' || !parse_side(p + 1, &p, &h)) return 0;
    if (*p == 'x' && !parse_side(p + 1, &p, &d)) return 0;
    if (*p) return 0;
    *width = w;
    *height = h;
    *depth = d;
    return 1;
}

int cls_parse_pair(const char *text, unsigned *width, unsigned *height)
{
    unsigned w, h, d;
    if (!cls_parse_size(text, &w, &h, &d) || d) return 0;
    *width = w;
    *height = h;
    return 1;
}

const char *cls_printable(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && n + 5 < size; ++p) {
        if (p - (const unsigned char *)text >= 48) {
            n += (size_t)snprintf(out + n, size - n, "...");
            break;
        }
        if (*p >= 0x20 && *p < 0x7f) out[n++] = (char)*p;
        else n += (size_t)snprintf(out + n, size - n, "\\x%02x", *p);
    }
    out[n < size ? n : size - 1] = '\0';
    return out;
}

int cls_ini_key_seen(strbuf *seen, const char *section, const char *key)
{
    strbuf entry;
    strbuf_init(&entry);
    strbuf_printf(&entry, "\n%s\x1f%s\n", section, key);
    const int found = seen->length && strstr(strbuf_text(seen), strbuf_text(&entry)) != NULL;
    if (!found) strbuf_append(seen, strbuf_text(&entry));
    strbuf_free(&entry);
    return found;
}

cls_status cls_ini_check_lines(const char *text, const char *location)
{
    int line = 1;
    char shown[256];
    for (const char *p = text; *p; ++line) {
        const size_t length = strcspn(p, "\n");
        char content[256];
        const size_t kept = length < sizeof content - 1 ? length : sizeof content - 1;
        memcpy(content, p, kept);
        content[kept] = '\0';
        const char *start = content + strspn(content, " \t\r");
        if (length >= 200)
            return cls_fail(CLS_ERR_PARSE, "%s:%d: the line is %zu characters long (at most 199)", location, line, length);
        if (*start && *start != ';' && *start != '#' && !(*start == '[' && strchr(start, ']')) && !strchr(start, '=') &&
            !strchr(start, ':'))
            return cls_fail(CLS_ERR_PARSE, "%s:%d: not a [section], a NAME = VALUE line or a comment: '%s'", location,
                            line, cls_printable(start, shown, sizeof shown));
        p += length;
        if (*p) ++p;
    }
    return CLS_OK;
}
