/* emit_volume_vectors.c — a volume's walk with COLUMNS adjacent outputs a work-item in explicit
 * vectors (floatN), for CPU runtimes: each input slice's window rows are loaded as vectors (vloadN
 * at x + dx - HALF_W where the work-item's window lies inside along x, else lane by lane through
 * the bordered columns) and added into MASK_D partial sums of vectors, as the plain walk
 * (emit_volume.c) adds scalars. PoCL 3.1 packs the plain walk's clamped rows into vectors inside
 * one work-item (its SLP vectorizer) and then leaves its loop over the work-items unvectorized:
 * the vectors are written here instead. The walk loops down z (written out like the plain walk's
 * it ran about 1 ms faster for 13-tap passes at 128^3 but its first launch compiled for seconds:
 * the bordered lanes' loads). The sums run slice by slice, row by row, tap by tap. */
#include "emit.h"

#include "strbuf.h"

#include <stdio.h>

static int constant_on(const cls_spec *s, cls_axis axis)
{
    return cls_spec_border_on(s, axis) == CLS_BORDER_CONSTANT;
}

/* LANE(j): lane j of tap dx's values of the row at `line`, through the bordered columns. */
static void emit_lane_macro(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    char load[96];
    emit_format_load(load, sizeof load, s->input_type, "line", "column[dx + (j)]");
    if (constant_on(s, CLS_AXIS_X))
        strbuf_printf(out, "#define LANE(j) (column_inside[dx + (j)] ? %s : border_value) /* lane j, bordered */\n", load);
    else
        strbuf_printf(out, "#define LANE(j) %s /* lane j, bordered */\n", load);
}

void emit_volume_vector_macros(strbuf *out, const cls_kernel_config *c)
{
    strbuf_printf(out,
                  "#define COLUMNS %u /* adjacent output columns per work-item, one vector */\n"
                  "typedef float%u vector_t;\n"
                  "#define SPAN (COLUMNS + MASK_W - 1) /* input columns of the work-item's windows */\n",
                  c->cols, c->cols);
    emit_lane_macro(out, c);
}

/* The work-item's columns, rows and block of slices; its window's columns (lane by lane) and rows,
 * bordered once. */
static void emit_prologue(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const int constant_x = constant_on(s, CLS_AXIS_X), constant_y = constant_on(s, CLS_AXIS_Y);
    const char *x_ = border_suffix(s, CLS_AXIS_X), *y_ = border_suffix(s, CLS_AXIS_Y);
    strbuf_line(out, 1, "const int x = roi.s0 + (int)get_global_id(0) * COLUMNS, y = roi.s1 + (int)get_global_id(1);");
    strbuf_line(out, 1, "const int z_first = roi_z.s0 + (int)get_global_id(2) * SLICES;");
    strbuf_line(out, 1, "if (x >= roi.s2 || y >= roi.s3 || z_first >= roi_z.s1) return; /* outside the region computed */");
    if (s->border == CLS_BORDER_UNDEFINED)
        strbuf_line(out, 1, "if (y < HALF_H || y >= height - HALF_H) return; /* undefined: left unwritten */");
    emit_volume_block(out);
    strbuf_line(out, 1, "/* whether the work-item's windows lie inside along x: their rows load as vectors */");
    strbuf_line(out, 1, "const int inside_x = x >= HALF_W && x + SPAN - HALF_W <= width;");
    strbuf_line(out, 1, "int column[SPAN]; /* the windows' columns, bordered, for the lanes of the others */");
    if (constant_x) strbuf_line(out, 1, "int column_inside[SPAN];");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int i = 0; i < SPAN; ++i) {");
    strbuf_line(out, 2, "column[i] = border_both%s(x + i - HALF_W, width);", x_);
    if (constant_x) strbuf_line(out, 2, "column_inside[i] = inside_both%s(x + i - HALF_W, width);", x_);
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "long row[MASK_H];");
    if (constant_y) strbuf_line(out, 1, "int row_inside[MASK_H];");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int dy = 0; dy < MASK_H; ++dy) {");
    strbuf_line(out, 2, "row[dy] = (long)border_both%s(y + dy - HALF_H, height) * input_pitch;", y_);
    if (constant_y) strbuf_line(out, 2, "row_inside[dy] = inside_both%s(y + dy - HALF_H, height);", y_);
    strbuf_line(out, 1, "}");
}

/* The vector of tap dx's values of the row at `line`: a vector load, or lane by lane. */
static void format_row_vector(char *text, size_t size, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    char vector[512], lanes[256] = "";
    emit_format_vector_load(vector, sizeof vector, s->input_type, c->cols, "line + x + dx - HALF_W");
    size_t used = 0;
    for (unsigned j = 0; j < c->cols && used < sizeof lanes; ++j)
        used += (size_t)snprintf(lanes + used, sizeof lanes - used, "%sLANE(%u)", j ? ", " : "", j);
    snprintf(text, size, "inside_x ? %s : (vector_t)(%s)", vector, lanes);
}

/* The complete output vector stored: whole where its lanes all lie in the region (and, undefined,
 * where their windows stay inside along x), else lane by lane. */
static void emit_store(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const int undefined = s->border == CLS_BORDER_UNDEFINED;
    char vector[256], lane[256];
    emit_format_vector_store(vector, sizeof vector, s->output_type, c->cols, "sum[MASK_D - 1]", "line");
    emit_format_store(lane, sizeof lane, s->output_type, "line", "j", "values[j]");
    strbuf_line(out, 2, "const int done = z - HALF_D; /* the output slice sum[MASK_D - 1] completes */");
    if (undefined)
        strbuf_line(out, 2, "if (done >= z_first && done >= HALF_D && done < depth - HALF_D) {");
    else
        strbuf_line(out, 2, "if (done >= z_first) {");
    strbuf_line(out, 3, "__global output_t *line = output + (long)done * output_slice_pitch + (long)y * output_pitch + x;");
    strbuf_line(out, 3, "if (x + COLUMNS <= roi.s2%s) {", undefined ? " && inside_x" : "");
    strbuf_line(out, 4, "%s", vector);
    strbuf_line(out, 3, "} else {");
    strbuf_line(out, 4, "float values[COLUMNS];");
    strbuf_line(out, 4, "vstore%u(sum[MASK_D - 1], 0, values);", c->cols);
    strbuf_line(out, 4, "for (int j = 0; j < COLUMNS && x + j < roi.s2; ++j)");
    if (undefined) strbuf_line(out, 5, "if (x + j >= HALF_W && x + j < width - HALF_W) %s", lane);
    else strbuf_line(out, 5, "%s", lane);
    strbuf_line(out, 3, "}");
    strbuf_line(out, 2, "}");
}

void emit_volume_vector_walk(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const int constant_y = constant_on(s, CLS_AXIS_Y), constant_z = constant_on(s, CLS_AXIS_Z);
    const char *z_ = border_suffix(s, CLS_AXIS_Z);
    emit_prologue(out, c);
    char start[48], join[160], value[1024];
    snprintf(start, sizeof start, "(vector_t)(%s)", emit_volume_window_start(s));
    emit_volume_join(join, sizeof join, s, "COEFFICIENT(k, dy, dx)", "sum[k]", "v");
    format_row_vector(value, sizeof value, c);
    strbuf_line(out, 1, "vector_t sum[MASK_D]; /* sum[k]: output slice z + HALF_D - k, which slice k of the mask reaches */");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int k = 0; k < MASK_D; ++k) sum[k] = %s;", start);
    strbuf_line(out, 1, "for (int z = z_first - HALF_D; z < z_end + HALF_D; ++z) {");
    strbuf_line(out, 2, "const long slice = (long)slice_index(z, depth) * input_slice_pitch;");
    if (constant_z) strbuf_line(out, 2, "const int slice_inside = inside_both%s(z, depth);", z_);
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int dy = 0; dy < MASK_H; ++dy) {");
    strbuf_line(out, 3, "__global const input_t *line = input + slice + row[dy];");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int dx = 0; dx < MASK_W; ++dx) {");
    if (constant_y || constant_z)
        strbuf_line(out, 4, "const vector_t v = %s%s%s ? %s : (vector_t)(border_value);", constant_y ? "row_inside[dy]" : "",
                    constant_y && constant_z ? " && " : "", constant_z ? "slice_inside" : "", value);
    else
        strbuf_line(out, 4, "const vector_t v = %s;", value);
    strbuf_line(out, 4, "#pragma unroll");
    strbuf_line(out, 4, "for (int k = 0; k < MASK_D; ++k) %s", join);
    strbuf_line(out, 3, "}");
    strbuf_line(out, 2, "}");
    emit_store(out, c);
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = MASK_D - 1; k > 0; --k) sum[k] = sum[k - 1];");
    strbuf_line(out, 2, "sum[0] = %s;", start);
    strbuf_line(out, 1, "}");
}
