/* fft_tile_kernel.c — writes the FFT method's one-kernel form (fft_kernels.h): the prologue of
 * cl-templates/fft-tile.cl (the mask's reach, the pixel types, the input's loads through the
 * border mode and the output's stores), the transforms' template, then the kernel for two 64x64
 * tiles a group (fft-tile-pairs.cl) or one real tile 128 wide (fft-tile-wide.cl). */
#include "fft_kernels.h"

#include "emit.h"
#include "generator.h"
#include "strbuf.h"

#include <stdio.h>

int cls_fft_tile_wide(const cls_spec *spec) { return spec->mask_width >= CLS_FFT_TILE_WIDE_MIN_MASK; }

int cls_fft_tile_fits(const cls_spec *spec, unsigned max_side)
{
    return !cls_spec_is_volume(spec) && spec->mask_width <= max_side && spec->mask_height <= max_side &&
           spec->mask_width <= CLS_FFT_TILE_MAX_MASK && spec->mask_height <= CLS_FFT_TILE_MAX_MASK;
}

/* input_at: any pixel through the border mode (the undefined mode clamps: outputs whose window
 * leaves the image are never written, so any value serves). */
static void append_input_at(strbuf *out, const cls_spec *spec, const char *load)
{
    strbuf_append(out, "float input_at(__global const input_t *input, int offset, int pitch, int2 size, int x, int y,\n"
                       "               float border_value)\n{\n");
    if (spec->border == CLS_BORDER_UNDEFINED) {
        strbuf_printf(out, "    (void)border_value;\n"
                           "    const int column = clamp(x, 0, size.x - 1), row = clamp(y, 0, size.y - 1);\n"
                           "    return %s;\n}\n\n",
                      load);
        return;
    }
    strbuf_printf(out, "    const int column = border_both%s(x, size.x), row = border_both%s(y, size.y);\n",
                  border_suffix(spec, CLS_AXIS_X), border_suffix(spec, CLS_AXIS_Y));
    const int constant_x = cls_spec_border_on(spec, CLS_AXIS_X) == CLS_BORDER_CONSTANT;
    const int constant_y = cls_spec_border_on(spec, CLS_AXIS_Y) == CLS_BORDER_CONSTANT;
    if (!constant_x && !constant_y) {
        strbuf_printf(out, "    (void)border_value;\n    return %s;\n}\n\n", load);
        return;
    }
    strbuf_append(out, "    return ");
    if (constant_x) strbuf_printf(out, "inside_both%s(x, size.x)", border_suffix(spec, CLS_AXIS_X));
    if (constant_x && constant_y) strbuf_append(out, " && ");
    if (constant_y) strbuf_printf(out, "inside_both%s(y, size.y)", border_suffix(spec, CLS_AXIS_Y));
    strbuf_printf(out, " ? %s : border_value;\n}\n\n", load);
}

char *cls_fft_tile_source(const cls_kernel_config *config)
{
    const cls_spec *spec = &config->spec;
    char borders[64], load[160], store[160];
    cls_border_axes_name(spec, borders, sizeof borders);
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out,
                  "/* clstencil %s: a %ux%u weighted sum by FFT, each tile on chip, border %s, %s -> %s. */\n\n",
                  CLS_VERSION_STRING, spec->mask_width, spec->mask_height, borders,
                  cls_pixel_type_name(spec->input_type), cls_pixel_type_name(spec->output_type));
    if (spec->border != CLS_BORDER_UNDEFINED) {
        border_append_templates(&out, spec);
        strbuf_append(&out, "\n");
    }
    strbuf_printf(&out, "#define HALF_W %u\n#define HALF_H %u\n#define WINDOW_ONLY %d\n", spec->mask_width / 2,
                  spec->mask_height / 2, spec->border == CLS_BORDER_UNDEFINED);
    if (cls_kernel_register_cap(config))
        strbuf_printf(&out, "#define REGISTER_CAP %u /* per work-item, built to it where the compiler takes more: "
                            "four groups a compute unit */\n", cls_kernel_register_cap(config));
    strbuf_printf(&out, "typedef %s input_t;\ntypedef %s output_t;\n\n", emit_cl_type(spec->input_type),
                  emit_cl_type(spec->output_type));
    emit_format_load(load, sizeof load, spec->input_type, "input", "offset + (size_t)row * pitch + column");
    strbuf_printf(&out,
                  "float input_inside(__global const input_t *input, int offset, int pitch, int column, int row)\n"
                  "{\n    return %s;\n}\n\n",
                  load);
    append_input_at(&out, spec, load);
    emit_format_store(store, sizeof store, spec->output_type, "output", "index", "value");
    strbuf_printf(&out, "void store_output(__global output_t *output, size_t index, float value) { %s }\n\n", store);
    strbuf_append(&out, cls_template("fft-tile.cl"));
    strbuf_append(&out, "\n");
    strbuf_append(&out, cls_template(cls_fft_tile_wide(spec) ? "fft-tile-wide.cl" : "fft-tile-pairs.cl"));
    return strbuf_take(&out);
}
