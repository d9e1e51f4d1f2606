/* morphology_operators.c — the rank and morphology operators of the operator library: median,
 * percentile, min/erode, max/dilate and morphgradient over a footprint given as a window and a
 * shape (WIN[,SHAPE]) or drawn in a mask file (mask:FILE), as operator bodies (rank_bodies.c),
 * a rectangle's minimum and maximum as a row and a column pass in stages (staged_body.h), by van
 * Herk/Gil-Werman from a window side on (van_herk.h); and the
 * compositions opening, closing, tophat and blackhat as staged bodies: an erosion and a dilation,
 * then for the top-hats the difference with the input. */
#include "generator.h"

#include "error.h"
#include "footprint_file.h"
#include "operator_internal.h"
#include "rank_bodies.h"
#include "staged_body.h"
#include "strbuf.h"
#include "van_herk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const morphology_names[] = {"median", "percentile", "min", "max", "erode", "dilate", "morphgradient",
                                               "opening", "closing", "tophat", "blackhat"};

/* The compositions: grey opening (erosion, then dilation), grey closing (dilation, then erosion),
 * the white top-hat (the input minus its opening) and the black top-hat (the closing minus the
 * input), as scipy.ndimage's grey_opening, grey_closing, white_tophat and black_tophat define them. */
typedef struct composition {
    const char *name, *what;
    int dilate_first;
    cls_stage_combine combine;
} composition;

static const composition compositions[] = {
    {"opening", "grey opening: grey erosion, then grey dilation of its result", 0, CLS_COMBINE_NONE},
    {"closing", "grey closing: grey dilation, then grey erosion of its result", 1, CLS_COMBINE_NONE},
    {"tophat", "white top-hat: the input minus its grey opening (grey erosion, then grey dilation)", 0,
     CLS_COMBINE_INPUT_MINUS_RESULT},
    {"blackhat", "black top-hat: the grey closing (grey dilation, then grey erosion) minus the input", 1,
     CLS_COMBINE_RESULT_MINUS_INPUT},
};

/* The largest footprint side of a composition: its two stages reach twice the half-side, and that
 * window, 2 * side - 1, must fit CLS_MAX_MASK (the largest odd side that does). */
#define COMPOSITION_MAX_SIDE ((CLS_MAX_MASK + 1) / 2 - 1)

int cls_morphology_operator(const char *name)
{
    for (size_t k = 0; k < sizeof morphology_names / sizeof morphology_names[0]; ++k)
        if (strcmp(name, morphology_names[k]) == 0) return 1;
    return 0;
}

/* A footprint argument as parsed: the footprint, a mask file's cells (owned) and the canonical
 * text of the argument ("5x5,disk", "mask:PATH"). */
typedef struct footprint_argument {
    cls_footprint footprint;
    unsigned char *cells;
    char label[96];
} footprint_argument;

/* A window word: "S" (S x S) or "WxH", odd sides up to CLS_MAX_MASK. */
static int parse_window(const char *word, unsigned *width, unsigned *height)
{
    double number;
    if (cls_operator_number(word, &number)) {
        if (!cls_operator_odd_size(number)) return 0;
        *width = *height = (unsigned)number;
        return 1;
    }
    unsigned w, h;
    int used = 0;
    if (sscanf(word, "%ux%u%n", &w, &h, &used) != 2 || word[used] || !cls_operator_odd_size(w) ||
        !cls_operator_odd_size(h))
        return 0;
    *width = w;
    *height = h;
    return 1;
}

/* Parses ARGUMENT, "WIN[,SHAPE]" or "mask:FILE" (FILE is the rest of the text), into *f. A bad
 * window or shape is refused with USAGE, a bad mask file with the reader's message. */
static cls_status parse_footprint(const char *text, const char *argument, const char *usage, footprint_argument *f)
{
    memset(f, 0, sizeof *f);
    if (strncasecmp(argument, "mask:", 5) == 0) {
        unsigned width = 0, height = 0;
        const cls_status status = cls_footprint_file_read(argument + 5, &f->cells, &width, &height);
        if (status != CLS_OK) return cls_fail(status, "operator '%s': %s", text, cls_last_error());
        f->footprint = (cls_footprint){CLS_FOOTPRINT_MASK, width, height, f->cells, 0};
        snprintf(f->label, sizeof f->label, "mask:%s", argument + 5);
        return CLS_OK;
    }
    char window[32] = "", shape[32] = "";
    const size_t length = strcspn(argument, ",");
    const char *rest = argument[length] ? argument + length + 1 : NULL;
    f->footprint.shape = CLS_FOOTPRINT_RECT;
    if (length == 0 || length >= sizeof window || (rest && (strchr(rest, ',') || strlen(rest) >= sizeof shape)))
        return cls_operator_refuse(text, usage);
    memcpy(window, argument, length);
    if (rest) strcpy(shape, rest);
    if (!parse_window(window, &f->footprint.width, &f->footprint.height) ||
        (rest && !cls_footprint_shape_parse(shape, &f->footprint.shape)))
        return cls_operator_refuse(text, usage);
    snprintf(f->label, sizeof f->label, "%ux%u,%s", f->footprint.width, f->footprint.height,
             cls_footprint_shape_name(f->footprint.shape));
    return CLS_OK;
}

/* An operator whose body BODY (malloc'd, taken over) runs over FOOTPRINT's window; the mask holds
 * the footprint as written, 1 and 0 (a mask file's body tests it with MASK; the others do not
 * read it). */
static cls_status from_body(const cls_footprint *footprint, char *body, const char *name, cls_operator **out)
{
    cls_status status = cls_operator_new(footprint->width, footprint->height, out);
    if (status == CLS_OK) {
        const cls_footprint written = {footprint->shape, footprint->width, footprint->height, footprint->cells, 0};
        const int rx = (int)footprint->width / 2, ry = (int)footprint->height / 2;
        for (int dy = -ry; dy <= ry; ++dy)
            for (int dx = -rx; dx <= rx; ++dx)
                (*out)->mask[(unsigned)(dy + ry) * footprint->width + (unsigned)(dx + rx)] =
                    (float)cls_footprint_contains(&written, dx, dy);
        (*out)->spec.bake_coefficients = 0;
        snprintf((*out)->name, sizeof (*out)->name, "%s", name);
        (*out)->body = body;
        (*out)->spec.body = body;
        body = NULL;
        status = cls_spec_validate(&(*out)->spec); /* the body's rules: a generated body must pass them too */
    }
    free(body);
    if (status != CLS_OK) {
        cls_operator_release(*out);
        *out = NULL;
    }
    return status;
}

unsigned cls_footprint_rank(int median, double percent, size_t pixels)
{
    if (median) return (unsigned)(pixels / 2);
    return percent == 100 ? (unsigned)pixels - 1 : (unsigned)((double)pixels * percent / 100.0);
}

/* The body of the rank filter NAME (median, percentile of PERCENT) over the footprint; *canonical
 * receives the operator's name. */
static cls_status rank_filter_body(const char *text, const char *name, double percent, const footprint_argument *f,
                                   char **body, char canonical[128])
{
    const int median = strcmp(name, "median") == 0;
    const unsigned pixels = cls_footprint_count(&f->footprint);
    const unsigned rank = cls_footprint_rank(median, percent, pixels);
    char what[64];
    if (median) snprintf(what, sizeof what, "median");
    else snprintf(what, sizeof what, "percentile %g", percent);
    const cls_status status = cls_rank_body(&f->footprint, rank, what, body);
    if (status != CLS_OK) return cls_fail(status, "operator '%s': %s", text, cls_last_error());
    if (median) snprintf(canonical, 128, "median:%s", f->label);
    else snprintf(canonical, 128, "percentile:%g,%s", percent, f->label);
    return CLS_OK;
}

/* Whether the extremum over F runs as van Herk stages (CLS_VAN_HERK_MIN_SIDE): a rectangle with a
 * side of 7 or more. The minimum of the rows' minima is the window's minimum (fmin skips NaN either
 * way) and every border mode folds rows and columns independently, so the bits are those of the
 * direct loop over the window. */
static int extremum_by_van_herk(const cls_footprint *f)
{
    return f->shape == CLS_FOOTPRINT_RECT && (f->width >= CLS_VAN_HERK_MIN_SIDE || f->height >= CLS_VAN_HERK_MIN_SIDE);
}

/* Up to this side (both sides) a rectangle's van Herk stage is one kernel (van_herk.h: on GPUs it
 * walks down strips of the image, on CPUs it takes a tile a group), above it a row pass and a
 * column pass. On an H200 (f32 4096^2, copy 34 us, clamp and mirror101) the walker took 58 us at
 * 31x31 (the passes 103-115), 49-51 at 15x15, 49-52 at 7x7; at 63x63 (strips of one segment)
 * a first version of it took 199-222 us, the passes 123-177. */
#define VAN_HERK_ONE_KERNEL_MAX_SIDE 31

/* The extremum stages of the rectangle F (staged_body.h: by van Herk/Gil-Werman from a side of
 * CLS_VAN_HERK_MIN_SIDE on, else by the direct loops over the window): one stage, rows and then
 * columns in one kernel, up to VAN_HERK_ONE_KERNEL_MAX_SIDE, else a row pass where it is wider
 * than one pixel and a column pass where it is taller; each stage's body a comment. */
static void append_rectangle_stages(strbuf *out, const cls_footprint *f, int maximum)
{
    const char *word = maximum ? "max" : "min", *what = maximum ? "maximum" : "minimum";
    const char *how = extremum_by_van_herk(f) ? "van Herk/Gil-Werman" : "the direct loops";
    if (f->width > 1 && f->height > 1 && f->width <= VAN_HERK_ONE_KERNEL_MAX_SIDE &&
        f->height <= VAN_HERK_ONE_KERNEL_MAX_SIDE && cls_van_herk_fits(f->width, f->height)) {
        strbuf_printf(out, "#stage %ux%u %s\n/* the %s over the rectangle: its rows, then its columns, %s */\n", f->width,
                      f->height, word, what, how);
        return;
    }
    if (f->width > 1)
        strbuf_printf(out, "#stage %ux1 %s\n/* the %s of each row's %u pixels, %s */\n", f->width, word, what, f->width, how);
    if (f->height > 1 || f->width == 1)
        strbuf_printf(out, "#stage 1x%u %s\n/* the %s of each column's %u pixels, %s */\n", f->height, word, what,
                      f->height, how);
}

/* Appends the stages of the extremum (maximum or minimum) over F to OUT: a rectangle's extremum
 * stages, or one stage of the direct loops over another footprint. */
static cls_status append_extremum_stages(strbuf *out, const cls_footprint *f, int maximum)
{
    if (f->shape == CLS_FOOTPRINT_RECT) {
        append_rectangle_stages(out, f, maximum);
        return CLS_OK;
    }
    char *body = NULL;
    const cls_status status = cls_extremum_body(f, maximum, &body);
    if (status != CLS_OK) return status;
    strbuf_printf(out, "#stage %ux%u\n%s", f->width, f->height, body);
    free(body);
    return CLS_OK;
}

/* The body of min/erode, max/dilate or morphgradient over the footprint (dilate reflects it, as
 * grey dilation does: the same as max for the symmetric rect, cross and disk); a rectangle's
 * minimum or maximum in two stages, a row pass and a column pass. */
static cls_status extremum_body(const char *name, footprint_argument *f, char **body, char canonical[128])
{
    const int gradient = strcmp(name, "morphgradient") == 0, dilate = strcmp(name, "dilate") == 0;
    const int maximum = dilate || strcmp(name, "max") == 0;
    f->footprint.reflected = dilate;
    const char *canonical_name = gradient ? "morphgradient" : maximum ? "max" : "min";
    if (dilate && f->footprint.shape == CLS_FOOTPRINT_MASK) canonical_name = "dilate";
    snprintf(canonical, 128, "%s:%s", canonical_name, f->label);
    if (gradient) return cls_morph_gradient_body(&f->footprint, body);
    if (!extremum_by_van_herk(&f->footprint)) return cls_extremum_body(&f->footprint, maximum, body);
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out, "/* grey %s over the %ux%u rectangle: the %s of each row's %s, a row pass and then a\n"
                        " * column pass, each stage a kernel (van Herk/Gil-Werman: segments of the window's side, their\n"
                        " * prefix and suffix extremes) */\n", maximum ? "dilation" : "erosion",
                  f->footprint.width, f->footprint.height, maximum ? "maximum" : "minimum", maximum ? "maxima" : "minima");
    const cls_status status = append_extremum_stages(&out, &f->footprint, maximum);
    if (status != CLS_OK) {
        strbuf_free(&out);
        return status;
    }
    *body = strbuf_take(&out);
    return *body ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* The staged body of composition C over the footprint: an erosion and a dilation (over the
 * footprint reflected), each one stage, or a row and a column pass for a rectangle; *body is
 * malloc'd. */
static cls_status composition_body(const composition *c, const cls_footprint *f, char **body)
{
    const cls_footprint reflected = cls_footprint_reflect(f);
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out, "/* %s,\n * over the %ux%u %s%s (%u pixels), each stage a kernel */\n", c->what, f->width,
                  f->height, cls_footprint_shape_name(f->shape), f->shape == CLS_FOOTPRINT_MASK ? " footprint" : "",
                  cls_footprint_count(f));
    cls_status status = c->dilate_first ? append_extremum_stages(&out, &reflected, 1) : append_extremum_stages(&out, f, 0);
    if (status == CLS_OK)
        status = c->dilate_first ? append_extremum_stages(&out, f, 0) : append_extremum_stages(&out, &reflected, 1);
    if (c->combine)
        strbuf_printf(&out, "#combine %s\n", c->combine == CLS_COMBINE_INPUT_MINUS_RESULT ? "input - result" : "result - input");
    if (status != CLS_OK) {
        strbuf_free(&out);
        return status;
    }
    *body = strbuf_take(&out);
    return *body ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* The operator of a composition: the staged body over the window of both stages' reach, 2W-1 x
 * 2H-1, whose mask holds the footprint as written in its centre (each stage's mask). */
static cls_status composition_operator(const char *text, const composition *c, const footprint_argument *f,
                                       cls_operator **out)
{
    const cls_footprint *footprint = &f->footprint;
    if (footprint->width > COMPOSITION_MAX_SIDE || footprint->height > COMPOSITION_MAX_SIDE) {
        char why[160];
        snprintf(why, sizeof why, "a footprint of %ux%u: %s runs two stages, which reach %ux%u, and windows stop at "
                 "%d: sides up to %d", footprint->width, footprint->height, c->name, 2 * footprint->width - 1,
                 2 * footprint->height - 1, CLS_MAX_MASK, COMPOSITION_MAX_SIDE);
        return cls_operator_refuse(text, why);
    }
    char *body = NULL;
    cls_status status = composition_body(c, footprint, &body);
    const unsigned width = 2 * footprint->width - 1, height = 2 * footprint->height - 1;
    if (status == CLS_OK) status = cls_operator_new(width, height, out);
    if (status != CLS_OK) {
        free(body);
        return status;
    }
    const cls_footprint written = {footprint->shape, footprint->width, footprint->height, footprint->cells, 0};
    const int rx = (int)footprint->width / 2, ry = (int)footprint->height / 2;
    for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx)
            (*out)->mask[(unsigned)(dy + 2 * ry) * width + (unsigned)(dx + 2 * rx)] =
                (float)cls_footprint_contains(&written, dx, dy);
    (*out)->spec.bake_coefficients = 0;
    (*out)->body = body;
    (*out)->spec.body = body;
    snprintf((*out)->name, sizeof (*out)->name, "%s:%s", c->name, f->label);
    status = cls_spec_validate(&(*out)->spec); /* the stages' bodies by the body rules */
    if (status != CLS_OK) {
        cls_operator_release(*out);
        *out = NULL;
    }
    return status;
}

static const composition *find_composition(const char *name)
{
    for (size_t k = 0; k < sizeof compositions / sizeof compositions[0]; ++k)
        if (strcmp(name, compositions[k].name) == 0) return &compositions[k];
    return NULL;
}

cls_status cls_morphology_parse(const char *text, const char *name, const char *arguments, cls_operator **out)
{
    const int percentile = strcmp(name, "percentile") == 0;
    char usage[320];
    snprintf(usage, sizeof usage,
             "expected %s:%sSIZE[,SHAPE], %s:%sWxH[,SHAPE] or %s:%smask:FILE with odd sides up to 63 and SHAPE rect "
             "(default), cross or disk",
             name, percentile ? "P," : "", name, percentile ? "P," : "", name, percentile ? "P," : "");
    if (!arguments) return cls_operator_refuse(text, usage);
    double percent = 0;
    if (percentile) {
        char word[32];
        const size_t length = strcspn(arguments, ",");
        if (!arguments[length] || length >= sizeof word) return cls_operator_refuse(text, usage);
        memcpy(word, arguments, length);
        word[length] = '\0';
        if (!cls_operator_number(word, &percent) || !(percent >= 0 && percent <= 100))
            return cls_operator_refuse(text, "the percentile P must be a number from 0 to 100");
        arguments += length + 1;
    }
    footprint_argument f;
    cls_status status = parse_footprint(text, arguments, usage, &f);
    const int even = status == CLS_OK && (f.footprint.width % 2 == 0 || f.footprint.height % 2 == 0);
    if (even) /* a mask file's even side: the window anchored at cell side/2, in the next odd one */
        status = cls_footprint_operator(text, name, percent, f.cells, f.footprint.width, f.footprint.height, NULL, out);
    else if (status == CLS_OK)
        status = cls_morphology_build(text, name, percent, &f.footprint, f.label, out);
    free(f.cells);
    return status;
}

cls_status cls_morphology_build(const char *text, const char *name, double percent, const cls_footprint *footprint,
                                const char *label, cls_operator **out)
{
    footprint_argument f = {*footprint, NULL, ""};
    snprintf(f.label, sizeof f.label, "%s", label);
    const composition *c = find_composition(name);
    if (c) return composition_operator(text, c, &f, out);
    char *body = NULL, canonical[128];
    cls_status status = strcmp(name, "percentile") == 0 || strcmp(name, "median") == 0
                            ? rank_filter_body(text, name, percent, &f, &body, canonical)
                            : extremum_body(name, &f, &body, canonical);
    if (status == CLS_OK) status = from_body(&f.footprint, body, canonical, out);
    return status;
}
