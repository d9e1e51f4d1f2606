/* emit_volume_body.c — a user-written operator body in a volume's kernel (cls_spec.body with a
 * mask_depth). As in 2-D (emit_body.c) the body runs in a function of its own at program scope:
 *
 *     float cls_window(input, input_pitch, input_slice_pitch, width, height, depth, border_value,
 *                      x, y, z, dx, dy, dz)
 *         reads voxel (x + dx, y + dy, z + dz), the offsets clamped to the window, each axis
 *         bordered by its own mode (a constant axis outside reads border_value);
 *     float cls_operator(cls_input, ..., cls_x, cls_y, cls_z, cls_mask)
 *         declares x, y, z, width, height and depth from its parameters, runs the body in a block
 *         of its own and returns OUT.
 *
 * The body reads IN(dx, dy, dz), MASK(dx, dy, dz) and FOR_WINDOW(dx, dy, dz) { ... }; the kernel's
 * work-item walks its column's block of output slices and calls the function once a voxel: a copy
 * whose reads check nothing (cls_operator_inside) where the voxel's window lies inside the volume,
 * else one whose every read borders its three coordinates. */
#include "emit.h"

#include "strbuf.h"

#include <stdio.h>
#include <string.h>

static int constant_on(const cls_spec *s, cls_axis axis)
{
    return cls_spec_border_on(s, axis) == CLS_BORDER_CONSTANT;
}

/* MASK, FOR_WINDOW and OUT, and the literals MASK reads where the coefficients are baked. */
void emit_volume_body_macros(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const char *index = "(((dz) + HALF_D) * MASK_H + (dy) + HALF_H) * MASK_W + (dx) + HALF_W";
    if (s->bake_coefficients == CLS_COEFFICIENTS_LITERALS) {
        strbuf_append(out, "/* The mask, slice by slice, row by row: literals the compiler folds once FOR_WINDOW is "
                           "unrolled. */\n__constant float cls_mask_literals[MASK_D * MASK_H * MASK_W] = {");
        const size_t taps = (size_t)s->mask_width * s->mask_height * s->mask_depth;
        for (size_t k = 0; k < taps; ++k) {
            strbuf_append(out, k % 8 ? " " : "\n    ");
            append_float(out, c->coefficients[k]);
            strbuf_append(out, ",");
        }
        strbuf_printf(out, "\n};\n#define MASK(dx, dy, dz) cls_mask_literals[%s]\n", index);
    } else {
        strbuf_printf(out, "#define MASK(dx, dy, dz) cls_mask[%s]\n", index);
    }
    strbuf_append(out, "#define FOR_WINDOW(dx, dy, dz) \\\n"
                       "    for (int dz = -HALF_D; dz <= HALF_D; ++dz) \\\n"
                       "        for (int dy = -HALF_H; dy <= HALF_H; ++dy) \\\n"
                       "            for (int dx = -HALF_W; dx <= HALF_W; ++dx)\n"
                       "#define OUT cls_out\n");
    emit_fast_exp2(out, c);
    if (strstr(s->body, "value_t")) strbuf_append(out, "typedef float value_t; /* the body's values: one voxel's */\n");
    strbuf_append(out, "\n");
}

/* IN(dx, dy, dz) as cls_window: each axis bordered by its mode; as cls_window_inside, for a voxel
 * whose whole window lies inside the volume, no border at all (the offsets still clamped). */
static void emit_window_function(strbuf *out, const cls_kernel_config *c, int inside)
{
    const cls_spec *s = &c->spec;
    strbuf_printf(out,
                  "/* IN(dx, dy, dz): the input at (x + dx, y + dy, z + dz), the offsets clamped to the window%s. */\n"
                  "float cls_window%s(__global const input_t *restrict input, const int input_pitch,\n"
                  "    const long input_slice_pitch, const int width, const int height, const int depth,\n"
                  "    const float border_value, const int x, const int y, const int z, const int dx, const int dy,\n"
                  "    const int dz)\n{\n"
                  "    (void)width; (void)height; (void)depth; (void)border_value;\n"
                  "    const int i = x + clamp(dx, -HALF_W, HALF_W), j = y + clamp(dy, -HALF_H, HALF_H),\n"
                  "              k = z + clamp(dz, -HALF_D, HALF_D);\n",
                  inside ? ", for a voxel whose window lies inside the volume" : ", each axis bordered by its mode",
                  inside ? "_inside" : "");
    char index[192], load[320];
    if (inside) {
        snprintf(index, sizeof index, "(long)k * input_slice_pitch + (long)j * input_pitch + i");
    } else {
        const struct { cls_axis axis; const char *index, *size; } axes[] = {
            {CLS_AXIS_X, "i", "width"}, {CLS_AXIS_Y, "j", "height"}, {CLS_AXIS_Z, "k", "depth"}};
        for (size_t a = 0; a < 3; ++a)
            if (constant_on(s, axes[a].axis))
                strbuf_printf(out, "    if (!inside_both%s(%s, %s)) return border_value;\n",
                              border_suffix(s, axes[a].axis), axes[a].index, axes[a].size);
        snprintf(index, sizeof index,
                 "(long)border_both%s(k, depth) * input_slice_pitch + (long)border_both%s(j, height) * input_pitch + "
                 "border_both%s(i, width)",
                 border_suffix(s, CLS_AXIS_Z), border_suffix(s, CLS_AXIS_Y), border_suffix(s, CLS_AXIS_X));
    }
    emit_format_load(load, sizeof load, s->input_type, "input", index);
    strbuf_printf(out, "    return %s;\n}\n\n", load);
}

static void emit_operator_function(strbuf *out, const cls_kernel_config *c, int inside)
{
    const char *suffix = inside ? "_inside" : "";
    strbuf_printf(out,
                  "/* The operator body%s: its names are its own; the kernel's are not in scope. */\n"
                  "float cls_operator%s(__global const input_t *restrict cls_input, const int cls_input_pitch,\n"
                  "    const long cls_input_slice_pitch, const int cls_width, const int cls_height, const int cls_depth,\n"
                  "    const float cls_border_value, const int cls_x, const int cls_y, const int cls_z,\n"
                  "    __constant float *restrict cls_mask)\n{\n"
                  "    (void)cls_mask;\n"
                  "#define IN(dx, dy, dz) cls_window%s(cls_input, cls_input_pitch, cls_input_slice_pitch, cls_width, "
                  "cls_height, cls_depth, cls_border_value, cls_x, cls_y, cls_z, (int)(dx), (int)(dy), (int)(dz))\n"
                  "    const int x = cls_x, y = cls_y, z = cls_z, width = cls_width, height = cls_height, "
                  "depth = cls_depth;\n"
                  "    (void)x; (void)y; (void)z; (void)width; (void)height; (void)depth;\n"
                  "    float cls_out = 0.0f;\n"
                  "    {\n#line 1 \"operator\"\n",
                  inside ? " where the window lies inside the volume" : "", suffix, suffix);
    strbuf_append(out, c->spec.body);
    strbuf_printf(out, "\n#line %u \"clstencil\"\n", emit_next_line(out) + 1);
    strbuf_append(out, "    }\n    return cls_out;\n#undef IN\n}\n\n");
}

/* Whether the kernel needs the bordered copy: the undefined border computes only the voxels
 * whose window lies inside. */
static int bordered(const cls_kernel_config *c)
{
    return c->spec.border != CLS_BORDER_UNDEFINED;
}

void emit_volume_body_functions(strbuf *out, const cls_kernel_config *c)
{
    emit_window_function(out, c, 1);
    emit_operator_function(out, c, 1);
    if (!bordered(c)) return;
    emit_window_function(out, c, 0);
    emit_operator_function(out, c, 0);
}

void emit_volume_body_walk(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    if (bordered(c))
        strbuf_line(out, 1, "const int column_inside = x >= HALF_W && x < width - HALF_W && y >= HALF_H && "
                            "y < height - HALF_H;");
    strbuf_line(out, 1, "for (int z = z_first; z < z_end; ++z) {");
    if (!bordered(c)) {
        strbuf_line(out, 2, "if (z < HALF_D || z >= depth - HALF_D) continue; /* undefined: left unwritten */");
        strbuf_line(out, 2, "const float value = cls_operator_inside(input, input_pitch, input_slice_pitch, width, "
                            "height, depth,");
        strbuf_line(out, 2, "                                        border_value, x, y, z, mask);");
    } else {
        strbuf_line(out, 2, "/* the window inside the volume: no border to check */");
        strbuf_line(out, 2, "const float value = column_inside && z >= HALF_D && z < depth - HALF_D");
        strbuf_line(out, 2, "    ? cls_operator_inside(input, input_pitch, input_slice_pitch, width, height, depth, "
                            "border_value, x, y, z, mask)");
        strbuf_line(out, 2, "    : cls_operator(input, input_pitch, input_slice_pitch, width, height, depth, "
                            "border_value, x, y, z, mask);");
    }
    char store[320];
    emit_format_store(store, sizeof store, s->output_type, "output",
                      "(long)z * output_slice_pitch + (long)y * output_pitch + x", "value");
    strbuf_line(out, 2, "%s", store);
    strbuf_line(out, 1, "}");
}
