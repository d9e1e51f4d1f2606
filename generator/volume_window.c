/* volume_window.c — what the walks of a volume's sum share (emit.h; emit_volume.c,
 * emit_volume_tile.c, emit_volume_vectors.c): the work-item's block of slices and buffers, and
 * its window of partial results down z, what each starts from and how a tap's value joins it. */
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
