/* pocl_declarations.c — declares for PoCL's front end only the OpenCL C builtins a source calls.
 * PoCL parses clang's declarations of every builtin (opencl-c.h: 900 KB, 14,000 overloads) before
 * each program it builds and again to look one up in its cache of builds, most of a small
 * kernel's build. Its kernel header includes that file unless _OPENCL_H_ is defined; a build with
 * that macro gets the same file's text instead, less every declaration of a function the source
 * never names. The header is read once a process, from PoCL's data folder beside its library. */
#define _GNU_SOURCE
#include "pocl_declarations.h"

#include "text_file.h"

#include <ctype.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* A run of the header's text: a declaration of the function whose name hashes to `name` (0: text
 * every build keeps). */
typedef struct piece {
    size_t start, length;
    uint64_t name;
} piece;

static struct {
    strbuf text; /* the header without comments, opencl-c-base.h in place of its #include */
    piece *pieces;
    size_t count, capacity;
    int ready, failed;
} header;

static pthread_once_t header_once = PTHREAD_ONCE_INIT;

cls_pocl_declarations_mode cls_pocl_declarations_mode_get(void)
{
    const char *mode = getenv("CLSTENCIL_POCL_DECLARATIONS");
    if (mode && strcmp(mode, "off") == 0) return CLS_POCL_DECLARATIONS_OFF;
    if (mode && strcmp(mode, "check") == 0) return CLS_POCL_DECLARATIONS_CHECK;
    return CLS_POCL_DECLARATIONS_ON;
}

static int is_identifier_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A name's hash, never 0 (0 marks text kept always, and an empty slot of a set). */
static uint64_t name_hash(const char *name, size_t length)
{
    const uint64_t hash = XXH3_64bits(name, length);
    return hash ? hash : 1;
}

/* The folder of PoCL's kernel headers: PREFIX/share/pocl/include, PREFIX being the loaded
 * libpocl's real path up to its lib folder ("/usr" for /usr/lib/x86_64-linux-gnu/libpocl.so.2,
 * which Debian loads as /lib/x86_64-linux-gnu/libpocl.so.2). */
static int find_pocl_library(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libpocl.so")) return 0;
    char *path = realpath(info->dlpi_name, NULL);
    const char *lib = path ? strstr(path, "/lib") : NULL;
    if (lib) strbuf_printf(data, "%.*s/share/pocl/include/", (int)(lib - path), path);
    free(path);
    return 1;
}

static void add_piece(size_t start, uint64_t name)
{
    piece *last = header.count ? &header.pieces[header.count - 1] : NULL;
    const size_t length = header.text.length - start;
    if (last && !name && !last->name) { /* text kept always: one piece */
        last->length += length;
        return;
    }
    if (header.count == header.capacity) {
        const size_t capacity = header.capacity ? 2 * header.capacity : 4096;
        piece *grown = realloc(header.pieces, capacity * sizeof *grown);
        if (!grown) {
            header.failed = 1;
            return;
        }
        header.pieces = grown;
        header.capacity = capacity;
    }
    header.pieces[header.count++] = (piece){start, length, name};
}

/* The function a declaration declares: the identifier before its first parenthesis. */
static uint64_t declared_name(const char *declaration, size_t length)
{
    const char *open = memchr(declaration, '(', length), *end = open;
    if (!open) return 0;
    while (end > declaration && end[-1] == ' ') --end;
    const char *begin = end;
    while (begin > declaration && is_identifier_char(begin[-1])) --begin;
    return begin < end ? name_hash(begin, (size_t)(end - begin)) : 0;
}

/* Splits opencl-c.h into pieces: preprocessor lines (with their continuations) and other text
 * kept always, each declaration (from its line holding __ovld to its ';') a piece of its own,
 * comments and blank lines dropped. */
static void split_header(const char *text, const char *base)
{
    int in_comment = 0, continued = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        const size_t length = end ? (size_t)(end - line) : strlen(line);
        const char *next = end ? end + 1 : line + length;
        const char *trimmed = line + strspn(line, " \t");
        const size_t start = header.text.length;
        if (in_comment) {
            in_comment = !memmem(line, length, "*/", 2);
        } else if (continued || *trimmed == '#') {
            if (strncmp(trimmed, "#include \"opencl-c-base.h\"", 26) == 0)
                strbuf_append(&header.text, base);
            else
                strbuf_append_n(&header.text, line, length + (end != NULL));
            continued = length && line[length - 1] == '\\';
            add_piece(start, 0);
        } else if (strncmp(trimmed, "/*", 2) == 0) {
            in_comment = !memmem(line, length, "*/", 2);
        } else if (strncmp(trimmed, "//", 2) == 0 || trimmed == line + length) {
            /* dropped */
        } else if (memmem(line, length, "__ovld", 6)) {
            const char *stop = strchr(line, ';');
            next = stop ? strchr(stop, '\n') : NULL;
            next = next ? next + 1 : line + strlen(line);
            strbuf_append_n(&header.text, line, (size_t)(next - line));
            add_piece(start, declared_name(line, (size_t)(next - line)));
        } else {
            strbuf_append_n(&header.text, line, length + (end != NULL));
            add_piece(start, 0);
        }
        line = next;
    }
}

/* Reads and splits the header; leaves header.ready 0 where PoCL's headers are missing or their
 * _OPENCL_H_ guard is not where this relies on it. */
static void load_header(void)
{
    strbuf folder;
    strbuf_init(&folder);
    dl_iterate_phdr(find_pocl_library, &folder);
    char *texts[3] = {NULL, NULL, NULL};
    const char *names[3] = {"opencl-c.h", "opencl-c-base.h", "_clang_opencl.h"};
    for (int i = 0; i < 3 && folder.length && !strbuf_failed(&folder); ++i) {
        strbuf path;
        strbuf_init(&path);
        strbuf_printf(&path, "%s%s", strbuf_text(&folder), names[i]);
        cls_status status; /* a missing header is no error: the build reads PoCL's own */
        texts[i] = strbuf_failed(&path) ? NULL : cls_read_text_file(strbuf_text(&path), "PoCL's header", 1, &status);
        strbuf_free(&path);
    }
    strbuf_free(&folder);
    strbuf_init(&header.text);
    if (texts[0] && texts[1] && texts[2] && strstr(texts[2], "#ifndef _OPENCL_H_") &&
        strstr(texts[0], "#define _OPENCL_H_") && strstr(texts[0], "#include \"opencl-c-base.h\"")) {
        strbuf_append(&header.text, "#undef _OPENCL_H_\n");
        add_piece(0, 0);
        split_header(texts[0], texts[1]);
        header.ready = !strbuf_failed(&header.text) && !header.failed;
    }
    for (int i = 0; i < 3; ++i) free(texts[i]);
}

/* The set of names a source holds: hashes in open addressing, a power of two of slots. */
typedef struct name_set {
    uint64_t *slots;
    size_t mask;
} name_set;

static int name_set_holds(const name_set *set, uint64_t hash, int add)
{
    for (size_t i = hash & set->mask;; i = (i + 1) & set->mask) {
        if (set->slots[i] == hash) return 1;
        if (!set->slots[i]) {
            if (add) set->slots[i] = hash;
            return 0;
        }
    }
}

int cls_pocl_declarations(const char *source, strbuf *out)
{
    pthread_once(&header_once, load_header);
    if (!header.ready) return 0;
    const size_t length = strlen(source);
    size_t slots = 64;
    while (slots <= length) slots *= 2; /* at least twice the names: each takes a name and a separator */
    name_set names = {calloc(slots, sizeof *names.slots), slots - 1};
    if (!names.slots) return 0;
    for (const char *p = source; *p;) {
        if (!is_identifier_char(*p) || isdigit((unsigned char)*p)) {
            ++p;
            continue;
        }
        const char *begin = p;
        while (is_identifier_char(*p)) ++p;
        name_set_holds(&names, name_hash(begin, (size_t)(p - begin)), 1);
    }
    const char *text = strbuf_text(&header.text);
    for (size_t i = 0; i < header.count; ++i)
        if (!header.pieces[i].name || name_set_holds(&names, header.pieces[i].name, 0))
            strbuf_append_n(out, text + header.pieces[i].start, header.pieces[i].length);
    strbuf_append(out, "#line 1\n");
    free(names.slots);
    return 1;
}
