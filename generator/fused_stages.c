/* fused_stages.c — two extremum stages in one kernel (staged_body.h): an erosion and a dilation
 * over rectangles (an opening, a closing, their top-hats) without the f32 image between them. A
 * group stages its tile of input with both stages' halo in local memory, runs the first stage's
 * rows and columns there by van Herk/Gil-Werman, gives the first stage's result outside the image
 * the border mode's value (what the second stage would read through its border), runs the second
 * stage's rows there and its columns into the output, combining with the input for the top-hats.
 * The bits are those of the stages one after the other. */
#include "staged_body.h"

#include "emit.h"
#include "van_herk_internal.h"

#include <stdio.h>

/* A group's outputs and work-items (on an H200, opening:9 at 4096^2 f32 took 101.6 us in tiles of
 * 64x32 by 256 work-items, 103.9-120.8 in 96x32, 128x16, 32x64, 32x32 or 64x16, 143-163 in
 * smaller ones or by 128 work-items); the most local memory the two arrays may take (NVIDIA's
 * 48 KiB: windows up to 15x15). */
#define TILE_W 64
#define TILE_H 32
#define GROUP 256
#define LOCAL_MAX 49152

/* The tiles of a group: the first stage's input (in_w x in_h: both stages' halo) and its result
 * (mid_w x mid_h: the second stage's halo); their rows' pitches in local memory (odd, against bank
 * conflicts: the second stage's rows have out_pitch); the runs of the four passes along a line
 * (the first stage's rows and columns, the second's); the floats of the two local arrays, with
 * the slack that the last runs read past the lines. */
typedef struct fused_shape {
    unsigned in_w, in_h, mid_w, mid_h;
    unsigned in_pitch, mid_pitch, out_pitch;
    unsigned runs[4];
    unsigned pixels_size, rows_size;
} fused_shape;

static unsigned at_least(unsigned a, unsigned b) { return a > b ? a : b; }

static fused_shape shape_of(const cls_staged_body *staged)
{
    const cls_body_stage *first = &staged->stages[0], *second = &staged->stages[1];
    const unsigned w1 = first->width, h1 = first->height, w2 = second->width, h2 = second->height;
    fused_shape s;
    s.mid_w = TILE_W + w2 - 1;
    s.mid_h = TILE_H + h2 - 1;
    s.in_w = s.mid_w + w1 - 1;
    s.in_h = s.mid_h + h1 - 1;
    s.in_pitch = s.in_w | 1;
    s.mid_pitch = s.mid_w | 1;
    s.out_pitch = TILE_W | 1;
    s.runs[0] = (s.mid_w + w1 - 1) / w1;
    s.runs[1] = (s.mid_h + h1 - 1) / h1;
    s.runs[2] = (TILE_W + w2 - 1) / w2;
    s.runs[3] = (TILE_H + h2 - 1) / h2;
    /* a run reads 2K - 1 pixels from its start */
    s.pixels_size = at_least((s.in_h - 1) * s.in_pitch + (s.runs[0] + 1) * w1 - 1,
                             (s.mid_h - 1) * s.mid_pitch + (s.runs[2] + 1) * w2 - 1);
    s.rows_size = at_least(((s.runs[1] + 1) * h1 - 2) * s.mid_pitch + s.mid_w, ((s.runs[3] + 1) * h2 - 2) * s.out_pitch + TILE_W);
    return s;
}

static int is_extremum(const cls_body_stage *stage)
{
    return stage->kind != CLS_STAGE_BODY && stage->width > 1 && stage->height > 1;
}

int cls_staged_fuses(const cls_spec *spec, const cls_staged_body *staged, unsigned long long local_bytes)
{
    if (staged->count != 2 || !is_extremum(&staged->stages[0]) || !is_extremum(&staged->stages[1]) ||
        cls_spec_borders_differ(spec))
        return 0;
    const fused_shape s = shape_of(staged);
    const unsigned long long needed = (s.pixels_size + s.rows_size) * sizeof(float);
    return needed <= LOCAL_MAX && needed <= local_bytes;
}

cls_van_herk_launch cls_fused_stages_launch(void)
{
    cls_van_herk_launch launch = {0};
    launch.group_width = GROUP;
    launch.group_height = 1;
    launch.tile_width = TILE_W;
    launch.tile_height = TILE_H;
    return launch;
}

static const char *extreme(const cls_body_stage *stage) { return stage->kind == CLS_STAGE_MAXIMUM ? "fmax" : "fmin"; }

static const char *neutral(const cls_body_stage *stage) { return stage->kind == CLS_STAGE_MAXIMUM ? "-INFINITY" : "INFINITY"; }

static const char *extremum_name(const cls_body_stage *stage)
{
    return stage->kind == CLS_STAGE_MAXIMUM ? "maximum" : "minimum";
}

/* The statements of a run of K outputs by van Herk/Gil-Werman, each line after INDENT: the pixels
 * in[i * STEP] (2K - 1 of them), h their suffix extremes over the run's own K, g the prefix extreme
 * of the next run's; KEEP (lines of their own, INDENT and four blanks in) does what output i,
 * `extreme`, is for. */
static void append_run_loop(strbuf *out, const char *indent, unsigned k, const cls_body_stage *stage, const char *step,
                            const char *keep)
{
    strbuf_printf(out,
                  "%sfloat h[%u];\n"
                  "%s#pragma unroll\n"
                  "%sfor (int i = 0; i < %u; ++i) h[i] = in[i * %s];\n"
                  "%s#pragma unroll\n"
                  "%sfor (int i = %u; i >= 0; --i) h[i] = %s(h[i], h[i + 1]);\n"
                  "%sfloat g = %s;\n"
                  "%s#pragma unroll\n"
                  "%sfor (int i = 0; i < %u; ++i) {\n"
                  "%s    const float extreme = %s(h[i], g);\n"
                  "%s"
                  "%s    if (i + 1 < %u) g = %s(g, in[(%u + i) * %s]);\n"
                  "%s}\n",
                  indent, k, indent, indent, k, step, indent, indent, k - 2, extreme(stage), indent, neutral(stage),
                  indent, indent, k, indent, extreme(stage), keep, indent, k, extreme(stage), k, step, indent);
}

/* The function NAME: a run of K outputs along a line of local memory by van Herk/Gil-Werman. */
static void append_run(strbuf *out, const char *name, unsigned k, const cls_body_stage *stage)
{
    strbuf_printf(out,
                  "/* Outputs 0 ... count - 1 (at most %u) of a run along a line of local memory: output i is the %s\n"
                  " * of the line's pixels i ... i + %u at `step` apart from `in` (the run reads %u pixels, past the\n"
                  " * line's end too, into the tile's slack: those outputs are not kept); h: the suffix extremes of\n"
                  " * the run's own pixels, g: the prefix extreme of the next run's. */\n"
                  "void %s(__local const float *in, int step, __local float *out, int out_step, int count)\n"
                  "{\n",
                  k, extremum_name(stage), k - 1, 2 * k - 1, name);
    append_run_loop(out, "    ", k, stage, "step", "        if (i < count) out[i * out_step] = extreme;\n");
    strbuf_append(out, "}\n\n");
}

static void append_header(strbuf *out, const cls_spec *spec, const cls_staged_body *staged, const fused_shape *s)
{
    const cls_body_stage *first = &staged->stages[0], *second = &staged->stages[1];
    strbuf_printf(out,
                  "/* clstencil: the %s over a %ux%u window, then the %s over a %ux%u window of its result%s, in one\n"
                  " * kernel by van Herk/Gil-Werman, border %s, %s -> %s: a group stages its tile of %ux%u outputs\n"
                  " * with both windows' halo in local memory and runs the stages' rows and columns there. */\n\n"
                  "#define TILE_W %u /* a group's output columns */\n"
                  "#define TILE_H %u /* and rows */\n"
                  "#define GROUP %u /* work-items */\n"
                  "#define IN_W %u /* the first stage's input: the tile and both stages' halo */\n"
                  "#define IN_H %u\n"
                  "#define MID_W %u /* the first stage's result: the tile and the second stage's halo */\n"
                  "#define MID_H %u\n"
                  "#define IN_PITCH %u /* local memory's rows: the input's, the first stage's, the second's */\n"
                  "#define MID_PITCH %u\n"
                  "#define OUT_PITCH %u\n"
                  "#define HALF_W1 %u /* the first window's half sides */\n"
                  "#define HALF_H1 %u\n"
                  "#define HALF_W2 %u /* the second's */\n"
                  "#define HALF_H2 %u\n",
                  extremum_name(first), first->width, first->height, extremum_name(second), second->width, second->height,
                  staged->combine == CLS_COMBINE_INPUT_MINUS_RESULT   ? ", the input minus that"
                  : staged->combine == CLS_COMBINE_RESULT_MINUS_INPUT ? ", that minus the input"
                                                                      : "",
                  cls_border_name(spec->border), cls_pixel_type_name(spec->input_type), cls_pixel_type_name(spec->output_type),
                  TILE_W, TILE_H, TILE_W, TILE_H, GROUP, s->in_w, s->in_h, s->mid_w, s->mid_h, s->in_pitch, s->mid_pitch,
                  s->out_pitch, first->width / 2, first->height / 2, second->width / 2, second->height / 2);
}

/* The first stage's result outside the image: what the second stage reads there through the border
 * mode, the result at the folded position (inside the tile for every position a window of the
 * tile's outputs reaches) or the constant. Repeat needs nothing: its fold is periodic, so the
 * result computed at an outside position is already the one at its fold. */
static void append_outside(strbuf *out, const cls_spec *stage)
{
    if (stage->border == CLS_BORDER_REPEAT) return;
    strbuf_printf(out,
                  "    /* outside the image the second stage reads the first one's result through the border mode:\n"
                  "     * %s */\n"
                  "    const int mx0 = x0 - HALF_W2, my0 = y0 - HALF_H2;\n"
                  "    if (mx0 < 0 || my0 < 0 || mx0 + MID_W > width || my0 + MID_H > height) {\n"
                  "        for (int e = item; e < MID_H * MID_W; e += GROUP) {\n"
                  "            const int r = e / MID_W, c = e - r * MID_W, x = mx0 + c, y = my0 + r;\n"
                  "            if ((uint)x < (uint)width && (uint)y < (uint)height) continue;\n",
                  stage->border == CLS_BORDER_CONSTANT ? "the constant"
                                                       : "the result at the folded position, read where it\n"
                                                         "     * lies inside the image (none of those is written here)");
    if (stage->border == CLS_BORDER_CONSTANT)
        strbuf_append(out, "            pixels[r * MID_PITCH + c] = border_value;\n");
    else
        strbuf_append(out, "            const int fx = fold(x, width) - mx0, fy = fold(y, height) - my0;\n"
                           "            if ((uint)fx < MID_W && (uint)fy < MID_H) pixels[r * MID_PITCH + c] = pixels[fy * MID_PITCH + fx];\n");
    strbuf_append(out, "        }\n"
                       "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                       "    }\n");
}

/* The kernel's body: the input staged, the first stage's passes, its result outside the image, the
 * second stage's rows, then its columns into the output. */
static void append_body(strbuf *out, const cls_spec *spec, const cls_spec *stage, const cls_staged_body *staged,
                        const fused_shape *s)
{
    const cls_body_stage *first = &staged->stages[0], *second = &staged->stages[1];
    char load[160], folded[200], store[200];
    emit_format_load(load, sizeof load, spec->input_type, "input", "input_offset + y * input_pitch + x");
    emit_format_load(folded, sizeof folded, spec->input_type, "input", "input_offset + fold(y, height) * input_pitch + fold(x, width)");
    const char *result = staged->combine == CLS_COMBINE_INPUT_MINUS_RESULT   ? "source - extreme"
                         : staged->combine == CLS_COMBINE_RESULT_MINUS_INPUT ? "extreme - source"
                                                                             : "extreme";
    emit_format_store(store, sizeof store, spec->output_type, "output", "output_offset + y * output_pitch + x", result);
    const int constant = stage->border == CLS_BORDER_CONSTANT;
    strbuf_printf(out,
                  "%s"
                  "    __local float pixels[%u]; /* the input (IN_PITCH a row), then the first stage's result (MID_PITCH) */\n"
                  "    __local float rows[%u];   /* each stage's row extremes (MID_PITCH, then OUT_PITCH a row) */\n"
                  "    const int item = get_local_id(0);\n"
                  "    const int x0 = roi.x + get_group_id(0) * TILE_W, y0 = roi.y + get_group_id(1) * TILE_H;\n"
                  "    /* the input from column x0 - HALF_W1 - HALF_W2 and row y0 - HALF_H1 - HALF_H2, the border\n"
                  "     * mode's pixels outside the image */\n"
                  "    const int ix0 = x0 - HALF_W1 - HALF_W2, iy0 = y0 - HALF_H1 - HALF_H2;\n"
                  "    if (ix0 >= 0 && iy0 >= 0 && ix0 + IN_W <= width && iy0 + IN_H <= height) {\n"
                  "        for (int e = item; e < IN_H * IN_W; e += GROUP) {\n"
                  "            const int r = e / IN_W, c = e - r * IN_W, x = ix0 + c, y = iy0 + r;\n"
                  "            pixels[r * IN_PITCH + c] = %s;\n"
                  "        }\n"
                  "    } else {\n"
                  "        for (int e = item; e < IN_H * IN_W; e += GROUP) {\n"
                  "            const int r = e / IN_W, c = e - r * IN_W, x = ix0 + c, y = iy0 + r;\n"
                  "            const float value = %s;\n"
                  "            pixels[r * IN_PITCH + c] = %s;\n"
                  "        }\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* the first stage's rows: rows[r][c] over pixels[r][c ... c + %u] */\n"
                  "    for (int t = item; t < IN_H * %u; t += GROUP) {\n"
                  "        const int r = t / %u, c = (t - r * %u) * %u;\n"
                  "        first_rows(pixels + r * IN_PITCH + c, 1, rows + r * MID_PITCH + c, 1, MID_W - c);\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* its columns: pixels[r][c] over rows[r ... r + %u][c] */\n"
                  "    for (int t = item; t < MID_W * %u; t += GROUP) {\n"
                  "        const int run = t / MID_W, c = t - run * MID_W, r = run * %u;\n"
                  "        first_columns(rows + r * MID_PITCH + c, MID_PITCH, pixels + r * MID_PITCH + c, MID_PITCH, MID_H - r);\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n",
                  constant ? "" : "    (void)border_value;\n", s->pixels_size, s->rows_size, load, folded,
                  constant ? "inside_both(x, width) && inside_both(y, height) ? value : border_value" : "value",
                  first->width - 1, s->runs[0], s->runs[0], s->runs[0], first->width, first->height - 1, s->runs[1],
                  first->height);
    append_outside(out, stage);
    const unsigned k = second->height;
    strbuf_printf(out,
                  "    /* the second stage's rows: rows[r][c] (OUT_PITCH a row) over pixels[r][c ... c + %u] */\n"
                  "    for (int t = item; t < MID_H * %u; t += GROUP) {\n"
                  "        const int r = t / %u, c = (t - r * %u) * %u;\n"
                  "        second_rows(pixels + r * MID_PITCH + c, 1, rows + r * OUT_PITCH + c, 1, TILE_W - c);\n"
                  "    }\n"
                  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                  "    /* its columns into the output, a run of %u rows a work-item as second_rows walks a row */\n"
                  "    for (int t = item; t < TILE_W * %u; t += GROUP) {\n"
                  "        const int run = t / TILE_W, c = t - run * TILE_W, r = run * %u, x = x0 + c;\n"
                  "        if (x >= roi.z || y0 + r >= roi.w) continue;\n"
                  "        __local const float *in = rows + r * OUT_PITCH + c;\n",
                  second->width - 1, s->runs[2], s->runs[2], s->runs[2], second->width, k, s->runs[3], k);
    strbuf keep;
    strbuf_init(&keep);
    strbuf_printf(&keep,
                  "            const int y = y0 + r + i;\n"
                  "            if (r + i < TILE_H && y < roi.w) {\n");
    if (staged->combine) strbuf_printf(&keep, "                const float source = %s;\n", load);
    strbuf_printf(&keep, "                %s\n            }\n", store);
    append_run_loop(out, "        ", k, second, "OUT_PITCH", keep.failed || !keep.data ? "" : keep.data);
    if (keep.failed) out->failed = 1;
    strbuf_free(&keep);
    strbuf_append(out, "    }\n}\n");
}

char *cls_fused_stages_source(const cls_spec *spec, const cls_staged_body *staged)
{
    const cls_spec stage = cls_staged_stage_spec(spec, staged, 0); /* the undefined border runs as clamp */
    const fused_shape s = shape_of(staged);
    strbuf out;
    strbuf_init(&out);
    append_header(&out, spec, staged, &s);
    van_herk_append_helpers(&out, &stage);
    strbuf_append(&out, "\n");
    append_run(&out, "first_rows", staged->stages[0].width, &staged->stages[0]);
    append_run(&out, "first_columns", staged->stages[0].height, &staged->stages[0]);
    append_run(&out, "second_rows", staged->stages[1].width, &staged->stages[1]);
    cls_spec signature = stage;
    signature.output_type = spec->output_type;
    van_herk_append_signature(&out, &signature, NULL, GROUP);
    append_body(&out, spec, &stage, staged, &s);
    return strbuf_take(&out);
}
