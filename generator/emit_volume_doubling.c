/* emit_volume_doubling.c — a volume's separable minimum or maximum along z by doubling: where the
 * single pass (emit_volume_tile.c) joined each slice's column into the MASK_D partial results of
 * the output slices it reaches (MASK_D fmin or fmax an output), it keeps levels of blocks along z
 * instead: level 0 the slices' columns, level k + 1 the extremum of two neighbouring blocks of
 * level k (2^(k + 1) slices), and an output joins the few blocks of the top level that cover its
 * window (overlapping: an extremum may count a slice twice). MASK_D 9 takes blocks of 4: 4 joins
 * an output (two levels, then three blocks) instead of 9. */
#include "emit.h"

#include "strbuf.h"

/* The top level: the one whose blocks' joins plus the levels below it cost the fewest joins an
 * output (ties: the lower level, which keeps as many values), its block 2^top slices long. */
static unsigned top_level(unsigned depth)
{
    unsigned best = 1, best_joins = ~0u;
    for (unsigned top = 1; (1u << top) <= depth; ++top) {
        const unsigned block = 1u << top, joins = top + (depth + block - 1) / block - 1;
        if (joins < best_joins) best = top, best_joins = joins;
    }
    return best;
}

/* The values level K keeps: a level below the top, its newest block and the one its own length
 * before (for the level above); the top, its blocks back to MASK_D - block slices ago. */
static unsigned level_length(unsigned depth, unsigned top, unsigned k)
{
    return k < top ? (1u << k) + 1 : depth - (1u << top) + 1;
}

int emit_volume_doubles_z(const cls_kernel_config *c)
{
    return c->spec.mask_depth >= 3 && emit_volume_flat_extremum(c, CLS_AXIS_Z);
}

void emit_volume_doubling_levels(strbuf *out, const cls_kernel_config *c)
{
    const unsigned depth = c->spec.mask_depth, top = top_level(depth);
    strbuf_line(out, 1, "/* Along z by doubling: levelk[d][j], the extremum of column j over the block of 2^k slices that");
    strbuf_line(out, 1, " * ended d slices ago (level0: the slices themselves); an output joins blocks of %u. */", 1u << top);
    strbuf_append(out, "    float");
    for (unsigned k = 0; k <= top; ++k) strbuf_printf(out, "%s level%u[%u][COLUMNS]", k ? "," : "", k, level_length(depth, top, k));
    strbuf_append(out, ";\n");
    strbuf_line(out, 1, "#pragma unroll");
    strbuf_line(out, 1, "for (int j = 0; j < COLUMNS; ++j) {");
    for (unsigned k = 0; k <= top; ++k) {
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int d = 0; d < %u; ++d) level%u[d][j] = %s;", level_length(depth, top, k), k,
                    emit_volume_window_start(&c->spec));
    }
    strbuf_line(out, 1, "}");
}

void emit_volume_doubling_step(strbuf *out, const cls_kernel_config *c)
{
    const unsigned depth = c->spec.mask_depth, top = top_level(depth), block = 1u << top;
    const char *extremum = c->spec.reduction == CLS_REDUCTION_MIN ? "fmin" : "fmax";
    strbuf_line(out, 2, "/* Along z: the slice's columns into each level, the output slice z - HALF_D from the top's blocks. */");
    strbuf_line(out, 2, "float result[COLUMNS];");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int j = 0; j < COLUMNS; ++j) {");
    for (unsigned k = 0; k <= top; ++k) {
        strbuf_line(out, 3, "#pragma unroll");
        strbuf_line(out, 3, "for (int d = %u; d > 0; --d) level%u[d][j] = level%u[d - 1][j];", level_length(depth, top, k) - 1, k, k);
        if (k == 0)
            strbuf_line(out, 3, "level0[0][j] = column[j];");
        else
            strbuf_line(out, 3, "level%u[0][j] = %s(level%u[0][j], level%u[%u][j]);", k, extremum, k - 1, k - 1, 1u << (k - 1));
    }
    /* the blocks that ended 0, block, 2 block, ... slices ago, the last one starting at the window's start */
    strbuf_line(out, 3, "result[j] = level%u[0][j];", top);
    for (unsigned d = block; d < depth - block; d += block)
        strbuf_line(out, 3, "result[j] = %s(result[j], level%u[%u][j]);", extremum, top, d);
    strbuf_line(out, 3, "result[j] = %s(result[j], level%u[%u][j]);", extremum, top, depth - block);
    strbuf_line(out, 2, "}");
}
