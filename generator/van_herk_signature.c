/* van_herk_signature.c — the signature every van Herk/Gil-Werman kernel shares (van_herk_internal.h):
 * the row and column passes, the tile kernel, the strip walker and the lanes kernel take the same
 * arguments, in the order the staged run sets them. */
#include "van_herk_internal.h"

#include "emit.h"

void van_herk_append_signature(strbuf *out, const cls_spec *stage, unsigned group)
{
    strbuf_append(out, "__kernel ");
    if (group) strbuf_printf(out, "__attribute__((reqd_work_group_size(%u, 1, 1)))\n", group);
    strbuf_printf(out,
                  "void " CLS_VAN_HERK_KERNEL_NAME "(__global const %s *restrict input, int input_offset,\n"
                  "    int input_pitch, __global %s *restrict output, int output_offset, int output_pitch, int width,\n"
                  "    int height, int4 roi, float border_value)\n{\n",
                  emit_cl_type(stage->input_type), emit_cl_type(stage->output_type));
}
