/* spec.c — the local-operator spec's fields: defaults, reading a caller's struct, names and
 * aliases, pixel sizes (validation is spec_validate.c). */
#include "generator.h"

#include "error.h"
#include "strbuf.h"
#include "struct_size.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The defaults of every field, in the library's layout. */
static void fill_defaults(cls_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->struct_size = sizeof *spec;
    spec->mask_width = 3;
    spec->mask_height = 3;
    spec->border = CLS_BORDER_CLAMP;
    spec->border_y = spec->border_z = CLS_BORDER_SAME;
    spec->partition = CLS_PARTITION_AUTO;
    spec->input_type = CLS_PIXEL_F32;
    spec->output_type = CLS_PIXEL_F32;
}

void cls_spec_init_sized(cls_spec *spec, size_t size)
{
    if (!spec || size < sizeof spec->struct_size) return;
    cls_spec defaults;
    fill_defaults(&defaults);
    const size_t known = size < sizeof defaults ? size : sizeof defaults;
    memcpy(spec, &defaults, known);
    if (size > known) memset((char *)spec + known, 0, size - known); /* fields of a newer header */
    spec->struct_size = size;
}

/* The function behind the macro of the same name: callers of the first header's ABI. */
void(cls_spec_init)(cls_spec *spec) { cls_spec_init_sized(spec, CLS_SPEC_FIRST_SIZE); }

cls_status cls_spec_read(const cls_spec *spec, cls_spec *copy)
{
    if (!spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "spec is NULL");
    cls_spec defaults;
    cls_spec_init(&defaults);
    const cls_status status = cls_struct_read(&cls_spec_layout, spec, &defaults);
    if (status == CLS_OK) *copy = defaults;
    return status;
}

typedef struct name_entry {
    const char *name;
    int value;
} name_entry;

/* The first entry of each value is its canonical name; later ones are aliases. */
static const name_entry border_names[] = {
    {"undefined", CLS_BORDER_UNDEFINED}, {"clamp", CLS_BORDER_CLAMP},
    {"replicate", CLS_BORDER_CLAMP},     {"nearest", CLS_BORDER_CLAMP},
    {"edge", CLS_BORDER_CLAMP},          {"mirror", CLS_BORDER_MIRROR},
    {"reflect", CLS_BORDER_MIRROR},      {"symmetric", CLS_BORDER_MIRROR},
    {"mirror101", CLS_BORDER_MIRROR101}, {"reflect101", CLS_BORDER_MIRROR101},
    {"reflect_101", CLS_BORDER_MIRROR101}, {"repeat", CLS_BORDER_REPEAT},
    {"wrap", CLS_BORDER_REPEAT},         {"periodic", CLS_BORDER_REPEAT},
    {"constant", CLS_BORDER_CONSTANT},
};
/* Printed for CLS_BORDER_SAME, never parsed: a caller names the mode it means. */
static const name_entry same_border_name[] = {{"same", CLS_BORDER_SAME}};
static const name_entry partition_names[] = {
    {"auto", CLS_PARTITION_AUTO},
    {"naive", CLS_PARTITION_NAIVE},
    {"isp-block", CLS_PARTITION_ISP_BLOCK},
    {"isp-warp", CLS_PARTITION_ISP_WARP},
};
static const name_entry input_path_names[] = {
    {"auto", CLS_INPUT_AUTO}, {"global", CLS_INPUT_GLOBAL}, {"local", CLS_INPUT_LOCAL}, {"image", CLS_INPUT_IMAGE}};
static const name_entry separable_names[] = {
    {"auto", CLS_SEPARABLE_AUTO}, {"none", CLS_SEPARABLE_NONE}, {"single-pass", CLS_SEPARABLE_SINGLE_PASS},
    {"two-pass", CLS_SEPARABLE_TWO_PASS}, {"low-rank", CLS_SEPARABLE_LOW_RANK}};
static const name_entry method_names[] = {
    {"auto", CLS_METHOD_AUTO}, {"direct", CLS_METHOD_DIRECT}, {"fft", CLS_METHOD_FFT}};
static const name_entry pixel_names[] = {
    {"f32", CLS_PIXEL_F32}, {"u8", CLS_PIXEL_U8}, {"u16", CLS_PIXEL_U16}, {"i16", CLS_PIXEL_I16}, {"f16", CLS_PIXEL_F16},
    {"f64", CLS_PIXEL_F64}};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const char *name_of(const name_entry *table, size_t count, int value)
{
    for (size_t i = 0; i < count; ++i)
        if (table[i].value == value) return table[i].name;
    return "invalid";
}

static cls_status parse_name(const name_entry *table, size_t count, const char *what,
                             const char *name, int *value)
{
    if (name)
        for (size_t i = 0; i < count; ++i)
            if (strcasecmp(table[i].name, name) == 0) {
                *value = table[i].value;
                return CLS_OK;
            }
    strbuf choices;
    strbuf_init(&choices);
    for (size_t i = 0; i < count; ++i) strbuf_printf(&choices, "%s%s", i ? ", " : "", table[i].name);
    cls_status status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "unknown %s '%s' (expected one of: %s)",
                                 what, name ? name : "(null)", strbuf_text(&choices));
    strbuf_free(&choices);
    return status;
}

cls_status cls_border_parse(const char *name, cls_border *out)
{
    int value = 0;
    cls_status status = parse_name(border_names, COUNT(border_names), "border mode", name, &value);
    if (status == CLS_OK) *out = (cls_border)value;
    return status;
}

const char *cls_border_name(cls_border border)
{
    if (border == CLS_BORDER_SAME) return same_border_name[0].name;
    return name_of(border_names, COUNT(border_names), border);
}

cls_status cls_border_parse_axes(const char *text, cls_border axes[3])
{
    if (!text || !axes) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "border text or axes is NULL");
    axes[0] = CLS_BORDER_CLAMP;
    axes[1] = axes[2] = CLS_BORDER_SAME;
    static const char *const axis_names[3] = {"x", "y", "z"};
    const char *at = text;
    for (int axis = 0;; ++axis) {
        const size_t length = strcspn(at, ",");
        if (axis == 3)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "border '%s' names more than three axes (x,y,z)", text);
        char name[32];
        if (length >= sizeof name) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "unknown border mode in '%s'", text);
        memcpy(name, at, length);
        name[length] = '\0';
        const cls_status status = cls_border_parse(name, &axes[axis]);
        if (status != CLS_OK)
            return axis ? cls_fail(status, "border '%s', axis %s: %s", text, axis_names[axis], cls_last_error()) : status;
        if (!at[length]) return CLS_OK;
        at += length + 1;
    }
}

cls_border cls_spec_border_on(const cls_spec *spec, cls_axis axis)
{
    const cls_border own = axis == CLS_AXIS_Y ? spec->border_y : axis == CLS_AXIS_Z ? spec->border_z : spec->border;
    return own == CLS_BORDER_SAME ? spec->border : own;
}

int cls_spec_borders_differ(const cls_spec *spec)
{
    const cls_border x = cls_spec_border_on(spec, CLS_AXIS_X);
    return cls_spec_border_on(spec, CLS_AXIS_Y) != x ||
           (cls_spec_is_volume(spec) && cls_spec_border_on(spec, CLS_AXIS_Z) != x);
}

cls_spec cls_spec_along(const cls_spec *spec, cls_axis axis)
{
    cls_spec pass = *spec;
    pass.border = cls_spec_border_on(spec, axis);
    pass.border_y = pass.border_z = CLS_BORDER_SAME;
    return pass;
}

int cls_spec_border_any(const cls_spec *spec, cls_border border)
{
    for (cls_axis axis = CLS_AXIS_X; axis <= CLS_AXIS_Z; ++axis)
        if ((axis < CLS_AXIS_Z || cls_spec_is_volume(spec)) && cls_spec_border_on(spec, axis) == border) return 1;
    return 0;
}

void cls_border_axes_name(const cls_spec *spec, char *text, size_t size)
{
    if (!text || !size) return;
    if (!spec || !cls_spec_borders_differ(spec)) {
        snprintf(text, size, "%s", spec ? cls_border_name(spec->border) : "invalid");
        return;
    }
    snprintf(text, size, "%s,%s%s%s", cls_border_name(spec->border), cls_border_name(cls_spec_border_on(spec, CLS_AXIS_Y)),
             cls_spec_is_volume(spec) ? "," : "",
             cls_spec_is_volume(spec) ? cls_border_name(cls_spec_border_on(spec, CLS_AXIS_Z)) : "");
}

cls_status cls_partition_parse(const char *name, cls_partition *out)
{
    int value = 0;
    cls_status status = parse_name(partition_names, COUNT(partition_names), "partition", name, &value);
    if (status == CLS_OK) *out = (cls_partition)value;
    return status;
}

const char *cls_partition_name(cls_partition partition)
{
    return name_of(partition_names, COUNT(partition_names), partition);
}

cls_status cls_input_path_parse(const char *name, cls_input_path *out)
{
    int value = 0;
    cls_status status = parse_name(input_path_names, COUNT(input_path_names), "input path", name, &value);
    if (status == CLS_OK) *out = (cls_input_path)value;
    return status;
}

const char *cls_input_path_name(cls_input_path path)
{
    return name_of(input_path_names, COUNT(input_path_names), path);
}

cls_status cls_separable_parse(const char *name, cls_separable *out)
{
    int value = 0;
    cls_status status = parse_name(separable_names, COUNT(separable_names), "separable variant", name, &value);
    if (status == CLS_OK) *out = (cls_separable)value;
    return status;
}

const char *cls_separable_name(cls_separable separable)
{
    return name_of(separable_names, COUNT(separable_names), separable);
}

cls_status cls_method_parse(const char *name, cls_method *out)
{
    int value = 0;
    cls_status status = parse_name(method_names, COUNT(method_names), "method", name, &value);
    if (status == CLS_OK) *out = (cls_method)value;
    return status;
}

const char *cls_method_name(cls_method method) { return name_of(method_names, COUNT(method_names), method); }

cls_status cls_pixel_type_parse(const char *name, cls_pixel_type *out)
{
    int value = 0;
    cls_status status = parse_name(pixel_names, COUNT(pixel_names), "pixel type", name, &value);
    if (status == CLS_OK) *out = (cls_pixel_type)value;
    return status;
}

const char *cls_pixel_type_name(cls_pixel_type type)
{
    return name_of(pixel_names, COUNT(pixel_names), type);
}

size_t cls_pixel_size(cls_pixel_type type)
{
    switch (type) {
    case CLS_PIXEL_U8: return 1;
    case CLS_PIXEL_U16:
    case CLS_PIXEL_I16:
    case CLS_PIXEL_F16: return 2;
    case CLS_PIXEL_F32: return 4;
    case CLS_PIXEL_F64: return 8;
    }
    return 0;
}

unsigned cls_mask_depth(const cls_spec *spec)
{
    return spec->mask_depth ? spec->mask_depth : 1;
}

int cls_spec_in_double(const cls_spec *spec)
{
    return spec->input_type == CLS_PIXEL_F64 || spec->output_type == CLS_PIXEL_F64;
}

int cls_spec_is_volume(const cls_spec *spec)
{
    return spec->mask_depth > 0;
}
