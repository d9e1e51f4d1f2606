/* emit_body.c — a user-written operator body in the kernel. The body runs inside a function of
 * its own, one per region (the region's border checks differ), defined at program scope before
 * the kernel:
 *
 *     float cls_window_lo_lo(input, input_pitch, width, height, border_value, x, y, dx, dy)
 *         reads pixel (x + dx, y + dy) with the region's checks, dx and dy clamped to the window;
 *     float cls_operator_lo_lo(cls_input, ..., cls_x, cls_y, cls_mask)
 *         declares x, y, width and height from its parameters, runs the body in a block of its
 *         own and returns OUT (the local cls_out).
 *
 * A body that writes OUT_AT(k) computes a column of ROWS outputs, (x, y + k): its function
 * returns nothing and writes them into the caller's array, and its reader takes dy as far as
 * HALF_H + ROWS - 1 (the block's last row).
 *
 * In lanes (cls_kernel_body_lanes: a body written in value_t, several columns a work-item on a CPU
 * runtime) the functions compute the COLS adjacent outputs (x .. x + COLS - 1, y) at once: IN
 * returns a vector of their pixels at (dx, dy), value_t is that vector, and the kernel calls the
 * copy that checks nothing where the work-item's windows lie inside the image, else the one that
 * borders every lane (emit_body_lanes.c).
 *
 * So a body sees only those four names, the macros (IN, OUT, MASK, FOR_WINDOW, MASK_W, ...) and
 * its own declarations: any name it declares is its own (it may shadow x or width), and the
 * kernel's variables (input, output, pitches, ...) are out of its reach. IN and MASK expand to
 * names with the reserved prefix cls_, which a body may not use (body_check.c). The kernel calls
 * the region's function where a weighted sum would be: sum = cls_operator_lo_lo(...). */
#include "emit.h"

#include <stdio.h>
#include <string.h>

typedef struct parameter {
    const char *declaration; /* printf format with one %s for the name */
    const char *name;
} parameter;

enum { PARAMETERS_MAX = 10 };

/* The parameters a window reader takes: where the pixels are, the image's size and the border
 * value, and the coordinates the offsets are added to. */
static size_t window_parameters(const access *a, parameter *p)
{
    size_t n = 0;
    switch (a->kind) {
    case ACCESS_GLOBAL:
        p[n++] = (parameter){"__global const input_t *restrict %s", "input"};
        p[n++] = (parameter){"const int %s", "input_pitch"};
        break;
    case ACCESS_IMAGE: p[n++] = (parameter){"__read_only image2d_t %s", "input"}; break;
    case ACCESS_TILE: p[n++] = (parameter){"__local const float (*%s)[TILE_W + 1]", "tile"}; break;
    }
    p[n++] = (parameter){"const int %s", "width"};
    p[n++] = (parameter){"const int %s", "height"};
    p[n++] = (parameter){"const float %s", "border_value"};
    p[n++] = (parameter){"const int %s", a->base_x};
    p[n++] = (parameter){"const int %s", a->base_y};
    return n;
}

/* The body function's parameters: the reader's, the output pixel (which the tile's coordinates
 * are not) and the mask where it is not a program-scope array. */
static size_t operator_parameters(const emitter *e, const access *a, parameter *p)
{
    size_t n = window_parameters(a, p);
    if (a->kind == ACCESS_TILE) {
        p[n++] = (parameter){"const int %s", "x"};
        p[n++] = (parameter){"const int %s", "y"};
    }
    const int storage = e->config->spec.bake_coefficients;
    if (storage == CLS_COEFFICIENTS_ARGUMENT) p[n++] = (parameter){"const coefficients_t %s", "coef"};
    else if (storage != CLS_COEFFICIENTS_LITERALS) p[n++] = (parameter){"__constant float *restrict %s", "mask"};
    return n;
}

/* "name1, name2, ..." with each name after PREFIX. */
static void append_names(strbuf *out, const parameter *p, size_t n, const char *prefix)
{
    for (size_t k = 0; k < n; ++k) strbuf_printf(out, "%s%s%s", k ? ", " : "", prefix, p[k].name);
}

/* Whether the body's functions are inlined by force: on a record that folds its border groups
 * fully (PoCL), whose vectorizer works on the kernel's loop over work-items only once the calls
 * are gone, and whose inliner left a 5x5 body's out (a 5x5 sum as a body at 2048^2: 16.8 ms, 4.0
 * inlined). */
static int forced_inline(const emitter *e)
{
    return e->config->limits.border_groups_fold_fully;
}

/* How far FOR_WINDOW unrolls on the records that inline by force (PoCL): its columns always,
 * which keeps the taps' offsets constant across the work-items that the vectorizer packs
 * together; its rows as well where the unrolled text, window taps x the body's length, stays
 * within CLS_BODY_UNROLL_BYTES. PoCL, 2 cores, 2048^2 f32, clamp, rolled / columns unrolled /
 * all unrolled: a 3x3 sum as a FOR_WINDOW body 7.9 / 4.0 / 2.3 ms, min:3 10.7 / 7.2 / 3.4, max:5
 * 27.7 / 31.9 / 9.6, a 7x7 sum 41.4 / 35.4 / 9.4; the bilateral filter 5x5 507 / 327 / 427 ms
 * (the cold build 0.9 / 0.9 / 2.3 s with its first launch), 13x13 3.45 / 2.05 s (3.9 / 3.0 s). */
#define CLS_BODY_UNROLL_BYTES 6144

/* Whether the window's rows, unrolled too, stay within CLS_BODY_UNROLL_BYTES. */
static int rows_fit(const cls_spec *s)
{
    return (size_t)s->mask_width * s->mask_height * strlen(s->body) <= CLS_BODY_UNROLL_BYTES;
}

unsigned cls_body_unrolled_taps(const cls_spec *spec, int fold_fully)
{
    return !fold_fully || rows_fit(spec) ? spec->mask_width * spec->mask_height : spec->mask_width;
}

static void emit_for_window(emitter *e)
{
    const cls_spec *s = &e->config->spec;
    const int columns = forced_inline(e);
    const int rows = columns && rows_fit(s);
    strbuf_printf(e->out, "#define FOR_WINDOW(dx, dy) \\\n"
                          "    %sfor (int dy = -HALF_H; dy <= HALF_H; ++dy) \\\n"
                          "        %sfor (int dx = -HALF_W; dx <= HALF_W; ++dx)\n",
                  rows ? "_Pragma(\"unroll\") " : "", columns ? "_Pragma(\"unroll\") " : "");
}

/* "TYPE NAME(declarations)\n{\n" with every parameter marked used (some regions need none of
 * the checks' values), inlined by force where forced_inline says so. */
static void open_function(const emitter *e, const char *type, const char *name, const parameter *p, size_t n,
                          const char *prefix, const char *extra)
{
    strbuf *out = e->out;
    strbuf_printf(out, "%s%s %s(", forced_inline(e) ? "__attribute__((always_inline)) " : "", type, name);
    for (size_t k = 0; k < n; ++k) {
        char full[64];
        snprintf(full, sizeof full, "%s%s", prefix, p[k].name);
        if (k) strbuf_append(out, ", ");
        strbuf_printf(out, p[k].declaration, full);
    }
    strbuf_printf(out, "%s)\n{\n   ", extra);
    for (size_t k = 0; k < n; ++k) strbuf_printf(out, " (void)%s%s;", prefix, p[k].name);
    strbuf_append(out, "\n");
}

static const char *check_name(axis_check check)
{
    static const char *const names[] = {"none", "lo", "hi", "both", "once", "any"};
    return names[check];
}

/* The sides a check covers, in words. */
static const char *check_words(axis_check check, int rows)
{
    switch (check) {
    case CHECK_NONE: return rows ? "no row" : "no column";
    case CHECK_LO: return rows ? "the top" : "the left";
    case CHECK_HI: return rows ? "the bottom" : "the right";
    default: return rows ? "every row" : "every column";
    }
}

unsigned emit_next_line(const strbuf *out)
{
    unsigned lines = 1;
    for (const char *p = strbuf_text(out); *p; ++p) lines += *p == '\n';
    return lines;
}

/* The offsets a window reader clamps dx and dy to: the window, and a column's rows below it. */
#define WINDOW_DX " + clamp(dx, -HALF_W, HALF_W)"
static const char *window_dy(const emitter *e)
{
    return e->config->body_writes_rows ? " + clamp(dy, -HALF_H, HALF_H + ROWS - 1)" : " + clamp(dy, -HALF_H, HALF_H)";
}

/* The lanes' reader returns the vector of the COLS pixels (x + l + dx, y + dy): one vector load
 * where it checks nothing, else each lane through the checks. */
static void emit_lanes_reader(emitter *program, const access *a)
{
    strbuf *out = program->out;
    const cls_kernel_config *c = program->config;
    if (a->x == CHECK_NONE && a->y == CHECK_NONE) {
        char address[160], load[1024];
        snprintf(address, sizeof address, "input + (long)(y%s) * input_pitch + x" WINDOW_DX, window_dy(program));
        emit_format_vector_load(load, sizeof load, c->spec.input_type, c->cols, address);
        strbuf_printf(out, "    return %s;\n", load);
        return;
    }
    strbuf_append(out, "    return (value_t)(");
    for (unsigned l = 0; l < c->cols; ++l) {
        char dx[64];
        snprintf(dx, sizeof dx, WINDOW_DX " + %u", l);
        strbuf_append(out, l ? ",\n                     " : "");
        access_pixel(program, a, dx, window_dy(program));
    }
    strbuf_append(out, ");\n");
}

static void emit_window_function(emitter *program, const access *a, const char *suffix)
{
    strbuf *out = program->out;
    parameter p[PARAMETERS_MAX];
    const size_t n = window_parameters(a, p);
    const int lanes = cls_kernel_body_lanes(program->config);
    char name[64];
    snprintf(name, sizeof name, "cls_window_%s", suffix);
    if (a->kind == ACCESS_TILE) strbuf_append(out, "/* IN(dx, dy) from the tile in local memory. */\n");
    else if (lanes && a->x == CHECK_NONE && a->y == CHECK_NONE)
        strbuf_append(out, "/* IN(dx, dy) of the COLS outputs from x on, where their windows lie inside: one vector load. */\n");
    else if (lanes) strbuf_append(out, "/* IN(dx, dy) of the COLS outputs from x on, each lane through every side's checks. */\n");
    else strbuf_printf(out, "/* IN(dx, dy) in the region that checks %s and %s. */\n", check_words(a->x, 0),
                       check_words(a->y, 1));
    open_function(program, lanes ? "value_t" : "float", name, p, n, "", ", const int dx, const int dy");
    if (lanes) {
        emit_lanes_reader(program, a);
    } else {
        strbuf_append(out, "    return ");
        access_pixel(program, a, WINDOW_DX, window_dy(program));
        strbuf_append(out, ";\n");
    }
    strbuf_append(out, "}\n\n");
}

static void emit_operator_function(emitter *program, const access *a, const char *suffix)
{
    strbuf *out = program->out;
    parameter p[PARAMETERS_MAX];
    const size_t n = operator_parameters(program, a, p);
    parameter reader[PARAMETERS_MAX];
    const size_t readers = window_parameters(a, reader); /* the first of p */
    char name[64];
    snprintf(name, sizeof name, "cls_operator_%s", suffix);
    const int rows = program->config->body_writes_rows;
    const char *value = cls_kernel_body_lanes(program->config) ? "value_t" : "float";
    char outs[48];
    snprintf(outs, sizeof outs, ", __private %s *cls_outs", value);
    strbuf_append(out, "/* The operator body: its names are its own; the kernel's are not in scope. */\n");
    if (rows) open_function(program, "void", name, p, n, "cls_", outs);
    else open_function(program, value, name, p, n, "cls_", "");
    strbuf_printf(out, "#define IN(dx, dy) cls_window_%s(", suffix);
    append_names(out, p, readers, "cls_");
    strbuf_append(out, ", (int)(dx), (int)(dy))\n");
    if (rows) strbuf_append(out, "#define OUT_AT(k) cls_outs[clamp((int)(k), 0, ROWS - 1)]\n");
    strbuf_append(out, "    const int x = cls_x, y = cls_y, width = cls_width, height = cls_height;\n"
                       "    (void)x; (void)y; (void)width; (void)height;\n");
    if (!rows) strbuf_printf(out, "    %s cls_out = 0.0f;\n", value);
    strbuf_append(out, "    {\n#line 1 \"operator\"\n");
    strbuf_append(out, program->config->spec.body);
    strbuf_printf(out, "\n#line %u \"clstencil\"\n", emit_next_line(out) + 1);
    strbuf_append(out, rows ? "    }\n#undef IN\n#undef OUT_AT\n}\n\n" : "    }\n    return cls_out;\n#undef IN\n}\n\n");
}

/* The call's arguments: the parameters' names, the column's (row's) with COLUMN (ROW) added. */
static void append_arguments(strbuf *out, const access *a, const parameter *p, size_t n, const char *column,
                             const char *row)
{
    for (size_t k = 0; k < n; ++k) {
        const int x = !strcmp(p[k].name, a->base_x) || (a->kind == ACCESS_TILE && !strcmp(p[k].name, "x"));
        const int y = !strcmp(p[k].name, a->base_y) || (a->kind == ACCESS_TILE && !strcmp(p[k].name, "y"));
        strbuf_printf(out, "%s%s%s", k ? ", " : "", p[k].name, x ? column : y ? row : "");
    }
}

/* A call of a body that writes OUT_AT: once per column of the block, into an array of its ROWS
 * outputs that the block's sums then take. */
static void emit_rows_call(emitter *e, int indent, const access *a, const char *suffix, const parameter *p, size_t n)
{
    strbuf_line(e->out, indent, "#pragma unroll");
    strbuf_line(e->out, indent, "for (int l = 0; l < COLS; ++l) {");
    strbuf_line(e->out, indent + 1, "float body_rows[ROWS] = {0.0f};");
    indent_line(e->out, indent + 1);
    strbuf_printf(e->out, "cls_operator_%s(", suffix);
    append_arguments(e->out, a, p, n, " + l", "");
    strbuf_append(e->out, ", body_rows);\n");
    strbuf_line(e->out, indent + 1, "#pragma unroll");
    strbuf_line(e->out, indent + 1, "for (int k = 0; k < ROWS; ++k)");
    indent_line(e->out, indent + 2);
    append_sum(e, 0, "k", "l");
    strbuf_append(e->out, " = body_rows[k];\n");
    strbuf_line(e->out, indent, "}");
}

/* A call in lanes: the vectors of the column's ROWS outputs into sum[k], one call for a body that
 * writes OUT_AT, else one a row. */
static void emit_lanes_call(emitter *e, int indent, const access *a, const char *suffix, const parameter *p, size_t n)
{
    if (e->config->body_writes_rows) {
        indent_line(e->out, indent);
        strbuf_printf(e->out, "cls_operator_%s(", suffix);
        append_arguments(e->out, a, p, n, "", "");
        strbuf_append(e->out, ", sum);\n");
        return;
    }
    strbuf_line(e->out, indent, "#pragma unroll");
    strbuf_line(e->out, indent, "for (int k = 0; k < ROWS; ++k)");
    indent_line(e->out, indent + 1);
    strbuf_printf(e->out, "sum[k] = cls_operator_%s(", suffix);
    append_arguments(e->out, a, p, n, "", " + k");
    strbuf_append(e->out, ");\n");
}

void emit_body_call(emitter *e, int indent, const access *a)
{
    char suffix[32];
    if (a->kind == ACCESS_TILE) snprintf(suffix, sizeof suffix, "tile");
    else snprintf(suffix, sizeof suffix, "%s_%s", check_name(a->x), check_name(a->y));
    const int rows = e->config->body_writes_rows, lanes = cls_kernel_body_lanes(e->config);
    char signature[64];
    snprintf(signature, sizeof signature, "%s cls_operator_%s(", rows ? "void" : lanes ? "value_t" : "float", suffix);
    if (!strstr(strbuf_text(e->program), signature)) { /* regions with equal checks share one */
        emitter program = {e->program, e->config, NULL};
        emit_window_function(&program, a, suffix);
        emit_operator_function(&program, a, suffix);
    }

    parameter p[PARAMETERS_MAX];
    const size_t n = operator_parameters(e, a, p);
    if (lanes) {
        emit_lanes_call(e, indent, a, suffix, p, n);
        return;
    }
    if (rows) {
        emit_rows_call(e, indent, a, suffix, p, n);
        return;
    }
    const int block = e->config->rows * e->config->cols > 1;
    if (block) { /* one call per output of the block: the compiler shares the loads they have in common */
        strbuf_line(e->out, indent, "#pragma unroll");
        strbuf_line(e->out, indent, "for (int k = 0; k < ROWS; ++k)");
        strbuf_line(e->out, indent + 1, "#pragma unroll");
        strbuf_line(e->out, indent + 1, "for (int l = 0; l < COLS; ++l)");
        indent += 2;
    }
    indent_line(e->out, indent);
    strbuf_printf(e->out, "%s = cls_operator_%s(", block ? "sum[0][k][l]" : "sum", suffix);
    append_arguments(e->out, a, p, n, block ? " + l" : "", block ? " + k" : "");
    strbuf_append(e->out, ");\n");
}

void emit_fast_exp2(strbuf *out, const cls_kernel_config *config)
{
    if (!config->body || !strstr(config->body, "FAST_EXP2")) return;
    if (!config->limits.inline_ptx || cls_kernel_body_lanes(config)) { /* (the PTX takes one float) */
        strbuf_append(out, "#define FAST_EXP2(x) exp2(x) /* 2^x */\n");
        return;
    }
    strbuf_append(out, "/* 2^x, results below 2^-126 flushed to zero: one instruction (exp2 keeps them denormal with\n"
                       " * three more) */\n"
                       "float FAST_EXP2(float x)\n"
                       "{\n"
                       "    float power;\n"
                       "    __asm__(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(power) : \"f\"(x));\n"
                       "    return power;\n"
                       "}\n");
}

/* The coefficients' macro and the program-scope array of literals it reads. */
void emit_body_helpers(emitter *e)
{
    const cls_spec *s = &e->config->spec;
    strbuf *out = e->out;
    if (s->bake_coefficients == CLS_COEFFICIENTS_LITERALS) {
        emit_baked_array(e, "cls_mask_literals", "Literals the compiler folds once FOR_WINDOW is unrolled.");
        strbuf_append(out, "#define MASK(dx, dy) cls_mask_literals[((dy) + HALF_H) * MASK_W + (dx) + HALF_W]\n");
    } else if (s->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT) {
        strbuf_append(out, "#define MASK(dx, dy) cls_coef.c[((dy) + HALF_H) * MASK_W + (dx) + HALF_W]\n");
    } else {
        strbuf_append(out, "#define MASK(dx, dy) cls_mask[((dy) + HALF_H) * MASK_W + (dx) + HALF_W]\n");
    }
    emit_for_window(e);
    emit_fast_exp2(out, e->config);
    strbuf_append(out, "#define OUT cls_out\n");
    if (cls_kernel_body_lanes(e->config))
        strbuf_printf(out, "typedef float%u value_t; /* the values of COLS adjacent outputs, one vector */\n", e->config->cols);
    else if (strstr(s->body, "value_t"))
        strbuf_append(out, "typedef float value_t; /* the body's values: one pixel's */\n");
    if (strstr(s->body, "LANES")) /* a body with a form of its own for lanes (cls_body_row_lanes) */
        strbuf_printf(out, "#define LANES %u /* the outputs in value_t */\n", cls_kernel_body_lanes(e->config) ? e->config->cols : 1);
    strbuf_append(out, "\n");
}
