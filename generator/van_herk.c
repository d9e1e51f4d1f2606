/* van_herk.c — the OpenCL C of the van Herk/Gil-Werman extremum passes (see van_herk.h). The row
 * pass stages rows of its tile in local memory, so that loads and stores are contiguous across
 * work-items while each work-item walks one segment; the column pass needs no staging: adjacent
 * work-items take adjacent columns and each walks down segments of its own column in registers.
 * A window of several rows and columns is one kernel that does both as it walks down strips of
 * the image: the image read once (and its halos), the output written once. */
#include "van_herk.h"

#include "emit.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>

/* The row pass: a work-group of ROW_GROUP work-items, ROW_SEGMENTS segments of each of
 * ROW_GROUP / ROW_SEGMENTS rows (one a work-item), ROW_GROUP x K floats of local memory: half the
 * group below 32 KiB for windows over 31 pixels. */
#define ROW_GROUP 256
#define ROW_SEGMENTS 16
/* The column pass: work-groups of 64 x 4, each work-item some 64 rows of outputs. */
#define COLUMN_GROUP_WIDTH 64
#define COLUMN_GROUP_HEIGHT 4
#define COLUMN_ROWS 64

/* The strip walker of a WxH window: about STREAM_STRIP output columns a group, bands of at least
 * STREAM_BAND output rows and STREAM_BAND_SEGMENTS segments, STREAM_STEP input rows staged at a
 * time, at most STREAM_LOCAL bytes of local memory; STREAM_PREFETCH loads the next step's pixels
 * while the columns of this one are walked (each may be set when building, to measure). On an
 * H200 (f32 4096^2, clamp, min:31x31 / min:7x7) it took 57.6 / 49.3 us, with bands of 256 rows
 * 59.5 / 47.3; without the prefetch 66.0 / 48.6, and then with bands of 256 rows 66.7 / 50.1,
 * with strips of 64 columns 66.3 / 53.1. */
#ifndef STREAM_STRIP
#define STREAM_STRIP 128
#endif
#ifndef STREAM_BAND
#define STREAM_BAND 128
#endif
#ifndef STREAM_BAND_SEGMENTS
#define STREAM_BAND_SEGMENTS 8
#endif
#ifndef STREAM_PREFETCH
#define STREAM_PREFETCH 1
#endif
#ifndef STREAM_STEP
#define STREAM_STEP 32
#endif
#define STREAM_LOCAL 32768
/* The widest window the tile kernel takes (2H - 1 rows of 256 / (2H - 1) segments of W floats in
 * local memory: 32 KiB at most). */
#define TILE_MAX_WIDTH 31

static unsigned row_group(unsigned side) { return side > 31 ? ROW_GROUP / 2 : ROW_GROUP; }

/* The one kernel's shape for a WxH window. */
typedef struct stream_shape {
    unsigned segments;      /* output segments of W columns in a strip */
    unsigned step_segments; /* segments of H rows a step stages */
    unsigned band_segments; /* segments of H output rows in a band */
    unsigned group;         /* work-items: the strip's columns, rounded up to 32 */
    unsigned local_bytes;
} stream_shape;

static stream_shape shape_of(unsigned width, unsigned height)
{
    stream_shape s;
    s.segments = STREAM_STRIP / width > 1 ? STREAM_STRIP / width : 1;
    s.step_segments = STREAM_STEP / height > 1 ? STREAM_STEP / height : 1;
    for (;;) {
        s.local_bytes = s.step_segments * height * (s.segments + 1) * width * 4;
        if (s.local_bytes <= STREAM_LOCAL) break;
        if (s.step_segments > 1) --s.step_segments;
        else if (s.segments > 1) --s.segments;
        else break;
    }
    /* the band's first segment only starts its columns: band_segments + 1 whole steps */
    unsigned band = (STREAM_BAND + height - 1) / height;
    band = band > STREAM_BAND_SEGMENTS ? band : STREAM_BAND_SEGMENTS;
    s.band_segments = (band + s.step_segments) / s.step_segments * s.step_segments - 1;
    s.group = (s.segments * width + 31) / 32 * 32;
    return s;
}

int cls_van_herk_fits(unsigned width, unsigned height)
{
    return width == 1 || height == 1 || shape_of(width, height).local_bytes <= STREAM_LOCAL;
}

cls_van_herk_launch cls_van_herk_plan(const cls_spec *stage, int walk_strips)
{
    cls_van_herk_launch launch = {0};
    launch.fused = stage->mask_width > 1 && stage->mask_height > 1;
    launch.vertical = stage->mask_width == 1 && stage->mask_height > 1;
    launch.side = launch.vertical ? stage->mask_height : stage->mask_width;
    launch.strips = launch.fused && (walk_strips || stage->mask_width > TILE_MAX_WIDTH);
    if (launch.fused && !launch.strips) {
        /* a row of segments a work-item each, for the 2 KH - 1 input rows of KH output rows */
        const unsigned rows = 2 * stage->mask_height - 1, segments = ROW_GROUP / rows;
        launch.group_width = segments * rows;
        launch.group_height = 1;
        launch.tile_width = (segments - 1) * stage->mask_width;
        launch.tile_height = stage->mask_height;
    } else if (launch.fused) {
        const stream_shape s = shape_of(stage->mask_width, stage->mask_height);
        launch.group_width = s.group;
        launch.group_height = 1;
        launch.tile_width = s.segments * stage->mask_width;
        launch.tile_height = s.band_segments * stage->mask_height;
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

/* The helpers: fold (an index of the axis, any, into the image by the border mode), inside (constant
 * mode) and pixel (one input pixel as a float, the constant outside the image). */
static void append_helpers(strbuf *out, const cls_spec *stage)
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
                  l->strips ? "one kernel walking down strips of the image"
                  : l->fused ? "the rows and then the columns of a tile in local memory" : l->vertical ? "the column pass" : "the row pass",
                  cls_border_name(stage->border), cls_pixel_type_name(stage->input_type),
                  cls_pixel_type_name(stage->output_type), l->fused ? "rows, then the columns" : l->vertical ? "column" : "row");
    if (l->strips)
        strbuf_printf(out,
                      "#define KW %u /* the window's width: a row segment's pixels */\n"
                      "#define HALF_W %u\n"
                      "#define KH %u /* the window's height: a column segment's pixels */\n"
                      "#define HALF_H %u\n",
                      stage->mask_width, stage->mask_width / 2, stage->mask_height, stage->mask_height / 2);
    else
        strbuf_printf(out, "#define K %u /* the window's side: a segment's pixels */\n#define HALF %u\n", l->side, l->side / 2);
    if (l->fused && !l->strips)
        strbuf_printf(out, "#define KH %u /* the window's height */\n#define HALF_H %u\n", stage->mask_height, stage->mask_height / 2);
    strbuf_printf(out,
                  "#define EXTREME(a, b) %s(a, b)\n"
                  "#define NEUTRAL %sINFINITY /* what the direct loop starts from: a window of NaN alone gives it */\n",
                  maximum ? "fmax" : "fmin", maximum ? "-" : "");
}

static void append_signature(strbuf *out, const cls_spec *stage, const char *attribute)
{
    strbuf_printf(out,
                  "__kernel %svoid " CLS_VAN_HERK_KERNEL_NAME "(__global const %s *restrict input, int input_offset,\n"
                  "    int input_pitch, __global %s *restrict output, int output_offset, int output_pitch, int width,\n"
                  "    int height, int4 roi, float border_value)\n{\n",
                  attribute, emit_cl_type(stage->input_type), emit_cl_type(stage->output_type));
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
    char attribute[80];
    snprintf(attribute, sizeof attribute, "__attribute__((reqd_work_group_size(%u, 1, 1)))\n", l->group_width);
    append_signature(out, stage, attribute);
    char store[160];
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      "EXTREME(tile[r * SPAN + c], NEUTRAL)");
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
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* this work-item's segment (row item / SEGMENTS): g in place, h in registers */\n"
                  "    __local float *segment = tile + item * K;\n"
                  "    float h[K];\n"
                  "    #pragma unroll\n"
                  "    for (int i = 0; i < K; ++i) h[i] = segment[i];\n"
                  "    float g = h[0];\n"
                  "    #pragma unroll\n"
                  "    for (int i = 1; i < K; ++i) {\n"
                  "        g = EXTREME(g, h[i]);\n"
                  "        segment[i] = g;\n"
                  "    }\n"
                  "    #pragma unroll\n"
                  "    for (int i = K - 2; i >= 0; --i) h[i] = EXTREME(h[i], h[i + 1]);\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* output i of the segment: h[i] and the next segment's g[i - 1] (h[0] is the whole segment) */\n"
                  "    if (item %% SEGMENTS != SEGMENTS - 1) {\n"
                  "        #pragma unroll\n"
                  "        for (int i = 1; i < K; ++i) h[i] = EXTREME(h[i], segment[K + i - 1]);\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    #pragma unroll\n"
                  "    for (int i = 0; i < K; ++i) segment[i] = h[i];\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
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
    append_signature(out, stage, "");
    char store[160];
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      "EXTREME(h[i], g)");
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
 * row pass over them as append_row_pass's (each row's extremes back in the tile), then each
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
    char attribute[80];
    snprintf(attribute, sizeof attribute, "__attribute__((reqd_work_group_size(%u, 1, 1)))\n", l->group_width);
    append_signature(out, stage, attribute);
    char load[128], store[160];
    emit_format_load(load, sizeof load, stage->input_type, "input", "input_offset + fold(y, height) * input_pitch + fold(x, width)");
    emit_format_store(store, sizeof store, stage->output_type, "output", "output_offset + y * output_pitch + x",
                      "EXTREME(h[i], g)");
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
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* the rows: this work-item's segment (row item / SEGMENTS), g in place, h in registers */\n"
                  "    __local float *segment = tile + item * K;\n"
                  "    {\n"
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
                  "        if (item %% SEGMENTS != SEGMENTS - 1) {\n"
                  "            #pragma unroll\n"
                  "            for (int i = 1; i < K; ++i) h[i] = EXTREME(h[i], segment[K + i - 1]);\n"
                  "        }\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "        #pragma unroll\n"
                  "        for (int i = 0; i < K; ++i) segment[i] = h[i];\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
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
                  load,
                  stage->border == CLS_BORDER_CONSTANT
                      ? "inside_both(x, width) && inside_both(y, height) ? value : border_value"
                      : "value",
                  store);
}

/* The one kernel's load_step: a step's pixels at a work-item's columns into registers. */
static void append_load_step(strbuf *out, const cls_spec *stage)
{
    const int constant = stage->border == CLS_BORDER_CONSTANT;
    const char *type = emit_cl_type(stage->input_type);
    char load[96];
    emit_format_load(load, sizeof load, stage->input_type, "row", "across[k]");
    strbuf_printf(out,
                  "/* The pixels of input rows row0 ... row0 + ROWS - 1 at this work-item's columns of the tile\n"
                  " * (across: folded by the border mode%s) into pixels[r][k]; rows outside\n"
                  " * the image folded too%s. */\n"
                  "void load_step(float pixels[ROWS][2], __global const %s *input, int input_offset, int input_pitch,\n"
                  "               int height, int row0, const int across[2], %sint item)\n"
                  "{\n"
                  "    if (row0 >= 0 && row0 + ROWS <= height) { /* every row inside the image */\n"
                  "        __global const %s *row = input + input_offset + row0 * input_pitch;\n"
                  "        #pragma unroll\n"
                  "        for (int r = 0; r < ROWS; ++r, row += input_pitch) {\n"
                  "            #pragma unroll\n"
                  "            for (int k = 0; k < 2; ++k)\n"
                  "                if (item + k * GROUP < SPAN) pixels[r][k] = %s%s%s;\n"
                  "        }\n"
                  "    } else {\n"
                  "        #pragma unroll\n"
                  "        for (int r = 0; r < ROWS; ++r) {\n"
                  "            const int y = row0 + r;\n"
                  "            __global const %s *row = input + input_offset + fold(y, height) * input_pitch;\n"
                  "            #pragma unroll\n"
                  "            for (int k = 0; k < 2; ++k)\n"
                  "                if (item + k * GROUP < SPAN) pixels[r][k] = %s%s%s;\n"
                  "        }\n"
                  "    }\n"
                  "}\n\n",
                  constant ? "; inside_x: inside the image" : "", constant ? ", the border value outside it" : "", type,
                  constant ? "const int inside_x[2], float border_value, " : "", type,
                  constant ? "inside_x[k] ? " : "", load, constant ? " : border_value" : "", type,
                  constant ? "inside_x[k] && inside_both(y, height) ? " : "", load, constant ? " : border_value" : "");
}

/* The one kernel (a WxH window): a group owns a strip of TILE_W output columns and a band of BAND
 * output rows, and walks down it a step of ROWS input rows (STEP_SEGMENTS segments of KH rows) at
 * a time: the step's rows, with their KW - 1 columns of halo, into local memory; each row's
 * extremes over KW pixels back in place (a work-item a segment of outputs: h of its segment, g of
 * the next); then each work-item walks its column down the step's segments, h of the previous
 * segment in registers. The image is read about once (the halos again, mostly from the cache)
 * and the output written once. Steps inside the image (most) skip the border mode's folding, and
 * segments inside the band the checks of their rows. */
static void append_stream_pass(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    const stream_shape s = shape_of(stage->mask_width, stage->mask_height);
    const int constant = stage->border == CLS_BORDER_CONSTANT;
    strbuf_printf(out,
                  "#define GROUP %u /* work-items: one column of the strip each (some idle) */\n"
                  "#define SEGMENTS %u /* output segments of KW columns in a strip row */\n"
                  "#define TILE_W (SEGMENTS * KW) /* the strip's output columns */\n"
                  "#define SPAN ((SEGMENTS + 1) * KW) /* its input columns: one more segment ends the windows */\n"
                  "#define STEP_SEGMENTS %u /* segments of KH rows a step stages */\n"
                  "#define ROWS (STEP_SEGMENTS * KH)\n"
                  "#define BAND %u /* the band's output rows */\n"
                  "#define ROUND_ROWS (GROUP / SEGMENTS) /* rows whose extremes a round computes */\n"
                  "#define ROUNDS ((ROWS + ROUND_ROWS - 1) / ROUND_ROWS)\n\n",
                  s.group, s.segments, s.step_segments, s.band_segments * stage->mask_height);
    append_load_step(out, stage);
    char attribute[80];
    snprintf(attribute, sizeof attribute, "__attribute__((reqd_work_group_size(%u, 1, 1)))\n", l->group_width);
    append_signature(out, stage, attribute);
    char store[160], checked_store[160];
    emit_format_store(store, sizeof store, stage->output_type, "output", "at + i * output_pitch", "EXTREME(h[i], g)");
    emit_format_store(checked_store, sizeof checked_store, stage->output_type, "output",
                      "output_offset + y * output_pitch + column", "EXTREME(h[i], g)");
    strbuf_printf(out,
                  "    __local float tile[ROWS * SPAN];\n"
                  "    const int item = get_local_id(0);\n"
                  "    const int x0 = roi.x + get_group_id(0) * TILE_W, y0 = roi.y + get_group_id(1) * BAND;\n"
                  "    const int y1 = min(y0 + BAND, roi.w);\n"
                  "    /* this work-item's column (x0 + item), and its row segment in each round */\n"
                  "    const int column = x0 + item, walks = item < TILE_W && column < roi.z;\n"
                  "    const int round_row = item / SEGMENTS, row_segment = item - round_row * SEGMENTS;\n"
                  "    /* the input columns it stages, item and item + GROUP of the SPAN from x0 - HALF_W:\n"
                  "     * folded%s */\n"
                  "    int across[2]%s;\n"
                  "    #pragma unroll\n"
                  "    for (int k = 0; k < 2; ++k) {\n"
                  "        const int x = x0 - HALF_W + item + k * GROUP;\n"
                  "        across[k] = fold(x, width);\n"
                  "%s"
                  "    }\n"
                  "    /* the suffix extremes of the column's previous segment (none before the first) */\n"
                  "    float h[KH];\n"
                  "    #pragma unroll\n"
                  "    for (int i = 0; i < KH; ++i) h[i] = NEUTRAL;\n"
                  "    /* top: the first output row of the step's first segment, whose input rows start at\n"
                  "     * top + HALF_H + 1; the band's first segment (its h alone) starts at y0 - HALF_H */\n"
                  "    float pixels[ROWS][2]; /* the step's pixels at this work-item's columns */\n",
                  constant ? ", and whether inside the image" : "", constant ? ", inside_x[2]" : "",
                  constant ? "        inside_x[k] = inside_both(x, width);\n" : "");
    const char *call = constant ? "load_step(pixels, input, input_offset, input_pitch, height, %s, across, inside_x, border_value, item);"
                                : "load_step(pixels, input, input_offset, input_pitch, height, %s, across, item);";
    char first_call[200], next_call[200];
    snprintf(first_call, sizeof first_call, call, "y0 - HALF_H");
    snprintf(next_call, sizeof next_call, call, "top + ROWS + HALF_H + 1");
    if (STREAM_PREFETCH)
        strbuf_printf(out, "    %s\n    for (int top = y0 - KH; top < y1; top += ROWS) {\n", first_call);
    else
        strbuf_printf(out, "    for (int top = y0 - KH; top < y1; top += ROWS) {\n"
                           "        load_step(pixels, input, input_offset, input_pitch, height, top + HALF_H + 1, across,%s item);\n",
                      constant ? " inside_x, border_value," : "");
    strbuf_printf(out,
                  "        #pragma unroll\n"
                  "        for (int r = 0; r < ROWS; ++r) {\n"
                  "            #pragma unroll\n"
                  "            for (int k = 0; k < 2; ++k)\n"
                  "                if (item + k * GROUP < SPAN) tile[r * SPAN + item + k * GROUP] = pixels[r][k];\n"
                  "        }\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n");
    char prefetch[320] = "";
    if (STREAM_PREFETCH)
        snprintf(prefetch, sizeof prefetch, "        /* the next step's pixels, loaded while this one's columns are walked */\n"
                                            "        if (top + ROWS < y1) %s\n", next_call);
    strbuf_printf(out,
                  "        /* each row's extremes over KW pixels, in place: output column j of a segment is h[j] of\n"
                  "         * it and g[j - 1] of the next; a round's rows are read before any is written */\n"
                  "        for (int round = 0; round < ROUNDS; ++round) {\n"
                  "            const int r = round * ROUND_ROWS + round_row;\n"
                  "            const int works = round_row < ROUND_ROWS && r < ROWS;\n"
                  "            __local float *segment = tile + r * SPAN + row_segment * KW;\n"
                  "            float extremes[KW];\n"
                  "            if (works) {\n"
                  "                extremes[KW - 1] = segment[KW - 1];\n"
                  "                #pragma unroll\n"
                  "                for (int j = KW - 2; j >= 0; --j) extremes[j] = EXTREME(segment[j], extremes[j + 1]);\n"
                  "                float g = NEUTRAL;\n"
                  "                #pragma unroll\n"
                  "                for (int j = 0; j < KW; ++j) {\n"
                  "                    extremes[j] = EXTREME(extremes[j], g);\n"
                  "                    g = EXTREME(g, segment[KW + j]);\n"
                  "                }\n"
                  "            }\n"
                  "            barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "            if (works) {\n"
                  "                #pragma unroll\n"
                  "                for (int j = 0; j < KW; ++j) segment[j] = extremes[j];\n"
                  "            }\n"
                  "        }\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "%s"
                  "        /* the columns: output first + i of a segment is h[i] of the previous one and g[i - 1] of it */\n"
                  "        if (walks) {\n"
                  "            #pragma unroll\n"
                  "            for (int m = 0; m < STEP_SEGMENTS; ++m) {\n"
                  "                __local const float *v = tile + m * KH * SPAN + item;\n"
                  "                const int first = top + m * KH;\n"
                  "                float g = NEUTRAL;\n"
                  "                if (first >= y0 && first + KH <= y1) { /* every output row in the band */\n"
                  "                    const int at = output_offset + first * output_pitch + column;\n"
                  "                    #pragma unroll\n"
                  "                    for (int i = 0; i < KH; ++i) {\n"
                  "                        %s\n"
                  "                        g = EXTREME(g, v[i * SPAN]);\n"
                  "                    }\n"
                  "                } else {\n"
                  "                    #pragma unroll\n"
                  "                    for (int i = 0; i < KH; ++i) {\n"
                  "                        const int y = first + i;\n"
                  "                        if (y >= y0 && y < y1) %s\n"
                  "                        g = EXTREME(g, v[i * SPAN]);\n"
                  "                    }\n"
                  "                }\n"
                  "                h[KH - 1] = v[(KH - 1) * SPAN];\n"
                  "                #pragma unroll\n"
                  "                for (int i = KH - 2; i >= 0; --i) h[i] = EXTREME(v[i * SPAN], h[i + 1]);\n"
                  "            }\n"
                  "        }\n"
                  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    }\n"
                  "}\n",
                  prefetch, store, checked_store);
}

char *cls_van_herk_source(const cls_spec *stage, int maximum, int walk_strips)
{
    const cls_van_herk_launch launch = cls_van_herk_plan(stage, walk_strips);
    strbuf out;
    strbuf_init(&out);
    append_header(&out, stage, maximum, &launch);
    append_helpers(&out, stage);
    strbuf_append(&out, "\n");
    if (launch.strips) append_stream_pass(&out, stage, &launch);
    else if (launch.fused) append_tile_pass(&out, stage, &launch);
    else if (launch.vertical) append_column_pass(&out, stage, &launch);
    else append_row_pass(&out, stage, &launch);
    return strbuf_take(&out);
}
