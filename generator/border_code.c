/* border_code.c — a kernel's border functions: the mode's cl-templates/border-*.cl once where
 * every axis has the same mode, else one copy per axis whose functions carry the axis's suffix
 * (border_both_x, inside_both_y, ...), so that each index is folded by its own axis's mode. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

/* The functions a kernel's border code defines and calls, by name. */
static const char *const function_names[] = {"border_lo", "border_hi", "border_both", "border_once",
                                             "border_any", "inside_lo", "inside_hi", "inside_both"};

const char *border_suffix(const cls_spec *spec, cls_axis axis)
{
    static const char *const suffixes[3] = {"_x", "_y", "_z"};
    return cls_spec_borders_differ(spec) ? suffixes[axis] : "";
}

/* The name at `text` (a border function followed by its parenthesis), or NULL. */
static const char *function_at(const char *text, const char *start)
{
    if (text > start && (text[-1] == '_' || (text[-1] >= 'a' && text[-1] <= 'z'))) return NULL;
    for (size_t k = 0; k < sizeof function_names / sizeof function_names[0]; ++k) {
        const size_t length = strlen(function_names[k]);
        if (strncmp(text, function_names[k], length) == 0 && text[length] == '(') return function_names[k];
    }
    return NULL;
}

/* `code` with every call or definition of a border function renamed with `suffix`. */
static void append_renamed(strbuf *out, const char *code, const char *suffix)
{
    for (const char *at = code; *at;) {
        const char *name = function_at(at, code);
        if (name) {
            strbuf_printf(out, "%s%s", name, suffix);
            at += strlen(name);
        } else {
            strbuf_printf(out, "%c", *at++);
        }
    }
}

void border_append_per_axis(strbuf *out, const cls_spec *spec, const char *code)
{
    if (!cls_spec_borders_differ(spec)) {
        strbuf_append(out, code);
        return;
    }
    const cls_axis last = cls_spec_is_volume(spec) ? CLS_AXIS_Z : CLS_AXIS_Y;
    for (cls_axis axis = CLS_AXIS_X; axis <= last; ++axis) append_renamed(out, code, border_suffix(spec, axis));
}

void border_append_templates(strbuf *out, const cls_spec *spec)
{
    char name[64];
    if (!cls_spec_borders_differ(spec)) {
        snprintf(name, sizeof name, "border-%s.cl", cls_border_name(spec->border));
        strbuf_append(out, cls_template(name));
        return;
    }
    static const char *const axis_names[3] = {"x (columns)", "y (rows)", "z (slices)"};
    const cls_axis last = cls_spec_is_volume(spec) ? CLS_AXIS_Z : CLS_AXIS_Y;
    for (cls_axis axis = CLS_AXIS_X; axis <= last; ++axis) {
        const cls_border mode = cls_spec_border_on(spec, axis);
        strbuf_printf(out, "/* Along %s, the functions ending in %s: */\n", axis_names[axis], border_suffix(spec, axis));
        snprintf(name, sizeof name, "border-%s.cl", cls_border_name(mode));
        append_renamed(out, cls_template(name), border_suffix(spec, axis));
    }
}
