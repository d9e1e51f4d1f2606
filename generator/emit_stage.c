/* emit_stage.c — local memory: staging the group's tile and halo (border handling applied while
 * staging, so the window sums read the tile unchecked), and the separable single pass (row sums
 * of the tile's rows into local memory, then the column sums from there).
 *
 * The tile of a group covers columns tile_x .. tile_x + TILE_W - 1 and rows tile_y .. tile_y +
 * TILE_H - 1 of the image: the group's GROUP_W*COLS x GROUP_H*ROWS outputs and the halo. Its rows
 * carry one float of padding against bank conflicts (Hipacc). Staging uses the practitioner's
 * study's two loops: a 1-D loop remapped over the whole tile when the halo is small (the 2-D
 * loop's second pass over columns would leave most work-items idle), else the 2-loop form. Past
 * the image's right or bottom edge a tile (or a partial group) can reach further than one fold,
 * so those sides fold fully. */
#include "emit.h"

#include <stdio.h>

/* Staging reads through the global buffer with the region's checks. */
static access staging_access(axis_check x, axis_check y)
{
    const access a = {ACCESS_GLOBAL, x == CHECK_HI ? CHECK_BOTH : x, y == CHECK_HI ? CHECK_BOTH : y, "xs", "ys", CHECK_NONE, CHECK_NONE};
    return a;
}

static int remapped_loop(const cls_kernel_config *c)
{
    return 4 * (c->spec.mask_width - 1) <= c->group_width * c->cols;
}

void emit_tile_declaration(emitter *e, int indent)
{
    strbuf_line(e->out, indent, "__local float tile[TILE_H][TILE_W + 1]; /* + 1: no bank conflicts down a column */");
}

/* Undefined mode: a tile pixel outside the image is not loaded (no output that is written uses it). */
static void open_undefined_guard(emitter *e, int indent, const access *a)
{
    strbuf *out = e->out;
    indent_line(out, indent);
    strbuf_append(out, "if (");
    if (a->x != CHECK_NONE) append_inside(e, out, a->x, a->base_x, CLS_AXIS_X);
    if (a->x != CHECK_NONE && a->y != CHECK_NONE) strbuf_append(out, " && ");
    if (a->y != CHECK_NONE) append_inside(e, out, a->y, a->base_y, CLS_AXIS_Y);
    strbuf_append(out, ")\n");
}

/* tile[sy][sx] = pixel (xs, ys). */
static void emit_stage_store(emitter *e, int indent, access a)
{
    const int undefined = e->config->spec.border == CLS_BORDER_UNDEFINED && (a.x != CHECK_NONE || a.y != CHECK_NONE);
    if (undefined) {
        open_undefined_guard(e, indent, &a);
        a.x = a.y = CHECK_NONE;
        ++indent;
    }
    indent_line(e->out, indent);
    strbuf_append(e->out, "tile[sy][sx] = ");
    access_pixel(e, &a, "", "");
    strbuf_append(e->out, ";\n");
}

void emit_staging(emitter *e, int indent, axis_check x, axis_check y)
{
    strbuf *out = e->out;
    const access a = staging_access(x, y);
    if (remapped_loop(e->config)) {
        strbuf_line(out, indent, "/* Staging, 1-D loop remapped over the tile. */");
        strbuf_line(out, indent, "for (int s = get_local_id(1) * GROUP_W + get_local_id(0); s < TILE_W * TILE_H; s += GROUP_W * GROUP_H) {");
        strbuf_line(out, indent + 1, "const int sy = s / TILE_W, sx = s - sy * TILE_W;");
        strbuf_line(out, indent + 1, "const int xs = tile_x + sx, ys = tile_y + sy;");
        emit_stage_store(e, indent + 1, a);
        strbuf_line(out, indent, "}");
        return;
    }
    strbuf_line(out, indent, "/* Staging, 2-loop form. */");
    strbuf_line(out, indent, "for (int sy = get_local_id(1); sy < TILE_H; sy += GROUP_H)");
    strbuf_line(out, indent + 1, "for (int sx = get_local_id(0); sx < TILE_W; sx += GROUP_W) {");
    strbuf_line(out, indent + 2, "const int xs = tile_x + sx, ys = tile_y + sy;");
    emit_stage_store(e, indent + 2, a);
    strbuf_line(out, indent + 1, "}");
}

/* The row sum of the window row through `a`, into s. Unrolled, it is one expression over the
 * row's taps, as the streaming single pass writes its row sums (emit_stream_separable_sums), so
 * that a compiler contracts both into the same multiply-adds: a first result's quick kernel (this
 * form) and the single pass built for the tiered goal give the same bits. */
static void emit_row_sum(emitter *e, int indent, const access *a)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    if (c->spec.bake_coefficients == CLS_COEFFICIENTS_BUFFER) {
        strbuf_line(out, indent, "float s = 0.0f;");
        strbuf_line(out, indent, "for (int i = 0; i < MASK_W; ++i)");
        indent_line(out, indent + 1);
        strbuf_append(out, "s += mask[i] * ");
        access_load(e, a, "row", " + i - HALF_W");
        strbuf_append(out, ";\n");
        return;
    }
    indent_line(out, indent);
    strbuf_append(out, "const float s =");
    int terms = 0;
    for (int i = 0; i < (int)c->spec.mask_width; ++i) {
        if (cls_kernel_literal_coefficients(c) && c->row[i] == 0.0f) continue;
        char dx[32];
        format_offset(dx, sizeof dx, i - (int)c->spec.mask_width / 2);
        strbuf_printf(out, "\n%*s%s ", 4 * (indent + 1), "", terms++ ? "+" : " ");
        append_separable_coefficient(e, 0, (unsigned)i, c->row[i]);
        strbuf_append(out, " * ");
        access_load(e, a, "row", dx);
    }
    strbuf_append(out, terms ? ";\n" : " 0.0f;\n");
}

void emit_row_pass(emitter *e, int indent, axis_check x, axis_check y)
{
    strbuf *out = e->out;
    access a = {ACCESS_GLOBAL, x, y == CHECK_HI ? CHECK_BOTH : y, "x", "tile_y", CHECK_NONE, CHECK_NONE};
    strbuf_line(out, indent, "/* Row pass: the row sums of the tile's rows in this work-item's column. */");
    strbuf_line(out, indent, "if (x < roi.s2)");
    strbuf_line(out, indent + 1, "for (int sy = get_local_id(1); sy < TILE_H; sy += GROUP_H) {");
    indent += 2;
    if (e->config->spec.border == CLS_BORDER_UNDEFINED && (a.x != CHECK_NONE || a.y != CHECK_NONE)) {
        /* Undefined mode: a row sum whose row or window leaves the image is not computed. */
        indent_line(out, indent);
        strbuf_append(out, "if (");
        if (a.x != CHECK_NONE) strbuf_append(out, "x - HALF_W >= 0 && x + HALF_W < width");
        if (a.x != CHECK_NONE && a.y != CHECK_NONE) strbuf_append(out, " && ");
        if (a.y != CHECK_NONE) append_inside(e, out, a.y, "tile_y + sy", CLS_AXIS_Y);
        strbuf_append(out, ") {\n");
        a.x = a.y = CHECK_NONE;
        ++indent;
    } else {
        strbuf_line(out, indent, "{");
        ++indent;
    }
    access_row(e, &a, indent, "row", " + sy");
    emit_row_sum(e, indent, &a);
    strbuf_line(out, indent, "tile[sy][get_local_id(0)] = s;");
    strbuf_line(out, indent - 1, "}");
    strbuf_line(out, indent - 2, "}");
}

void emit_column_pass(emitter *e, int indent)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* Column pass: the column sums of the row sums. */");
    strbuf_line(out, indent, "const int ty = get_local_id(1) * ROWS, column = get_local_id(0);");
    for (unsigned k = 0; k < c->rows; ++k) {
        char kk[16];
        snprintf(kk, sizeof kk, "%u", k);
        if (c->spec.bake_coefficients == CLS_COEFFICIENTS_BUFFER) {
            strbuf_line(out, indent, "for (int j = 0; j < MASK_H; ++j)");
            indent_line(out, indent + 1);
            append_sum(e, 0, kk, "0");
            strbuf_printf(out, " += mask[MASK_W + j] * tile[ty + %u + j][column];\n", k);
            continue;
        }
        for (unsigned j = 0; j < c->spec.mask_height; ++j) {
            if (cls_kernel_literal_coefficients(c) && c->column[j] == 0.0f) continue;
            indent_line(out, indent);
            append_sum(e, 0, kk, "0");
            strbuf_append(out, " += ");
            append_separable_coefficient(e, 1, j, c->column[j]);
            strbuf_printf(out, " * tile[ty + %u][column];\n", k + j);
        }
    }
}
