/* filter_steps.c — splits the named steps of `clstencil filter` (filter_steps.h). The names are
 * checked by the pipeline when the stage is added (cls_pipeline_add_stage). */
#include "filter_steps.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The length of the identifier at TEXT (0 when none starts there). */
static size_t identifier(const char *text)
{
    if (!isalpha((unsigned char)*text) && *text != '_') return 0;
    size_t n = 1;
    while (isalnum((unsigned char)text[n]) || text[n] == '_') ++n;
    return n;
}

/* A leading NAME= of TEXT into step->name; returns where the rest starts. */
static const char *split_name(const char *text, filter_step_text *step)
{
    const size_t n = identifier(text);
    if (!n || text[n] != '=' || n >= STEP_NAME_MAX) return text;
    memcpy(step->name, text, n);
    step->name[n] = '\0';
    return text + n + 1;
}

void filter_step_split_op(const char *text, filter_step_text *step)
{
    memset(step, 0, sizeof *step);
    step->body = split_name(text, step);
    step->body_length = strlen(step->body);
    const char *at = strrchr(step->body, '@');
    if (at && identifier(at + 1) == strlen(at + 1) && strlen(at + 1) < STEP_NAME_MAX) {
        snprintf(step->from, sizeof step->from, "%s", at + 1);
        step->body_length = (size_t)(at - step->body);
    }
}

int filter_step_split_combine(const char *text, filter_step_text *step, char *error, size_t error_size)
{
    memset(step, 0, sizeof *step);
    step->body = split_name(text, step);
    step->body_length = strlen(step->body);
    if (step->name[0]) return 1;
    snprintf(error, error_size, "--combine %s: give NAME=EXPRESSION, e.g. 'sharp=input + 1.5 * (input - blur)'",
             text);
    return 0;
}
