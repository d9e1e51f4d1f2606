/* staged_source.c — the source of a staged operator (staged_body.h): every stage's kernel
 * (cls_generate_source for a body, the van Herk kernels for an extremum) and the combination's. */
#include "staged_body.h"

#include "emit.h"
#include "error.h"
#include "strbuf.h"
#include "van_herk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned cls_combine_lanes(cls_van_herk_form form) { return form == CLS_VAN_HERK_IN_LANES ? CLS_VAN_HERK_LANES : 1; }

char *cls_combine_source(cls_stage_combine combine, cls_pixel_type input_type, cls_pixel_type output_type,
                         unsigned lanes)
{
    const int input_minus_result = combine == CLS_COMBINE_INPUT_MINUS_RESULT;
    char load[96], store[128];
    emit_format_load(load, sizeof load, input_type, "input", "input_offset + y * input_pitch + x");
    emit_format_store(store, sizeof store, output_type, "output", "output_offset + y * output_pitch + x", "difference");
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out,
                  "/* clstencil: the combination after an operator's stages: the %s,\n"
                  " * pixel by pixel over the region of interest (%s) */\n"
                  "__kernel void " CLS_COMBINE_KERNEL_NAME "(__global const %s *input, int input_offset, int input_pitch,\n"
                  "                                __global const float *result, __global %s *output, int output_offset,\n"
                  "                                int output_pitch, int width, int4 roi)\n"
                  "{\n",
                  input_minus_result ? "input minus the last stage's result" : "last stage's result minus the input",
                  lanes > 1 ? "8 adjacent pixels of a row a work-item, as vectors" : "one work-item each",
                  emit_cl_type(input_type), emit_cl_type(output_type));
    const char *difference = input_minus_result ? "source - result[y * width + x]" : "result[y * width + x] - source";
    if (lanes > 1) {
        char vector_load[512], vector_store[192];
        emit_format_vector_load(vector_load, sizeof vector_load, input_type, lanes, "input + input_offset + y * input_pitch + x");
        emit_format_vector_store(vector_store, sizeof vector_store, output_type, lanes, "difference",
                                 "output + output_offset + y * output_pitch + x");
        strbuf_printf(&out,
                      "    const int x0 = roi.x + (int)get_global_id(0) * %u, y = roi.y + (int)get_global_id(1);\n"
                      "    if (x0 >= roi.z || y >= roi.w) return;\n"
                      "    if (x0 + %u <= roi.z) {\n"
                      "        const int x = x0;\n"
                      "        const float%u source = %s;\n"
                      "        const float%u difference = %svload%u(0, result + y * width + x)%s;\n"
                      "        %s\n"
                      "        return;\n"
                      "    }\n"
                      "    for (int x = x0; x < roi.z; ++x) {\n"
                      "        const float source = %s;\n"
                      "        const float difference = %s;\n"
                      "        %s\n"
                      "    }\n"
                      "}\n",
                      lanes, lanes, lanes, vector_load, lanes, input_minus_result ? "source - " : "", lanes,
                      input_minus_result ? "" : " - source", vector_store, load, difference, store);
        return strbuf_take(&out);
    }
    strbuf_printf(&out,
                  "    const int x = roi.x + (int)get_global_id(0), y = roi.y + (int)get_global_id(1);\n"
                  "    if (x >= roi.z || y >= roi.w) return;\n"
                  "    const float source = %s;\n"
                  "    const float difference = %s;\n"
                  "    %s\n"
                  "}\n",
                  load, difference, store);
    return strbuf_take(&out);
}

cls_status cls_staged_source(const cls_spec *spec, unsigned simd_width, char **source)
{
    return cls_staged_source_on(spec, simd_width, CLS_VAN_HERK_STRIPS, source);
}

cls_status cls_staged_source_on(const cls_spec *spec, unsigned simd_width, cls_van_herk_form form, char **source)
{
    *source = NULL;
    cls_staged_body staged;
    memset(&staged, 0, sizeof staged);
    cls_status status = cls_spec_validate(spec);
    if (status == CLS_OK) status = cls_staged_body_split(spec, &staged);
    strbuf out;
    strbuf_init(&out);
    const char *first = status == CLS_OK ? cls_staged_body_first_stage(spec->body) : NULL;
    if (first && first > spec->body) { /* the comments before the first stage describe the whole */
        strbuf_append_n(&out, spec->body, (size_t)(first - spec->body));
        strbuf_append(&out, "\n");
    }
    if (status == CLS_OK && spec->border == CLS_BORDER_UNDEFINED)
        strbuf_printf(&out, "/* The undefined border: the stages run with clamp, and only the output pixels whose whole\n"
                            " * %ux%u window lies inside the image are written. */\n", spec->mask_width, spec->mask_height);
    const int folds = status == CLS_OK && cls_staged_folds_combine(&staged);
    for (unsigned k = 0; status == CLS_OK && k < staged.count; ++k) {
        const cls_spec stage = cls_staged_stage_spec(spec, &staged, k);
        const cls_stage_kind kind = staged.stages[k].kind;
        const int body = cls_stage_runs_body(&staged.stages[k]), last = k + 1 == staged.count;
        char *text = NULL;
        cls_van_herk_launch launch = cls_van_herk_plan(&stage, form);
        if (folds && last) launch.combine = staged.combine, launch.source_type = spec->input_type;
        if (body) status = cls_generate_source(&stage, simd_width, &text);
        else if (!(text = cls_van_herk_source(&stage, kind == CLS_STAGE_MAXIMUM, &launch)))
            status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
        if (status != CLS_OK) break;
        char over[48];
        if (k) snprintf(over, sizeof over, "stage %u's f32 image", k);
        else snprintf(over, sizeof over, "the input");
        strbuf_printf(&out, "%s/* ---- Stage %u of %u: a %ux%u window over %s, into %s%s%s. */\n", k ? "\n" : "", k + 1,
                      staged.count, stage.mask_width, stage.mask_height, over,
                      last && (!staged.combine || folds) ? "the output" : "an f32 image",
                      kind == CLS_STAGE_BODY ? "" : kind == CLS_STAGE_MINIMUM ? ": its minimum" : ": its maximum",
                      !folds || !last                                     ? ""
                      : staged.combine == CLS_COMBINE_INPUT_MINUS_RESULT ? ", the input minus it"
                                                                         : ", it minus the input");
        strbuf_append(&out, text);
        if (body) cls_free(text);
        else free(text);
    }
    if (status == CLS_OK && staged.combine && !folds) {
        char *text = cls_combine_source(staged.combine, spec->input_type, spec->output_type, cls_combine_lanes(form));
        strbuf_printf(&out, "\n/* ---- The combination: the %s, into the output. */\n",
                      staged.combine == CLS_COMBINE_INPUT_MINUS_RESULT ? "input minus the result" : "result minus the input");
        strbuf_append(&out, text ? text : "");
        if (!text) out.failed = 1;
        free(text);
    }
    cls_staged_body_free(&staged);
    if (status != CLS_OK) {
        strbuf_free(&out);
        return status;
    }
    *source = strbuf_take(&out);
    return *source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
}
