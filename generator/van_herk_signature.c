/* van_herk_signature.c — the signature every van Herk/Gil-Werman kernel shares (van_herk_internal.h):
 * the row and column passes, the tile kernel, the strip walker and the lanes kernel take the same
 * arguments, in the order the staged run sets them, and write a combined output alike. */
#include "van_herk_internal.h"

#include "emit.h"

#include <stdio.h>

void van_herk_append_signature(strbuf *out, const cls_spec *stage, const cls_van_herk_launch *l, unsigned group)
{
    strbuf_append(out, "__kernel ");
    if (group) strbuf_printf(out, "__attribute__((reqd_work_group_size(%u, 1, 1)))\n", group);
    strbuf_printf(out,
                  "void " CLS_VAN_HERK_KERNEL_NAME "(__global const %s *restrict input, int input_offset,\n"
                  "    int input_pitch, __global %s *restrict output, int output_offset, int output_pitch, int width,\n"
                  "    int height, int4 roi, float border_value",
                  emit_cl_type(stage->input_type), emit_cl_type(stage->output_type));
    if (l && l->combine)
        strbuf_printf(out, ",\n    __global const %s *restrict source, int source_offset, int source_pitch",
                      emit_cl_type(l->source_type));
    strbuf_append(out, ")\n{\n");
}

const char *van_herk_result(char *buf, size_t size, const cls_van_herk_launch *l, const char *value, const char *x,
                            const char *y)
{
    if (l->combine == CLS_COMBINE_INPUT_MINUS_RESULT) snprintf(buf, size, "SOURCE(%s, %s) - %s", x, y, value);
    else if (l->combine == CLS_COMBINE_RESULT_MINUS_INPUT) snprintf(buf, size, "%s - SOURCE(%s, %s)", value, x, y);
    else snprintf(buf, size, "%s", value);
    return buf;
}
