/* emit_sum.c — the weighted sums of one region: the window of every mask over every output pixel
 * of the work-item (ROWS x COLS of them when coarsened), through an accessor, and one input
 * row's share of them for the streaming loop (emit_stream.c). Each loaded pixel feeds every sum
 * it reaches from registers. Buffer masks loop over the __constant buffer; unrolled masks have
 * their coefficients as literals (zero taps skipped) or read them from the kernel argument coef;
 * folded masks load the window first and multiply each distinct coefficient magnitude once. With
 * several columns per work-item, rows without column checks are read with vector loads. The rolled
 * loops also serve the border regions of large unrolled masks, over the program-scope array
 * baked_mask (literals) or the buffer. */
#include "emit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int single_sum(const cls_kernel_config *c)
{
    return c->rows * c->cols * c->masks == 1;
}

static size_t tap_index(const cls_kernel_config *c, unsigned m, int i, int j)
{
    return ((size_t)m * c->spec.mask_height + (size_t)j) * c->spec.mask_width + (size_t)i;
}

static float coefficient(const cls_kernel_config *c, unsigned m, int i, int j)
{
    return c->coefficients[tap_index(c, m, i, j)];
}

/* Tap (i, j) of mask m in the unrolled code: its literal, or its element of the argument. */
static void append_coefficient(emitter *e, unsigned m, int i, int j)
{
    if (cls_kernel_literal_coefficients(e->config)) append_float(e->out, coefficient(e->config, m, i, j));
    else strbuf_printf(e->out, "coef.c[%zu]", tap_index(e->config, m, i, j));
}

/* The array that rolled loops over an unrolled mask's coefficients read. */
static const char *rolled_mask(const emitter *e)
{
    return cls_kernel_literal_coefficients(e->config) ? "baked_mask" : "mask";
}

void append_sum(emitter *e, unsigned m, const char *k, const char *l)
{
    if (single_sum(e->config)) strbuf_append(e->out, "sum");
    else strbuf_printf(e->out, "sum[%u][%s][%s]", m, k, l);
}

void emit_sum_declaration(emitter *e, int indent)
{
    const char *type = emit_value_type(e->config);
    if (cls_kernel_streams(e->config))
        strbuf_line(e->out, indent, "%s sum[MASKS][MASK_H][COLS] = {{{0.0f}}}; /* the streaming window */", type);
    else if (single_sum(e->config)) strbuf_line(e->out, indent, "%s sum = 0.0f;", type);
    else strbuf_line(e->out, indent, "%s sum[MASKS][ROWS][COLS] = {{{0.0f}}};", type);
}

/* Loops over the window rows and columns stay rolled where the compiler would unroll them all. */
static void emit_rolled(emitter *e, int indent, int rolled)
{
    if (rolled) strbuf_line(e->out, indent, "#pragma unroll 1");
}

/* One sum: the window loops of the plain kernel. */
static void emit_loops_single(emitter *e, int indent, const access *a, const char *mask, int rolled)
{
    strbuf *out = e->out;
    emit_rolled(e, indent, rolled);
    strbuf_line(out, indent, "for (int j = 0; j < MASK_H; ++j) {");
    access_row(e, a, indent + 1, "row", " + j - HALF_H");
    emit_rolled(e, indent + 1, rolled);
    strbuf_line(out, indent + 1, "for (int i = 0; i < MASK_W; ++i) {");
    indent_line(out, indent + 2);
    strbuf_printf(out, "sum += %s[j * MASK_W + i] * ", mask);
    access_load(e, a, "row", " + i - HALF_W");
    strbuf_append(out, ";\n");
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

/* Window row `r` of a block of `rows` output rows (C text: "r" and "ROWS" in the block's loop,
 * "(MASK_H - 1)" and "MASK_H" for the streaming window), read at input row base_y + dy: input
 * pixel (c, r) feeds output (l, k) of every mask with tap (c - l, r - k) when that lies in the
 * mask. The loops over k and l unroll, so that every sum stays in a register. */
static void emit_loops_row(emitter *e, int indent, const access *a, const char *mask, int rolled, const char *r,
                           const char *rows, const char *dy)
{
    strbuf *out = e->out;
    access_row(e, a, indent, "row", dy);
    emit_rolled(e, indent, rolled);
    strbuf_line(out, indent, "for (int c = 0; c < MASK_W + COLS - 1; ++c) {");
    indent_line(out, indent + 1);
    strbuf_printf(out, "const %s v = ", emit_value_type(e->config));
    access_load(e, a, "row", " + c - HALF_W");
    strbuf_append(out, ";\n");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int k = 0; k < %s; ++k)", rows);
    strbuf_line(out, indent + 2, "#pragma unroll");
    strbuf_line(out, indent + 2, "for (int l = 0; l < COLS; ++l)");
    strbuf_line(out, indent + 3, "if (%s - k >= 0 && %s - k < MASK_H && c - l >= 0 && c - l < MASK_W) {", r, r);
    strbuf_line(out, indent + 4, "const int tap = (%s - k) * MASK_W + c - l;", r);
    for (unsigned m = 0; m < e->config->masks; ++m) {
        indent_line(out, indent + 4);
        append_sum(e, m, "k", "l");
        if (m) strbuf_printf(out, " += %s[%u * MASK_W * MASK_H + tap] * v;\n", mask, m);
        else strbuf_printf(out, " += %s[tap] * v;\n", mask);
    }
    strbuf_line(out, indent + 3, "}");
    strbuf_line(out, indent, "}");
}

/* Several sums: the block's window row by row. */
static void emit_loops_block(emitter *e, int indent, const access *a, const char *mask, int rolled)
{
    emit_rolled(e, indent, rolled);
    strbuf_line(e->out, indent, "for (int r = 0; r < MASK_H + ROWS - 1; ++r) {");
    emit_loops_row(e, indent + 1, a, mask, rolled, "r", "ROWS", " + r - HALF_H");
    strbuf_line(e->out, indent, "}");
}

/* Calls use(m, k, l, i, j) for every tap (i, j) that input pixel (c, r) of a block's window feeds
 * (zero taps skipped where they are literals), the block being `rows` output rows (ROWS, or the
 * MASK_H partial sums of the streaming window) of COLS columns; returns how many. */
typedef void (*tap_use)(emitter *e, unsigned m, int k, int l, int i, int j);

static int for_each_use(emitter *e, int rows, int r, int c, tap_use use)
{
    const cls_kernel_config *config = e->config;
    const int w = (int)config->spec.mask_width, h = (int)config->spec.mask_height;
    const int literals = cls_kernel_literal_coefficients(config);
    int uses = 0;
    for (unsigned m = 0; m < config->masks; ++m)
        for (int k = 0; k < rows; ++k)
            for (int l = 0; l < (int)config->cols; ++l) {
                if (r - k < 0 || r - k >= h || c - l < 0 || c - l >= w) continue;
                if (literals && coefficient(config, m, c - l, r - k) == 0.0f) continue;
                if (use) use(e, m, k, l, c - l, r - k);
                ++uses;
            }
    return uses;
}

static void append_sum_at(emitter *e, unsigned m, int k, int l)
{
    char kk[16], ll[16];
    snprintf(kk, sizeof kk, "%d", k);
    snprintf(ll, sizeof ll, "%d", l);
    append_sum(e, m, kk, ll);
}

static void accumulate_v(emitter *e, unsigned m, int k, int l, int i, int j)
{
    strbuf_append(e->out, " ");
    append_sum_at(e, m, k, l);
    strbuf_append(e->out, " += ");
    append_coefficient(e, m, i, j);
    strbuf_append(e->out, " * v;");
}

/* The only use of a pixel: `sum += c * ` (the load follows). */
static void accumulate_direct(emitter *e, unsigned m, int k, int l, int i, int j)
{
    append_sum_at(e, m, k, l);
    strbuf_append(e->out, " += ");
    append_coefficient(e, m, i, j);
    strbuf_append(e->out, " * ");
}

/* ---- vector loads: a row of the block's window without column checks (global input, several
 * columns per work-item) is read in vector chunks. When the window's first column is a multiple
 * of the aligned width W (cls_kernel_aligned_loads), every chunk is a W-pixel load through a
 * vector pointer, which the compiler issues as one wide load; otherwise chunks of 16, 8, 4 and
 * 2 pixels are read with vloadN, which needs only the pixel's alignment and which compilers often
 * split into scalar loads. A lone last pixel is a scalar load. */

static int vector_row(const emitter *e, const access *a)
{
    /* Constant mode's checked rows select() the border value per pixel: those stay scalar. */
    const int selects = software_constant_on(e, CLS_AXIS_Y) && a->y != CHECK_NONE;
    return a->kind == ACCESS_GLOBAL && a->x == CHECK_NONE && e->config->cols > 1 && !selects;
}

/* The width of the chunk starting at column `start` of a span of `span` pixels (1: scalar). */
static int chunk_width(const emitter *e, int start, int span)
{
    const int aligned = (int)cls_kernel_aligned_loads(e->config);
    if (aligned > 1) return aligned;
    static const int widths[] = {16, 8, 4, 2};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; ++k)
        if (widths[k] <= span - start) return widths[k];
    return 1;
}

/* Declares v<r>_<k> = the chunk of row `row` from window column `start` (k: start less the
 * chunks' origin, cls_kernel_chunk_origin), for every chunk of the row's span that holds a pixel
 * used by the block's `rows` output rows. */
static void emit_vector_chunks(emitter *e, int indent, const access *a, int rows, int r, int span_x)
{
    const cls_kernel_config *c = e->config;
    const int half = (int)c->spec.mask_width / 2, origin = cls_kernel_chunk_origin(c);
    const int aligned = cls_kernel_aligned_loads(c) > 1;
    const char *type = emit_cl_type(c->spec.input_type);
    for (int start = origin, width; start < span_x; start += width) {
        width = chunk_width(e, start, span_x);
        int used = 0;
        for (int x = start; x < start + width; ++x) used += for_each_use(e, rows, r, x, NULL);
        if (width == 1 || !used) continue;
        char dx[32], load[160];
        format_offset(dx, sizeof dx, start - half);
        if (c->spec.input_type == CLS_PIXEL_F16) /* half values convert as they load: floatN */
            snprintf(load, sizeof load, "vload_half%d(0, input + row + %s%s)", width, a->base_x, dx);
        else if (aligned)
            snprintf(load, sizeof load, "*(__global const %s%d *)(input + row + %s%s)", type, width, a->base_x, dx);
        else
            snprintf(load, sizeof load, "vload%d(0, input + row + %s%s)", width, a->base_x, dx);
        indent_line(e->out, indent);
        if (c->spec.input_type == CLS_PIXEL_F32 || c->spec.input_type == CLS_PIXEL_F16)
            strbuf_printf(e->out, "const float%d v%d_%d = %s;\n", width, r, start - origin, load);
        else
            strbuf_printf(e->out, "const float%d v%d_%d = convert_float%d(%s);\n", width, r, start - origin, width, load);
    }
}

/* Column x of window row r: its chunk's component, or a scalar load. */
static void append_window_pixel(emitter *e, const access *a, int vector, int r, int x, int span_x)
{
    if (vector) {
        const int origin = cls_kernel_chunk_origin(e->config);
        for (int start = origin, width; start < span_x; start += width) {
            width = chunk_width(e, start, span_x);
            if (x < start || x >= start + width || width == 1) continue;
            strbuf_printf(e->out, "v%d_%d.s%x", r, start - origin, (unsigned)(x - start));
            return;
        }
    }
    char dx[32];
    const int offset = x - (int)e->config->spec.mask_width / 2;
    const access tap = access_at_column(a, offset);
    format_offset(dx, sizeof dx, offset);
    access_load(e, &tap, "row", dx);
}

/* Row r of the window of a block of `rows` output rows, read at input row base_y + dy: every
 * pixel multiplied by each literal coefficient it meets, zero taps skipped. */
static void emit_baked_row(emitter *e, int indent, const access *a, int rows, int r, const char *dy)
{
    const int span_x = (int)(e->config->spec.mask_width + e->config->cols - 1);
    int used = 0;
    for (int x = 0; x < span_x; ++x) used += for_each_use(e, rows, r, x, NULL);
    if (!used) return;
    strbuf_line(e->out, indent, "{   /* input row %s%s */", a->base_y, dy);
    access_row(e, a, indent + 1, "row", dy);
    const int vector = vector_row(e, a);
    if (vector) emit_vector_chunks(e, indent + 1, a, rows, r, span_x);
    for (int x = 0; x < span_x; ++x) {
        const int uses = for_each_use(e, rows, r, x, NULL);
        if (!uses) continue;
        indent_line(e->out, indent + 1);
        if (uses == 1) {
            for_each_use(e, rows, r, x, accumulate_direct);
            append_window_pixel(e, a, vector, r, x, span_x);
            strbuf_append(e->out, ";\n");
            continue;
        }
        strbuf_printf(e->out, "{ const %s v = ", emit_value_type(e->config));
        append_window_pixel(e, a, vector, r, x, span_x);
        strbuf_append(e->out, ";");
        for_each_use(e, rows, r, x, accumulate_v);
        strbuf_append(e->out, " }\n");
    }
    strbuf_line(e->out, indent, "}");
}

/* `sum += c * pa<x>;` (pb<x>) for every use of window pixel x, held in set a (b). */
static void accumulate_set(emitter *e, unsigned m, int k, int l, int i, int j, char set)
{
    strbuf_printf(e->out, " ");
    append_sum_at(e, m, k, l);
    strbuf_append(e->out, " += ");
    append_coefficient(e, m, i, j);
    strbuf_printf(e->out, " * p%c%d;", set, i + l);
}

static void accumulate_a(emitter *e, unsigned m, int k, int l, int i, int j) { accumulate_set(e, m, k, l, i, j, 'a'); }
static void accumulate_b(emitter *e, unsigned m, int k, int l, int i, int j) { accumulate_set(e, m, k, l, i, j, 'b'); }

/* Whether row r of the block's window feeds a sum (rows of zero literals do not). */
static int row_used(emitter *e, int r)
{
    const cls_kernel_config *c = e->config;
    for (int x = 0; x < (int)(c->spec.mask_width + c->cols - 1); ++x)
        if (for_each_use(e, (int)c->rows, r, x, NULL)) return 1;
    return 0;
}

/* The pixels that window row r uses into set pa<x> (pb<x>): by the body's loads (unchecked, vector
 * loads where they apply), a border group's or warp's (one fold on either side) or the fallback's
 * (folding fully). */
static void emit_shared_load(emitter *e, int indent, int r, char set)
{
    const cls_kernel_config *c = e->config;
    static const access paths[3] = {
        {ACCESS_GLOBAL, CHECK_NONE, CHECK_NONE, "x", "y", CHECK_NONE, CHECK_NONE},
        {ACCESS_GLOBAL, CHECK_ONCE, CHECK_ONCE, "x", "y", CHECK_BOTH, CHECK_BOTH},
        {ACCESS_GLOBAL, CHECK_BOTH, CHECK_BOTH, "x", "y", CHECK_BOTH, CHECK_BOTH},
    };
    static const char *const opening[3] = {"if (!border) {", "} else if (!fold_fully) {", "} else {"};
    const int rows = (int)c->rows, span_x = (int)(c->spec.mask_width + c->cols - 1);
    char dy[32];
    format_offset(dy, sizeof dy, r - (int)c->spec.mask_height / 2);
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* input row y%s into p%c */", dy, set);
    for (int k = 0; k < 3; ++k) {
        const access a = access_at_row(&paths[k], r - (int)c->spec.mask_height / 2);
        strbuf_line(out, indent, "%s", opening[k]);
        access_row(e, &a, indent + 1, "row", dy);
        const int vector = vector_row(e, &a);
        if (vector) emit_vector_chunks(e, indent + 1, &a, rows, r, span_x);
        for (int x = 0; x < span_x; ++x) {
            if (!for_each_use(e, rows, r, x, NULL)) continue;
            indent_line(out, indent + 1);
            strbuf_printf(out, "p%c%d = ", set, x);
            append_window_pixel(e, &a, vector, r, x, span_x);
            strbuf_append(out, ";\n");
        }
    }
    strbuf_line(out, indent, "}");
}

/* The multiply-adds of window row r, its pixels in set pa<x> (pb<x>): one line per pixel. */
static void emit_shared_sums(emitter *e, int indent, int r, char set)
{
    const cls_kernel_config *c = e->config;
    for (int x = 0; x < (int)(c->spec.mask_width + c->cols - 1); ++x) {
        if (!for_each_use(e, (int)c->rows, r, x, NULL)) continue;
        strbuf uses; /* " sum += c * pa<x>; ..." */
        strbuf_init(&uses);
        emitter line = {&uses, c, NULL};
        for_each_use(&line, (int)c->rows, r, x, set == 'a' ? accumulate_a : accumulate_b);
        strbuf_line(e->out, indent, "%s", strbuf_text(&uses) + 1);
        strbuf_free(&uses);
    }
}

void emit_sums_shared(emitter *e, int indent)
{
    const cls_kernel_config *c = e->config;
    const int span_y = (int)(c->spec.mask_height + c->rows - 1), span_x = (int)(c->spec.mask_width + c->cols - 1);
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* Window row by row: each row's pixels load (into pa or pb, in turn) before the previous");
    strbuf_line(out, indent, " * row's multiply-adds, which every group shares. */");
    indent_line(out, indent);
    strbuf_append(out, emit_value_type(c));
    for (int set = 0, first = 1; set < 2; ++set)
        for (int x = 0; x < span_x; ++x)
            for (int r = 0; r < span_y; ++r)
                if (for_each_use(e, (int)c->rows, r, x, NULL)) {
                    strbuf_printf(out, "%s p%c%d", first ? "" : ",", set ? 'b' : 'a', x);
                    first = 0;
                    break;
                }
    strbuf_append(out, ";\n");
    int used[CLS_MAX_MASK + 8], count = 0; /* at most 8 rows per work-item: not a streaming kernel */
    for (int r = 0; r < span_y; ++r)
        if (row_used(e, r)) used[count++] = r;
    if (count) emit_shared_load(e, indent, used[0], 'a');
    for (int i = 0; i < count; ++i) {
        if (i + 1 < count) emit_shared_load(e, indent, used[i + 1], (i + 1) % 2 ? 'b' : 'a');
        emit_shared_sums(e, indent, used[i], i % 2 ? 'b' : 'a');
    }
}

/* Unrolled: coefficients as literals (zero taps skipped) or from the argument. */
static void emit_baked(emitter *e, int indent, const access *a)
{
    const cls_kernel_config *c = e->config;
    for (int r = 0; r < (int)(c->spec.mask_height + c->rows - 1); ++r) {
        char dy[32];
        format_offset(dy, sizeof dy, r - (int)c->spec.mask_height / 2);
        const access row = access_at_row(a, r - (int)c->spec.mask_height / 2);
        emit_baked_row(e, indent, &row, (int)c->rows, r, dy);
    }
}

/* Folded: the pixels of the block's window first (p<r>_<c>), then for each sum one product per
 * distinct coefficient magnitude: sum += c * (p0_0 + p0_2 - p2_0 - ...). */
typedef struct fold_state {
    unsigned m;
    int k, l;
} fold_state;

static void emit_folded(emitter *e, int indent, const access *a)
{
    const cls_kernel_config *c = e->config;
    const int w = (int)c->spec.mask_width, h = (int)c->spec.mask_height;
    const int span_y = h + (int)c->rows - 1, span_x = w + (int)c->cols - 1;
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* The pixels of the window, then one product per distinct coefficient magnitude. */");
    for (int r = 0; r < span_y; ++r) {
        int used = 0;
        for (int x = 0; x < span_x; ++x) used += for_each_use(e, (int)c->rows, r, x, NULL);
        if (!used) continue;
        char dy[32], dx[32], row[16];
        format_offset(dy, sizeof dy, r - h / 2);
        snprintf(row, sizeof row, "row%d", r);
        const access row_access = access_at_row(a, r - h / 2);
        access_row(e, &row_access, indent, row, dy);
        for (int x = 0; x < span_x; ++x) {
            if (!for_each_use(e, (int)c->rows, r, x, NULL)) continue;
            format_offset(dx, sizeof dx, x - w / 2);
            indent_line(out, indent);
            strbuf_printf(out, "const %s p%d_%d = ", emit_value_type(c), r, x);
            const access tap = access_at_column(&row_access, x - w / 2);
            access_load(e, &tap, row, dx);
            strbuf_append(out, ";\n");
        }
    }
    char *done = calloc((size_t)w * (size_t)h, 1);
    for (unsigned m = 0; m < c->masks; ++m)
        for (int k = 0; k < (int)c->rows; ++k)
            for (int l = 0; l < (int)c->cols; ++l) {
                for (int t = 0; done && t < w * h; ++t) done[t] = 0;
                for (int t = 0; done && t < w * h; ++t) {
                    const float magnitude = fabsf(coefficient(c, m, t % w, t / w));
                    if (done[t] || magnitude == 0.0f) continue;
                    indent_line(out, indent);
                    append_sum_at(e, m, k, l);
                    strbuf_append(out, " += ");
                    append_float(out, magnitude);
                    strbuf_append(out, " * (");
                    int terms = 0;
                    for (int u = t; u < w * h; ++u) {
                        const float value = coefficient(c, m, u % w, u / w);
                        if (done[u] || fabsf(value) != magnitude) continue;
                        done[u] = 1;
                        if (terms++ || value < 0.0f) strbuf_append(out, value < 0.0f ? (terms > 1 ? " - " : "-") : " + ");
                        strbuf_printf(out, "p%d_%d", u / w + k, u % w + l);
                    }
                    strbuf_append(out, ");\n");
                }
            }
    if (!done) strbuf_append(out, "#error out of memory while folding taps\n");
    free(done);
}

void emit_sums(emitter *e, int indent, const access *a)
{
    const cls_kernel_config *c = e->config;
    if (c->spec.bake_coefficients && c->spec.fold_equal_taps) emit_folded(e, indent, a);
    else if (c->spec.bake_coefficients) emit_baked(e, indent, a);
    else if (single_sum(c)) emit_loops_single(e, indent, a, "mask", 0);
    else emit_loops_block(e, indent, a, "mask", 0);
}

/* ---- streaming (emit_stream.c): one input row feeds the window of MASK_H partial sums, slot k
 * through mask row MASK_H - 1 - k, which is row MASK_H - 1 of a block of MASK_H output rows. */

void emit_stream_row_sums(emitter *e, int indent, const access *a, int rolled)
{
    const cls_kernel_config *c = e->config;
    if (rolled) emit_loops_row(e, indent, a, rolled_mask(e), 1, "(MASK_H - 1)", "MASK_H", "");
    else if (c->spec.bake_coefficients) emit_baked_row(e, indent, a, (int)c->spec.mask_height, (int)c->spec.mask_height - 1, "");
    else emit_loops_row(e, indent, a, "mask", 0, "(MASK_H - 1)", "MASK_H", "");
}

void emit_stream_row_load(emitter *e, int indent, const access *a, const char *name)
{
    const cls_kernel_config *c = e->config;
    const int rows = (int)c->spec.mask_height, r = rows - 1, span_x = (int)(c->spec.mask_width + c->cols - 1);
    strbuf_line(e->out, indent, "{   /* input row %s into %s */", a->base_y, name);
    access_row(e, a, indent + 1, "row", "");
    const int vector = vector_row(e, a);
    if (vector) emit_vector_chunks(e, indent + 1, a, rows, r, span_x);
    for (int x = 0; x < span_x; ++x) {
        if (!for_each_use(e, rows, r, x, NULL)) continue;
        indent_line(e->out, indent + 1);
        strbuf_printf(e->out, "%s[%d] = ", name, x);
        append_window_pixel(e, a, vector, r, x, span_x);
        strbuf_append(e->out, ";\n");
    }
    strbuf_line(e->out, indent, "}");
}

void emit_stream_baked_sums(emitter *e, int indent, const char *name)
{
    const cls_kernel_config *c = e->config;
    const int rows = (int)c->spec.mask_height, r = rows - 1, span_x = (int)(c->spec.mask_width + c->cols - 1);
    for (int x = 0; x < span_x; ++x) {
        if (!for_each_use(e, rows, r, x, NULL)) continue;
        indent_line(e->out, indent);
        strbuf_printf(e->out, "{ const %s v = %s[%d];", emit_value_type(c), name, x);
        for_each_use(e, rows, r, x, accumulate_v);
        strbuf_append(e->out, " }\n");
    }
}

void append_separable_coefficient(emitter *e, int column, unsigned index, float literal)
{
    const char *array = e->config->spec.bake_coefficients == CLS_COEFFICIENTS_ARGUMENT ? "coef.c" : "mask";
    if (cls_kernel_literal_coefficients(e->config)) append_float(e->out, literal);
    else strbuf_printf(e->out, column ? "%s[MASK_W + %u]" : "%s[%u]", array, index);
}

/* A separable mask's share of the row held in `name`: for each of the COLS columns, the row sum
 * through the row vector, then fed to the MASK_H partial sums through the column vector (slot k
 * through column tap MASK_H - 1 - k): MASK_W + MASK_H multiply-adds an output and input row where
 * the 2-D window takes their product. Literal zeros are skipped. */
void emit_stream_separable_sums(emitter *e, int indent, const char *name)
{
    const cls_kernel_config *c = e->config;
    const int w = (int)c->spec.mask_width;
    const int literals = cls_kernel_literal_coefficients(c);
    strbuf *out = e->out;
    for (int l = 0; l < (int)c->cols; ++l) {
        strbuf_line(out, indent, "{   /* output column %d: its row sum, then the row's share of its column sums */", l);
        indent_line(out, indent + 1);
        strbuf_printf(out, "const %s r =", emit_value_type(c));
        int terms = 0;
        for (int i = 0; i < w; ++i) {
            if (literals && c->row[i] == 0.0f) continue;
            strbuf_append(out, terms++ ? " + " : " ");
            append_separable_coefficient(e, 0, (unsigned)i, c->row[i]);
            strbuf_printf(out, " * %s[%d]", name, i + l);
        }
        strbuf_append(out, terms ? ";\n" : " 0.0f;\n");
        emit_column_share(e, indent + 1, (unsigned)l, "r", 1.0f);
        strbuf_line(out, indent, "}");
    }
}

void emit_column_share(emitter *e, int indent, unsigned l, const char *row_sum, float scale)
{
    const cls_kernel_config *c = e->config;
    const int h = (int)c->spec.mask_height, literals = cls_kernel_literal_coefficients(c);
    strbuf *out = e->out;
    indent_line(out, indent);
    for (int k = 0, sums = 0; k < h; ++k) {
        const int j = h - 1 - k;
        const float coefficient = c->column[j] * scale;
        if (literals && coefficient == 0.0f) continue;
        strbuf_printf(out, "%ssum[0][%d][%u] += ", sums++ ? " " : "", k, l);
        append_separable_coefficient(e, 1, (unsigned)j, coefficient);
        strbuf_printf(out, " * %s;", row_sum);
    }
    strbuf_append(out, "\n");
}

void emit_sums_rolled(emitter *e, int indent, const access *a)
{
    if (single_sum(e->config)) emit_loops_single(e, indent, a, rolled_mask(e), 1);
    else emit_loops_block(e, indent, a, rolled_mask(e), 1);
}
