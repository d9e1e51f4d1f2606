/* text_file.c — data files as text: a whole file, a section's line (see text_file.h). */
#include "text_file.h"

#include "error.h"
#include "strbuf.h"

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
