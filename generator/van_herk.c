/* van_herk.c — the OpenCL C of the van Herk/Gil-Werman extremum passes (see van_herk.h): their
 * launch shapes, the row pass, the column pass and the tile kernel (the strip walker is
 * van_herk_strips.c). The row pass stages rows of its tile in local memory, so that loads and
 * stores are contiguous across work-items while each work-item walks one segment; the column pass
 * needs no staging: adjacent work-items take adjacent columns and each walks down segments of its
 * own column in registers. The tile kernel does both for a window of several rows and columns
 * (CPUs), its rows and then its columns in local memory. */
#include "van_herk_internal.h"

#include "emit.h"

#include <stdio.h>

/* The row pass: a work-group of ROW_GROUP work-items, ROW_SEGMENTS segments of each of
 * ROW_GROUP / ROW_SEGMENTS rows (one a work-item), ROW_GROUP x K floats of local memory: half the
 * group below 32 KiB for windows over 31 pixels. */
#define ROW_GROUP 256
#define ROW_SEGMENTS 16
/* The column pass: work-groups of 64 x 4, each work-item some 64 rows of outputs. */
#define COLUMN_GROUP_WIDTH 64
#define COLUMN_GROUP_HEIGHT 4
#define COLUMN_ROWS 64

/* The widest window the tile kernel takes (2H - 1 rows of 256 / (2H - 1) segments of W floats in
 * local memory: 32 KiB at most), and the lanes kernel (a row's extreme across the window, directly:
 * W vector loads a row). */
#define TILE_MAX_WIDTH 31
/* The lanes kernel: output rows a work-item walks (whole segments of the window's height; each
 * walk reads a segment more than its outputs' rows), in groups of LANES_GROUP work-items a row. */
#define LANES_ROWS 256
#define LANES_GROUP 16

static unsigned row_group(unsigned side) { return side > 31 ? ROW_GROUP / 2 : ROW_GROUP; }

cls_van_herk_launch cls_van_herk_plan(const cls_spec *stage, cls_van_herk_form form)
{
    cls_van_herk_launch launch = {0};
    launch.fused = stage->mask_width > 1 && stage->mask_height > 1;
    launch.vertical = stage->mask_width == 1 && stage->mask_height > 1;
    launch.side = launch.vertical ? stage->mask_height : stage->mask_width;
    launch.lanes = form == CLS_VAN_HERK_IN_LANES && stage->mask_width <= TILE_MAX_WIDTH;
    launch.strips = !launch.lanes && launch.fused && (form == CLS_VAN_HERK_STRIPS || stage->mask_width > TILE_MAX_WIDTH);
    if (launch.lanes) {
        const unsigned height = stage->mask_height, segments = height < LANES_ROWS ? LANES_ROWS / height : 1;
        launch.group_width = LANES_GROUP;
        launch.group_height = 1;
        launch.tile_width = CLS_VAN_HERK_LANES;
        launch.tile_height = segments * height;
    } else if (launch.fused && !launch.strips) {
        /* a row of segments a work-item each, for the 2 KH - 1 input rows of KH output rows */
        const unsigned rows = 2 * stage->mask_height - 1, segments = ROW_GROUP / rows;
        launch.group_width = segments * rows;
        launch.group_height = 1;
        launch.tile_width = (segments - 1) * stage->mask_width;
        launch.tile_height = stage->mask_height;
    } else if (launch.fused) {
        van_herk_strip_launch(stage->mask_width, stage->mask_height, &launch);
    } else if (launch.vertical) {
        const unsigned segments = launch.side < COLUMN_ROWS ? COLUMN_ROWS / launch.side : 1;
        launch.group_width = COLUMN_GROUP_WIDTH;
        launch.group_height = COLUMN_GROUP_HEIGHT;
        launch.tile_width = 1;
        launch.tile_height = segments * launch.side;
    } else {
        /* every segment of a row but the last gives K outputs: the last only completes the windows
         * of the one before */
        launch.group_width = row_group(launch.side);
        launch.group_height = 1;
        launch.tile_width = (ROW_SEGMENTS - 1) * launch.side;
        launch.tile_height = launch.group_width / ROW_SEGMENTS;
    }
    return launch;
}

void van_herk_append_helpers(strbuf *out, const cls_spec *stage)
{
    char template_name[64];
    snprintf(template_name, sizeof template_name, "border-%s.cl", cls_border_name(stage->border));
    strbuf_append(out, cls_template(template_name));
    strbuf_append(out, "\n/* Index i of an axis of n pixels, any i, inside the image: the border mode's fold outside. */\n"
                       "int fold(int i, int n) { return (uint)i < (uint)n ? i : border_both(i, n); }\n");
    strbuf_printf(out,
                  "\n/* Pixel i of the n along the axis that starts at element `at` and steps by `step`, as a float:\n"
                  " * %s outside the image. */\n"
                  "float pixel(__global const %s *input, int at, int step, int i, int n, float border_value)\n{\n",
                  stage->border == CLS_BORDER_CONSTANT ? "border_value" : "the border mode's pixel",
                  emit_cl_type(stage->input_type));
    char load[96];
    emit_format_load(load, sizeof load, stage->input_type, "input", "at + fold(i, n) * step");
    if (stage->border == CLS_BORDER_CONSTANT)
        strbuf_printf(out, "    const float value = %s;\n    return inside_both(i, n) ? value : border_value;\n}\n", load);
    else
        strbuf_printf(out, "    (void)border_value;\n    return %s;\n}\n", load);
}

static void append_header(strbuf *out, const cls_spec *stage, int maximum, const cls_van_herk_launch *l)
{
    strbuf_printf(out,
                  "/* clstencil: the %s over a %ux%u window by van Herk/Gil-Werman, %s, border %s,\n"
                  " * %s -> %s: segments of a window's side along the %s, their prefix extremes g and suffix\n"
                  " * extremes h; the window of output p (pixels p - HALF ... p + HALF) is h of one segment and g of\n"
                  " * the next. */\n\n",
                  maximum ? "maximum" : "minimum", stage->mask_width, stage->mask_height,
                  l->lanes ? "in lanes (each row's extreme across the window, then the columns)"
                  : l->strips ? "one kernel walking down strips of the image"
                  : l->fused ? "the rows and then the columns of a tile in local memory" : l->vertical ? "the column pass" : "the row pass",
                  cls_border_name(stage->border), cls_pixel_type_name(stage->input_type),
                  cls_pixel_type_name(stage->output_type), l->fused ? "rows, then the columns" : l->vertical || l->lanes ? "column" : "row");
    if (l->strips || l->lanes)
        strbuf_printf(out,
                      "#define KW %u /* the window's width: a row segment's pixels */\n"
                      "#define HALF_W %u\n"
                      "#define KH %u /* the window's height: a column segment's pixels */\n"
                      "#define HALF_H %u\n",
                      stage->mask_width, stage->mask_width / 2, stage->mask_height, stage->mask_height / 2);
    else
        strbuf_printf(out, "#define K %u /* the window's side: a segment's pixels */\n#define HALF %u\n", l->side, l->side / 2);
    if (l->fused && !l->strips && !l->lanes)
        strbuf_printf(out, "#define KH %u /* the window's height */\n#define HALF_H %u\n", stage->mask_height, stage->mask_height / 2);
    strbuf_printf(out,
                  "#define EXTREME(a, b) %s(a, b)\n"
                  "#define NEUTRAL %sINFINITY /* what the direct loop starts from: a window of NaN alone gives it */\n",
                  maximum ? "fmax" : "fmin", maximum ? "-" : "");
    if (!l->combine) return;
    char load[128];
    emit_format_load(load, sizeof load, l->source_type, "source", "source_offset + (y) * source_pitch + (x)");
    strbuf_printf(out, "/* the output: %s, pixel by pixel */\n#define SOURCE(x, y) %s\n",
                  l->combine == CLS_COMBINE_INPUT_MINUS_RESULT ? "the filter's input (source) minus the extreme"
                                                               : "the extreme minus the filter's input (source)",
                  load);
}

/* The extremes over K pixels along the rows of the local tile (SEGMENTS segments of K pixels a
 * row), a work-item (item) a segment, as the row pass and the tile kernel compute them: g in
 * place, h in registers, then each output of the segment, h of it and g of the next, back in
 * place (a row's last segment only ends the windows of the one before). */
static void append_row_segments(strbuf *out)
{
    strbuf_append(out,
                  "    /* the rows: this work-item's segment (row item / SEGMENTS), g in place, h in registers */\n"
                  "    {\n"
                  "        __local float *segment = tile + item * K;\n"
                  "        float h[K];\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < K; ++i) h[i] = segment[i];\n"
                  "        float g = h[0];\n"
                  "        #pragma unroll\n"
                  "        for (int i = 1; i < K; ++i) {\n"
                  "            g = EXTREME(g, h[i]);\n"
                  "            segment[i] = g;\n"
                  "        }\n"
                  "        #pragma unroll\n"
                  "        for (int i = K - 2; i >= 0; --i) h[i] = EXTREME(h[i], h[i + 1]);\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "        /* output i of the segment: h[i] and the next segment's g[i - 1] (h[0] is the whole segment) */\n"
                  "        if (item % SEGMENTS != SEGMENTS - 1) {\n"
                  "            #pragma unroll\n"
                  "            for (int i = 1; i < K; ++i) h[i] = EXTREME(h[i], segment[K + i - 1]);\n"
                  "        }\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < K; ++i) segment[i] = h[i];\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n");
}

/* The row pass: a group stages TILE_ROWS rows of SPAN input columns, each work-item one segment:
 * g in place in the tile, h in registers; then each work-item completes its segment's outputs
 * with the next segment's g, puts them back in the tile and the group stores the tile's rows. */
static void append_row_pass(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    strbuf_printf(out,
                  "#define GROUP %u /* work-items: one segment each */\n"
                  "#define SEGMENTS %u /* segments of a tile row */\n"
                  "#define TILE_ROWS %u\n"
                  "#define SPAN (SEGMENTS * K) /* input columns of a tile row */\n"
                  "#define TILE_W ((SEGMENTS - 1) * K) /* its output columns: the last segment ends the windows */\n\n",
                  l->group_width, ROW_SEGMENTS, l->tile_height);
    van_herk_append_signature(out, stage, l, l->group_width);
    char result[160], store[240];
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      van_herk_result(result, sizeof result, l, "EXTREME(tile[r * SPAN + c], NEUTRAL)", "x", "y"));
    strbuf_printf(out,
                  "    __local float tile[TILE_ROWS * SPAN];\n"
                  "    const int item = get_local_id(0);\n"
                  "    const int x0 = roi.x + get_group_id(0) * TILE_W, y0 = roi.y + get_group_id(1) * TILE_ROWS;\n"
                  "    /* the tile: columns x0 - HALF ... of rows y0 ... (rows past the image repeat its last row:\n"
                  "     * their outputs are not stored) */\n"
                  "    for (int e = item; e < TILE_ROWS * SPAN; e += GROUP) {\n"
                  "        const int r = e / SPAN, c = e - r * SPAN, y = min(y0 + r, height - 1);\n"
                  "        tile[e] = pixel(input, input_offset + y * input_pitch, 1, x0 - HALF + c, width, border_value);\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n");
    append_row_segments(out);
    strbuf_printf(out,
                  "    /* the outputs, row by row */\n"
                  "    for (int e = item; e < TILE_ROWS * TILE_W; e += GROUP) {\n"
                  "        const int r = e / TILE_W, c = e - r * TILE_W, x = x0 + c, y = y0 + r;\n"
                  "        if (x < roi.z && y < roi.w) %s\n"
                  "    }\n"
                  "}\n",
                  store);
}

/* The column pass: a work-item walks SEGMENTS segments of its column, the suffix extremes h of
 * one segment in registers while the next one's pixels are loaded, their prefix extreme g kept
 * on the way. */
static void append_column_pass(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    strbuf_printf(out, "#define SEGMENTS %u /* segments of outputs a work-item walks */\n\n", l->tile_height / l->side);
    van_herk_append_signature(out, stage, l, 0);
    char result[160], store[240];
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      van_herk_result(result, sizeof result, l, "EXTREME(h[i], g)", "x", "y"));
    strbuf_printf(out,
                  "    const int x = roi.x + get_global_id(0), y0 = roi.y + get_global_id(1) * (SEGMENTS * K);\n"
                  "    if (x >= roi.z || y0 >= roi.w) return;\n"
                  "    const int at = input_offset + x;\n"
                  "    /* the segment of rows y0 - HALF ... y0 + HALF: its suffix extremes */\n"
                  "    float h[K], v[K];\n"
                  "    #pragma unroll\n"
                  "    for (int i = 0; i < K; ++i) h[i] = pixel(input, at, input_pitch, y0 - HALF + i, height, border_value);\n"
                  "    #pragma unroll\n"
                  "    for (int i = K - 2; i >= 0; --i) h[i] = EXTREME(h[i], h[i + 1]);\n"
                  "    for (int s = 0; s < SEGMENTS; ++s) {\n"
                  "        const int top = y0 + s * K; /* the first output row of the segment h covers */\n"
                  "        if (top >= roi.w) break;\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < K; ++i) v[i] = pixel(input, at, input_pitch, top + HALF + 1 + i, height, border_value);\n"
                  "        /* output top + i: h[i] and g, the next segment's first i pixels (NEUTRAL at first) */\n"
                  "        float g = NEUTRAL;\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < K; ++i) {\n"
                  "            const int y = top + i;\n"
                  "            if (y < roi.w) %s\n"
                  "            g = EXTREME(g, v[i]);\n"
                  "        }\n"
                  "        /* the next segment's suffix extremes */\n"
                  "        h[K - 1] = v[K - 1];\n"
                  "        #pragma unroll\n"
                  "        for (int i = K - 2; i >= 0; --i) h[i] = EXTREME(v[i], h[i + 1]);\n"
                  "    }\n"
                  "}\n",
                  store);
}

/* The one kernel on CPUs (the tile kernel): a group stages the 2 KH - 1 input rows of KH output rows, SPAN columns each; the
 * row pass over them (append_row_segments: each row's extremes back in the tile), then each
 * work-item walks a column of the tile as the column pass does, from local memory. */
static void append_tile_pass(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    strbuf_printf(out,
                  "#define GROUP %u /* work-items: one row segment each */\n"
                  "#define SEGMENTS %u /* segments of a tile row */\n"
                  "#define TILE_ROWS (2 * KH - 1) /* input rows of the tile's KH output rows */\n"
                  "#define SPAN (SEGMENTS * K) /* input columns of a tile row */\n"
                  "#define TILE_W ((SEGMENTS - 1) * K) /* its output columns: the last segment ends the windows */\n\n",
                  l->group_width, l->group_width / (2 * stage->mask_height - 1));
    van_herk_append_signature(out, stage, l, l->group_width);
    char load[128], result[160], store[240];
    emit_format_load(load, sizeof load, stage->input_type, "input", "input_offset + fold(y, height) * input_pitch + fold(x, width)");
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      van_herk_result(result, sizeof result, l, "EXTREME(h[i], g)", "x", "y"));
    strbuf_printf(out,
                  "    __local float tile[TILE_ROWS * SPAN];\n"
                  "    const int item = get_local_id(0);\n"
                  "    const int x0 = roi.x + get_group_id(0) * TILE_W, y0 = roi.y + get_group_id(1) * KH;\n"
                  "    /* the tile: columns x0 - HALF ... of rows y0 - HALF_H ... */\n"
                  "    for (int e = item; e < TILE_ROWS * SPAN; e += GROUP) {\n"
                  "        const int r = e / SPAN, x = x0 - HALF + (e - r * SPAN), y = y0 - HALF_H + r;\n"
                  "        const float value = %s;\n"
                  "        tile[e] = %s;\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n",
                  load,
                  stage->border == CLS_BORDER_CONSTANT
                      ? "inside_both(x, width) && inside_both(y, height) ? value : border_value"
                      : "value");
    append_row_segments(out);
    strbuf_printf(out,
                  "    /* the columns: rows 0 ... KH - 1 of the tile are a segment (h), rows KH ... its next (g) */\n"
                  "    for (int c = item; c < TILE_W; c += GROUP) {\n"
                  "        const int x = x0 + c;\n"
                  "        if (x >= roi.z) break;\n"
                  "        float h[KH];\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < KH; ++i) h[i] = tile[i * SPAN + c];\n"
                  "        #pragma unroll\n"
                  "        for (int i = KH - 2; i >= 0; --i) h[i] = EXTREME(h[i], h[i + 1]);\n"
                  "        float g = NEUTRAL;\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < KH; ++i) {\n"
                  "            const int y = y0 + i;\n"
                  "            if (y < roi.w) %s\n"
                  "            if (i + 1 < KH) g = EXTREME(g, tile[(KH + i) * SPAN + c]);\n"
                  "        }\n"
                  "    }\n"
                  "}\n",
                  store);
}

char *cls_van_herk_source(const cls_spec *stage, int maximum, const cls_van_herk_launch *launch)
{
    strbuf out;
    strbuf_init(&out);
    append_header(&out, stage, maximum, launch);
    van_herk_append_helpers(&out, stage);
    strbuf_append(&out, "\n");
    if (launch->lanes) van_herk_append_lanes(&out, stage, launch);
    else if (launch->strips) van_herk_append_strip_walker(&out, stage, launch);
    else if (launch->fused) append_tile_pass(&out, stage, launch);
    else if (launch->vertical) append_column_pass(&out, stage, launch);
    else append_row_pass(&out, stage, launch);
    return strbuf_take(&out);
}
