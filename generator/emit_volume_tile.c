/* emit_volume_tile.c — a volume's walk with the slice's tile in local memory: the work-group walks
 * down z over a tile of GROUP_W x COLUMNS by GROUP_H outputs; at each input slice its work-items
 * load the tile with the window's halo once (each tile pixel by one work-item, its offset bordered
 * once before the walk). For any mask, each work-item then reads its COLUMNS + MASK_W - 1 values
 * of a tile row as float4s and adds them into the partial sums of its COLUMNS outputs in the MASK_D
 * output slices that input slice reaches: a voxel is so loaded from global memory about once a
 * slice instead of MASK_W x MASK_H times, and a work-item reads local memory (MASK_W - 1) / COLUMNS
 * + 1 float4s a row instead of MASK_W loads an output (the plain walk, emit_volume.c, is bound by
 * its loads and their addresses, not by memory); the sums run slice by slice, row by row, tap by
 * tap, as in the plain walk and the CPU reference. Where the record says so (cls_volume_block_rows)
 * a work-item sums BLOCK_ROWS such rows of outputs, each tile row it reaches read once for all of
 * them, its tile offsets in 32 bits and its pixels' places in the tile computed rather than kept
 * (the registers its larger share of the tile's loads would take). For a separable mask (x[i]
 * y[j] z[k], the single pass), the slice's tile is summed along x into a second tile in local
 * memory (a rectangle's minimum or maximum from 9 wide: the middle columns that the windows of a
 * work-item's columns share joined once), that along y, and each work-item's column sums go into
 * its window of output slices along z (a rectangle's extremum by doubling,
 * emit_volume_doubling.c): one kernel where the passes (host/volume_passes.c) write and read two
 * temporary volumes. Where the record says so and the mask is tall (cls_volume_y_first), y
 * runs first, over the tile's columns in columns of COLUMNS rows, and x then over the group's
 * rows alone. */
#include "emit.h"

#include "strbuf.h"

#include <stdio.h>

void emit_volume_tile_macros(strbuf *out, const cls_kernel_config *c)
{
    const unsigned rows = cls_volume_block_rows(c);
    if (rows > 1) strbuf_printf(out, "#define BLOCK_ROWS %u /* output rows per work-item, each tile row read once for all */\n", rows);
    strbuf_printf(out,
                  "#define COLUMNS %u /* output columns per work-item, read from the slice's tile */\n"
                  "#define TILE_W (GROUP_W * COLUMNS + 2 * HALF_W) /* the group's outputs and the window's halo */\n"
                  "#define TILE_H (GROUP_H%s + 2 * HALF_H)\n"
                  "#define TILE_FLOAT4S ((TILE_W + 3) / 4 + 1) /* a tile row's float4s, one more against bank conflicts */\n"
                  "#define TILE_LOADS ((TILE_W * TILE_H + GROUP_W * GROUP_H - 1) / (GROUP_W * GROUP_H)) "
                  "/* tile pixels a work-item loads */\n"
                  "#define ROW_FLOAT4S ((COLUMNS + 2 * HALF_W + 3) / 4) /* float4s a work-item reads of a tile row */\n",
                  c->cols, rows > 1 ? " * BLOCK_ROWS" : "");
}

/* The group's tile, the work-item's outputs, and the tile pixels it loads at every slice. */
static void emit_tile_prologue(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const int constant_x = cls_spec_border_on(s, CLS_AXIS_X) == CLS_BORDER_CONSTANT,
              constant_y = cls_spec_border_on(s, CLS_AXIS_Y) == CLS_BORDER_CONSTANT;
    const char *x_ = border_suffix(s, CLS_AXIS_X), *y_ = border_suffix(s, CLS_AXIS_Y);
    if (cls_volume_tile_buffers(c) == 2) {
        strbuf_line(out, 1, "__local float4 tiles4[2][TILE_H][TILE_FLOAT4S]; /* even and odd slices' tiles */");
    } else {
        strbuf_line(out, 1, "__local float4 tile4[TILE_H][TILE_FLOAT4S];");
        strbuf_line(out, 1, "__local float *tile = (__local float *)tile4;");
    }
    strbuf_line(out, 1, "const int item = (int)get_local_id(1) * GROUP_W + (int)get_local_id(0);");
    const char *rows = cls_volume_block_rows(c) > 1 ? " * BLOCK_ROWS" : "";
    strbuf_line(out, 1, "const int x = roi.s0 + (int)get_global_id(0) * COLUMNS, y = roi.s1 + (int)get_global_id(1)%s;", rows);
    strbuf_line(out, 1, "const int tile_x = roi.s0 + (int)get_group_id(0) * GROUP_W * COLUMNS - HALF_W;");
    strbuf_line(out, 1, "const int tile_y = roi.s1 + (int)get_group_id(1) * GROUP_H%s - HALF_H;", rows);
    strbuf_line(out, 1, "const int z_first = roi_z.s0 + (int)get_global_id(2) * SLICES;");
    strbuf_line(out, 1, "if (z_first >= roi_z.s1) return; /* the whole group: its block of slices is outside the region */");
    emit_volume_block(out);
    strbuf_line(out, 1, "/* The tile pixels this work-item loads, bordered once: they stay while the group walks down z. */");
    const int blocked = cls_volume_block_rows(c) > 1;
    if (blocked) { /* fewer registers than the offsets of the one-row walk, which a block's more loads need */
        strbuf_line(out, 1, "int at[TILE_LOADS]; /* within the slice: the host refuses slices of 2^31 pixels or more */");
    } else {
        strbuf_line(out, 1, "long at[TILE_LOADS];");
        strbuf_line(out, 1, "int into[TILE_LOADS]; /* where in the tile; -1: past its end */");
    }
    if (constant_x || constant_y) strbuf_line(out, 1, "int inside[TILE_LOADS];");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int i = 0; i < TILE_LOADS; ++i) {");
    strbuf_line(out, 2, "const int e = item + i * GROUP_W * GROUP_H, tx = e %% TILE_W, ty = e / TILE_W;");
    if (!blocked) strbuf_line(out, 2, "into[i] = e < TILE_W * TILE_H ? ty * TILE_FLOAT4S * 4 + tx : -1;");
    strbuf_line(out, 2, "at[i] = %sborder_both%s(tile_y + ty, height) * input_pitch + border_both%s(tile_x + tx, width);",
                blocked ? "" : "(long)", y_, x_);
    if (constant_x && constant_y)
        strbuf_line(out, 2, "inside[i] = inside_both%s(tile_x + tx, width) && inside_both%s(tile_y + ty, height);", x_, y_);
    else if (constant_x || constant_y)
        strbuf_line(out, 2, "inside[i] = inside_both%s(tile_%s + t%s, %s);", constant_x ? x_ : y_, constant_x ? "x" : "y",
                    constant_x ? "x" : "y", constant_x ? "width" : "height");
    strbuf_line(out, 1, "}");
}

/* The store of column j's complete sum (DONE[j]) of each of the work-item's rows, where the
 * output is in the region (and, undefined, where its window stays inside the volume); f32
 * outputs of four columns inside the region as one float4 where their address is aligned (H200,
 * 512^3: the random 3x3x3 336 -> 327 us, max3d:9 660 -> 613, gaussian3d:13,2 772 -> 751 against
 * four stores). With BLOCK_ROWS, DONE names row b's. */
void emit_volume_tile_store(strbuf *out, const cls_kernel_config *c, const char *done)
{
    const cls_spec *s = &c->spec;
    const int blocked = cls_volume_block_rows(c) > 1, in = blocked ? 3 : 2;
    const char *row = blocked ? "row" : "y";
    char store[320], value[64];
    snprintf(value, sizeof value, "%s[j]", done);
    emit_format_store(store, sizeof store, s->output_type, "row_out", "x + j", value);
    strbuf_line(out, 2, "const int done = z - HALF_D; /* the output slice that %s completes */", done);
    if (blocked) {
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b) {");
        strbuf_line(out, 3, "const int row = y + b;");
    }
    if (s->border == CLS_BORDER_UNDEFINED) {
        strbuf_line(out, in, "if (done >= z_first && %s < roi.s3 && done >= HALF_D && done < depth - HALF_D && %s >= HALF_H && "
                             "%s < height - HALF_H) {", row, row, row);
    } else {
        strbuf_line(out, in, "if (done >= z_first && %s < roi.s3) {", row);
    }
    strbuf_line(out, in + 1, "__global output_t *row_out = output + (long)done * output_slice_pitch + (long)%s * output_pitch;", row);
    if (s->output_type == CLS_PIXEL_F32 && c->cols == 4 && s->border != CLS_BORDER_UNDEFINED) {
        strbuf_line(out, in + 1, "if (x + 4 <= roi.s2 && ((ulong)(row_out + x) & 15) == 0) { /* one aligned vector store */");
        strbuf_line(out, in + 2, "*(__global float4 *)(row_out + x) = (float4)(%s[0], %s[1], %s[2], %s[3]);", done, done, done, done);
        strbuf_line(out, in + 1, "} else {");
        strbuf_line(out, in + 2, "#pragma unroll");
        strbuf_line(out, in + 2, "for (int j = 0; j < COLUMNS; ++j)");
        strbuf_line(out, in + 3, "if (x + j < roi.s2) %s", store);
        strbuf_line(out, in + 1, "}");
    } else {
        strbuf_line(out, in + 1, "#pragma unroll");
        strbuf_line(out, in + 1, "for (int j = 0; j < COLUMNS; ++j)");
        if (s->border == CLS_BORDER_UNDEFINED)
            strbuf_line(out, in + 2, "if (x + j < roi.s2 && x + j >= HALF_W && x + j < width - HALF_W) %s", store);
        else
            strbuf_line(out, in + 2, "if (x + j < roi.s2) %s", store);
    }
    strbuf_line(out, in, "}");
    if (blocked) strbuf_line(out, 2, "}");
}

/* The loads of slice Z's tile pixels into next[] at INDENT, bordered (constant: border_value
 * outside). */
static void emit_slice_loads(strbuf *out, const cls_kernel_config *c, int indent, const char *z)
{
    const cls_spec *s = &c->spec;
    const int constant_xy = cls_spec_border_on(s, CLS_AXIS_X) == CLS_BORDER_CONSTANT ||
                            cls_spec_border_on(s, CLS_AXIS_Y) == CLS_BORDER_CONSTANT,
              constant_z = cls_spec_border_on(s, CLS_AXIS_Z) == CLS_BORDER_CONSTANT;
    const char *z_ = border_suffix(s, CLS_AXIS_Z);
    char load[160], kept[128] = "";
    emit_format_load(load, sizeof load, s->input_type, "slice", "at[i]");
    const char *in_tile = cls_volume_block_rows(c) > 1 ? "item + i * GROUP_W * GROUP_H < TILE_W * TILE_H" : "into[i] >= 0";
    if (constant_z) snprintf(kept, sizeof kept, "inside_both%s(%s, depth)%s", z_, z, constant_xy ? " && inside[i]" : "");
    else if (constant_xy) snprintf(kept, sizeof kept, "inside[i]");
    strbuf_line(out, indent, "__global const input_t *slice = input + (long)slice_index(%s, depth) * input_slice_pitch;", z);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int i = 0; i < TILE_LOADS; ++i)");
    if (*kept)
        strbuf_line(out, indent + 1, "if (i < TILE_LOADS - 1 || %s) next[i] = %s ? %s : border_value;", in_tile, kept, load);
    else
        strbuf_line(out, indent + 1, "if (i < TILE_LOADS - 1 || %s) next[i] = %s;", in_tile, load);
}

/* The slice's tile into local memory from next[], and the next slice's pixels loaded into next[]
 * while the group sums this one: the loads' latency hidden behind the sums. With two tiles, even
 * and odd slices take turns: the one written here was last read two slices ago, before the
 * barrier that every work-item passed since, so one barrier a slice suffices. */
static void emit_tile_load(strbuf *out, const cls_kernel_config *c)
{
    const int alternate = cls_volume_tile_buffers(c) == 2;
    if (alternate) {
        strbuf_line(out, 2, "__local float4 (*tile4)[TILE_FLOAT4S] = tiles4[z & 1];");
        strbuf_line(out, 2, "__local float *tile = (__local float *)tile4;");
    } else {
        strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE); /* the group is done with the last slice's tile */");
    }
    strbuf_line(out, 2, "#pragma unroll");
    if (cls_volume_block_rows(c) > 1) { /* the tile's index from the pixel's, not kept in registers */
        strbuf_line(out, 2, "for (int i = 0; i < TILE_LOADS; ++i) {");
        strbuf_line(out, 3, "const int e = item + i * GROUP_W * GROUP_H;");
        strbuf_line(out, 3, "if (i < TILE_LOADS - 1 || e < TILE_W * TILE_H) tile[e / TILE_W * TILE_FLOAT4S * 4 + e %% TILE_W] = next[i];");
        strbuf_line(out, 2, "}");
    } else {
        strbuf_line(out, 2, "for (int i = 0; i < TILE_LOADS; ++i)");
        strbuf_line(out, 3, "if (i < TILE_LOADS - 1 || into[i] >= 0) tile[into[i]] = next[i];");
    }
    strbuf_line(out, 2, alternate ? "barrier(CLK_LOCAL_MEM_FENCE); /* the slice's tile is complete */" : "barrier(CLK_LOCAL_MEM_FENCE);");
    strbuf_line(out, 2, "if (z + 1 < z_end + HALF_D) {");
    emit_slice_loads(out, c, 3, "z + 1");
    strbuf_line(out, 2, "}");
}

/* The first slice's tile pixels, and the window of partial results down z: MASK_D output slices
 * x COLUMNS, from the start (DOUBLING: the levels of emit_volume_doubling.c instead); the walk's
 * loop opened. */
static void emit_window(strbuf *out, const cls_kernel_config *c, int doubling)
{
    strbuf_line(out, 1, "float next[TILE_LOADS]; /* the tile pixels of the slice the group sums next */");
    strbuf_line(out, 1, "{");
    emit_slice_loads(out, c, 2, "z_first - HALF_D");
    strbuf_line(out, 1, "}");
    if (doubling) {
        emit_volume_doubling_levels(out, c);
    } else {
        const int blocked = cls_volume_block_rows(c) > 1, in = blocked ? 3 : 2;
        if (blocked)
            strbuf_line(out, 1, "float sum[MASK_D][BLOCK_ROWS][COLUMNS]; /* sum[k][b][j]: column x + j, row y + b of output slice z + HALF_D - k */");
        else
            strbuf_line(out, 1, "float sum[MASK_D][COLUMNS]; /* sum[k][j]: column x + j of output slice z + HALF_D - k */");
        strbuf_line(out, 1, "#pragma unroll");
        strbuf_line(out, 1, "for (int k = 0; k < MASK_D; ++k)");
        if (blocked) {
            strbuf_line(out, 2, "#pragma unroll");
            strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b)");
        }
        strbuf_line(out, in, "#pragma unroll");
        strbuf_line(out, in, "for (int j = 0; j < COLUMNS; ++j) sum[k]%s[j] = %s;", blocked ? "[b]" : "",
                    emit_volume_window_start(&c->spec));
    }
    strbuf_line(out, 1, "for (int z = z_first - HALF_D; z < z_end + HALF_D; ++z) {");
}

/* The values V[0 .. ROW_FLOAT4S * 4 - 1] of the work-item's columns in row ROW of a local array
 * of float4s. */
static void emit_row_values(strbuf *out, int indent, const char *array, const char *row)
{
    strbuf_line(out, indent, "float v[ROW_FLOAT4S * 4];");
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int i = 0; i < ROW_FLOAT4S; ++i) vstore4(%s[%s][get_local_id(0) * (COLUMNS / 4) + i], i, v);",
                array, row);
}

/* The window moved down a slice (the levels of DOUBLING moved as they were joined), the walk's
 * loop closed. */
static void emit_window_shift(strbuf *out, const cls_kernel_config *c, int doubling)
{
    if (doubling) {
        strbuf_line(out, 1, "}");
        return;
    }
    const int blocked = cls_volume_block_rows(c) > 1, in = blocked ? 3 : 2;
    const char *b = blocked ? "[b]" : "";
    if (blocked) {
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b) {");
    }
    strbuf_line(out, in, "#pragma unroll");
    strbuf_line(out, in, "for (int k = MASK_D - 1; k > 0; --k)");
    strbuf_line(out, in + 1, "#pragma unroll");
    strbuf_line(out, in + 1, "for (int j = 0; j < COLUMNS; ++j) sum[k]%s[j] = sum[k - 1]%s[j];", b, b);
    strbuf_line(out, in, "#pragma unroll");
    strbuf_line(out, in, "for (int j = 0; j < COLUMNS; ++j) sum[0]%s[j] = %s;", b, emit_volume_window_start(&c->spec));
    if (blocked) strbuf_line(out, 2, "}");
    strbuf_line(out, 1, "}");
}

/* Along z in the separable walk: the slice's column[] joined into the window's output slices (or,
 * DOUBLING, into the levels); returns the array of the output slice it completes. */
static const char *emit_z_join(strbuf *out, const cls_kernel_config *c, int doubling)
{
    if (doubling) {
        emit_volume_doubling_step(out, c);
        return "result";
    }
    char join[160];
    emit_volume_join(join, sizeof join, &c->spec, "along_z[k]", "sum[k][j]", "column[j]");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = 0; k < MASK_D; ++k)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) %s", join);
    return "sum[MASK_D - 1]";
}

/* The multiply-adds (JOIN) of a tile row's values v[] into the window's sums, at INDENT. */
static void emit_row_taps(strbuf *out, int indent, const char *join)
{
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int dx = 0; dx < MASK_W; ++dx)");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int j = 0; j < COLUMNS; ++j)");
    strbuf_line(out, indent + 2, "#pragma unroll");
    strbuf_line(out, indent + 2, "for (int k = 0; k < MASK_D; ++k) %s", join);
}

/* The sums of a work-item's BLOCK_ROWS rows: each tile row its rows reach read once, its values
 * added into every row whose window takes it, in the order of the one-row walk (row by row, tap by
 * tap) for each. */
static void emit_blocked_sums(strbuf *out, const cls_kernel_config *c, const char *unroll_taps)
{
    char join[160];
    emit_volume_join(join, sizeof join, &c->spec, "COEFFICIENT(k, dy, dx)", "sum[k][b][j]", "v[j + dx]");
    strbuf_line(out, 2, "%s", unroll_taps);
    strbuf_line(out, 2, "for (int t = 0; t < BLOCK_ROWS + MASK_H - 1; ++t) { /* the tile rows the work-item's rows read */");
    emit_row_values(out, 3, "tile4", "get_local_id(1) * BLOCK_ROWS + t");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int b = 0; b < BLOCK_ROWS; ++b) {");
    strbuf_line(out, 4, "const int dy = t - b;");
    strbuf_line(out, 4, "if (dy < 0 || dy >= MASK_H) continue;");
    emit_row_taps(out, 4, join);
    strbuf_line(out, 3, "}");
    strbuf_line(out, 2, "}");
}

void emit_volume_tiled_walk(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const unsigned rows = cls_volume_block_rows(c);
    emit_tile_prologue(out, c);
    emit_window(out, c, 0);
    emit_tile_load(out, c);
    const char *unroll_taps = (size_t)s->mask_width * s->mask_height * s->mask_depth * c->cols * rows <= c->limits.unroll_limit
                                  ? "#pragma unroll"
                                  : "#pragma unroll 1";
    if (rows > 1) {
        emit_blocked_sums(out, c, unroll_taps);
        emit_volume_tile_store(out, c, "sum[MASK_D - 1][b]");
        emit_window_shift(out, c, 0);
        return;
    }
    char join[160];
    emit_volume_join(join, sizeof join, s, "COEFFICIENT(k, dy, dx)", "sum[k][j]", "v[j + dx]");
    strbuf_line(out, 2, "%s", unroll_taps);
    strbuf_line(out, 2, "for (int dy = 0; dy < MASK_H; ++dy) {");
    emit_row_values(out, 3, "tile4", "get_local_id(1) + dy");
    emit_row_taps(out, 3, join);
    strbuf_line(out, 2, "}");
    emit_volume_tile_store(out, c, "sum[MASK_D - 1]");
    emit_window_shift(out, c, 0);
}

void emit_volume_separable_macros(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const unsigned sides[3] = {s->mask_width, s->mask_height, s->mask_depth};
    float vectors[3][CLS_MAX_MASK];
    if (cls_mask_separate3d(c->coefficients, sides[0], sides[1], sides[2], vectors[0], vectors[1], vectors[2]) != CLS_OK)
        return; /* validated as separable: cannot happen */
    static const char *const names[3] = {"along_x", "along_y", "along_z"};
    strbuf_append(out, "/* The mask, x[i] y[j] z[k]: its vectors. */\n");
    for (int axis = 0; axis < 3; ++axis) {
        strbuf_printf(out, "__constant float %s[%u] = {", names[axis], sides[axis]);
        for (unsigned k = 0; k < sides[axis]; ++k) {
            strbuf_append(out, k ? ", " : "");
            append_float(out, vectors[axis][k]);
        }
        strbuf_append(out, "};\n");
    }
    if (!cls_volume_y_first(c)) /* x first: the tile's rows summed along x */
        strbuf_append(out, "#define SUMS_FLOAT4S (GROUP_W * COLUMNS / 4 + 1) /* a row of the sums along x, one more against bank conflicts */\n");
    strbuf_append(out, "\n");
}

/* Whether the windows of a work-item's COLUMNS outputs along AXIS (x: its columns; y: a column of
 * COLUMNS rows, where y runs first) share their middle: a minimum's or maximum's over a rectangle,
 * at least 2 COLUMNS + 1 long on that axis, so that the shared middle outweighs each output's own
 * ends. (A sum's row of one coefficient gained nothing so on an H200: box3d:9 at 512^3 562 us
 * either way; its sums keep the reference's order.) */
static int shares_middle(const cls_kernel_config *c, cls_axis axis)
{
    const unsigned length = axis == CLS_AXIS_X ? c->spec.mask_width : c->spec.mask_height;
    return length >= 2 * c->cols + 1 && emit_volume_flat_extremum(c, axis);
}

int emit_volume_flat_extremum(const cls_kernel_config *c, cls_axis axis)
{
    const cls_spec *s = &c->spec;
    const unsigned lengths[3] = {s->mask_width, s->mask_height, s->mask_depth};
    float vectors[3][CLS_MAX_MASK];
    if ((s->reduction != CLS_REDUCTION_MIN && s->reduction != CLS_REDUCTION_MAX) ||
        cls_mask_separate3d(c->coefficients, lengths[0], lengths[1], lengths[2], vectors[0], vectors[1], vectors[2]) != CLS_OK)
        return 0;
    for (unsigned i = 0; i < lengths[axis]; ++i)
        if (vectors[axis][i] == 0.0f) return 0;
    return 1;
}

/* A pass's COLUMNS results where their windows share their middle (shares_middle), from VALUES
 * (SPAN + COLUMNS - 1 of them, the window of result j from VALUES[j] on) into RESULTS: the values
 * every window takes joined once, then each result's own ends. */
static void emit_shared_middle(strbuf *out, int indent, const cls_kernel_config *c, const char *values,
                               const char *results, const char *span)
{
    const char *extremum = c->spec.reduction == CLS_REDUCTION_MIN ? "fmin" : "fmax";
    strbuf_line(out, indent, "/* a rectangle's: the values every window takes joined once, then each window's ends */");
    strbuf_line(out, indent, "float shared = %s[COLUMNS - 1];", values);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int d = COLUMNS; d < %s; ++d) shared = %s(shared, %s[d]);", span, extremum, values);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int j = 0; j < COLUMNS; ++j) {");
    strbuf_line(out, indent + 1, "%s[j] = shared;", results);
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int d = j; d < COLUMNS - 1; ++d) %s[j] = %s(%s[j], %s[d]);", results, extremum, results, values);
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int d = %s; d < %s + j; ++d) %s[j] = %s(%s[j], %s[d]);", span, span, results, extremum, results,
                values);
    strbuf_line(out, indent, "}");
}

/* A work-item's COLUMNS results along AXIS (x or y) into RESULTS[COLUMNS], at INDENT, from VALUES
 * (COLUMNS + the mask's length - 1 of them, the window of result j from VALUES[j] on). */
static void emit_axis_pass(strbuf *out, int indent, const cls_kernel_config *c, cls_axis axis, const char *values,
                           const char *results)
{
    const int x = axis == CLS_AXIS_X;
    const char *length = x ? "MASK_W" : "MASK_H", *d = x ? "dx" : "dy";
    char join[160], result[32], coefficient[32], value[32];
    strbuf_line(out, indent, "float %s[COLUMNS];", results);
    if (shares_middle(c, axis)) {
        emit_shared_middle(out, indent, c, values, results, length);
        return;
    }
    snprintf(result, sizeof result, "%s[j]", results);
    snprintf(coefficient, sizeof coefficient, "along_%s[%s]", x ? "x" : "y", d);
    snprintf(value, sizeof value, "%s[j + %s]", values, d);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int j = 0; j < COLUMNS; ++j) %s = %s;", result, emit_volume_window_start(&c->spec));
    emit_volume_join(join, sizeof join, &c->spec, coefficient, result, value);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int %s = 0; %s < %s; ++%s)", d, d, length, d);
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int j = 0; j < COLUMNS; ++j) %s", join);
}

/* x, then y: the tile's rows summed along x into sums4 (the halo's rows too), then each
 * work-item's columns along y from there into column[]. */
static void emit_x_first(strbuf *out, const cls_kernel_config *c)
{
    char join[160];
    strbuf_line(out, 2, "/* Along x: the row sums of the work-item's columns in tile rows get_local_id(1), + GROUP_H, ... */");
    strbuf_line(out, 2, "for (int r = get_local_id(1); r < TILE_H; r += GROUP_H) {");
    emit_row_values(out, 3, "tile4", "r");
    emit_axis_pass(out, 3, c, CLS_AXIS_X, "v", "row");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < COLUMNS / 4; ++i) sums4[r][get_local_id(0) * (COLUMNS / 4) + i] = vload4(i, row);");
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
    strbuf_line(out, 2, "/* Along y: the work-item's column sums. */");
    strbuf_line(out, 2, "float column[COLUMNS];");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int j = 0; j < COLUMNS; ++j) column[j] = %s;", emit_volume_window_start(&c->spec));
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int dy = 0; dy < MASK_H; ++dy) {");
    strbuf_line(out, 3, "float u[COLUMNS];");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < COLUMNS / 4; ++i) vstore4(sums4[get_local_id(1) + dy][get_local_id(0) * (COLUMNS / 4) + i], i, u);");
    emit_volume_join(join, sizeof join, &c->spec, "along_y[dy]", "column[j]", "u[j]");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) %s", join);
    strbuf_line(out, 2, "}");
}

/* y, then x, for tall masks (cls_volume_y_first): the tile's columns summed along y into
 * columns4, one column of COLUMNS rows a task, COLUMNS + MASK_H - 1 values read for its COLUMNS
 * outputs (the halo's rows summed into the group's rows before anything runs along x, which so
 * covers the group's rows alone), then each work-item's columns along x from its row there into
 * column[]. H200, 512^3 f32, clamp, against x first with the y pass in columns of rows:
 * gaussian3d:13,2 638 -> 592 us in 32x16 groups (586-587 in 32x8), gaussian3d:19,3 1,108 -> 895,
 * max3d:15 1,074 -> 746, max3d:9 531 -> 525-529; max3d:5 374 -> 381 (hence tall masks only). */
static void emit_y_first(strbuf *out, const cls_kernel_config *c)
{
    strbuf_line(out, 2, "/* Along y: the tile's columns, COLUMNS rows a task, into the group's rows of columns4. */");
    strbuf_line(out, 2, "__local float *columns = (__local float *)columns4;");
    strbuf_line(out, 2, "for (int task = item; task < TILE_W * (GROUP_H / COLUMNS); task += GROUP_W * GROUP_H) {");
    strbuf_line(out, 3, "const int tx = task %% TILE_W, ty = task / TILE_W * COLUMNS;");
    strbuf_line(out, 3, "float u[COLUMNS + MASK_H - 1];");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int dy = 0; dy < COLUMNS + MASK_H - 1; ++dy) u[dy] = tile[(ty + dy) * TILE_FLOAT4S * 4 + tx];");
    emit_axis_pass(out, 3, c, CLS_AXIS_Y, "u", "rows");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) columns[(ty + j) * TILE_FLOAT4S * 4 + tx] = rows[j];");
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
    strbuf_line(out, 2, "/* Along x: the work-item's columns in its row. */");
    emit_row_values(out, 2, "columns4", "get_local_id(1)");
    emit_axis_pass(out, 2, c, CLS_AXIS_X, "v", "column");
}

void emit_volume_separable_walk(strbuf *out, const cls_kernel_config *c)
{
    const int doubling = emit_volume_doubles_z(c), y_first = cls_volume_y_first(c);
    if (y_first)
        strbuf_line(out, 1, "__local float4 columns4[GROUP_H][TILE_FLOAT4S]; /* the tile's columns summed along y */");
    else
        strbuf_line(out, 1, "__local float4 sums4[TILE_H][SUMS_FLOAT4S]; /* the tile's rows summed along x */");
    emit_tile_prologue(out, c);
    emit_window(out, c, doubling);
    emit_tile_load(out, c);
    if (y_first)
        emit_y_first(out, c);
    else
        emit_x_first(out, c);
    const char *done = emit_z_join(out, c, doubling);
    emit_volume_tile_store(out, c, done);
    emit_window_shift(out, c, doubling);
}
