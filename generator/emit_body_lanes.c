/* emit_body_lanes.c — the kernel around an operator body in lanes (cls_kernel_body_lanes): each
 * work-item computes COLS adjacent outputs of ROWS rows as vectors, sum[k] for row y + k. Where
 * every window of the work-item lies inside the image it calls the body's copy that reads whole
 * vectors and checks nothing, else the copy that borders each lane (emit_body.c); ISP's regions
 * are not needed for that, so the launch's group bounds only order the groups. Each row's vector
 * is stored whole where its lanes lie in the region computed, else lane by lane. PoCL 3.1 packs a
 * rank network's exchanges into vectors inside one work-item and then leaves its loop over the
 * work-items scalar: the lanes are written here instead. */
#include "emit.h"

static void emit_stores(emitter *e)
{
    const cls_spec *s = &e->config->spec;
    strbuf *out = e->out;
    char vector[160], lane[160];
    emit_format_vector_store(vector, sizeof vector, s->output_type, e->config->cols, "sum[k]", "line");
    emit_format_store(lane, sizeof lane, s->output_type, "line", "l", "values[l]");
    strbuf_line(out, 1, "for (int k = 0; k < ROWS && y + k < roi.s3; ++k) {");
    strbuf_line(out, 2, "__global output_t *line = output + (long)(y + k) * output_pitch + x;");
    strbuf_line(out, 2, "if (x + COLS <= roi.s2) {");
    strbuf_line(out, 3, "%s", vector);
    strbuf_line(out, 2, "} else { /* the region computed ends inside the vector */");
    strbuf_line(out, 3, "float values[COLS];");
    strbuf_line(out, 3, "vstore%u(sum[k], 0, values);", e->config->cols);
    strbuf_line(out, 3, "for (int l = 0; l < COLS && x + l < roi.s2; ++l) %s", lane);
    strbuf_line(out, 2, "}");
    strbuf_line(out, 1, "}");
}

void emit_body_lanes(emitter *e)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "(void)body_columns; /* one test a work-item instead of ISP's regions */");
    strbuf_line(out, 1, "if (x >= roi.s2 || y >= roi.s3) return; /* outside the region computed (partial group) */");
    strbuf_line(out, 1, "value_t sum[ROWS]; /* sum[k]: the outputs (x .. x + COLS - 1, y + k) */");
    strbuf_line(out, 1, "if (x >= HALF_W && x + COLS - 1 + HALF_W < width && y >= HALF_H && y + ROWS - 1 + HALF_H < height) {");
    strbuf_line(out, 2, "/* every window of the work-item lies inside the image: no checks */");
    const access inside = {ACCESS_GLOBAL, CHECK_NONE, CHECK_NONE, "x", "y", CHECK_NONE, CHECK_NONE};
    emit_body_call(e, 2, &inside);
    strbuf_line(out, 1, "} else {");
    strbuf_line(out, 2, "/* a window reaches past a side: every lane checks every side */");
    const access bordered = {ACCESS_GLOBAL, CHECK_BOTH, CHECK_BOTH, "x", "y", CHECK_BOTH, CHECK_BOTH};
    emit_body_call(e, 2, &bordered);
    strbuf_line(out, 1, "}");
    emit_stores(e);
}
