/* operator_object.c — the operator object every parser fills: a spec with its own mask (and
 * body), its name, creation with the predefined kernels' coefficient storage, release, and the
 * refusal, number and size checks the parsers share (operators.c, morphology_operators.c,
 * volume_operators.c). */
#include "generator.h"

#include "error.h"
#include "operator_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Literals (zero taps skipped: the "predefined" kernels) up to this many taps; the buffer above,
 * whose kernels unroll less and build faster. */
#define BAKE_MAX_TAPS (25 * 25)
/* Literals for a mask of rank 1 by construction up to this side (cls_operator_bake_rank1): past it
 * PoCL's first launch of the passes' literal rows outweighed their speed (2 cores, empty caches,
 * `clstencil filter` of a 256x256 image with `--build fastest-kernel`: gaussian:63 12.0 s with
 * literals against 4.1 s from the buffer; gaussian:31 5.5 s against 3.2, its passes at 2048^2
 * 13-14 ms against 54-60). */
#define RANK1_BAKE_MAX_SIDE 31u

cls_status cls_operator_new(unsigned width, unsigned height, cls_operator **out)
{
    return cls_operator_new_volume(width, height, 0, out);
}

cls_status cls_operator_new_volume(unsigned width, unsigned height, unsigned depth, cls_operator **out)
{
    const size_t taps = (size_t)width * height * (depth ? depth : 1);
    cls_operator *op = calloc(1, sizeof *op);
    float *mask = op ? calloc(taps, sizeof *mask) : NULL;
    if (!mask) {
        free(op);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    cls_spec_init(&op->spec);
    op->mask = mask;
    op->spec.mask_width = width;
    op->spec.mask_height = height;
    op->spec.mask_depth = depth;
    op->spec.coefficients = mask;
    /* literals, zero taps skipped: the "predefined" kernels; the buffer for huge masks */
    op->spec.bake_coefficients = taps <= BAKE_MAX_TAPS;
    *out = op;
    return CLS_OK;
}

void cls_operator_bake_rank1(cls_operator *op)
{
    if (op->spec.mask_width <= RANK1_BAKE_MAX_SIDE && op->spec.mask_height <= RANK1_BAKE_MAX_SIDE)
        op->spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
}

int cls_operator_number(const char *word, double *value)
{
    const char *digits = word + strspn(word, " \t+-");
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) return 0;
    char *end;
    *value = strtod(word, &end);
    return end != word && *end == '\0' && isfinite(*value);
}

int cls_operator_odd_size(double value)
{
    return value >= 1 && value <= CLS_MAX_MASK && value == floor(value) && (int)value % 2;
}

cls_status cls_operator_refuse(const char *text, const char *why)
{
    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator '%s': %s", text, why);
}

const cls_spec *cls_operator_spec(const cls_operator *op) { return op ? &op->spec : NULL; }

const char *cls_operator_name(const cls_operator *op) { return op ? op->name : ""; }

void cls_operator_release(cls_operator *op)
{
    if (!op) return;
    free(op->mask);
    free(op->body);
    free(op);
}
