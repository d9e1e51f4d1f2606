/* database.c — the device capability database: the built-in records (device-db/records/, one
 * .ini file per vendor, compiled in) plus the user overlay file, parsed with inih. An overlay section whose name is
 * a built-in record's corrects only the keys it gives; any other section adds a record. */
#include "clstencil_tuning.h"

#include "embedded.h"
#include "error.h"
#include "generator.h"
#include "overlay_parse.h"
#include "strbuf.h"
#include "text_file.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cls_device_db {
    size_t count;
    cls_arch_record *records;
};

typedef struct parse_state {
    cls_device_db *db;
    const char *origin;         /* "built-in" or the overlay's path */
    cls_arch_record *current;   /* the record of the section being read */
    strbuf error;               /* set when the handler refuses a line */
    strbuf seen;                /* the section and key of every line read (cls_ini_key_seen) */
} parse_state;

static cls_arch_record *find_record(cls_device_db *db, const char *id)
{
    for (size_t i = 0; i < db->count; ++i)
        if (strcmp(db->records[i].id, id) == 0) return &db->records[i];
    return NULL;
}

static int parse_unsigned(const char *text, unsigned *out)
{
    char *end;
    errno = 0;
    if (*text < '0' || *text > '9') return 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno || *end || value > 0xFFFFFFFFul) return 0;
    *out = (unsigned)value;
    return 1;
}

static int parse_vendor(const char *text, cls_vendor *out)
{
    for (int v = CLS_VENDOR_NVIDIA; v <= CLS_VENDOR_OCLGRIND; ++v)
        if (strcasecmp(text, cls_vendor_name((cls_vendor)v)) == 0) {
            *out = (cls_vendor)v;
            return 1;
        }
    return 0;
}

static int parse_type(const char *text, cls_device_type *out)
{
    for (int t = CLS_DEVICE_GPU; t <= CLS_DEVICE_CPU; ++t)
        if (strcasecmp(text, cls_device_type_name((cls_device_type)t)) == 0) {
            *out = (cls_device_type)t;
            return 1;
        }
    return 0;
}

/* Copies a text value: printable characters only (it is printed back), shorter than SIZE. */
static int copy_text(char *out, size_t size, const char *text)
{
    if (strlen(text) >= size) return 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p)
        if (*p < 0x20 || *p == 0x7f) return 0;
    strcpy(out, text);
    return 1;
}

/* Applies one key to a record; 0 with a message in state->error when the value is wrong. */
static int apply_key(parse_state *state, cls_arch_record *r, const char *name, const char *value)
{
    static const struct { const char *name; size_t offset; } numbers[] = {
#define NUMBER(field) {#field, offsetof(cls_arch_record, field)}
        NUMBER(simd_width), NUMBER(max_threads_per_cu), NUMBER(max_groups_per_cu),
        NUMBER(max_warps_per_cu), NUMBER(registers_per_cu), NUMBER(register_alloc_unit),
        NUMBER(max_registers_per_thread), NUMBER(local_mem_per_cu), NUMBER(local_mem_alloc_unit),
        NUMBER(default_rows), NUMBER(unroll_limit), NUMBER(block_budget), NUMBER(register_cap),
        NUMBER(stream_rows), NUMBER(stream_cols), NUMBER(stream_below_rows), NUMBER(stream_min_taps),
        NUMBER(border_groups_fold_fully), NUMBER(separate_min_taps), NUMBER(fft_min_taps), NUMBER(fft_max_tile),
        NUMBER(low_rank_min_taps), NUMBER(build_ms), NUMBER(build_tap_us), NUMBER(quick_tap_fs),
        NUMBER(specialized_tap_fs), NUMBER(rank_network_taps), NUMBER(single_pass_min_taps),
        NUMBER(single_pass_rows), NUMBER(single_pass_cols), NUMBER(single_pass_ahead), NUMBER(volume_slices),
        NUMBER(volume_columns), NUMBER(body_lanes), NUMBER(row_body_lanes),
        NUMBER(volume_deep_slices), NUMBER(single_pass_stages_rows), NUMBER(fft_tile_max_mask),
        NUMBER(single_pass_tall_mask), NUMBER(volume_fft_min_taps), NUMBER(inline_ptx), NUMBER(rank_minmax), NUMBER(rank_columns),
        NUMBER(rank_register_cap), NUMBER(volume_y_first), NUMBER(volume_pass_slices), NUMBER(wide_block_max_taps),
        NUMBER(volume_block_rows), NUMBER(volume_lane_rows),
#undef NUMBER
    };
    char shown[256];
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; ++i)
        if (strcmp(name, numbers[i].name) == 0) {
            unsigned *field = (unsigned *)((char *)r + numbers[i].offset), number = 0;
            /* sizes and counts are at least 1; local memory may be 0; default_rows 0 is "auto";
             * stream_min_taps 0 streams every mask; the flags (border_groups_fold_fully,
             * single_pass_stages_rows, inline_ptx, rank_minmax, volume_y_first) are 0 or 1; rank_columns 1 or 2;
             * volume_block_rows and volume_lane_rows 0 to 8; an FFT tile's side 64 to 16384 */
            const int flag = strcmp(name, "border_groups_fold_fully") == 0 || strcmp(name, "single_pass_stages_rows") == 0 ||
                             strcmp(name, "inline_ptx") == 0 || strcmp(name, "rank_minmax") == 0 ||
                             strcmp(name, "volume_y_first") == 0;
            const int tile = strcmp(name, "fft_max_tile") == 0, pair = strcmp(name, "rank_columns") == 0,
                      block = strcmp(name, "volume_block_rows") == 0 || strcmp(name, "volume_lane_rows") == 0;
            const int may_be_zero = strcmp(name, "local_mem_per_cu") == 0 || strcmp(name, "default_rows") == 0 ||
                                    strcmp(name, "stream_min_taps") == 0 || strcmp(name, "separate_min_taps") == 0 ||
                                    strcmp(name, "fft_min_taps") == 0 || strcmp(name, "low_rank_min_taps") == 0 ||
                                    strcmp(name, "rank_network_taps") == 0 ||
                                    strcmp(name, "single_pass_min_taps") == 0 || strcmp(name, "fft_tile_max_mask") == 0 ||
                                    strcmp(name, "single_pass_tall_mask") == 0 ||
                                    strcmp(name, "volume_fft_min_taps") == 0 ||
                                    strcmp(name, "wide_block_max_taps") == 0 || block || flag;
            /* a single pass's block and a volume walk's slices: rows and columns per work-item that
             * a spec takes */
            const int rows = strcmp(name, "single_pass_rows") == 0,
                      slices = strcmp(name, "volume_slices") == 0 || strcmp(name, "volume_deep_slices") == 0 ||
                               strcmp(name, "volume_pass_slices") == 0,
                      cols = strcmp(name, "single_pass_cols") == 0 || strcmp(name, "body_lanes") == 0 ||
                             strcmp(name, "row_body_lanes") == 0,
                      volume_cols = strcmp(name, "volume_columns") == 0;
            const unsigned least = may_be_zero ? 0 : tile ? 64 : 1, most = flag ? 1u : pair ? 2u : block ? 8u : tile ? 16384u : 1u << 30;
            const int parsed = parse_unsigned(value, &number);
            if (rows || slices || cols || volume_cols) {
                if (parsed && (rows          ? cls_rows_per_item_valid(number)
                               : slices      ? cls_volume_slices_valid(number)
                               : volume_cols ? cls_volume_cols_per_item_valid(number)
                                             : cls_cols_per_item_valid(number))) {
                    *field = number;
                    return 1;
                }
                strbuf_printf(&state->error, "'%s' must be %s, not '%s'", name,
                              rows          ? "1 to 8, 16, 32, 64 or 128"
                              : slices      ? "1 to 8, 16, 32, 64, 128, 256 or 512"
                              : volume_cols ? "1, 4 or 8"
                                            : "1, 2, 4 or 8",
                              cls_printable(value, shown, sizeof shown));
                return 0;
            }
            if (parsed && number >= least && number <= most) {
                *field = number;
                return 1;
            }
            strbuf_printf(&state->error, "'%s' must be a decimal integer from %u to %s, not '%s'", name, least,
                          flag ? "1" : pair ? "2" : block ? "8" : tile ? "16384" : "2^30", cls_printable(value, shown, sizeof shown));
            return 0;
        }
    int ok = 1;
    const char *expected = NULL;
    if (strcmp(name, "vendor") == 0) ok = parse_vendor(value, &r->vendor), expected = "a vendor name (nvidia, amd, intel, apple, arm, qualcomm, pocl, oclgrind)";
    else if (strcmp(name, "type") == 0) ok = parse_type(value, &r->type), expected = "gpu, cpu or accelerator";
    else if (strcmp(name, "arch") == 0) ok = copy_text(r->arch, sizeof r->arch, value), expected = "a short architecture key";
    else if (strcmp(name, "device") == 0) ok = copy_text(r->device, sizeof r->device, value), expected = "a device name";
    else if (strcmp(name, "source") == 0) ok = copy_text(r->source, sizeof r->source, value), expected = "a shorter source line";
    else if (strcmp(name, "register_alloc") == 0) {
        ok = strcmp(value, "warp") == 0 || strcmp(value, "group") == 0;
        r->register_alloc_per_warp = strcmp(value, "warp") == 0;
        expected = "warp or group";
    } else if (strcmp(name, "use_models") == 0) {
        ok = strcmp(value, "yes") == 0 || strcmp(value, "no") == 0;
        r->use_models = strcmp(value, "yes") == 0;
        expected = "yes or no";
    } else if (strcmp(name, "default_wg") == 0) {
        ok = cls_parse_pair(value, &r->default_wg_x, &r->default_wg_y);
        expected = "WxH with positive sides, e.g. 32x4";
    } else {
        strbuf_printf(&state->error, "unknown key '%s'", cls_printable(name, shown, sizeof shown));
        return 0;
    }
    if (!ok) strbuf_printf(&state->error, "'%s' must be %s, not '%s'", name, expected, cls_printable(value, shown, sizeof shown));
    return ok;
}

static int handle_line(void *user, const char *section, const char *name, const char *value)
{
    parse_state *state = user;
    if (state->error.length) return 0; /* inih reads on after a refused line: the first one counts */
    if (!state->current || strcmp(state->current->id, section) != 0) {
        cls_arch_record *existing = find_record(state->db, section);
        if (existing && strcmp(existing->origin, state->origin) == 0) {
            strbuf_printf(&state->error, "record [%s] appears twice", section);
            return 0;
        }
        if (!existing) {
            cls_arch_record *records = realloc(state->db->records, (state->db->count + 1) * sizeof *records);
            if (!records) {
                strbuf_append(&state->error, "out of memory");
                return 0;
            }
            state->db->records = records;
            state->current = NULL; /* it pointed into the old array */
            existing = &records[state->db->count++];
            memset(existing, 0, sizeof *existing);
            existing->use_models = -1; /* check_complete: by the type */
            if (!copy_text(existing->id, sizeof existing->id, section)) {
                strbuf_printf(&state->error, "record name [%s] is too long", section);
                return 0;
            }
        }
        snprintf(existing->origin, sizeof existing->origin, "%s", state->origin);
        state->current = existing;
    }
    char shown[256];
    if (cls_ini_key_seen(&state->seen, section, name)) {
        strbuf_printf(&state->error, "'%s' appears twice in record [%s]", cls_printable(name, shown, sizeof shown),
                      section);
        return 0;
    }
    return apply_key(state, state->current, name, value);
}

/* After a file: every record it added (from index FIRST_NEW) must have every required key (SEEN:
 * the keys the file gave, for those whose value may be 0 or has a default); use_models, absent,
 * follows the type. */
static cls_status check_complete(cls_device_db *db, const char *origin, const char *location,
                                 const char *text, size_t first_new, strbuf *seen)
{
    for (size_t i = 0; i < db->count; ++i) {
        cls_arch_record *r = &db->records[i];
        if (strcmp(r->origin, origin) != 0) continue;
        const unsigned numbers[] = {r->simd_width, r->max_threads_per_cu, r->max_groups_per_cu,
                                    r->max_warps_per_cu, r->registers_per_cu, r->register_alloc_unit,
                                    r->max_registers_per_thread, r->local_mem_alloc_unit, r->default_wg_x};
        int complete = r->source[0] != '\0';
        for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; ++k) complete &= numbers[k] != 0;
        if (i >= first_new) /* a record of earlier files that this one corrects has them */
            complete &= cls_ini_key_seen(seen, r->id, "register_alloc") &&
                        cls_ini_key_seen(seen, r->id, "local_mem_per_cu");
        if (!complete)
            return cls_fail(CLS_ERR_PARSE,
                            "%s:%d: record [%s] is incomplete: a new record needs source, simd_width, "
                            "max_threads_per_cu, max_groups_per_cu, max_warps_per_cu, registers_per_cu, "
                            "register_alloc_unit, register_alloc, max_registers_per_thread, "
                            "local_mem_per_cu, local_mem_alloc_unit and default_wg (all but local_mem_per_cu "
                            "non-zero)",
                            location, cls_ini_section_line(text, r->id), r->id);
        if (r->use_models < 0) r->use_models = r->type == CLS_DEVICE_GPU;
        if (r->default_rows > 128 || (r->default_rows & (r->default_rows - 1)))
            return cls_fail(CLS_ERR_PARSE,
                            "%s:%d: record [%s]: default_rows must be 1, 2, 4, 8 (a block) or 16, 32, 64, 128 "
                            "(streaming), not %u",
                            location, cls_ini_section_line(text, r->id), r->id, r->default_rows);
    }
    return CLS_OK;
}

/* Parses one file's text into db; location names the file in messages. */
static cls_status parse_text(cls_device_db *db, const char *origin, const char *location,
                             const char *text)
{
    parse_state state = {.db = db, .origin = origin};
    const size_t first_new = db->count;
    strbuf_init(&state.error);
    strbuf_init(&state.seen);
    const cls_status lines = cls_ini_check_lines(text, location);
    if (lines != CLS_OK) {
        strbuf_free(&state.error);
        strbuf_free(&state.seen);
        return lines;
    }
    const int line = ini_parse_string(text, handle_line, &state);
    cls_status status = CLS_OK;
    if (line != 0)
        status = cls_fail(CLS_ERR_PARSE, "%s:%d: %s", location, line,
                          state.error.length ? strbuf_text(&state.error) : "malformed line");
    if (status == CLS_OK) status = check_complete(db, origin, location, text, first_new, &state.seen);
    strbuf_free(&state.error);
    strbuf_free(&state.seen);
    return status;
}

cls_status cls_device_db_parse_overlay(const char *text, const char *location)
{
    cls_device_db db = {0, NULL};
    const cls_status status = parse_text(&db, location, location, text);
    free(db.records);
    return status;
}

/* The overlay to load: explicit path, CLSTENCIL_DEVICE_DB, or the default in the config dir. */
static int overlay_path(const char *explicit_path, strbuf *path)
{
    if (explicit_path && !*explicit_path) return 0; /* "": the built-in records only */
    const char *named = explicit_path ? explicit_path : getenv("CLSTENCIL_DEVICE_DB");
    if (named && *named) {
        strbuf_append(path, named);
        return 1; /* must exist */
    }
    const char *config = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (config && *config) strbuf_printf(path, "%s/clstencil/devices.ini", config);
    else if (home && *home) strbuf_printf(path, "%s/.config/clstencil/devices.ini", home);
    return 0;
}

static cls_status load_overlay(cls_device_db *db, const char *explicit_path)
{
    strbuf path;
    strbuf_init(&path);
    const int must_exist = overlay_path(explicit_path, &path);
    cls_status status = CLS_OK;
    FILE *probe = path.length ? fopen(strbuf_text(&path), "rb") : NULL;
    if (probe) fclose(probe);
    if (path.length && (probe || must_exist)) {
        char *text = cls_read_text_file(strbuf_text(&path), "the device database overlay", 0, &status);
        if (text) {
            /* Parse into a copy, so that a malformed overlay leaves nothing behind. */
            cls_device_db copy = {db->count, malloc((db->count ? db->count : 1) * sizeof *db->records)};
            if (!copy.records) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
            else {
                memcpy(copy.records, db->records, db->count * sizeof *db->records);
                status = parse_text(&copy, strbuf_text(&path), strbuf_text(&path), text);
                if (status == CLS_OK) {
                    free(db->records);
                    *db = copy;
                } else {
                    free(copy.records);
                }
            }
            free(text);
        }
    }
    strbuf_free(&path);
    return status;
}

cls_status cls_device_db_load(const char *overlay, cls_device_db **out)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    cls_device_db *db = calloc(1, sizeof *db);
    if (!db) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    cls_status status = CLS_OK;
    for (size_t i = 0; status == CLS_OK && i < cls_embedded_records_count; ++i)
        status = parse_text(db, "built-in", cls_embedded_records[i].name, cls_embedded_records[i].text);
    if (status == CLS_OK) status = load_overlay(db, overlay);
    if (status != CLS_OK) {
        cls_device_db_release(db);
        return status;
    }
    *out = db;
    return CLS_OK;
}

void cls_device_db_release(cls_device_db *db)
{
    if (!db) return;
    free(db->records);
    free(db);
}

size_t cls_device_db_count(const cls_device_db *db) { return db ? db->count : 0; }

const cls_arch_record *cls_device_db_get(const cls_device_db *db, size_t index)
{
    return db && index < db->count ? &db->records[index] : NULL;
}
