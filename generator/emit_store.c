/* emit_store.c — the stores of a work-item's sums: an output row of its block (a row of 2 or 4
 * f32 outputs of one mask as one vector store where aligned), and one output pixel of every mask
 * or of the epilogue, converted to the output type; the functions an epilogue may call. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

/* magnitude(a, b): the hypotenuse without calling hypot, which PoCL runs one lane at a time (a 3x3
 * magnitude, 2048x2048, 2 cores: 84 ms through hypot, 6 ms with hypot behind a test of the squares,
 * 4 ms so), its squares kept in float's range by a power of two (exact) where they would overflow
 * (past 1.8e19) or lose their digits (below 2^-50). */
static const char MAGNITUDE_FUNCTION[] =
    "/* The hypotenuse of a and b, as hypot, with plain arithmetic: where the sum of the squares leaves\n"
    " * float's range, of a and b scaled by 2^-66 or 2^66 (exactly), the root scaled back. */\n"
    "float magnitude(float a, float b)\n"
    "{\n"
    "    const float squares = a * a + b * b;\n"
    "    const int fits = squares < INFINITY && squares >= 0x1p-100f;\n"
    "    const float scale = fits ? 1.0f : squares < 1.0f ? 0x1p66f : 0x1p-66f;\n"
    "    const float unscale = fits ? 1.0f : squares < 1.0f ? 0x1p-66f : 0x1p66f;\n"
    "    return unscale * sqrt((a * scale) * (a * scale) + (b * scale) * (b * scale));\n"
    "}\n\n";

void emit_epilogue_functions(emitter *e)
{
    const char *epilogue = e->config->epilogue;
    if (epilogue && strstr(epilogue, "magnitude(")) strbuf_append(e->out, MAGNITUDE_FUNCTION);
}

/* output_k[at] = value, converted to the output type. */
static void emit_store_value(emitter *e, int indent, unsigned output, const char *at, const char *value)
{
    const cls_pixel_type type = e->config->spec.output_type;
    char name[24] = "output";
    if (output) snprintf(name, sizeof name, "output%u", output);
    char store[512];
    emit_format_store(store, sizeof store, type, name, at, value);
    strbuf_line(e->out, indent, "%s", store);
}

/* Output row ROW of the work-item's sums sum[m][K][l], l < COLS. A row of 2 or 4 f32 outputs of
 * one mask goes out as one vector store where all of them lie in the region and their address is
 * the vector's multiple (NVIDIA cannot prove that alignment of a vstore, so the pointer is cast
 * after a test), else one by one: H200, f32 4096^2, clamp, 4 rows x 4 columns a work-item, one
 * by one against the vector: Gaussian 3x3 66-69 against 39-40 us, random 5x5 65-71 against 42-45;
 * 8 rows x 2 columns 41-44 against 40-41 and 48-50 against 47-49. */
void emit_row_store(emitter *e, int indent, const char *k, const char *row, int unroll)
{
    const cls_kernel_config *c = e->config;
    const cls_spec *s = &c->spec;
    strbuf *out = e->out;
    const int vector = (c->cols == 2 || c->cols == 4) && c->masks == 1 && !c->epilogue &&
                       s->output_type == CLS_PIXEL_F32 && !cls_spec_in_double(s);
    if (vector) {
        strbuf_line(out, indent, "__global output_t *row_out = output + (long)(%s) * output_pitch;", row);
        strbuf_line(out, indent, "if (x + COLS <= roi.s2 && ((ulong)(row_out + x) & %u) == 0) {", 4 * c->cols - 1);
        indent_line(out, indent + 1);
        strbuf_printf(out, "*(__global float%u *)(row_out + x) = (float%u)(", c->cols, c->cols);
        for (unsigned l = 0; l < c->cols; ++l) strbuf_printf(out, "%ssum[0][%s][%u]", l ? ", " : "", k, l);
        strbuf_append(out, ");\n");
        strbuf_line(out, indent, "} else {");
        ++indent;
    }
    if (unroll) strbuf_line(out, indent, "#pragma unroll");
    strbuf_line(out, indent, "for (int l = 0; l < COLS && x + l < roi.s2; ++l) {");
    strbuf_line(out, indent + 1, "const long at = (long)(%s) * output_pitch + x + l;", row);
    emit_store_outputs(e, indent + 1, k, "at");
    strbuf_line(out, indent, "}");
    if (vector) strbuf_line(out, indent - 1, "}");
}

void emit_store_outputs(emitter *e, int indent, const char *k, const char *at)
{
    const cls_kernel_config *c = e->config;
    for (unsigned m = 0; m < c->masks; ++m) {
        strbuf sum;
        strbuf_init(&sum);
        emitter inner = {&sum, c, NULL};
        append_sum(&inner, m, k, "l");
        if (c->epilogue) strbuf_line(e->out, indent, "const float r%u = %s;", m, strbuf_text(&sum));
        else emit_store_value(e, indent, m, at, strbuf_text(&sum));
        strbuf_free(&sum);
    }
    if (c->epilogue) {
        strbuf value;
        strbuf_init(&value);
        strbuf_printf(&value, "(%s)", c->epilogue);
        emit_store_value(e, indent, 0, at, strbuf_text(&value));
        strbuf_free(&value);
    }
}
