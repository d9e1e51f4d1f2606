/* volume_window.c — what the walks of a volume share (emit.h; emit_volume.c, emit_volume_tile.c,
 * emit_volume_vectors.c, emit_volume_rank.c): the work-item's block of slices and buffers, the
 * constant border's test of a tap, and its window of partial results down z, what each starts
 * from and how a tap's value joins it. */
#include "emit.h"

#include "strbuf.h"

#include <stdio.h>

void emit_volume_block(strbuf *out)
{
    strbuf_line(out, 1, "const int z_end = min(z_first + SLICES, roi_z.s1);");
    strbuf_line(out, 1, "input += input_offset;");
    strbuf_line(out, 1, "output += output_offset;");
    strbuf_line(out, 1, "(void)mask;");
    strbuf_line(out, 1, "(void)border_value;");
}

const char *emit_volume_window_start(const cls_spec *s)
{
    return s->reduction == CLS_REDUCTION_MIN ? "INFINITY" : s->reduction == CLS_REDUCTION_MAX ? "-INFINITY" : "0.0f";
}

void emit_volume_join(char *text, size_t size, const cls_spec *s, const char *coefficient, const char *sum,
                      const char *value)
{
    if (s->reduction == CLS_REDUCTION_MIN || s->reduction == CLS_REDUCTION_MAX)
        snprintf(text, size, "if (%s != 0.0f) %s = %s(%s, %s);", coefficient, sum,
                 s->reduction == CLS_REDUCTION_MIN ? "fmin" : "fmax", sum, value);
    else
        snprintf(text, size, "%s += %s * %s;", sum, coefficient, value);
}

void emit_volume_tap(strbuf *out, int indent, const cls_spec *s, unsigned dy, unsigned dx, const char *target, unsigned n)
{
    char index[64], load[160], row[16], column[16], inside[96];
    snprintf(index, sizeof index, "slice + row[%u] + column[%u]", dy, dx);
    emit_format_load(load, sizeof load, s->input_type, "input", index);
    snprintf(row, sizeof row, "%u", dy);
    snprintf(column, sizeof column, "%u", dx);
    emit_volume_inside(inside, sizeof inside, s, row, column);
    if (*inside) strbuf_line(out, indent, "%s[%u] = %s ? %s : border_value;", target, n, inside, load);
    else strbuf_line(out, indent, "%s[%u] = %s;", target, n, load);
}

unsigned emit_volume_slice_taps(strbuf *out, int indent, const cls_spec *s, const float *mask_slice, const char *target,
                                unsigned n)
{
    for (unsigned dy = 0; dy < s->mask_height; ++dy)
        for (unsigned dx = 0; dx < s->mask_width; ++dx)
            if (!mask_slice || mask_slice[dy * s->mask_width + dx] != 0.0f) emit_volume_tap(out, indent, s, dy, dx, target, n++);
    return n;
}

void emit_volume_inside(char *text, size_t size, const cls_spec *s, const char *dy, const char *dx)
{
    const struct { cls_axis axis; const char *name, *index; } terms[] = {
        {CLS_AXIS_Z, "slice_inside", NULL}, {CLS_AXIS_Y, "row_inside", dy}, {CLS_AXIS_X, "column_inside", dx}};
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < sizeof terms / sizeof terms[0]; ++k)
        if (cls_spec_border_on(s, terms[k].axis) == CLS_BORDER_CONSTANT && used < size)
            used += (size_t)snprintf(text + used, size - used, "%s%s%s%s%s", used ? " && " : "", terms[k].name,
                                     terms[k].index ? "[" : "", terms[k].index ? terms[k].index : "",
                                     terms[k].index ? "]" : "");
}
