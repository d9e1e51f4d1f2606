/* emit_volume_lanes.c — a volume's separable single pass on the global input path: the lanes walk.
 * A warp's 32 work-items lie side by side along x, each with COLUMNS = 4 adjacent outputs in
 * BLOCK_ROWS rows; at every input slice each loads its own four columns of the BLOCK_ROWS +
 * MASK_H - 1 rows its windows reach (one vector a row) and takes the window's halo columns from
 * the lanes beside it, loading them itself only at the warp's ends and the volume's sides, so a
 * voxel is read from global memory about once a slice without the slice's tile in local memory
 * and its barriers (emit_volume_tile.c). The next slice's rows load while this one is summed,
 * along x, then y, then into the window of partial sums down z: the order of the tile's single
 * pass, x first. The lanes hand values over by PTX's shfl.sync where the compiler takes inline
 * PTX (NVIDIA), else through local memory between two barriers a slice (CPU runtimes: the same
 * code path, for its tests). */
#include "emit.h"

#include "strbuf.h"

#include <stdio.h>

static int constant_on(const cls_spec *s, cls_axis axis)
{
    return cls_spec_border_on(s, axis) == CLS_BORDER_CONSTANT;
}

void emit_volume_lanes_macros(strbuf *out, const cls_kernel_config *c)
{
    strbuf_printf(out,
                  "#define COLUMNS %u /* adjacent output columns per work-item, one vector a row */\n"
                  "#define BLOCK_ROWS %u /* output rows per work-item */\n"
                  "#define ROWS_LOADED (BLOCK_ROWS + MASK_H - 1) /* the input rows their windows reach */\n"
                  "#define LANES %u /* a warp: work-items side by side along x that hand each other values */\n",
                  c->cols, cls_volume_block_rows(c), CLS_VOLUME_LANES);
    if (c->limits.inline_ptx) {
        strbuf_append(out,
                      "/* The value v of the lane before (after) this one in its warp: PTX's shfl.sync, every lane taking part. */\n"
                      "float from_lane_before(float v) { float r; __asm__(\"shfl.sync.up.b32 %0, %1, 1, 0, 0xffffffff;\" : \"=f\"(r) : \"f\"(v)); return r; }\n"
                      "float from_lane_after(float v) { float r; __asm__(\"shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;\" : \"=f\"(r) : \"f\"(v)); return r; }\n"
                      "#define BEFORE(r, j) from_lane_before(own[r][j])\n"
                      "#define AFTER(r, j) from_lane_after(own[r][j])\n");
    } else {
        strbuf_append(out,
                      "/* The lanes' values through local memory (no inline PTX): each work-item's own columns stored, read by\n"
                      " * the work-items beside it between two barriers. */\n"
                      "#define BEFORE(r, j) exchange[r][get_local_id(1)][max((int)get_local_id(0) - 1, 0)][j]\n"
                      "#define AFTER(r, j) exchange[r][get_local_id(1)][min((int)get_local_id(0) + 1, GROUP_W - 1)][j]\n");
    }
}

/* The work-item's outputs, its rows and its halo columns, bordered once: they stay while it walks
 * down z. */
static void emit_prologue(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const char *x_ = border_suffix(s, CLS_AXIS_X), *y_ = border_suffix(s, CLS_AXIS_Y);
    if (!c->limits.inline_ptx)
        strbuf_line(out, 1, "__local float exchange[ROWS_LOADED][GROUP_H][GROUP_W][COLUMNS];");
    strbuf_line(out, 1, "const int lane = (int)get_local_id(0) %% LANES;");
    strbuf_line(out, 1, "const int x = roi.s0 + (int)get_global_id(0) * COLUMNS, y = roi.s1 + (int)get_global_id(1) * BLOCK_ROWS;");
    strbuf_line(out, 1, "const int z_first = roi_z.s0 + (int)get_global_id(2) * SLICES;");
    strbuf_line(out, 1, "if (z_first >= roi_z.s1) return; /* the whole group: its block of slices is outside the region */");
    emit_volume_block(out);
    strbuf_line(out, 1, "/* Every lane takes part in the exchanges, those past the region too: they only store nothing. */");
    strbuf_line(out, 1, "const int own_vector = x + COLUMNS <= width; /* its columns lie inside: one vector load a row */");
    strbuf_line(out, 1, "/* every row's first column of the region a multiple of 4 pixels: the vector's address is its multiple */");
    strbuf_line(out, 1, "const int aligned = (((long)roi.s0 + input_offset) & 3) == 0 && (input_pitch & 3) == 0 && (input_slice_pitch & 3) == 0;");
    strbuf_line(out, 1, "/* the halo columns no lane beside it holds: at the warp's ends and the volume's sides */");
    strbuf_line(out, 1, "const int left_self = lane == 0 || x < HALF_W, right_self = lane == LANES - 1 || x + COLUMNS + HALF_W > width;");
    strbuf_line(out, 1, "int column[COLUMNS + 2 * HALF_W]; /* the windows' columns, bordered, for the loads of its own */");
    if (constant_on(s, CLS_AXIS_X)) strbuf_line(out, 1, "int column_inside[COLUMNS + 2 * HALF_W];");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int i = 0; i < COLUMNS + 2 * HALF_W; ++i) {");
    strbuf_line(out, 2, "column[i] = border_both%s(x + i - HALF_W, width);", x_);
    if (constant_on(s, CLS_AXIS_X)) strbuf_line(out, 2, "column_inside[i] = inside_both%s(x + i - HALF_W, width);", x_);
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "long line_at[ROWS_LOADED]; /* the rows' offsets, bordered */");
    if (constant_on(s, CLS_AXIS_Y)) strbuf_line(out, 1, "int row_inside[ROWS_LOADED];");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int r = 0; r < ROWS_LOADED; ++r) {");
    strbuf_line(out, 2, "line_at[r] = (long)border_both%s(y + r - HALF_H, height) * input_pitch;", y_);
    if (constant_on(s, CLS_AXIS_Y)) strbuf_line(out, 2, "row_inside[r] = inside_both%s(y + r - HALF_H, height);", y_);
    strbuf_line(out, 1, "}");
}

/* Column i of the windows' columns in the row at `line`, bordered (constant: border_value
 * outside along x). */
static void format_bordered(char *text, size_t size, const cls_spec *s, const char *i)
{
    char index[64], load[128];
    snprintf(index, sizeof index, "column[%s]", i);
    emit_format_load(load, sizeof load, s->input_type, "line", index);
    if (constant_on(s, CLS_AXIS_X)) snprintf(text, size, "(column_inside[%s] ? %s : border_value)", i, load);
    else snprintf(text, size, "%s", load);
}

/* Slice Z's rows into next_own[][] and, where the lane loads them itself, next_left[][] and
 * next_right[][], at INDENT (constant along y or z: border_value outside). */
static void emit_slice_loads(strbuf *out, const cls_kernel_config *c, int indent, const char *z)
{
    const cls_spec *s = &c->spec;
    const int constant_y = constant_on(s, CLS_AXIS_Y), constant_z = constant_on(s, CLS_AXIS_Z);
    char vector[512], unaligned[256], lanes[4][256], left[256], right[256], kept[96] = "";
    emit_format_vector_load(unaligned, sizeof unaligned, s->input_type, 4, "line + x");
    if (s->input_type == CLS_PIXEL_F16) {
        snprintf(vector, sizeof vector, "%s", unaligned);
    } else { /* one wide load where the vector's address is its multiple, which NVIDIA's vload4 does not prove */
        char pointer[128];
        snprintf(pointer, sizeof pointer, "*(__global const %s4 *)(line + x)", emit_cl_type(s->input_type));
        if (s->input_type == CLS_PIXEL_F32) snprintf(vector, sizeof vector, "(aligned ? %s : %s)", pointer, unaligned);
        else snprintf(vector, sizeof vector, "(aligned ? convert_float4(%s) : %s)", pointer, unaligned);
    }
    for (int j = 0; j < 4; ++j) {
        char i[32];
        snprintf(i, sizeof i, "HALF_W + %d", j);
        format_bordered(lanes[j], sizeof lanes[j], s, i);
    }
    format_bordered(left, sizeof left, s, "i");
    format_bordered(right, sizeof right, s, "HALF_W + COLUMNS + i");
    if (constant_z) snprintf(kept, sizeof kept, "inside_both%s(%s, depth)%s", border_suffix(s, CLS_AXIS_Z), z,
                             constant_y ? " && row_inside[r]" : "");
    else if (constant_y) snprintf(kept, sizeof kept, "row_inside[r]");
    strbuf_line(out, indent, "__global const input_t *slice = input + (long)slice_index(%s, depth) * input_slice_pitch;", z);
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int r = 0; r < ROWS_LOADED; ++r) {");
    strbuf_line(out, indent + 1, "__global const input_t *line = slice + line_at[r];");
    strbuf_line(out, indent + 1, "float4 v = own_vector ? %s", vector);
    strbuf_line(out, indent + 3, ": (float4)(%s, %s,", lanes[0], lanes[1]);
    strbuf_line(out, indent + 3, "           %s, %s);", lanes[2], lanes[3]);
    if (*kept) strbuf_line(out, indent + 1, "if (!(%s)) v = (float4)(border_value);", kept);
    strbuf_line(out, indent + 1, "vstore4(v, 0, next_own[r]);");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int i = 0; i < HALF_W; ++i) {");
    strbuf_line(out, indent + 2, "next_left[r][i] = !left_self ? 0.0f : %s%s%s%s;", *kept ? kept : "", *kept ? " ? " : "", left,
                *kept ? " : border_value" : "");
    strbuf_line(out, indent + 2, "next_right[r][i] = !right_self ? 0.0f : %s%s%s%s;", *kept ? kept : "", *kept ? " ? " : "", right,
                *kept ? " : border_value" : "");
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

/* The slice's rows joined with their halo columns into w[r][], COLUMNS + 2 HALF_W values a row:
 * the lanes beside it give theirs, a lane at the warp's end or the volume's side its own. */
static void emit_exchange(strbuf *out, const cls_kernel_config *c)
{
    const int ptx = c->limits.inline_ptx;
    strbuf_line(out, 2, "float w[ROWS_LOADED][COLUMNS + 2 * HALF_W];");
    if (!ptx) {
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int r = 0; r < ROWS_LOADED; ++r)");
        strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) exchange[r][get_local_id(1)][get_local_id(0)][j] = own[r][j];");
        strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
    }
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int r = 0; r < ROWS_LOADED; ++r) {");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < HALF_W; ++i) {");
    strbuf_line(out, 4, "const float before = BEFORE(r, COLUMNS - HALF_W + i), after = AFTER(r, i);");
    strbuf_line(out, 4, "w[r][i] = left_self ? left[r][i] : before;");
    strbuf_line(out, 4, "w[r][HALF_W + COLUMNS + i] = right_self ? right[r][i] : after;");
    strbuf_line(out, 3, "}");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) w[r][HALF_W + j] = own[r][j];");
    strbuf_line(out, 2, "}");
    if (!ptx) strbuf_line(out, 2, "barrier(CLK_LOCAL_MEM_FENCE); /* read before the next slice's values are stored */");
}

/* Along x, then y (from 0, tap by tap), then into the window down z: the tile's single pass's sums. */
static void emit_lane_sums(strbuf *out, const cls_kernel_config *c)
{
    const char *start = emit_volume_window_start(&c->spec);
    strbuf_line(out, 2, "float across[ROWS_LOADED][COLUMNS]; /* along x */");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int r = 0; r < ROWS_LOADED; ++r)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) {");
    strbuf_line(out, 4, "across[r][j] = %s;", start);
    strbuf_line(out, 4, "#pragma unroll");
    strbuf_line(out, 4, "for (int dx = 0; dx < MASK_W; ++dx) across[r][j] += along_x[dx] * w[r][j + dx];");
    strbuf_line(out, 3, "}");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) {");
    strbuf_line(out, 4, "float down = %s; /* along y */", start);
    strbuf_line(out, 4, "#pragma unroll");
    strbuf_line(out, 4, "for (int dy = 0; dy < MASK_H; ++dy) down += along_y[dy] * across[b + dy][j];");
    strbuf_line(out, 4, "#pragma unroll");
    strbuf_line(out, 4, "for (int k = 0; k < MASK_D; ++k) sum[k][b][j] += along_z[k] * down;");
    strbuf_line(out, 3, "}");
}

void emit_volume_lanes_walk(strbuf *out, const cls_kernel_config *c)
{
    const char *start = emit_volume_window_start(&c->spec);
    emit_prologue(out, c);
    strbuf_line(out, 1, "/* the rows of the slice the work-item sums next: its own columns, and its halo where it loads that */");
    strbuf_line(out, 1, "float next_own[ROWS_LOADED][COLUMNS], next_left[ROWS_LOADED][HALF_W], next_right[ROWS_LOADED][HALF_W];");
    strbuf_line(out, 1, "{");
    emit_slice_loads(out, c, 2, "z_first - HALF_D");
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "float sum[MASK_D][BLOCK_ROWS][COLUMNS]; /* sum[k][b][j]: column x + j, row y + b of output slice z + HALF_D - k */");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int k = 0; k < MASK_D; ++k)");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) sum[k][b][j] = %s;", start);
    strbuf_line(out, 1, "for (int z = z_first - HALF_D; z < z_end + HALF_D; ++z) {");
    strbuf_line(out, 2, "float own[ROWS_LOADED][COLUMNS], left[ROWS_LOADED][HALF_W], right[ROWS_LOADED][HALF_W];");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int r = 0; r < ROWS_LOADED; ++r) {");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) own[r][j] = next_own[r][j];");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < HALF_W; ++i) left[r][i] = next_left[r][i], right[r][i] = next_right[r][i];");
    strbuf_line(out, 2, "}");
    strbuf_line(out, 2, "if (z + 1 < z_end + HALF_D) { /* the next slice's loads in flight while this one is summed */");
    emit_slice_loads(out, c, 3, "z + 1");
    strbuf_line(out, 2, "}");
    emit_exchange(out, c);
    emit_lane_sums(out, c);
    emit_volume_tile_store(out, c, cls_volume_block_rows(c) > 1 ? "sum[MASK_D - 1][b]" : "sum[MASK_D - 1][0]");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int b = 0; b < BLOCK_ROWS; ++b) {");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int k = MASK_D - 1; k > 0; --k)");
    strbuf_line(out, 4, "#pragma unroll");
    strbuf_line(out, 4, "for (int j = 0; j < COLUMNS; ++j) sum[k][b][j] = sum[k - 1][b][j];");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int j = 0; j < COLUMNS; ++j) sum[0][b][j] = %s;", start);
    strbuf_line(out, 2, "}");
    strbuf_line(out, 1, "}");
}
