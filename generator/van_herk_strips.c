/* van_herk_strips.c — the strip walker: the van Herk/Gil-Werman extremum of a window of several
 * rows and columns as one kernel that walks down strips of the image (GPUs, and windows wider than
 * the tile kernel takes; van_herk.h), its shape, the local memory it needs (cls_van_herk_fits)
 * and its OpenCL C. The image is read once (and its halos), the output written once. */
#include "van_herk_internal.h"

#include "emit.h"

#include <stdio.h>

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

void van_herk_strip_launch(unsigned width, unsigned height, cls_van_herk_launch *launch)
{
    const stream_shape s = shape_of(width, height);
    launch->group_width = s.group;
    launch->group_height = 1;
    launch->tile_width = s.segments * width;
    launch->tile_height = s.band_segments * height;
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
void van_herk_append_strip_walker(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
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
    van_herk_append_signature(out, stage, l, l->group_width);
    if (!constant) strbuf_append(out, "    (void)border_value;\n");
    char result[160], store[240], checked_store[240];
    emit_format_store(store, sizeof store, stage->output_type, "output", "at + i * output_pitch",
                      van_herk_result(result, sizeof result, l, "EXTREME(h[i], g)", "column", "first + i"));
    emit_format_store(checked_store, sizeof checked_store, stage->output_type, "output",
                      "output_offset + y * output_pitch + column",
                      van_herk_result(result, sizeof result, l, "EXTREME(h[i], g)", "column", "y"));
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
