/* tuning.c — the tuning database's text: parsing INI sections into entries, finding the entry of
 * an architecture, operator and size class, and rewriting one section of a file. */
#include "tuning.h"

#include "error.h"
#include "generator.h"
#include "text_file.h"

#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEY_PARTITION = 1, KEY_INPUT = 2, KEY_GROUP = 4, KEY_ROWS = 8, KEY_COLS = 16, KEYS_REQUIRED = 31 };

unsigned cls_size_class(size_t width, size_t height)
{
    if (!width || !height) return 0;
    const long rounded = lround(0.5 * log2((double)width * (double)height));
    return rounded < 1 ? 1 : (unsigned)rounded;
}

unsigned cls_tuning_size_class(size_t width, size_t height, size_t depth)
{
    if (depth <= 1 || !width || !height) return cls_size_class(width, height);
    const long rounded = lround(log2((double)width * (double)height * (double)depth) / 3.0);
    return rounded < 1 ? 1 : (unsigned)rounded;
}

int cls_tuning_entry_stale(const cls_tuning_entry *entry)
{
    return !entry->calibrated && entry->key_format != CLS_TUNING_KEY_FORMAT;
}

void cls_tuning_table_free(cls_tuning_table *table)
{
    free(table->entries);
    memset(table, 0, sizeof *table);
}

static int same_key(const cls_tuning_entry *a, const cls_tuning_entry *b)
{
    return strcmp(a->arch, b->arch) == 0 && strcmp(a->operator_hash, b->operator_hash) == 0 &&
           a->size_class == b->size_class;
}

/* Puts entry into the table, replacing the one with its key; 0 when out of memory. */
static int table_put(cls_tuning_table *table, const cls_tuning_entry *entry)
{
    for (size_t i = 0; i < table->count; ++i)
        if (same_key(&table->entries[i], entry)) return table->entries[i] = *entry, 1;
    if (table->count == table->capacity) {
        const size_t capacity = table->capacity ? 2 * table->capacity : 16;
        cls_tuning_entry *entries = realloc(table->entries, capacity * sizeof *entries);
        if (!entries) return 0;
        table->entries = entries;
        table->capacity = capacity;
    }
    table->entries[table->count++] = *entry;
    return 1;
}

/* ---------------------------------------------------------------- parsing */

typedef struct parse_state {
    cls_tuning_table parsed;  /* this file's sections, moved into the table when all is well */
    unsigned *seen;           /* KEY_* flags per parsed entry */
    size_t seen_capacity;
    char section[160];        /* the section being read */
    size_t current;           /* its index in parsed */
    strbuf error;             /* what is wrong, without location and line */
} parse_state;

/* "sm_90 0123456789abcdef 12" -> the entry's key fields. */
static int parse_section(const char *section, cls_tuning_entry *entry)
{
    char tail;
    memset(entry, 0, sizeof *entry);
    if (sscanf(section, "%63s %16s %u %c", entry->arch, entry->operator_hash, &entry->size_class, &tail) != 3)
        return 0;
    if (strlen(entry->operator_hash) != 16 || strspn(entry->operator_hash, "0123456789abcdef") != 16) return 0;
    entry->key_format = 1; /* results written before the key line existed */
    return entry->size_class > 0 && entry->size_class < 64;
}

static int key_format_valid(unsigned format) { return format >= 1; }

/* A count that `valid` accepts. */
static int parse_blocking(const char *value, unsigned *out, int (*valid)(unsigned))
{
    char *end;
    const unsigned long n = strtoul(value, &end, 10);
    *out = (unsigned)n;
    return *end == '\0' && n == *out && valid(*out);
}

static int start_section(parse_state *state, const char *section)
{
    cls_tuning_entry entry;
    if (!parse_section(section, &entry)) {
        char shown[256];
        strbuf_printf(&state->error, "section [%s] is not [ARCH OPERATOR-HASH SIZE-CLASS] "
                      "(16 lower-case hex digits, a class from 1 to 63)", cls_printable(section, shown, sizeof shown));
        return 0;
    }
    size_t index = state->parsed.count;
    for (size_t i = 0; i < state->parsed.count; ++i)
        if (same_key(&state->parsed.entries[i], &entry)) index = i;
    if (index == state->parsed.count) {
        if (!table_put(&state->parsed, &entry)) return strbuf_append(&state->error, "out of memory"), 0;
        if (state->parsed.count > state->seen_capacity) {
            const size_t capacity = state->parsed.capacity;
            unsigned *seen = realloc(state->seen, capacity * sizeof *seen);
            if (!seen) return strbuf_append(&state->error, "out of memory"), 0;
            state->seen = seen;
            state->seen_capacity = capacity;
        }
    }
    state->seen[index] = 0;
    state->current = index;
    snprintf(state->section, sizeof state->section, "%s", section);
    return 1;
}

static int handle_key(void *user, const char *section, const char *name, const char *value)
{
    parse_state *state = user;
    if (state->error.length) return 0; /* inih reads on after a refused line: the first one counts */
    if (!section[0] && !state->parsed.count) { /* no section yet: nowhere to put it */
        char shown[256];
        strbuf_printf(&state->error, "'%s' comes before any [section]", cls_printable(name, shown, sizeof shown));
        return 0;
    }
    if (strcmp(section, state->section) != 0 && !start_section(state, section)) return 0;
    cls_tuning_entry *e = &state->parsed.entries[state->current];
    cls_tuning *t = &e->tuning;
    unsigned *seen = &state->seen[state->current];
    char shown[256];
    static const struct { const char *name; unsigned bit; } once[] = {
        {"partition", KEY_PARTITION}, {"input", KEY_INPUT}, {"group", KEY_GROUP}, {"rows", KEY_ROWS}, {"cols", KEY_COLS}};
    for (size_t i = 0; i < sizeof once / sizeof once[0]; ++i)
        if (strcmp(name, once[i].name) == 0 && (*seen & once[i].bit)) {
            strbuf_printf(&state->error, "'%s' appears twice in section [%s]", name, section);
            return 0;
        }
    int ok = 1;
    const char *expected = "";
    char tail;
    if (strcmp(name, "description") == 0) snprintf(e->description, sizeof e->description, "%s", value);
    else if (strcmp(name, "key") == 0)
        ok = parse_blocking(value, &e->key_format, key_format_valid), expected = "a key format, 1 or more";
    else if (strcmp(name, "partition") == 0)
        ok = cls_partition_parse(value, &t->partition) == CLS_OK && t->partition != CLS_PARTITION_AUTO,
        *seen |= KEY_PARTITION, expected = "naive, isp-block or isp-warp";
    else if (strcmp(name, "input") == 0)
        ok = cls_input_path_parse(value, &t->input_path) == CLS_OK && t->input_path != CLS_INPUT_AUTO,
        *seen |= KEY_INPUT, expected = "global, local or image";
    else if (strcmp(name, "group") == 0)
        ok = cls_parse_pair(value, &t->group_width, &t->group_height), *seen |= KEY_GROUP,
        expected = "WxH with positive sides, e.g. 32x4";
    else if (strcmp(name, "rows") == 0) /* 256 and 512: a volume's slices */
        ok = parse_blocking(value, &t->rows_per_item, cls_volume_slices_valid), *seen |= KEY_ROWS,
        expected = "1 to 8, 16, 32, 64, 128, 256 or 512";
    else if (strcmp(name, "cols") == 0) ok = parse_blocking(value, &t->cols_per_item, cls_cols_per_item_valid), *seen |= KEY_COLS, expected = "1, 2, 4 or 8";
    else if (strcmp(name, "kernel_us") == 0)
        ok = sscanf(value, "%lf%c", &t->kernel_us, &tail) == 1 && t->kernel_us >= 0 && isfinite(t->kernel_us),
        expected = "a time in microseconds";
    else if (strcmp(name, "isp_check") == 0)
        ok = sscanf(value, "%lf%c", &e->isp_check, &tail) == 1 && e->isp_check >= 0 && isfinite(e->isp_check),
        e->calibrated = 1,
        expected = "a check cost per loaded pixel (0 or more)";
    else if (strcmp(name, "size") == 0)
        ok = cls_parse_size(value, &t->width, &t->height, &t->depth),
        expected = "WxH or WxHxD with positive sides, e.g. 4096x4096 or 512x512x512";
    else {
        strbuf_printf(&state->error, "unknown key '%s'", cls_printable(name, shown, sizeof shown));
        return 0;
    }
    if (!ok) strbuf_printf(&state->error, "'%s' must be %s, not '%s'", name, expected, cls_printable(value, shown, sizeof shown));
    return ok;
}

cls_status cls_tuning_table_parse(cls_tuning_table *table, const char *text, const char *location)
{
    parse_state state = {.current = 0};
    strbuf_init(&state.error);
    cls_status lines = cls_ini_check_lines(text, location);
    if (lines != CLS_OK) {
        strbuf_free(&state.error);
        return lines;
    }
    const int line = ini_parse_string(text, handle_key, &state);
    cls_status status = CLS_OK;
    if (line != 0) {
        status = cls_fail(CLS_ERR_PARSE, "%s:%d: %s", location, line,
                          state.error.length ? strbuf_text(&state.error) : "not an INI line");
    }
    for (size_t i = 0; status == CLS_OK && i < state.parsed.count; ++i) {
        const cls_tuning_entry *e = &state.parsed.entries[i];
        char section[96];
        snprintf(section, sizeof section, "%s %s %u", e->arch, e->operator_hash, e->size_class);
        if (state.seen[i] != KEYS_REQUIRED)
            status = cls_fail(CLS_ERR_PARSE, "%s:%d: section [%s] needs partition, input, group, rows and cols",
                              location, cls_ini_section_line(text, section), section);
        else if (!cls_rows_per_item_valid(e->tuning.rows_per_item) && e->tuning.depth <= 1) /* 256 or 512 */
            status = cls_fail(CLS_ERR_PARSE, "%s:%d: section [%s] walks %u slices, which only a volume's size takes",
                              location, cls_ini_section_line(text, section), section, e->tuning.rows_per_item);
    }
    for (size_t i = 0; status == CLS_OK && i < state.parsed.count; ++i)
        if (!table_put(table, &state.parsed.entries[i])) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; status == CLS_OK && i < state.parsed.count; ++i)
        if (cls_tuning_entry_stale(&state.parsed.entries[i]) && table->stale++ == 0)
            snprintf(table->stale_location, sizeof table->stale_location, "%s", location);
    cls_tuning_table_free(&state.parsed);
    free(state.seen);
    strbuf_free(&state.error);
    return status;
}

/* ---------------------------------------------------------------- lookup */

const cls_tuning_entry *cls_tuning_table_find(const cls_tuning_table *table, const char *arch,
                                              const char *operator_hash, unsigned size_class, int *exact)
{
    const cls_tuning_entry *best = NULL;
    unsigned best_distance = 0;
    for (size_t i = 0; i < table->count; ++i) {
        const cls_tuning_entry *e = &table->entries[i];
        if (strcmp(e->arch, arch) != 0 || strcmp(e->operator_hash, operator_hash) != 0 || cls_tuning_entry_stale(e))
            continue;
        /* Unknown size: the largest class is the nearest. */
        const unsigned target = size_class ? size_class : 64;
        const unsigned distance = e->size_class > target ? e->size_class - target : target - e->size_class;
        if (!best || distance < best_distance || (distance == best_distance && e->size_class > best->size_class))
            best = e, best_distance = distance;
    }
    if (exact) *exact = best && size_class && best->size_class == size_class;
    return best;
}

/* ---------------------------------------------------------------- rendering */

static void render_section(strbuf *out, const cls_tuning_entry *e)
{
    const cls_tuning *t = &e->tuning;
    strbuf_printf(out, "[%s %s %u]\n", e->arch, e->operator_hash, e->size_class);
    if (e->description[0]) strbuf_printf(out, "description = %s\n", e->description);
    if (!e->calibrated) strbuf_printf(out, "key = %d\n", CLS_TUNING_KEY_FORMAT);
    strbuf_printf(out, "partition = %s\ninput = %s\ngroup = %ux%u\nrows = %u\ncols = %u\n",
                  cls_partition_name(t->partition), cls_input_path_name(t->input_path), t->group_width,
                  t->group_height, t->rows_per_item, t->cols_per_item);
    strbuf_printf(out, "kernel_us = %.1f\nsize = %ux%u", t->kernel_us, t->width, t->height);
    if (t->depth > 1) strbuf_printf(out, "x%u", t->depth);
    strbuf_append(out, "\n");
    if (e->calibrated) strbuf_printf(out, "isp_check = %.3f\n", e->isp_check);
}

char *cls_tuning_text_replace(const char *text, const cls_tuning_entry *entry)
{
    char header[96];
    snprintf(header, sizeof header, "[%s %s %u]", entry->arch, entry->operator_hash, entry->size_class);
    strbuf out;
    strbuf_init(&out);
    /* Copy every line but those of the old section (its header up to the next header). */
    int skipping = 0;
    for (const char *p = text ? text : ""; *p;) {
        const size_t length = strcspn(p, "\n");
        const char *start = p + strspn(p, " \t");
        if (*start == '[') skipping = strncmp(start, header, strlen(header)) == 0;
        if (!skipping) {
            strbuf_append_n(&out, p, length);
            strbuf_append(&out, "\n");
        }
        p += length;
        if (*p) ++p;
    }
    if (out.length && strbuf_text(&out)[out.length - 1] == '\n' && out.length > 1 &&
        strbuf_text(&out)[out.length - 2] != '\n')
        strbuf_append(&out, "\n"); /* a blank line between sections */
    render_section(&out, entry);
    return strbuf_take(&out);
}
