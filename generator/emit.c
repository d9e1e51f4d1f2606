/* emit.c — writes the OpenCL C source of one kernel configuration.
 *
 * The kernel (CLS_KERNEL_NAME) takes, in this order (offsets and pitches in elements):
 *   input, input_offset, input_pitch, output, output_offset, output_pitch, width, height,
 *   roi (int4: x0, y0, x1, y1, the output pixels computed), mask (__constant float*, unused
 *   when baked), border_value, group_bounds (int4: BH_L, BH_R, BH_T, BH_B) and
 *   body_columns (int2: [hx, width - hx)).
 * Every work-group picks its region from its group id against group_bounds; each region holds
 * only the border checks of the sides it touches (the border functions come from the mode's
 * cl-templates/border-*.cl, the one place of the index arithmetic). */
#include "generator.h"

#include "strbuf.h"

#include <stdio.h>
#include <string.h>

/* Which sides of one axis a region's code checks. */
typedef enum axis_check { CHECK_NONE, CHECK_LO, CHECK_HI, CHECK_BOTH } axis_check;

typedef struct region_code {
    const char *condition; /* C condition on at_left/at_right/at_top/at_bottom; NULL = else */
    const char *label;
    const char *sides;     /* the sides it checks, for the comment */
    axis_check x, y;
} region_code;

/* Order matters: the fallback first, then Listing 3 of the ISP paper. */
static const region_code isp_regions[] = {
    {"(at_left && at_right) || (at_top && at_bottom)", "Fallback", "every side, any distance",
     CHECK_BOTH, CHECK_BOTH},
    {"at_top && at_left", "TL", "left and top", CHECK_LO, CHECK_LO},
    {"at_top && at_right", "TR", "right and top", CHECK_HI, CHECK_LO},
    {"at_top", "T", "top", CHECK_NONE, CHECK_LO},
    {"at_bottom && at_left", "BL", "left and bottom", CHECK_LO, CHECK_HI},
    {"at_bottom && at_right", "BR", "right and bottom", CHECK_HI, CHECK_HI},
    {"at_bottom", "B", "bottom", CHECK_NONE, CHECK_HI},
    {"at_left", "L", "left", CHECK_LO, CHECK_NONE},
    {"at_right", "R", "right", CHECK_HI, CHECK_NONE},
    {NULL, "Body", "no side", CHECK_NONE, CHECK_NONE},
};

static const char *c_type(cls_pixel_type type)
{
    switch (type) {
    case CLS_PIXEL_U8: return "uchar";
    case CLS_PIXEL_U16: return "ushort";
    case CLS_PIXEL_F32: return "float";
    }
    return "float";
}

/* A float literal that reads back as exactly the same float. */
static void append_float(strbuf *out, float value)
{
    char text[48];
    snprintf(text, sizeof text, "%.9g", (double)value);
    strbuf_append(out, text);
    if (!strpbrk(text, ".e")) strbuf_append(out, ".0");
    strbuf_append(out, "f");
}

/* "x", "x + 2" or "x - 2". */
static void format_offset(char *text, size_t size, const char *base, int offset)
{
    if (offset == 0) snprintf(text, size, "%s", base);
    else snprintf(text, size, "%s %c %d", base, offset < 0 ? '-' : '+', offset < 0 ? -offset : offset);
}

/* The in-range index for `index` on an axis of length `length` under a region's check. */
static void append_index(strbuf *out, axis_check check, const char *index, const char *length)
{
    switch (check) {
    case CHECK_NONE: strbuf_append(out, index); break;
    case CHECK_LO: strbuf_printf(out, "border_lo(%s, %s)", index, length); break;
    case CHECK_HI: strbuf_printf(out, "border_hi(%s, %s)", index, length); break;
    case CHECK_BOTH: strbuf_printf(out, "border_both(%s, %s)", index, length); break;
    }
}

/* The predicate "index is inside" for constant and undefined modes (check is not CHECK_NONE). */
static void append_inside(strbuf *out, axis_check check, const char *index, const char *length)
{
    static const char *const names[] = {"1", "inside_lo", "inside_hi", "inside_both"};
    strbuf_printf(out, "%s(%s, %s)", names[check], index, length);
}

static void indent_line(strbuf *out, int indent)
{
    for (int k = 0; k < indent; ++k) strbuf_append(out, "    ");
}

typedef struct emitter {
    strbuf *out;
    const cls_kernel_config *config;
} emitter;

/* The pixel at column xx of the current row, read through the region's checks (constant mode:
 * the border value when the row or the column lies outside). */
static void append_load(emitter *e, axis_check x_check, const char *xx, int row_checked)
{
    strbuf *out = e->out;
    const int selected = e->config->spec.border == CLS_BORDER_CONSTANT && (x_check != CHECK_NONE || row_checked);
    if (selected) strbuf_append(out, "select(border_value, ");
    strbuf_append(out, "(float)input[row + ");
    append_index(out, x_check, xx, "width");
    strbuf_append(out, "]");
    if (selected) {
        strbuf_append(out, ", ");
        if (row_checked) strbuf_append(out, x_check != CHECK_NONE ? "row_inside && " : "row_inside");
        if (x_check != CHECK_NONE) append_inside(out, x_check, xx, "width");
        strbuf_append(out, ")");
    }
}

/* One tap: `sum += coefficient * pixel;`. */
static void emit_tap(emitter *e, int indent, const char *coefficient, axis_check x_check,
                     const char *xx, int row_checked)
{
    indent_line(e->out, indent);
    strbuf_printf(e->out, "sum += %s * ", coefficient);
    append_load(e, x_check, xx, row_checked);
    strbuf_append(e->out, ";\n");
}

/* The row set-up of one mask row: `row`, and `row_inside` in constant mode. */
static int emit_row(emitter *e, int indent, axis_check y_check, const char *yy)
{
    strbuf *out = e->out;
    const int row_checked = e->config->spec.border == CLS_BORDER_CONSTANT && y_check != CHECK_NONE;
    if (row_checked) {
        indent_line(out, indent);
        strbuf_append(out, "const int row_inside = ");
        append_inside(out, y_check, yy, "height");
        strbuf_append(out, ";\n");
    }
    indent_line(out, indent);
    strbuf_append(out, "const long row = (long)");
    if (y_check == CHECK_NONE) strbuf_printf(out, "(%s)", yy);
    else append_index(out, y_check, yy, "height");
    strbuf_append(out, " * input_pitch;\n");
    return row_checked;
}

/* The window sum with coefficients read from the __constant mask. */
static void emit_window_loops(emitter *e, int indent, axis_check x_check, axis_check y_check)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "for (int j = 0; j < MASK_H; ++j) {");
    const int row_checked = emit_row(e, indent + 1, y_check, "y + j - HALF_H");
    strbuf_line(out, indent + 1, "for (int i = 0; i < MASK_W; ++i)");
    emit_tap(e, indent + 2, "mask[j * MASK_W + i]", x_check, "x + i - HALF_W", row_checked);
    strbuf_line(out, indent, "}");
}

/* The window sum unrolled with the coefficients as literals; zero taps are skipped. */
static void emit_window_baked(emitter *e, int indent, axis_check x_check, axis_check y_check)
{
    const cls_spec *spec = &e->config->spec;
    const int hx = (int)spec->mask_width / 2, hy = (int)spec->mask_height / 2;
    for (int j = 0; j < (int)spec->mask_height; ++j) {
        const float *coefficients = spec->coefficients + (size_t)j * spec->mask_width;
        int nonzero = 0;
        for (unsigned i = 0; i < spec->mask_width; ++i) nonzero += coefficients[i] != 0.0f;
        if (!nonzero) continue;
        char yy[32], xx[32];
        format_offset(yy, sizeof yy, "y", j - hy);
        strbuf_line(e->out, indent, "{   /* mask row %s */", yy);
        const int row_checked = emit_row(e, indent + 1, y_check, yy);
        for (int i = 0; i < (int)spec->mask_width; ++i) {
            if (coefficients[i] == 0.0f) continue;
            strbuf literal;
            strbuf_init(&literal);
            append_float(&literal, coefficients[i]);
            format_offset(xx, sizeof xx, "x", i - hx);
            emit_tap(e, indent + 1, strbuf_text(&literal), x_check, xx, row_checked);
            strbuf_free(&literal);
        }
        strbuf_line(e->out, indent, "}");
    }
}

/* Coarsening, loops: input row r feeds output rows k with mask row r - k; each pixel is loaded
 * once and used by every output row it reaches. */
static void emit_rows_loops(emitter *e, int indent, axis_check x_check, axis_check y_check)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "for (int r = 0; r < MASK_H + ROWS - 1; ++r) {");
    const int row_checked = emit_row(e, indent + 1, y_check, "y + r - HALF_H");
    strbuf_line(out, indent + 1, "for (int i = 0; i < MASK_W; ++i) {");
    indent_line(out, indent + 2);
    strbuf_append(out, "const float v = ");
    append_load(e, x_check, "x + i - HALF_W", row_checked);
    strbuf_append(out, ";\n");
    strbuf_line(out, indent + 2, "for (int k = 0; k < ROWS; ++k)");
    strbuf_line(out, indent + 3, "if (r - k >= 0 && r - k < MASK_H) sum[k] += mask[(r - k) * MASK_W + i] * v;");
    strbuf_line(out, indent + 1, "}");
    strbuf_line(out, indent, "}");
}

/* Coarsening, baked: the same, unrolled, with literals and without zero taps. */
static void emit_rows_baked(emitter *e, int indent, axis_check x_check, axis_check y_check)
{
    const cls_spec *spec = &e->config->spec;
    const int w = (int)spec->mask_width, h = (int)spec->mask_height, rows = (int)e->config->rows;
    for (int r = 0; r < h + rows - 1; ++r) {
        int taps = 0;
        for (int k = 0; k < rows; ++k)
            for (int i = 0; i < w && r - k >= 0 && r - k < h; ++i) taps += spec->coefficients[(r - k) * w + i] != 0.0f;
        if (!taps) continue;
        char yy[32], xx[32];
        format_offset(yy, sizeof yy, "y", r - h / 2);
        strbuf_line(e->out, indent, "{   /* input row %s */", yy);
        const int row_checked = emit_row(e, indent + 1, y_check, yy);
        for (int i = 0; i < w; ++i) {
            int uses = 0;
            for (int k = 0; k < rows; ++k) uses += r - k >= 0 && r - k < h && spec->coefficients[(r - k) * w + i] != 0.0f;
            if (!uses) continue;
            format_offset(xx, sizeof xx, "x", i - w / 2);
            indent_line(e->out, indent + 1);
            strbuf_append(e->out, "{ const float v = ");
            append_load(e, x_check, xx, row_checked);
            strbuf_append(e->out, ";");
            for (int k = 0; k < rows; ++k) {
                if (r - k < 0 || r - k >= h || spec->coefficients[(r - k) * w + i] == 0.0f) continue;
                strbuf_printf(e->out, " sum[%d] += ", k);
                append_float(e->out, spec->coefficients[(r - k) * w + i]);
                strbuf_append(e->out, " * v;");
            }
            strbuf_append(e->out, " }\n");
        }
        strbuf_line(e->out, indent, "}");
    }
}

/* The number of the line that text appended next starts. */
static unsigned next_line(const strbuf *out)
{
    unsigned lines = 1;
    for (const char *p = strbuf_text(out); *p; ++p) lines += *p == '\n';
    return lines;
}

/* A user-written body, with IN(dx, dy) reading through the region's checks; `#line` makes
 * compiler messages point at the body's own lines. */
static void emit_window_user(emitter *e, axis_check x_check, axis_check y_check)
{
    strbuf *out = e->out;
    const int constant = e->config->spec.border == CLS_BORDER_CONSTANT;
    const int selected = constant && (x_check != CHECK_NONE || y_check != CHECK_NONE);
    strbuf_append(out, "#define IN(dx, dy) ");
    if (selected) strbuf_append(out, "select(border_value, ");
    strbuf_append(out, "(float)input[(long)");
    append_index(out, y_check, "(y + (dy))", "height");
    strbuf_append(out, " * input_pitch + ");
    append_index(out, x_check, "(x + (dx))", "width");
    strbuf_append(out, "]");
    if (selected) {
        strbuf_append(out, ", ");
        if (y_check != CHECK_NONE) append_inside(out, y_check, "(y + (dy))", "height");
        if (x_check != CHECK_NONE && y_check != CHECK_NONE) strbuf_append(out, " && ");
        if (x_check != CHECK_NONE) append_inside(out, x_check, "(x + (dx))", "width");
        strbuf_append(out, ")");
    }
    strbuf_append(out, "\n#line 1 \"operator\"\n");
    strbuf_append(out, e->config->spec.body);
    strbuf_append(out, "\n");
    strbuf_printf(out, "#line %u \"clstencil\"\n#undef IN\n", next_line(out) + 1);
}

/* The code of one region: guards, then the window sum into `sum`. */
static void emit_region_body(emitter *e, int indent, axis_check x_check, axis_check y_check)
{
    strbuf *out = e->out;
    const int guard_x = x_check == CHECK_HI || x_check == CHECK_BOTH;
    const int guard_y = y_check == CHECK_HI || y_check == CHECK_BOTH;
    if (guard_x || guard_y)
        strbuf_line(out, indent, "if (%s%s%s) return; /* outside the region computed (partial group) */",
                    guard_x ? "x >= roi.s2" : "", guard_x && guard_y ? " || " : "",
                    guard_y ? "y >= roi.s3" : "");
    if (e->config->spec.border == CLS_BORDER_UNDEFINED && (x_check || y_check)) {
        /* Undefined border: pixels whose window leaves the image are not written. */
        strbuf_line(out, indent, "/* The window must lie inside the image; else the pixel is left as it is. */");
        const struct { axis_check check, skip; const char *index, *length; } sides[] = {
            {x_check, CHECK_HI, "x - HALF_W", "width"}, {x_check, CHECK_LO, "x + HALF_W", "width"},
            {y_check, CHECK_HI, "y - HALF_H", "height"}, {y_check, CHECK_LO, "y + HALF_H", "height"}};
        indent_line(out, indent);
        strbuf_append(out, "if (!(");
        int terms = 0;
        for (size_t k = 0; k < sizeof sides / sizeof sides[0]; ++k) {
            if (sides[k].check == CHECK_NONE || sides[k].check == sides[k].skip) continue;
            if (terms++) strbuf_append(out, " && ");
            append_inside(out, sides[k].check, sides[k].index, sides[k].length);
        }
        strbuf_append(out, ")) return;\n");
        x_check = y_check = CHECK_NONE;
    }
    /* With several rows per item, the rows past the last output row may reach further below the
     * image than one fold covers (their sums are discarded): bottom regions fold fully. */
    if (e->config->rows > 1 && y_check == CHECK_HI) y_check = CHECK_BOTH;
    if (e->config->spec.body) emit_window_user(e, x_check, y_check);
    else if (e->config->rows > 1 && e->config->spec.bake_coefficients) emit_rows_baked(e, indent, x_check, y_check);
    else if (e->config->rows > 1) emit_rows_loops(e, indent, x_check, y_check);
    else if (e->config->spec.bake_coefficients) emit_window_baked(e, indent, x_check, y_check);
    else emit_window_loops(e, indent, x_check, y_check);
}

/* What a user-written body may use besides IN: the mask, a window loop and OUT. */
static void emit_body_helpers(emitter *e)
{
    const cls_spec *s = &e->config->spec;
    strbuf *out = e->out;
    if (s->bake_coefficients) { /* literals the compiler folds once FOR_WINDOW is unrolled */
        strbuf_append(out, "__constant float baked_mask[MASK_W * MASK_H] = {");
        for (unsigned k = 0; k < s->mask_width * s->mask_height; ++k) {
            strbuf_append(out, k % 8 ? " " : "\n    ");
            append_float(out, s->coefficients[k]);
            strbuf_append(out, ",");
        }
        strbuf_append(out, "\n};\n#define MASK(dx, dy) baked_mask[((dy) + HALF_H) * MASK_W + (dx) + HALF_W]\n");
    } else {
        strbuf_append(out, "#define MASK(dx, dy) mask[((dy) + HALF_H) * MASK_W + (dx) + HALF_W]\n");
    }
    strbuf_append(out, "#define FOR_WINDOW(dx, dy) \\\n"
                       "    for (int dy = -HALF_H; dy <= HALF_H; ++dy) \\\n"
                       "        for (int dx = -HALF_W; dx <= HALF_W; ++dx)\n"
                       "#define OUT sum\n\n");
}

static void emit_header(emitter *e)
{
    const cls_kernel_config *c = e->config;
    const cls_spec *s = &c->spec;
    strbuf *out = e->out;
    char simd_note[32] = "";
    if (c->partition == CLS_PARTITION_ISP_WARP)
        snprintf(simd_note, sizeof simd_note, ", SIMD width %u", c->simd_width);
    strbuf_printf(out,
                  "#line 1 \"clstencil\"\n"
                  "/* Generated by clstencil %s: do not edit.\n"
                  " * %s %ux%u, coefficients %s, border %s, partition %s,\n"
                  " * work-group %ux%u%s, %s -> %s (accumulated in float). */\n\n",
                  CLS_VERSION_STRING, s->body ? "User-written operator" : "Local operator", s->mask_width,
                  s->mask_height,
                  s->bake_coefficients ? "baked as literals" : "from a __constant buffer",
                  cls_border_name(s->border), cls_partition_name(c->partition), c->group_width,
                  c->group_height, simd_note,
                  cls_pixel_type_name(s->input_type), cls_pixel_type_name(s->output_type));
    char template_name[64];
    snprintf(template_name, sizeof template_name, "border-%s.cl", cls_border_name(s->border));
    strbuf_append(out, cls_template(template_name));
    strbuf_printf(out,
                  "\n#define MASK_W %u\n#define MASK_H %u\n#define HALF_W %u\n#define HALF_H %u\n"
                  "#define GROUP_W %u\n#define GROUP_H %u\n",
                  s->mask_width, s->mask_height, s->mask_width / 2, s->mask_height / 2,
                  c->group_width, c->group_height);
    if (c->partition == CLS_PARTITION_ISP_WARP) strbuf_printf(out, "#define SIMD_WIDTH %u\n", c->simd_width);
    if (c->rows > 1) strbuf_printf(out, "#define ROWS %u /* output rows per work-item */\n", c->rows);
    strbuf_printf(out, "typedef %s input_t;\ntypedef %s output_t;\n\n", c_type(s->input_type),
                  c_type(s->output_type));
    if (s->body) emit_body_helpers(e);
}

static void emit_signature(emitter *e)
{
    strbuf *out = e->out;
    strbuf_append(out,
                  "__kernel __attribute__((reqd_work_group_size(GROUP_W, GROUP_H, 1)))\n"
                  "void " CLS_KERNEL_NAME "(__global const input_t *restrict input, const int input_offset,\n"
                  "                      const int input_pitch, __global output_t *restrict output,\n"
                  "                      const int output_offset, const int output_pitch,\n"
                  "                      const int width, const int height, const int4 roi,\n"
                  "                      __constant float *restrict mask, const float border_value,\n"
                  "                      const int4 group_bounds, const int2 body_columns)\n"
                  "{\n");
    strbuf_line(out, 1, "const int x = roi.s0 + get_global_id(0);");
    if (e->config->rows > 1)
        strbuf_line(out, 1, "const int y = roi.s1 + get_global_id(1) * ROWS; /* the first of ROWS output rows */");
    else
        strbuf_line(out, 1, "const int y = roi.s1 + get_global_id(1);");
    strbuf_line(out, 1, "input += input_offset;");
    strbuf_line(out, 1, "output += output_offset;");
    if (e->config->spec.body) strbuf_line(out, 1, "(void)mask; /* the operator may not use it */");
    else if (e->config->spec.bake_coefficients) strbuf_line(out, 1, "(void)mask; /* coefficients are baked */");
    if (e->config->spec.border != CLS_BORDER_CONSTANT) strbuf_line(out, 1, "(void)border_value;");
}

/* ISP Listing 5, generalized: a warp (SIMD_WIDTH consecutive work-items in row-major order)
 * whose columns all lie in the body columns, and inside the region computed, needs no x check
 * (and no guard), even in a left or right group. */
static void emit_warp_refinement(emitter *e)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "/* Warp-grained refinement (ISP Listing 5): a warp whose columns all lie inside the");
    strbuf_line(out, 1, " * body columns needs no x check, even in a left or right work-group. */");
    strbuf_line(out, 1, "if (at_left || at_right) {");
    strbuf_line(out, 2, "const int item = get_local_id(1) * GROUP_W + get_local_id(0);");
    strbuf_line(out, 2, "const int first = item / SIMD_WIDTH * SIMD_WIDTH;");
    strbuf_line(out, 2, "const int last = min(first + SIMD_WIDTH, GROUP_W * GROUP_H) - 1;");
    strbuf_line(out, 2, "const int one_row = first / GROUP_W == last / GROUP_W;");
    strbuf_line(out, 2, "const int x0 = roi.s0 + get_group_id(0) * GROUP_W + (one_row ? first %% GROUP_W : 0);");
    strbuf_line(out, 2, "const int x1 = roi.s0 + get_group_id(0) * GROUP_W + (one_row ? last %% GROUP_W : GROUP_W - 1);");
    strbuf_line(out, 2, "if (x0 >= body_columns.s0 && x1 < min(body_columns.s1, roi.s2)) at_left = at_right = 0;");
    strbuf_line(out, 1, "}");
}

static void emit_store(emitter *e)
{
    const cls_pixel_type type = e->config->spec.output_type;
    char value[64];
    const char *sum = e->config->rows > 1 ? "sum[k]" : "sum";
    if (type == CLS_PIXEL_F32) snprintf(value, sizeof value, "%s", sum);
    else snprintf(value, sizeof value, "convert_%s_sat_rte(%s)", c_type(type), sum);
    if (e->config->rows > 1) {
        strbuf_line(e->out, 1, "for (int k = 0; k < ROWS && y + k < roi.s3; ++k)");
        strbuf_line(e->out, 2, "output[(long)(y + k) * output_pitch + x] = %s;", value);
    } else {
        strbuf_line(e->out, 1, "output[(long)y * output_pitch + x] = %s;", value);
    }
}

char *cls_emit_source(const cls_kernel_config *config)
{
    strbuf out;
    strbuf_init(&out);
    emitter e = {&out, config};
    emit_header(&e);
    emit_signature(&e);
    if (config->rows > 1) strbuf_line(&out, 1, "float sum[ROWS] = {0.0f};");
    else strbuf_line(&out, 1, "float sum = 0.0f;");
    if (config->partition == CLS_PARTITION_NAIVE) {
        strbuf_line(&out, 1, "(void)group_bounds; (void)body_columns;");
        strbuf_line(&out, 1, "/* Naive: every tap checks every side. */");
        emit_region_body(&e, 1, CHECK_BOTH, CHECK_BOTH);
    } else {
        strbuf_line(&out, 1, "int at_left = (int)get_group_id(0) < group_bounds.s0;");
        strbuf_line(&out, 1, "int at_right = (int)get_group_id(0) >= group_bounds.s1;");
        strbuf_line(&out, 1, "const int at_top = (int)get_group_id(1) < group_bounds.s2;");
        strbuf_line(&out, 1, "const int at_bottom = (int)get_group_id(1) >= group_bounds.s3;");
        if (config->partition == CLS_PARTITION_ISP_WARP) emit_warp_refinement(&e);
        else strbuf_line(&out, 1, "(void)body_columns;");
        const size_t count = sizeof isp_regions / sizeof isp_regions[0];
        for (size_t r = 0; r < count; ++r) {
            const region_code *region = &isp_regions[r];
            if (region->condition)
                strbuf_line(&out, 1, "%sif (%s) {", r ? "} else " : "", region->condition);
            else strbuf_line(&out, 1, "} else {");
            strbuf_line(&out, 2, "/* Region %s: checks %s. */", region->label, region->sides);
            emit_region_body(&e, 2, region->x, region->y);
        }
        strbuf_line(&out, 1, "}");
    }
    emit_store(&e);
    strbuf_append(&out, "}\n");
    return strbuf_take(&out);
}
