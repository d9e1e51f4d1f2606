/* emit_staged_rows.c — a separable mask's single pass whose group stages its input rows in local
 * memory (cls_kernel_stages_input_rows). A group of GROUP_W x 1 work-items, 4 output columns
 * each, walks one strip of ROWS rows. Its input rows pass through two local tiles CHUNK rows at a
 * time, each tile row the group's columns and PAD_W more on either side (the half width rounded
 * up to a float4): every work-item loads its float4s of the next chunk into registers, sums the
 * chunk staged before from the other tile (row sums fed to the column sums in registers, as the
 * streaming single pass does), then stores the loads: one barrier a chunk, and a chunk's loads in
 * flight while the sums run, in a few registers rather than the rows ahead of a streaming kernel.
 * The borders are the loads' alone, through tables of the strip's rows and the tile's columns
 * folded once at the start; the sums read the tile unchecked.
 *
 * H200, f32 4096x4096, a Gaussian 13x13: 49.4 µs in clamp, 49.7 in mirror101 (the streaming
 * single pass: 62.8, 62.4; a copy 34), 64 rows in chunks of 4 in 128 x 1 groups; a hand-written
 * probe of the same walk without borders, 44.7 µs. A chunk's float4s are spread over the whole
 * group (the k-th of work-item lx is float4 lx + k GROUP_W of the chunk's rows one after the
 * other), not a tile row at a time, where the group's first TILE_V - GROUP_W work-items loaded a
 * second float4 of every row while the others waited at the barrier (a Gaussian 31x31 in 128-row
 * strips: 94.8-95.7 µs so, 86.9-88.0 spread; 19x19 62.2-62.9 and 59.8-60.2). */
#include "emit.h"

#include <stdio.h>

/* The float4s of a tile row that a work-item's window reads. */
static unsigned window_float4s(const cls_kernel_config *c)
{
    return (c->cols + 2 * cls_staged_rows_pad(c)) / 4;
}

void emit_staged_rows_defines(emitter *e)
{
    const cls_kernel_config *c = e->config;
    strbuf_printf(e->out,
                  "#define CHUNK %u /* input rows staged at a time */\n"
                  "#define PAD_W %u /* tile columns on either side of the group's outputs: HALF_W up to a float4 */\n"
                  "#define TILE_V ((GROUP_W * COLS + 2 * PAD_W) / 4) /* float4s of a tile row */\n"
                  "#define LOADS ((CHUNK * TILE_V + GROUP_W - 1) / GROUP_W) /* float4s of a chunk a work-item loads */\n"
                  "#define STRIP_ROWS ((ROWS + MASK_H - 1 + CHUNK - 1) / CHUNK * CHUNK) /* a strip's input rows, in chunks */\n",
                  CLS_STAGED_ROWS_CHUNK, cls_staged_rows_pad(c));
}

/* The pixel of image column folded_columns[4 * u + K] in row `row` as a float (the constant
 * border's value where the column or the row is outside: a folded index of -1). */
static void append_folded_pixel(emitter *e, int k)
{
    const int constant_x = software_constant_on(e, CLS_AXIS_X), constant_y = software_constant_on(e, CLS_AXIS_Y);
    char column[64], index[96], load[192];
    snprintf(column, sizeof column, "folded_columns[4 * u + %d]", k);
    snprintf(index, sizeof index, constant_x ? "row + max(%s, 0)" : "row + %s", column);
    emit_format_load(load, sizeof load, e->config->spec.input_type, "input", index);
    if (!constant_x && !constant_y) {
        strbuf_append(e->out, load);
        return;
    }
    strbuf_printf(e->out, "%s%s%s%s ? %s : border_value", constant_y ? "row_inside" : "", constant_x && constant_y ? " && " : "",
                  constant_x ? column : "", constant_x ? " >= 0" : "", load);
}

/* float4 u of the tile's row q into staged[k]: one load where its four columns lie inside the
 * image, else pixel by pixel through the folded columns (the float4s at the image's sides: a lane
 * or two of a warp). */
static void emit_tile_load(emitter *e, int indent)
{
    const cls_kernel_config *c = e->config;
    const cls_pixel_type type = c->spec.input_type;
    strbuf *out = e->out;
    char load[256];
    if (cls_kernel_aligned_loads(c) == 4 && type != CLS_PIXEL_F16) {
        char vector[160];
        snprintf(vector, sizeof vector, "*(__global const %s4 *)(input + row + col)", emit_cl_type(type));
        if (type == CLS_PIXEL_F32) snprintf(load, sizeof load, "%s", vector);
        else snprintf(load, sizeof load, "convert_float4(%s)", vector);
    } else {
        emit_format_vector_load(load, sizeof load, type, 4, "input + row + col");
    }
    strbuf_line(out, indent, "if (col >= 0 && col + 4 <= width)");
    if (software_constant_on(e, CLS_AXIS_Y))
        strbuf_line(out, indent + 1, "staged[k] = row_inside ? %s : (float4)(border_value);", load);
    else
        strbuf_line(out, indent + 1, "staged[k] = %s;", load);
    strbuf_line(out, indent, "else");
    indent_line(out, indent + 1);
    strbuf_append(out, "staged[k] = (float4)(");
    for (int k = 0; k < 4; ++k) {
        if (k) strbuf_append(out, ", ");
        append_folded_pixel(e, k);
    }
    strbuf_append(out, ");\n");
}

/* Chunk c's rows into the registers `staged`: float4 v of the chunk (its rows one after the
 * other) is float4 u of row q, that row's offset from folded_rows. */
static void emit_chunk_loads(emitter *e, int indent)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int k = 0; k < LOADS; ++k) {");
    strbuf_line(out, indent + 1, "const int v = lx + k * GROUP_W, q = v / TILE_V, u = v - q * TILE_V, col = tile_x + 4 * u;");
    strbuf_line(out, indent + 1, "if (v < CHUNK * TILE_V) {");
    if (software_constant_on(e, CLS_AXIS_Y)) {
        strbuf_line(out, indent + 2, "const int folded = folded_rows[c * CHUNK + q], row_inside = folded >= 0;");
        strbuf_line(out, indent + 2, "const long row = (long)max(folded, 0) * input_pitch;");
    } else {
        strbuf_line(out, indent + 2, "const long row = (long)folded_rows[c * CHUNK + q] * input_pitch;");
    }
    emit_tile_load(e, indent + 2);
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

/* `target`[k] = the index `index` folded through the axis's border (-1 outside in constant mode),
 * for k from lx to `count` - 1 in steps of the group. */
static void emit_fold_table(emitter *e, const char *target, const char *count, const char *index, cls_axis axis)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "for (int k = lx; k < %s; k += GROUP_W)", count);
    indent_line(out, 2);
    strbuf_printf(out, "%s[k] = ", target);
    if (software_constant_on(e, axis)) {
        append_inside(e, out, CHECK_BOTH, index, axis);
        strbuf_printf(out, " ? %s : -1;\n", index);
    } else {
        append_index(e, out, CHECK_BOTH, index, axis);
        strbuf_append(out, ";\n");
    }
}

/* The strip's rows and the tile's columns folded through the borders once, so that the walk's
 * loads fold nothing (a remainder a row in mirror101 took a Gaussian 13x13 on an H200 from 49.3
 * µs in clamp to 57.2). */
static void emit_fold_tables(emitter *e)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "/* The strip's input rows and the tile's columns through the borders%s. */",
                software_constant(e) ? " (-1: outside, the constant's)" : "");
    strbuf_line(out, 1, "__local int folded_rows[STRIP_ROWS], folded_columns[4 * TILE_V];");
    emit_fold_table(e, "folded_rows", "STRIP_ROWS", "tile_y + k", CLS_AXIS_Y);
    emit_fold_table(e, "folded_columns", "4 * TILE_V", "tile_x + k", CLS_AXIS_X);
    strbuf_line(out, 1, "barrier(CLK_LOCAL_MEM_FENCE);");
}

/* Output row yi - HALF_H once its sums are complete: its four columns as one vector store, or
 * those inside the region one by one. */
static void emit_store(emitter *e, int indent)
{
    const cls_pixel_type type = e->config->spec.output_type;
    strbuf *out = e->out;
    char store[256];
    strbuf_line(out, indent, "if (i >= MASK_H - 1) { /* sum[0][0] is complete: output row yi - HALF_H */");
    strbuf_line(out, indent + 1, "__global output_t *at = output + (long)(yi - HALF_H) * output_pitch + x;");
    strbuf_line(out, indent + 1, "if (x + COLS <= roi.s2)");
    emit_format_vector_store(store, sizeof store, type, 4, "(float4)(sum[0][0][0], sum[0][0][1], sum[0][0][2], sum[0][0][3])", "at");
    strbuf_line(out, indent + 2, "%s", store);
    strbuf_line(out, indent + 1, "else");
    strbuf_line(out, indent + 2, "for (int l = 0; l < COLS && x + l < roi.s2; ++l)");
    emit_format_store(store, sizeof store, type, "at", "l", "sum[0][0][l]");
    strbuf_line(out, indent + 3, "%s", store);
    strbuf_line(out, indent, "}");
}

/* The window's columns of tile row q of chunk c - 1 into px (SPAN_W pixels from the work-item's
 * first output column less HALF_W). */
static void emit_window_row(emitter *e, int indent)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    const unsigned reads = window_float4s(c), first = cls_staged_rows_pad(c) - c->spec.mask_width / 2;
    const unsigned span = c->spec.mask_width + c->cols - 1;
    strbuf_line(out, indent, "const float4 t0 = tile[(c - 1) & 1][q * TILE_V + lx];");
    for (unsigned j = 1; j < reads; ++j) strbuf_line(out, indent, "const float4 t%u = tile[(c - 1) & 1][q * TILE_V + lx + %u];", j, j);
    indent_line(out, indent);
    strbuf_append(out, "const float px[SPAN_W] = {");
    for (unsigned k = 0; k < span; ++k)
        strbuf_printf(out, "%st%u.s%u", k ? ", " : "", (first + k) / 4, (first + k) % 4);
    strbuf_append(out, "};\n");
}

/* A box's row (literal coefficients that are all one value) from BOX_ROW_MIN_WIDTH taps: its
 * four windows share their middle columns, summed once without products, and the row's value
 * folds into the column's coefficients. Narrower rows keep their products (a 5-wide box measured
 * 2% slower shared on an H200). A box's column keeps its partial sums too: a running sum would
 * keep the rows it leaves, moved register by register every row (box 15x15: 77 µs against 53). */
#define BOX_ROW_MIN_WIDTH 9

/* The value of every coefficient of the row where it is a box's that wide, else 0. */
static float box_row(const cls_kernel_config *c)
{
    const unsigned w = c->spec.mask_width;
    if (!cls_kernel_literal_coefficients(c) || w < BOX_ROW_MIN_WIDTH || c->row[0] == 0.0f) return 0.0f;
    for (unsigned i = 1; i < w; ++i)
        if (c->row[i] != c->row[0]) return 0.0f;
    return c->row[0];
}

/* px[first] + ... + px[end - 1] added in pairs, then pairs of pairs: a chain as deep as the
 * logarithm of its terms rather than their count. */
static void append_pairwise_sum(strbuf *out, unsigned first, unsigned end, int nested)
{
    if (end - first == 1) {
        strbuf_printf(out, "px[%u]", first);
        return;
    }
    const unsigned middle = first + (end - first + 1) / 2;
    const int brackets = nested && end - first > 2;
    strbuf_append(out, brackets ? "(" : "");
    append_pairwise_sum(out, first, middle, 1);
    strbuf_append(out, " + ");
    append_pairwise_sum(out, middle, end, 1);
    strbuf_append(out, brackets ? ")" : "");
}

/* px's share of the sums where the row is a box's: the shared middle, each output column's row sum
 * from it, then each one's share of its column sums through the column's coefficients times the
 * box's value. */
static void emit_box_row_sums(emitter *e, int indent)
{
    const cls_kernel_config *c = e->config;
    const unsigned w = c->spec.mask_width, cols = c->cols;
    const float row = box_row(c);
    const char *type = emit_value_type(c);
    strbuf *out = e->out;
    strbuf_line(out, indent, "{   /* a box's row: the columns every output column's window takes, summed once */");
    indent_line(out, indent + 1);
    strbuf_printf(out, "const %s shared = ", type);
    append_pairwise_sum(out, cols - 1, w, 0);
    strbuf_append(out, ";\n");
    for (unsigned l = 0; l < cols; ++l) {
        indent_line(out, indent + 1);
        strbuf_printf(out, "const %s r%u = shared", type, l);
        for (unsigned i = l; i < cols - 1; ++i) strbuf_printf(out, " + px[%u]", i);
        for (unsigned i = w; i < w + l; ++i) strbuf_printf(out, " + px[%u]", i);
        strbuf_append(out, ";\n");
    }
    for (unsigned l = 0; l < cols; ++l) {
        char row_sum[16];
        snprintf(row_sum, sizeof row_sum, "r%u", l);
        emit_column_share(e, indent + 1, l, row_sum, row);
    }
    strbuf_line(out, indent, "}");
}

/* The sums of chunk c - 1, row by row, each complete output row stored. */
static void emit_chunk_sums(emitter *e, int indent)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int q = 0; q < CHUNK; ++q) {");
    strbuf_line(out, indent + 1, "const int i = (c - 1) * CHUNK + q, yi = tile_y + i;");
    strbuf_line(out, indent + 1, "if (i < steps) {");
    emit_window_row(e, indent + 2);
    if (box_row(e->config)) emit_box_row_sums(e, indent + 2);
    else emit_stream_separable_sums(e, indent + 2, "px");
    emit_store(e, indent + 2);
    emit_stream_shift(e, indent + 2);
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

void emit_staged_rows(emitter *e)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "(void)body_columns;");
    strbuf_line(out, 1, "/* The group's strip: input rows tile_y .. y + ROWS - 1 + HALF_H, CHUNK at a time through");
    strbuf_line(out, 1, " * local memory, tile columns tile_x .. tile_x + 4 * TILE_V - 1. */");
    strbuf_line(out, 1, "__local float4 tile[2][CHUNK * TILE_V]; /* a chunk's rows one after the other */");
    strbuf_line(out, 1, "const int lx = (int)get_local_id(0);");
    strbuf_line(out, 1, "const int tile_x = x - lx * COLS - PAD_W, tile_y = y - HALF_H;");
    strbuf_line(out, 1, "const int steps = min(ROWS, roi.s3 - y) + MASK_H - 1, chunks = (steps + CHUNK - 1) / CHUNK;");
    emit_fold_tables(e);
    emit_sum_declaration(e, 1);
    strbuf_line(out, 1, "float4 staged[LOADS]; /* the next chunk's pixels, loaded while this one is summed */");
    strbuf_line(out, 1, "#pragma unroll 1");
    strbuf_line(out, 1, "for (int c = 0; c <= chunks; ++c) {");
    strbuf_line(out, 2, "if (c < chunks) {");
    emit_chunk_loads(e, 3);
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "if (c > 0) {");
    emit_chunk_sums(e, 3);
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "if (c < chunks) { /* tile c & 1 was last read at chunk c - 2, before the last barrier */");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int k = 0; k < LOADS; ++k)");
    strbuf_line(out, 4, "if (lx + k * GROUP_W < CHUNK * TILE_V) tile[c & 1][lx + k * GROUP_W] = staged[k];");
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
    strbuf_line(out, 1, "}");
}
