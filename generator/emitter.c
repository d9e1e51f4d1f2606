/* emitter.c — the text helpers every part of the source emitter uses (emit.h): OpenCL types,
 * loads and stores of a pixel type, literal floats and offsets, the border checks of an index,
 * indentation and the baked coefficient array. They call nothing of the emitter's, so the parts
 * depend on them and never on one another through them. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

const char *emit_cl_type(cls_pixel_type type)
{
    switch (type) {
    case CLS_PIXEL_U8: return "uchar";
    case CLS_PIXEL_U16: return "ushort";
    case CLS_PIXEL_I16: return "short";
    case CLS_PIXEL_F16: return "half";
    case CLS_PIXEL_F32: return "float";
    case CLS_PIXEL_F64: return "double";
    }
    return "float";
}

const char *emit_value_type(const cls_kernel_config *c)
{
    return cls_spec_in_double(&c->spec) ? "double" : "float";
}

void emit_format_load_as(char *text, size_t size, cls_pixel_type type, const char *value_type, const char *pointer,
                         const char *index)
{
    if (type == CLS_PIXEL_F16) snprintf(text, size, "vload_half(%s, %s)", index, pointer);
    else snprintf(text, size, "(%s)%s[%s]", value_type, pointer, index);
}

void emit_format_load(char *text, size_t size, cls_pixel_type type, const char *pointer, const char *index)
{
    emit_format_load_as(text, size, type, "float", pointer, index);
}

void emit_format_store(char *text, size_t size, cls_pixel_type type, const char *pointer, const char *index,
                       const char *value)
{
    if (type == CLS_PIXEL_F16) snprintf(text, size, "vstore_half_rte(%s, %s, %s);", value, index, pointer);
    else if (type == CLS_PIXEL_F32 || type == CLS_PIXEL_F64) snprintf(text, size, "%s[%s] = %s;", pointer, index, value);
    else snprintf(text, size, "%s[%s] = convert_%s_sat_rte(%s);", pointer, index, emit_cl_type(type), value);
}

void emit_format_vector_load(char *text, size_t size, cls_pixel_type type, unsigned lanes, const char *address)
{
    if (type == CLS_PIXEL_F16) { /* lane by lane: PoCL 3.1's vload_half8 crashed (a 31-wide row's extremes) */
        int used = snprintf(text, size, "(float%u)(", lanes);
        for (unsigned j = 0; j < lanes && used > 0 && (size_t)used < size; ++j)
            used += snprintf(text + used, size - (size_t)used, "%svload_half(%u, %s)", j ? ", " : "", j, address);
        if (used > 0 && (size_t)used < size) snprintf(text + used, size - (size_t)used, ")");
    } else if (type == CLS_PIXEL_F32) snprintf(text, size, "vload%u(0, %s)", lanes, address);
    else snprintf(text, size, "convert_float%u(vload%u(0, %s))", lanes, lanes, address);
}

void emit_format_vector_store(char *text, size_t size, cls_pixel_type type, unsigned lanes, const char *value,
                              const char *address)
{
    if (type == CLS_PIXEL_F16) snprintf(text, size, "vstore_half%u_rte(%s, 0, %s);", lanes, value, address);
    else if (type == CLS_PIXEL_F32) snprintf(text, size, "vstore%u(%s, 0, %s);", lanes, value, address);
    else if (type == CLS_PIXEL_F64) snprintf(text, size, "vstore%u(convert_double%u(%s), 0, %s);", lanes, lanes, value, address);
    else snprintf(text, size, "vstore%u(convert_%s%u_sat_rte(%s), 0, %s);", lanes, emit_cl_type(type), lanes, value, address);
}

void append_float(strbuf *out, float value)
{
    char text[48];
    snprintf(text, sizeof text, "%.9g", (double)value); /* reads back as exactly the same float */
    strbuf_append(out, text);
    if (!strpbrk(text, ".e")) strbuf_append(out, ".0");
    strbuf_append(out, "f");
}

void format_offset(char *text, size_t size, int offset)
{
    if (offset == 0) snprintf(text, size, "%s", "");
    else snprintf(text, size, " %c %d", offset < 0 ? '-' : '+', offset < 0 ? -offset : offset);
}

static const char *axis_length(cls_axis axis)
{
    return axis == CLS_AXIS_X ? "width" : axis == CLS_AXIS_Y ? "height" : "depth";
}

void append_index(const emitter *e, strbuf *out, axis_check check, const char *index, cls_axis axis)
{
    static const char *const names[] = {"", "border_lo", "border_hi", "border_both", "border_once", "border_any"};
    if (check == CHECK_NONE) strbuf_append(out, index);
    else strbuf_printf(out, "%s%s(%s, %s)", names[check], border_suffix(&e->config->spec, axis), index, axis_length(axis));
}

void append_inside(const emitter *e, strbuf *out, axis_check check, const char *index, cls_axis axis)
{
    static const char *const names[] = {"1", "inside_lo", "inside_hi", "inside_both", "inside_both", "inside_both"};
    strbuf_printf(out, "%s%s(%s, %s)", names[check], check ? border_suffix(&e->config->spec, axis) : "", index,
                  axis_length(axis));
}

void indent_line(strbuf *out, int indent)
{
    for (int k = 0; k < indent; ++k) strbuf_append(out, "    ");
}

void emit_baked_array(emitter *e, const char *name, const char *comment)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    strbuf_printf(out, "/* %s */\n__constant float %s[MASKS * MASK_W * MASK_H] = {", comment, name);
    for (size_t k = 0; k < (size_t)c->masks * c->spec.mask_width * c->spec.mask_height; ++k) {
        strbuf_append(out, k % 8 ? " " : "\n    ");
        append_float(out, c->coefficients[k]);
        strbuf_append(out, ",");
    }
    strbuf_append(out, "\n};\n");
}
