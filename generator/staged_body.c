/* staged_body.c — staged operator bodies (see staged_body.h): finding the #stage and #combine
 * lines outside comments, splitting the body at them, the stages' specs and rules (the sources
 * are staged_source.c's). */
#include "staged_body.h"

#include "emit.h"
#include "error.h"
#include "rank_bodies.h"
#include "strbuf.h"
#include "van_herk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum directive_kind { DIRECTIVE_STAGE, DIRECTIVE_COMBINE } directive_kind;

/* A directive line: its kind, where the line starts and ends (before the newline), where its
 * arguments start, and its number (from 1). */
typedef struct directive {
    directive_kind kind;
    const char *start, *end, *arguments;
    unsigned line;
} directive;

/* The directive word at p (after '#' and blanks): "stage" or "combine", followed by a blank or
 * the line's end. */
static int directive_word(const char *p, directive_kind *kind, const char **after)
{
    static const struct { const char *word; directive_kind kind; } words[] = {
        {"stage", DIRECTIVE_STAGE}, {"combine", DIRECTIVE_COMBINE}};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; ++k) {
        const size_t length = strlen(words[k].word);
        if (strncmp(p, words[k].word, length) == 0 && strchr(" \t\r\n", p[length])) {
            *kind = words[k].kind;
            *after = p + length;
            return 1;
        }
    }
    return 0;
}

/* Skips a comment or a string or character literal at p; returns where it ends (p itself when
 * none starts there). *line counts the newlines skipped. */
static const char *skip_comment_or_literal(const char *p, unsigned *line)
{
    if (p[0] == '/' && p[1] == '*') {
        const char *end = strstr(p + 2, "*/");
        end = end ? end + 2 : p + strlen(p);
        for (const char *q = p; q < end; ++q) *line += *q == '\n';
        return end;
    }
    if (p[0] == '/' && p[1] == '/') return p + strcspn(p, "\n");
    if (*p == '"' || *p == '\'') {
        const char quote = *p++;
        while (*p && *p != quote && *p != '\n') p += p[0] == '\\' && p[1] ? 2 : 1;
        return *p == quote ? p + 1 : p;
    }
    return p;
}

/* Finds up to MAX directive lines of TEXT outside comments and literals into FOUND; returns how
 * many there are (MAX + 1 when there are more). */
static unsigned find_directives(const char *text, directive *found, unsigned max)
{
    unsigned count = 0, line = 1;
    int line_start = 1;
    for (const char *p = text; *p;) {
        if (line_start) {
            const char *first = p + strspn(p, " \t\r");
            directive_kind kind;
            const char *after;
            if (*first == '#' && directive_word(first + 1 + strspn(first + 1, " \t"), &kind, &after)) {
                if (count == max) return max + 1;
                found[count++] = (directive){kind, p, p + strcspn(p, "\n"), after, line};
            }
            line_start = 0;
        }
        const char *next = skip_comment_or_literal(p, &line);
        if (next != p) {
            p = next;
            continue;
        }
        if (*p++ == '\n') {
            ++line;
            line_start = 1;
        }
    }
    return count;
}

int cls_body_is_staged(const char *body)
{
    directive first;
    return body && find_directives(body, &first, 1) > 0;
}

const char *cls_staged_body_first_stage(const char *body)
{
    directive first;
    return body && find_directives(body, &first, 1) > 0 ? first.start : NULL;
}

/* Whether [start, end) holds only blanks and comments. */
static int only_comments(const char *start, const char *end)
{
    unsigned line = 0;
    for (const char *p = start; p < end;) {
        const char *next = skip_comment_or_literal(p, &line);
        if (next != p && *p == '/') p = next; /* a comment (a literal is text) */
        else if (strchr(" \t\r\n", *p)) ++p;
        else return 0;
    }
    return 1;
}

static cls_status bad_line(unsigned line, const char *why)
{
    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "staged operator body, line %u: %s", line, why);
}

/* The window of a #stage line's arguments: "WxH" or "S", odd sides up to CLS_MAX_MASK, then
 * "min" or "max" for an extremum stage. */
static int stage_window(const directive *d, unsigned *width, unsigned *height, cls_stage_kind *kind)
{
    char text[64];
    const size_t length = (size_t)(d->end - d->arguments);
    if (length >= sizeof text) return 0;
    memcpy(text, d->arguments, length);
    text[length] = '\0';
    int used = 0;
    unsigned w, h;
    if (sscanf(text, " %ux%u %n", &w, &h, &used) != 2) { /* not WxH: a SIZE */
        used = 0;
        if (sscanf(text, " %u %n", &w, &used) != 1) return 0;
        h = w;
    }
    const char *rest = text + used;
    *kind = CLS_STAGE_BODY;
    if (strncmp(rest, "min", 3) == 0 || strncmp(rest, "max", 3) == 0) {
        *kind = rest[1] == 'i' ? CLS_STAGE_MINIMUM : CLS_STAGE_MAXIMUM;
        rest += 3 + strspn(rest + 3, " \t\r");
    }
    if (*rest) return 0;
    *width = w;
    *height = h;
    return w % 2 && h % 2 && w <= CLS_MAX_MASK && h <= CLS_MAX_MASK;
}

/* The combination of a #combine line's arguments. */
static cls_stage_combine combination(const directive *d)
{
    char first[16], minus[4], second[16], rest[2];
    char text[80];
    const size_t length = (size_t)(d->end - d->arguments);
    if (length >= sizeof text) return CLS_COMBINE_NONE;
    memcpy(text, d->arguments, length);
    text[length] = '\0';
    if (sscanf(text, "%15s %3s %15s %1s", first, minus, second, rest) != 3 || strcmp(minus, "-") != 0)
        return CLS_COMBINE_NONE;
    if (strcmp(first, "input") == 0 && strcmp(second, "result") == 0) return CLS_COMBINE_INPUT_MINUS_RESULT;
    if (strcmp(first, "result") == 0 && strcmp(second, "input") == 0) return CLS_COMBINE_RESULT_MINUS_INPUT;
    return CLS_COMBINE_NONE;
}

/* Copies the centre width x height of the spec's mask (all ones when it has none). */
static float *centre_of_mask(const cls_spec *spec, unsigned width, unsigned height)
{
    float *mask = malloc((size_t)width * height * sizeof *mask);
    if (!mask) return NULL;
    const unsigned left = (spec->mask_width - width) / 2, top = (spec->mask_height - height) / 2;
    for (unsigned j = 0; j < height; ++j)
        for (unsigned i = 0; i < width; ++i)
            mask[j * width + i] = spec->coefficients ? spec->coefficients[(top + j) * spec->mask_width + left + i] : 1.0f;
    return mask;
}

/* Stage k: its window from its directive, its body the text up to END, its mask. */
static cls_status add_stage(const cls_spec *spec, const directive *d, const char *end, cls_staged_body *staged)
{
    cls_body_stage *stage = &staged->stages[staged->count];
    if (!stage_window(d, &stage->width, &stage->height, &stage->kind))
        return bad_line(d->line, "#stage takes the stage's window, WxH or SIZE, with odd sides up to 63, then "
                                 "min or max for an extremum stage");
    const char *start = *d->end ? d->end + 1 : d->end;
    const size_t length = (size_t)(end - start);
    if (stage->kind != CLS_STAGE_BODY && !cls_van_herk_fits(stage->width, stage->height))
        return bad_line(d->line, "an extremum stage (min or max) runs over one row, one column or a window whose "
                                 "rows fit the local memory of its kernel: Wx1, 1xH or WxH");
    if (stage->kind != CLS_STAGE_BODY && !only_comments(start, end))
        return bad_line(d->line, "only comments may follow an extremum stage's line (min or max): it has no statements");
    stage->direct = stage->kind != CLS_STAGE_BODY && stage->width < CLS_VAN_HERK_MIN_SIDE &&
                    stage->height < CLS_VAN_HERK_MIN_SIDE;
    if (stage->direct) {
        const cls_footprint window = {CLS_FOOTPRINT_RECT, stage->width, stage->height, NULL, 0};
        const cls_status status = cls_extremum_body(&window, stage->kind == CLS_STAGE_MAXIMUM, &stage->body);
        if (status != CLS_OK) return status;
    } else if ((stage->body = malloc(length + 1))) {
        memcpy(stage->body, start, length);
        stage->body[length] = '\0';
    }
    stage->mask = stage->body ? centre_of_mask(spec, stage->width, stage->height) : NULL;
    ++staged->count;
    return stage->mask ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* The stages together reach no farther than the spec's window. */
static cls_status check_reach(const cls_spec *spec, const cls_staged_body *staged)
{
    unsigned reach_x = 0, reach_y = 0;
    for (unsigned k = 0; k < staged->count; ++k) {
        reach_x += staged->stages[k].width / 2;
        reach_y += staged->stages[k].height / 2;
    }
    if (reach_x <= spec->mask_width / 2 && reach_y <= spec->mask_height / 2) return CLS_OK;
    return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                    "the stages together reach %u columns and %u rows from the centre, beyond the %ux%u window "
                    "of the operator: its window must be at least %ux%u",
                    reach_x, reach_y, spec->mask_width, spec->mask_height, 2 * reach_x + 1, 2 * reach_y + 1);
}

/* Where the axes' border modes differ, each extremum stage over a rectangle becomes a stage along
 * its rows and one along its columns (the extreme of the row extremes: the same result), so that
 * every van Herk kernel runs along axes of one mode. */
static cls_status split_rectangles(const cls_spec *spec, cls_staged_body *staged)
{
    if (!cls_spec_borders_differ(spec)) return CLS_OK;
    for (unsigned k = 0; k < staged->count; ++k) {
        cls_body_stage *stage = &staged->stages[k];
        if (cls_stage_runs_body(stage) || stage->width == 1 || stage->height == 1) continue;
        if (staged->count == CLS_STAGES_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "more than %d stages: an extremum over a rectangle runs as two "
                            "where the axes' border modes differ", CLS_STAGES_MAX);
        const unsigned width = stage->width, height = stage->height;
        float *row = calloc(width, sizeof *row), *column = calloc(height, sizeof *column);
        char *comment = strdup("");
        if (!row || !column || !comment) {
            free(row), free(column), free(comment);
            return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (unsigned i = 0; i < width; ++i) row[i] = stage->mask[(height / 2) * width + i];
        for (unsigned j = 0; j < height; ++j) column[j] = stage->mask[j * width + width / 2];
        memmove(stage + 2, stage + 1, (staged->count - k - 1) * sizeof *stage);
        ++staged->count;
        stage[1] = (cls_body_stage){1, height, stage->kind, 0, comment, column};
        free(stage->mask);
        stage->mask = row;
        stage->height = 1;
        ++k;
    }
    return CLS_OK;
}

cls_status cls_staged_body_split(const cls_spec *spec, cls_staged_body *staged)
{
    memset(staged, 0, sizeof *staged);
    directive found[CLS_STAGES_MAX + 1];
    const unsigned count = find_directives(spec->body, found, CLS_STAGES_MAX + 1);
    if (count == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the operator body has no #stage line");
    if (count > CLS_STAGES_MAX + 1)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a staged operator body has at most %d stages", CLS_STAGES_MAX);
    if (found[0].kind != DIRECTIVE_STAGE || !only_comments(spec->body, found[0].start))
        return bad_line(found[0].line, "only comments may come before the first #stage line");
    const char *text_end = spec->body + strlen(spec->body);
    for (unsigned k = 0; k < count; ++k) {
        const directive *d = &found[k];
        const char *end = k + 1 < count ? found[k + 1].start : text_end;
        cls_status status = CLS_OK;
        if (d->kind == DIRECTIVE_STAGE && staged->count == CLS_STAGES_MAX) {
            char why[64];
            snprintf(why, sizeof why, "more than %d stages", CLS_STAGES_MAX);
            status = bad_line(d->line, why);
        } else if (d->kind == DIRECTIVE_STAGE) {
            status = add_stage(spec, d, end, staged);
        } else if (k + 1 < count) {
            status = bad_line(found[k + 1].line, "#combine is the last directive: nothing runs after it");
        } else if ((staged->combine = combination(d)) == CLS_COMBINE_NONE) {
            status = bad_line(d->line, "#combine takes 'input - result' or 'result - input'");
        } else if (!only_comments(*d->end ? d->end + 1 : d->end, text_end)) {
            status = bad_line(d->line, "only comments may follow the #combine line");
        }
        if (status != CLS_OK) {
            cls_staged_body_free(staged);
            return status;
        }
    }
    cls_status status = check_reach(spec, staged);
    if (status == CLS_OK) status = split_rectangles(spec, staged);
    if (status != CLS_OK) cls_staged_body_free(staged);
    return status;
}

void cls_staged_body_free(cls_staged_body *staged)
{
    for (unsigned k = 0; k < staged->count; ++k) {
        free(staged->stages[k].body);
        free(staged->stages[k].mask);
    }
    memset(staged, 0, sizeof *staged);
}

int cls_stage_runs_body(const cls_body_stage *stage) { return stage->kind == CLS_STAGE_BODY || stage->direct; }

int cls_staged_folds_combine(const cls_staged_body *staged)
{
    return staged->combine != CLS_COMBINE_NONE && staged->count && !cls_stage_runs_body(&staged->stages[staged->count - 1]);
}

cls_spec cls_staged_stage_spec(const cls_spec *spec, const cls_staged_body *staged, unsigned k)
{
    const cls_body_stage *stage = &staged->stages[k];
    cls_spec s = *spec;
    s.mask_width = stage->width;
    s.mask_height = stage->height;
    s.coefficients = stage->mask;
    s.row_coefficients = s.column_coefficients = NULL;
    s.body = cls_stage_runs_body(stage) ? stage->body : NULL;
    if (s.border == CLS_BORDER_UNDEFINED) { /* the run writes the interior only */
        s.border = CLS_BORDER_CLAMP;
        s.border_y = s.border_z = CLS_BORDER_SAME;
    }
    if (!cls_stage_runs_body(stage) && cls_spec_borders_differ(spec)) { /* along one axis: split_rectangles */
        s.border = cls_spec_border_on(spec, stage->height > 1 ? CLS_AXIS_Y : CLS_AXIS_X);
        s.border_y = s.border_z = CLS_BORDER_SAME;
    }
    s.input_type = k == 0 ? spec->input_type : CLS_PIXEL_F32;
    const int writes_output = staged->combine == CLS_COMBINE_NONE || cls_staged_folds_combine(staged);
    s.output_type = k + 1 == staged->count && writes_output ? spec->output_type : CLS_PIXEL_F32;
    return s;
}

cls_status cls_staged_body_check(const cls_spec *spec)
{
    cls_staged_body staged;
    cls_status status = cls_staged_body_split(spec, &staged);
    for (unsigned k = 0; status == CLS_OK && k < staged.count; ++k) {
        const cls_spec stage = cls_staged_stage_spec(spec, &staged, k);
        if ((status = cls_spec_validate(&stage)) != CLS_OK)
            status = cls_fail(status, "stage %u of %u of the operator body: %s", k + 1, staged.count, cls_last_error());
    }
    cls_staged_body_free(&staged);
    return status;
}
