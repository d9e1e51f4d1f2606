/* van_herk_lanes.c — the lanes kernel of the van Herk/Gil-Werman passes (see van_herk.h), for CPU
 * runtimes: a work-item computes LANES adjacent output columns as one vector and walks down
 * SEGMENTS segments of KH rows. Each input row's extreme across the window's KW columns is taken
 * directly (KW vector loads where the work-item's window lies inside the image, else each lane
 * through the border); those row extremes are the column pass's pixels: the suffix extremes h of
 * one segment in registers while the next one's row extremes are taken, their prefix extreme g on
 * the way. A row (KH 1) is its row extremes alone. Vectors, not PoCL's vectorizer: it packs the
 * clamped rows of the scalar passes inside a work-item and then leaves its loop over the
 * work-items unvectorized. */
#include "van_herk_internal.h"

#include "emit.h"

#include <stdio.h>

#define LANES_UNROLLED_HEIGHT 7 /* the tallest window whose column walk is unrolled */

/* row_extreme(): the extremes across the window of input row yy for the work-item's lanes. */
static void append_row_extreme(strbuf *out, const cls_spec *stage)
{
    char vector[512], lanes[128] = "";
    emit_format_vector_load(vector, sizeof vector, stage->input_type, CLS_VAN_HERK_LANES, "line + x - HALF_W + dx");
    for (unsigned j = 0, used = 0; j < CLS_VAN_HERK_LANES; ++j)
        used += (unsigned)snprintf(lanes + used, sizeof lanes - used, "%sP(%u)", j ? ", " : "", j);
    strbuf_printf(out,
                  "/* The extreme across the KW columns around each of the LANES columns from x on, in input row yy. */\n"
                  "lanes_t row_extreme(__global const %s *input, int input_offset, int input_pitch, int x, int yy,\n"
                  "                    int width, int height, float border_value)\n{\n",
                  emit_cl_type(stage->input_type));
    if (stage->border == CLS_BORDER_CONSTANT)
        strbuf_append(out, "    if (!inside_both(yy, height)) return (lanes_t)(border_value); /* a row of the constant */\n");
    strbuf_printf(out,
                  "    const int at = input_offset + fold(yy, height) * input_pitch;\n"
                  "    lanes_t e = (lanes_t)(NEUTRAL);\n"
                  "    if (x >= HALF_W && x + LANES - 1 + HALF_W < width) { /* inside along x: whole vectors */\n"
                  "        __global const %s *line = input + at;\n"
                  "        #pragma unroll\n"
                  "        for (int dx = 0; dx < KW; ++dx) e = EXTREME(e, %s);\n"
                  "        return e;\n"
                  "    }\n"
                  "    /* else each lane through the border */\n"
                  "#define P(j) pixel(input, at, 1, x + (j) - HALF_W + dx, width, border_value)\n"
                  "    #pragma unroll\n"
                  "    for (int dx = 0; dx < KW; ++dx) e = EXTREME(e, (lanes_t)(%s));\n"
                  "#undef P\n"
                  "    return e;\n"
                  "}\n\n",
                  emit_cl_type(stage->input_type), vector, lanes);
}

/* STORE(value, y): the lanes of output row y that lie in the region computed, the extremes VALUE
 * or, where L combines, the source's pixels there minus them (or the reverse). */
static void append_store(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    char vector[160], lane[240], result[160], source[512];
    emit_format_vector_store(vector, sizeof vector, stage->output_type, CLS_VAN_HERK_LANES, "value", "line");
    emit_format_store(lane, sizeof lane, stage->output_type, "line", "j",
                      van_herk_result(result, sizeof result, l, "values[j]", "x + j", "y"));
    strbuf_printf(out,
                  "/* Output row y's lanes, whole where they all lie in the region computed%s. */\n"
                  "void store(__global %s *output, int output_offset, int output_pitch, int x, int y, int4 roi, lanes_t value",
                  l->combine ? "; the source's pixels combined with them" : "", emit_cl_type(stage->output_type));
    if (l->combine)
        strbuf_printf(out, ",\n           __global const %s *source, int source_offset, int source_pitch",
                      emit_cl_type(l->source_type));
    strbuf_printf(out, ")\n{\n    __global %s *line = output + output_offset + y * output_pitch + x;\n"
                       "    if (x + LANES <= roi.z) {\n",
                  emit_cl_type(stage->output_type));
    emit_format_vector_load(source, sizeof source, l->source_type, CLS_VAN_HERK_LANES, "source + source_offset + y * source_pitch + x");
    if (l->combine == CLS_COMBINE_INPUT_MINUS_RESULT) strbuf_printf(out, "        value = %s - value;\n", source);
    else if (l->combine == CLS_COMBINE_RESULT_MINUS_INPUT) strbuf_printf(out, "        value -= %s;\n", source);
    strbuf_printf(out,
                  "        %s\n"
                  "        return;\n"
                  "    }\n"
                  "    float values[LANES];\n"
                  "    vstore%u(value, 0, values);\n"
                  "    for (int j = 0; j < LANES && x + j < roi.z; ++j) %s\n"
                  "}\n\n",
                  vector, CLS_VAN_HERK_LANES, lane);
}

void van_herk_append_lanes(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l)
{
    strbuf_printf(out,
                  "#define LANES %u /* adjacent output columns a work-item, one vector */\n"
                  "typedef float%u lanes_t;\n"
                  "#define SEGMENTS %u /* segments of KH output rows a work-item walks */\n\n",
                  CLS_VAN_HERK_LANES, CLS_VAN_HERK_LANES, l->tile_height / stage->mask_height);
    append_row_extreme(out, stage);
    append_store(out, stage, l);
    van_herk_append_signature(out, stage, l, 0);
    strbuf_printf(out,
                  "    const int x = roi.x + get_global_id(0) * LANES, y0 = roi.y + get_global_id(1) * (SEGMENTS * KH);\n"
                  "    if (x >= roi.z || y0 >= roi.w) return;\n"
                  "#define ROW(yy) row_extreme(input, input_offset, input_pitch, x, (yy), width, height, border_value)\n"
                  "#define STORE(value, y) store(output, output_offset, output_pitch, x, (y), roi, (value)%s)\n",
                  l->combine ? ", source, source_offset, source_pitch" : "");
    if (stage->mask_height == 1) {
        strbuf_append(out,
                      "    /* one row: its extremes */\n"
                      "    for (int y = y0; y < y0 + SEGMENTS && y < roi.w; ++y) STORE(ROW(y), y);\n"
                      "}\n");
        return;
    }
    /* A short window's column walk unrolled keeps its rows in registers (PoCL, 2 cores, 2048^2:
     * min 9x7 3.5 ms against 3.8 looping); a taller one loops, since unrolled it took most of
     * PoCL's compile for no speed (min 9x9 the same time, min 21x21 4.9 against 4.6 ms; the first
     * launch of min 31x31 0.9 s against 0.15, of min 9x9 0.31 against 0.13). */
    const int unrolled = stage->mask_height <= LANES_UNROLLED_HEIGHT;
    const char *unroll = unrolled ? "    #pragma unroll\n" : "", *unroll_inner = unrolled ? "        #pragma unroll\n" : "";
    strbuf_printf(out,
                  "    /* the segment of rows y0 - HALF_H ... y0 + HALF_H: its suffix extremes */\n"
                  "    lanes_t h[KH], v[KH];\n"
                  "%s"
                  "    for (int i = 0; i < KH; ++i) h[i] = ROW(y0 - HALF_H + i);\n"
                  "%s"
                  "    for (int i = KH - 2; i >= 0; --i) h[i] = EXTREME(h[i], h[i + 1]);\n"
                  "    for (int s = 0; s < SEGMENTS; ++s) {\n"
                  "        const int top = y0 + s * KH; /* the first output row of the segment h covers */\n"
                  "        if (top >= roi.w) break;\n"
                  "%s"
                  "        for (int i = 0; i < KH; ++i) v[i] = ROW(top + HALF_H + 1 + i);\n"
                  "        /* output top + i: h[i] and g, the next segment's first i row extremes (NEUTRAL at first) */\n"
                  "        lanes_t g = (lanes_t)(NEUTRAL);\n"
                  "%s"
                  "        for (int i = 0; i < KH; ++i) {\n"
                  "            if (top + i < roi.w) STORE(EXTREME(h[i], g), top + i);\n"
                  "            g = EXTREME(g, v[i]);\n"
                  "        }\n"
                  "        /* the next segment's suffix extremes */\n"
                  "        h[KH - 1] = v[KH - 1];\n"
                  "%s"
                  "        for (int i = KH - 2; i >= 0; --i) h[i] = EXTREME(v[i], h[i + 1]);\n"
                  "    }\n"
                  "}\n",
                  unroll, unroll, unroll_inner, unroll_inner, unroll_inner);
}
