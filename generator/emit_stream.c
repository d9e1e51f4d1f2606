/* emit_stream.c — the streaming sums of one region. With CLS_STREAM_MIN_ROWS or more output rows
 * per work-item, a work-item walks down its strip of ROWS x COLS outputs one input row at a time.
 * It holds a window of MASK_H partial sums per output column: sum[m][k] belongs to output row
 * yi - HALF_H + k while input row yi is read, which that row feeds through mask row
 * MASK_H - 1 - k. After each input row the oldest sum (k = 0) is complete: it is stored, and the
 * window moves down one row. Every input pixel is read once per work-item, and the unrolled code
 * is one input row's multiply-adds (MASK_H x MASK_W x COLS, coefficients still literals) however
 * many rows the strip has: the reuse of register blocking without its growing code.
 *
 * Baked masks load the next input row while the current one is multiplied (px, next), so the
 * loads' latency hides behind a row of multiply-adds instead of stalling every iteration, in every
 * region but the fallback; the fallback, the rolled and the runtime-mask forms read the row as
 * they go. A separable mask (the single pass) adds each input row's row sums through its column
 * vector instead of the 2-D window's taps, and may load several rows ahead (cls_kernel_ahead_rows).
 * On an H100 at 4096^2 the launch is one wave, which lasts as long as its slowest
 * group: border groups that stalled on their loads made its tail. */
#include "emit.h"

static void emit_shift(emitter *e, int indent, int prefetch)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* The window moves down one row. */");
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int m = 0; m < MASKS; ++m)");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int l = 0; l < COLS; ++l) {");
    strbuf_line(out, indent + 2, "#pragma unroll");
    strbuf_line(out, indent + 2, "for (int k = 0; k < MASK_H - 1; ++k) sum[m][k][l] = sum[m][k + 1][l];");
    strbuf_line(out, indent + 2, "sum[m][MASK_H - 1][l] = 0.0f;");
    strbuf_line(out, indent + 1, "}");
    if (!prefetch) return;
    strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int c = 0; c < SPAN_W; ++c) px[c] = next[c];");
}

void emit_stream_shift(emitter *e, int indent)
{
    emit_shift(e, indent, 0);
}

/* Output row yi - HALF_H, once its sums are complete. */
static void emit_store_complete(emitter *e, int indent)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "if (i >= MASK_H - 1) { /* sum[m][0] is complete: output row yi - HALF_H */");
    emit_row_store(e, indent + 1, "0", "yi - HALF_H", 1);
    strbuf_line(out, indent, "}");
}

/* The loop of a single pass that loads AHEAD rows together (cls_kernel_ahead_rows): each pass of
 * it reads the next AHEAD input rows (the last row again past the strip), then sums them one by
 * one, storing and moving the window as the one-row loop does. */
static void emit_stream_ahead(emitter *e, int indent, access a)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "const int steps = rows_here + MASK_H - 1, last = y + rows_here - 1 + HALF_H;");
    strbuf_line(out, indent, "#pragma unroll 1");
    strbuf_line(out, indent, "for (int i0 = 0; i0 < steps; i0 += AHEAD) {");
    strbuf_line(out, indent + 1, "float ahead[AHEAD][SPAN_W] = {{0.0f}}; /* the next AHEAD input rows, loaded together */");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int d = 0; d < AHEAD; ++d) {");
    strbuf_line(out, indent + 2, "const int yd = min(y - HALF_H + i0 + d, last);");
    a.base_y = "yd";
    emit_stream_row_load(e, indent + 2, &a, "ahead[d]");
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent + 1, "#pragma unroll");
    strbuf_line(out, indent + 1, "for (int d = 0; d < AHEAD; ++d) {");
    strbuf_line(out, indent + 2, "const int i = i0 + d, yi = y - HALF_H + i;");
    strbuf_line(out, indent + 2, "if (i < steps) {");
    emit_stream_separable_sums(e, indent + 3, "ahead[d]");
    emit_store_complete(e, indent + 3);
    emit_shift(e, indent + 3, 0);
    strbuf_line(out, indent + 2, "}");
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

void emit_stream(emitter *e, int indent, const access *region, int rolled)
{
    strbuf *out = e->out;
    /* Every region but the fallback prefetches: a left or right region checks only the columns
     * past its side (access_at_column), whose indices the loop keeps. */
    const int separable = e->config->separable == CLS_SEPARABLE_SINGLE_PASS;
    const int prefetch = (e->config->spec.bake_coefficients || separable) && !rolled && region->side_x != CHECK_BOTH;
    access a = *region;
    a.side_y = CHECK_NONE; /* the rows are the loop's, at offsets known only at run time */
    strbuf_line(out, indent, "/* Streaming: input rows y - HALF_H .. y + ROWS - 1 + HALF_H pass through a window of");
    strbuf_line(out, indent, " * MASK_H partial sums; sum[m][k] is output row yi - HALF_H + k's. */");
    strbuf_line(out, indent, "const int rows_here = min(ROWS, roi.s3 - y); /* a strip cut by the region's end */");
    if (prefetch && cls_kernel_ahead_rows(e->config) > 1) {
        emit_stream_ahead(e, indent, a);
        return;
    }
    if (prefetch) {
        strbuf_line(out, indent, "float px[SPAN_W] = {0.0f}, next[SPAN_W] = {0.0f}; /* this input row and the next */");
        strbuf_line(out, indent, "const int y0 = y - HALF_H, last = y + rows_here - 1 + HALF_H;");
        a.base_y = "y0";
        emit_stream_row_load(e, indent, &a, "px");
    }
    strbuf_line(out, indent, "#pragma unroll 1");
    strbuf_line(out, indent, "for (int i = 0; i < rows_here + MASK_H - 1; ++i) {");
    strbuf_line(out, indent + 1, "const int yi = y - HALF_H + i;");
    if (prefetch) {
        strbuf_line(out, indent + 1, "const int yn = min(yi + 1, last); /* the next row (at the end, the last again) */");
        a.base_y = "yn";
        emit_stream_row_load(e, indent + 1, &a, "next");
        if (separable) emit_stream_separable_sums(e, indent + 1, "px");
        else emit_stream_baked_sums(e, indent + 1, "px");
    } else if (separable) {
        strbuf_line(out, indent + 1, "float px[SPAN_W] = {0.0f}; /* this input row */");
        a.base_y = "yi";
        emit_stream_row_load(e, indent + 1, &a, "px");
        emit_stream_separable_sums(e, indent + 1, "px");
    } else {
        a.base_y = "yi";
        emit_stream_row_sums(e, indent + 1, &a, rolled);
    }
    emit_store_complete(e, indent + 1);
    emit_shift(e, indent + 1, prefetch);
    strbuf_line(out, indent, "}");
}
