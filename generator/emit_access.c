/* emit_access.c — the accessors: how a tap reads its pixel from the global buffer, the image or
 * the local tile, with the region's border checks (the index functions themselves come from
 * cl-templates/border-*.cl). In constant mode a checked tap loads a clamped pixel and select()s
 * the border value when the index was outside. */
#include "emit.h"

#include <stdio.h>

/* Constant mode by select() in the code, not by the image sampler. */
int software_constant_on(const emitter *e, cls_axis axis)
{
    return cls_spec_border_on(&e->config->spec, axis) == CLS_BORDER_CONSTANT && !cls_kernel_hardware_border(e->config);
}

int software_constant(const emitter *e)
{
    return software_constant_on(e, CLS_AXIS_X) || software_constant_on(e, CLS_AXIS_Y);
}

/* The work-item's own pixel lies inside the image (its region's bounds and guards say so), and a
 * region off a side keeps the window inside that side: a tap before the pixel can cross only the
 * low side, a tap after it only the high side, as far as `check` (which coarsening may have
 * widened) covers. A region that touches both sides (the fallback) keeps its check. */
static axis_check tap_check(axis_check side, axis_check check, int offset)
{
    switch (side) {
    case CHECK_LO: return offset < 0 ? check : CHECK_NONE;
    case CHECK_HI: return offset > 0 ? check : CHECK_NONE;
    default: return check;
    }
}

access access_at_column(const access *a, int offset)
{
    access tap = *a;
    tap.x = tap_check(a->side_x, a->x, offset);
    return tap;
}

access access_at_row(const access *a, int offset)
{
    access tap = *a;
    tap.y = tap_check(a->side_y, a->y, offset);
    return tap;
}

/* base + offset as text. */
static void coordinate(char *text, size_t size, const char *base, const char *offset)
{
    snprintf(text, size, "%s%s", base, offset);
}

static int row_checked(const emitter *e, const access *a)
{
    return software_constant_on(e, CLS_AXIS_Y) && a->kind != ACCESS_TILE && a->y != CHECK_NONE;
}

static int column_checked(const emitter *e, const access *a)
{
    return software_constant_on(e, CLS_AXIS_X) && a->kind != ACCESS_TILE && a->x != CHECK_NONE;
}

/* The image read of (column, row), as a float. */
static void append_image_read(emitter *e, const char *column, const char *row)
{
    const cls_pixel_type type = e->config->spec.input_type;
    if (type == CLS_PIXEL_F32 || type == CLS_PIXEL_F16)
        strbuf_printf(e->out, "read_imagef(input, sampler, (int2)(%s, %s)).x", column, row);
    else if (e->config->spec.input_type == CLS_PIXEL_I16)
        strbuf_printf(e->out, "(float)read_imagei(input, sampler, (int2)(%s, %s)).x", column, row);
    else
        strbuf_printf(e->out, "(float)read_imageui(input, sampler, (int2)(%s, %s)).x", column, row);
}

void access_row(emitter *e, const access *a, int indent, const char *row, const char *dy)
{
    strbuf *out = e->out;
    char yy[96];
    coordinate(yy, sizeof yy, a->base_y, dy);
    if (row_checked(e, a)) {
        indent_line(out, indent);
        strbuf_printf(out, "const int %s_inside = ", row);
        append_inside(e, out, a->y, yy, CLS_AXIS_Y);
        strbuf_append(out, ";\n");
    }
    indent_line(out, indent);
    switch (a->kind) {
    case ACCESS_TILE:
        strbuf_printf(out, "__local const float *%s = tile[%s];\n", row, yy);
        return;
    case ACCESS_IMAGE:
        strbuf_printf(out, "const int %s = ", row);
        append_index(e, out, a->y, yy, CLS_AXIS_Y);
        strbuf_append(out, ";\n");
        return;
    case ACCESS_GLOBAL:
        strbuf_printf(out, "const long %s = (long)", row);
        if (a->y == CHECK_NONE) strbuf_printf(out, "(%s)", yy);
        else append_index(e, out, a->y, yy, CLS_AXIS_Y);
        strbuf_append(out, " * input_pitch;\n");
        return;
    }
}

/* select(border_value, value, inside) around `value` when constant mode checks this tap; in double,
 * select((double)border_value, value, (long)(inside)), the types OpenCL's select takes for double. */
static void open_select(emitter *e, const access *a)
{
    if (!row_checked(e, a) && !column_checked(e, a)) return;
    strbuf_append(e->out, cls_spec_in_double(&e->config->spec) ? "select((double)border_value, " : "select(border_value, ");
}

static void close_select(emitter *e, const access *a, const char *row_inside, const char *xx, const char *yy)
{
    const int rows = row_checked(e, a), columns = column_checked(e, a);
    if (!rows && !columns) return;
    const int in_double = cls_spec_in_double(&e->config->spec);
    strbuf_append(e->out, in_double ? ", (long)(" : ", ");
    if (rows && row_inside) strbuf_append(e->out, row_inside);
    else if (rows) append_inside(e, e->out, a->y, yy, CLS_AXIS_Y);
    if (rows && columns) strbuf_append(e->out, " && ");
    if (columns) append_inside(e, e->out, a->x, xx, CLS_AXIS_X);
    strbuf_append(e->out, in_double ? "))" : ")");
}

void access_load(emitter *e, const access *a, const char *row, const char *dx)
{
    strbuf *out = e->out;
    char xx[96], row_inside[64];
    coordinate(xx, sizeof xx, a->base_x, dx);
    snprintf(row_inside, sizeof row_inside, "%s_inside", row);
    if (a->kind == ACCESS_TILE) {
        strbuf_printf(out, "%s[%s]", row, xx);
        return;
    }
    open_select(e, a);
    strbuf text;
    strbuf_init(&text);
    append_index(e, &text, a->x, xx, CLS_AXIS_X);
    if (a->kind == ACCESS_IMAGE) {
        append_image_read(e, strbuf_text(&text), row);
    } else {
        char index[256], load[320];
        snprintf(index, sizeof index, "%s + %s", row, strbuf_text(&text));
        emit_format_load_as(load, sizeof load, e->config->spec.input_type, emit_value_type(e->config), "input",
                            index);
        strbuf_append(out, load);
    }
    strbuf_free(&text);
    close_select(e, a, row_inside, xx, NULL);
}

void access_pixel(emitter *e, const access *a, const char *dx, const char *dy)
{
    strbuf *out = e->out;
    char xx[96], yy[96];
    coordinate(xx, sizeof xx, a->base_x, dx);
    coordinate(yy, sizeof yy, a->base_y, dy);
    if (a->kind == ACCESS_TILE) {
        strbuf_printf(out, "tile[%s][%s]", yy, xx);
        return;
    }
    open_select(e, a);
    strbuf column, row;
    strbuf_init(&column);
    strbuf_init(&row);
    append_index(e, &column, a->x, xx, CLS_AXIS_X);
    append_index(e, &row, a->y, yy, CLS_AXIS_Y);
    if (a->kind == ACCESS_IMAGE) {
        append_image_read(e, strbuf_text(&column), strbuf_text(&row));
    } else {
        char index[512], load[600];
        snprintf(index, sizeof index, "(long)(%s) * input_pitch + %s", strbuf_text(&row), strbuf_text(&column));
        emit_format_load_as(load, sizeof load, e->config->spec.input_type, emit_value_type(e->config), "input",
                            index);
        strbuf_append(out, load);
    }
    strbuf_free(&column);
    strbuf_free(&row);
    close_select(e, a, NULL, xx, yy);
}
