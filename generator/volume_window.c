/* volume_window.c — a volume's window of partial results down z (emit.h): what each partial
 * result starts from and how a tap's value joins it, shared by the walks of emit_volume.c,
 * emit_volume_tile.c and emit_volume_vectors.c. */
#include "emit.h"

#include <stdio.h>

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
