/* fft_kernels.c — writes the FFT method's three kernels (fft_kernels.h): gather (tiles of the
 * input through the border mode), multiply (spectra by the mask's conjugate spectrum) and scatter
 * (each tile's valid outputs in the output type), for images and, a slice of a tile a work-item,
 * for volumes. */
#include "fft_kernels.h"

#include "emit.h"
#include "generator.h"
#include "strbuf.h"

#include <stdio.h>

/* The rest of a gather: its column's rows, each read by LOAD through the border mode, the constant
 * mode's value outside the image (or volume: z's too). */
static void append_gather_rows(strbuf *out, const cls_spec *spec, const char *load, int volume)
{
    strbuf_append(out, "    for (int v = first; v < last; ++v) {\n        const int y = top + v;\n");
    if (spec->border == CLS_BORDER_UNDEFINED)
        strbuf_append(out, "        const int row = clamp(y, 0, size.y - 1);\n");
    else
        strbuf_printf(out, "        const int row = border_both%s(y, size.y);\n", border_suffix(spec, CLS_AXIS_Y));
    static const struct { cls_axis axis; const char *index, *size; } axes[] = {
        {CLS_AXIS_X, "x", "size.x"}, {CLS_AXIS_Y, "y", "size.y"}, {CLS_AXIS_Z, "z", "depth"}};
    strbuf inside;
    strbuf_init(&inside);
    for (size_t a = 0; a < (volume ? 3u : 2u); ++a)
        if (cls_spec_border_on(spec, axes[a].axis) == CLS_BORDER_CONSTANT)
            strbuf_printf(&inside, "%sinside_both%s(%s, %s)", inside.length ? " && " : "", border_suffix(spec, axes[a].axis),
                          axes[a].index, axes[a].size);
    if (inside.length)
        strbuf_printf(out, "        values[(size_t)v * row_floats] = %s ? %s : border_value;\n", strbuf_text(&inside), load);
    else
        strbuf_printf(out, "        values[(size_t)v * row_floats] = %s;\n", load);
    strbuf_append(out, "    }\n");
    if (!inside.length) strbuf_append(out, "    (void)border_value;\n");
    strbuf_free(&inside);
    strbuf_append(out, "}\n\n");
}

/* Gather: the pixels a tile's values stand for, read through the border mode, CLS_FFT_ROWS rows
 * a work-item (one column of them). The undefined mode clamps (the outputs whose window leaves
 * the image are never written, so any value serves). */
static void append_gather(strbuf *out, const cls_spec *spec)
{
    char load[160];
    emit_format_load(load, sizeof load, spec->input_type, "input", "input_offset + (size_t)row * input_pitch + column");
    strbuf_printf(out,
                  "/* Real values of a tile, a column of CLS_FFT_ROWS rows: the input pixels they stand for,\n"
                  " * through the border mode. Tile first_tile + t covers the outputs from\n"
                  " * origin + (tile %% tiles_x, tile / tiles_x) * step; its values start HALF_W, HALF_H before. */\n"
                  "__kernel void " CLS_FFT_GATHER_KERNEL "(__global const %s *input, int input_offset, int input_pitch,\n"
                  "                             int2 size, int2 origin, int2 step, int tiles_x, int first_tile,\n"
                  "                             __global float *tiles, int row_floats, int2 tile_size, float border_value)\n"
                  "{\n"
                  "    const int u = get_global_id(0), t = get_global_id(2);\n"
                  "    if (u >= tile_size.x) return;\n"
                  "    const int tile = first_tile + t;\n"
                  "    const int x = origin.x + (tile %% tiles_x) * step.x + u - HALF_W;\n"
                  "    const int top = origin.y + (tile / tiles_x) * step.y - HALF_H;\n"
                  "    const int first = (int)get_global_id(1) * CLS_FFT_ROWS, last = min(first + CLS_FFT_ROWS, tile_size.y);\n"
                  "    __global float *values = tiles + (size_t)t * tile_size.y * row_floats + u;\n",
                  emit_cl_type(spec->input_type));
    if (spec->border == CLS_BORDER_UNDEFINED)
        strbuf_append(out, "    const int column = clamp(x, 0, size.x - 1);\n");
    else
        strbuf_printf(out, "    const int column = border_both%s(x, size.x);\n", border_suffix(spec, CLS_AXIS_X));
    append_gather_rows(out, spec, load, 0);
}

static void append_multiply(strbuf *out)
{
    strbuf_append(out,
                  "/* One complex value of every tile's spectrum times the conjugate of the mask's: the transform\n"
                  " * of the correlation sum(m(i, j) * in(x + i - HALF_W, y + j - HALF_H)) the direct kernels compute. */\n"
                  "__kernel void " CLS_FFT_MULTIPLY_KERNEL "(__global float2 *spectra, __global const float2 *mask, int values,\n"
                  "                               int tiles)\n"
                  "{\n"
                  "    const int i = get_global_id(0);\n"
                  "    if (i >= values) return;\n"
                  "    const float2 m = mask[i];\n"
                  "    for (int t = 0; t < tiles; ++t) {\n"
                  "        const size_t at = (size_t)t * values + i;\n"
                  "        const float2 a = spectra[at];\n"
                  "        spectra[at] = (float2)(a.x * m.x + a.y * m.y, a.y * m.x - a.x * m.y);\n"
                  "    }\n"
                  "}\n\n");
}

/* The rest of a scatter: its column's rows, each written by STORE; under the undefined mode only
 * those whose window stays inside the image (or volume). */
static void append_scatter_rows(strbuf *out, const cls_spec *spec, const char *store, int volume)
{
    if (spec->border == CLS_BORDER_UNDEFINED)
        strbuf_printf(out, "    /* undefined border: outputs whose window leaves the %s stay unwritten */\n"
                           "    if (x < HALF_W || x >= size.x - HALF_W%s) return;\n"
                           "    for (int v = first; v < last; ++v) {\n"
                           "        const int y = top + v;\n"
                           "        if (y < HALF_H || y >= size.y - HALF_H) continue;\n",
                      volume ? "volume" : "image", volume ? " || z < HALF_D || z >= depth - HALF_D" : "");
    else
        strbuf_printf(out, "    (void)size%s;\n"
                           "    for (int v = first; v < last; ++v) {\n"
                           "        const int y = top + v;\n",
                      volume ? ", (void)depth" : "");
    strbuf_printf(out, "        %s\n    }\n}\n", store);
}

static void append_scatter(strbuf *out, const cls_spec *spec)
{
    char store[200];
    emit_format_store(store, sizeof store, spec->output_type, "output", "output_offset + (size_t)y * output_pitch + x",
                      "values[(size_t)v * row_floats]");
    strbuf_printf(out,
                  "/* Outputs of a tile, a column of CLS_FFT_ROWS rows: its valid values are its first step.x x step.y. */\n"
                  "__kernel void " CLS_FFT_SCATTER_KERNEL "(__global const float *tiles, int row_floats, int tile_height,\n"
                  "                              __global %s *output, int output_offset, int output_pitch,\n"
                  "                              int2 size, int4 region, int2 step, int tiles_x, int first_tile)\n"
                  "{\n"
                  "    const int u = get_global_id(0), t = get_global_id(2);\n"
                  "    const int tile = first_tile + t;\n"
                  "    const int x = region.x + (tile %% tiles_x) * step.x + u;\n"
                  "    if (u >= step.x || x >= region.z) return;\n"
                  "    const int top = region.y + (tile / tiles_x) * step.y;\n"
                  "    const int first = (int)get_global_id(1) * CLS_FFT_ROWS;\n"
                  "    const int last = min(min(first + CLS_FFT_ROWS, step.y), region.w - top);\n"
                  "    __global const float *values = tiles + (size_t)t * tile_height * row_floats + u;\n",
                  emit_cl_type(spec->output_type));
    append_scatter_rows(out, spec, store, 0);
}

/* A volume's gather: a column of CLS_FFT_ROWS rows of one slice of a tile a work-item, the tile's
 * slices along the third global index (tile t's slice w at t * tile_depth + w). */
static void append_gather_volume(strbuf *out, const cls_spec *spec)
{
    char load[160];
    emit_format_load(load, sizeof load, spec->input_type, "input", "slice + (long)row * input_pitch + column");
    strbuf_printf(out,
                  "/* Real values of a tile's slice, a column of CLS_FFT_ROWS rows: the input voxels they stand for,\n"
                  " * through the border mode. Tile first_tile + t covers the outputs from origin + (tile %% tiles_x,\n"
                  " * tile / tiles_x %% tiles_y, tile / (tiles_x * tiles_y)) * step; its values start HALF_W, HALF_H,\n"
                  " * HALF_D before. */\n"
                  "__kernel void " CLS_FFT_GATHER_KERNEL "(__global const %s *input, int input_offset, int input_pitch,\n"
                  "                             int2 size, int2 origin, int2 step, int tiles_x, int first_tile,\n"
                  "                             __global float *tiles, int row_floats, int2 tile_size, float border_value,\n"
                  "                             long input_slice_pitch, int depth, int origin_z, int step_z, int tiles_y,\n"
                  "                             int tile_depth)\n"
                  "{\n"
                  "    const int u = get_global_id(0), t = get_global_id(2) / tile_depth, w = get_global_id(2) %% tile_depth;\n"
                  "    if (u >= tile_size.x) return;\n"
                  "    const int tile = first_tile + t;\n"
                  "    const int x = origin.x + (tile %% tiles_x) * step.x + u - HALF_W;\n"
                  "    const int top = origin.y + (tile / tiles_x %% tiles_y) * step.y - HALF_H;\n"
                  "    const int z = origin_z + (tile / tiles_x / tiles_y) * step_z + w - HALF_D;\n"
                  "    const int first = (int)get_global_id(1) * CLS_FFT_ROWS, last = min(first + CLS_FFT_ROWS, tile_size.y);\n"
                  "    __global float *values = tiles + ((size_t)t * tile_depth + w) * tile_size.y * row_floats + u;\n",
                  emit_cl_type(spec->input_type));
    if (spec->border == CLS_BORDER_UNDEFINED)
        strbuf_append(out, "    const int column = clamp(x, 0, size.x - 1);\n"
                           "    const long slice = input_offset + (long)clamp(z, 0, depth - 1) * input_slice_pitch;\n");
    else
        strbuf_printf(out, "    const int column = border_both%s(x, size.x);\n"
                           "    const long slice = input_offset + (long)border_both%s(z, depth) * input_slice_pitch;\n",
                      border_suffix(spec, CLS_AXIS_X), border_suffix(spec, CLS_AXIS_Z));
    append_gather_rows(out, spec, load, 1);
}

/* A volume's scatter: a column of CLS_FFT_ROWS outputs of one slice of a tile a work-item, the
 * tile's valid slices along the third global index (tile t's slice w at t * step_z + w). */
static void append_scatter_volume(strbuf *out, const cls_spec *spec)
{
    char store[200];
    emit_format_store(store, sizeof store, spec->output_type, "output",
                      "output_offset + (long)z * output_slice_pitch + (long)y * output_pitch + x",
                      "values[(size_t)v * row_floats]");
    strbuf_printf(out,
                  "/* Outputs of a tile's slice, a column of CLS_FFT_ROWS rows: its valid values are its first\n"
                  " * step.x x step.y x step_z. */\n"
                  "__kernel void " CLS_FFT_SCATTER_KERNEL "(__global const float *tiles, int row_floats, int tile_height,\n"
                  "                              __global %s *output, int output_offset, int output_pitch,\n"
                  "                              int2 size, int4 region, int2 step, int tiles_x, int first_tile,\n"
                  "                              long output_slice_pitch, int depth, int2 region_z, int step_z, int tiles_y,\n"
                  "                              int tile_depth)\n"
                  "{\n"
                  "    const int u = get_global_id(0), t = get_global_id(2) / step_z, w = get_global_id(2) %% step_z;\n"
                  "    const int tile = first_tile + t;\n"
                  "    const int x = region.x + (tile %% tiles_x) * step.x + u;\n"
                  "    const int z = region_z.x + (tile / tiles_x / tiles_y) * step_z + w;\n"
                  "    if (u >= step.x || x >= region.z || z >= region_z.y) return;\n"
                  "    const int top = region.y + (tile / tiles_x %% tiles_y) * step.y;\n"
                  "    const int first = (int)get_global_id(1) * CLS_FFT_ROWS;\n"
                  "    const int last = min(min(first + CLS_FFT_ROWS, step.y), region.w - top);\n"
                  "    __global const float *values = tiles + ((size_t)t * tile_depth + w) * tile_height * row_floats + u;\n",
                  emit_cl_type(spec->output_type));
    append_scatter_rows(out, spec, store, 1);
}

char *cls_fft_kernels_source(const cls_spec *spec)
{
    char borders[64];
    cls_border_axes_name(spec, borders, sizeof borders);
    const int volume = cls_spec_is_volume(spec);
    char depth[16] = "";
    if (volume) snprintf(depth, sizeof depth, "x%u", spec->mask_depth);
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out,
                  "/* clstencil %s: the kernels around the FFTs of a %ux%u%s weighted sum by FFT,\n"
                  " * border %s, %s -> %s. */\n\n",
                  CLS_VERSION_STRING, spec->mask_width, spec->mask_height, depth, borders,
                  cls_pixel_type_name(spec->input_type), cls_pixel_type_name(spec->output_type));
    if (spec->border != CLS_BORDER_UNDEFINED) {
        border_append_templates(&out, spec);
        strbuf_append(&out, "\n");
    }
    strbuf_printf(&out, "#define HALF_W %u\n#define HALF_H %u\n", spec->mask_width / 2, spec->mask_height / 2);
    if (volume) strbuf_printf(&out, "#define HALF_D %u\n", spec->mask_depth / 2);
    strbuf_printf(&out, "#define CLS_FFT_ROWS %u\n\n", CLS_FFT_ROWS);
    if (volume) append_gather_volume(&out, spec);
    else append_gather(&out, spec);
    append_multiply(&out);
    if (volume) append_scatter_volume(&out, spec);
    else append_scatter(&out, spec);
    return strbuf_take(&out);
}
