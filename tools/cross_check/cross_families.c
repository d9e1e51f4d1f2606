/* cross_families.c — the variant families the cross-compile check builds for every target: each
 * partition, input path, coefficient storage, separable form, several masks with an epilogue,
 * blocks of outputs with vector loads, streaming, the rank networks (unrolled, sorted rows, a
 * loop), van Herk, a staged composition, the FFT method, a pipeline's element-wise stage, a user
 * body, and the five pixel types spread over them. Border modes rotate over the families. */
#include "cross_check.h"

#include <stdio.h>
#include <string.h>

static const float MASK_5X3[15] = {0, 1, 2, 1, 0, 1, 2, -8, 2, 1, 0, 1, 2, 1, 0};
static const float BINOMIAL_5[5] = {1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f};
static const float SOBEL_PAIR[18] = {-1, 0, 1, -2, 0, 2, -1, 0, 1, -1, -2, -1, 0, 0, 0, 1, 2, 1};
static float random_9x9[81], random_25x25[625], ones_5x5[25];

/* Deterministic coefficients without structure (no rank 1, no equal taps). */
static const float *random_mask(float *mask, unsigned count)
{
    unsigned state = 12345u;
    for (unsigned k = 0; k < count; ++k) {
        state = state * 1103515245u + 12345u;
        mask[k] = (float)((state >> 8) % 2001) / 1000.f - 1.f;
    }
    return mask;
}

static void mask_spec(cls_spec *s, unsigned width, unsigned height, const float *mask)
{
    s->mask_width = width;
    s->mask_height = height;
    s->coefficients = mask;
}

/* The masks that are neither an operator's nor the 5x3 weighted sum. */
static void binomial_rows(cls_spec *s)
{
    s->mask_width = s->mask_height = 5;
    s->row_coefficients = s->column_coefficients = BINOMIAL_5;
}
static void sobel_pair(cls_spec *s)
{
    mask_spec(s, 3, 3, SOBEL_PAIR);
    s->mask_count = 2;
    s->epilogue = "hypot(r0, r1)";
}
static void random_9(cls_spec *s) { mask_spec(s, 9, 9, random_mask(random_9x9, 81)); }
static void random_25(cls_spec *s) { mask_spec(s, 25, 25, random_mask(random_25x25, 625)); }
static void window_maximum(cls_spec *s)
{
    for (unsigned k = 0; k < 25; ++k) ones_5x5[k] = 1;
    mask_spec(s, 5, 5, ones_5x5);
    s->body = "float best = -INFINITY;\nFOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\nOUT = best;\n";
}

/* What a family sets on its spec; 0 leaves the spec's own (auto, a buffer, f32); the border is
 * always the family's. */
typedef struct knobs {
    cls_border border;
    float value;
    cls_partition partition;
    int bake;
    cls_input_path input;
    cls_separable separable;
    cls_method method;
    unsigned rows, cols;
    cls_pixel_type in, out;
} knobs;

typedef struct family_entry {
    const char *name;
    const char *op;              /* an operator of `clstencil filter --op`, else ... */
    void (*mask)(cls_spec *);    /* ... this mask, else the 5x3 weighted sum */
    knobs set;
} family_entry;

#define ELEMENTWISE "elementwise" /* a pipeline's element-wise stage, no spec */
enum { LITERALS = CLS_COEFFICIENTS_LITERALS, ARGUMENT = CLS_COEFFICIENTS_ARGUMENT };

static const family_entry FAMILIES[] = {
    {"naive", NULL, NULL, {.border = CLS_BORDER_CLAMP, .partition = CLS_PARTITION_NAIVE, .bake = LITERALS}},
    {"isp-block", NULL, NULL,
     {.border = CLS_BORDER_MIRROR101, .partition = CLS_PARTITION_ISP_BLOCK, .in = CLS_PIXEL_U8, .out = CLS_PIXEL_U8}},
    {"isp-warp", NULL, NULL,
     {.border = CLS_BORDER_CONSTANT, .value = 1, .partition = CLS_PARTITION_ISP_WARP, .bake = LITERALS,
      .in = CLS_PIXEL_U16, .out = CLS_PIXEL_F32}},
    {"local-input", NULL, NULL, {.border = CLS_BORDER_MIRROR, .input = CLS_INPUT_LOCAL, .rows = 4, .cols = 2}},
    {"image-input", NULL, NULL,
     {.border = CLS_BORDER_REPEAT, .input = CLS_INPUT_IMAGE, .in = CLS_PIXEL_U8, .out = CLS_PIXEL_U8}},
    {"argument-mask", NULL, NULL,
     {.border = CLS_BORDER_UNDEFINED, .bake = ARGUMENT, .in = CLS_PIXEL_I16, .out = CLS_PIXEL_I16}},
    {"single-pass", NULL, binomial_rows,
     {.border = CLS_BORDER_CLAMP, .separable = CLS_SEPARABLE_SINGLE_PASS, .in = CLS_PIXEL_F16, .out = CLS_PIXEL_F16}},
    {"two-pass", "gaussian:13", NULL, {.border = CLS_BORDER_MIRROR101, .separable = CLS_SEPARABLE_TWO_PASS}},
    {"masks-epilogue", NULL, sobel_pair, {.border = CLS_BORDER_MIRROR, .in = CLS_PIXEL_U8, .out = CLS_PIXEL_F32}},
    {"blocks-vector", NULL, NULL, {.border = CLS_BORDER_CLAMP, .bake = LITERALS, .rows = 4, .cols = 4}},
    {"streaming", NULL, random_9, {.border = CLS_BORDER_REPEAT, .bake = LITERALS, .rows = 32, .cols = 4}},
    {"rank-network", "median:3", NULL, {.border = CLS_BORDER_MIRROR, .in = CLS_PIXEL_U8, .out = CLS_PIXEL_U8}},
    {"sorted-rows", "median:5", NULL, {.border = CLS_BORDER_CLAMP, .in = CLS_PIXEL_U16, .out = CLS_PIXEL_U16}},
    {"rank-loop", "percentile:30,9", NULL, {.border = CLS_BORDER_CONSTANT, .in = CLS_PIXEL_I16, .out = CLS_PIXEL_I16}},
    {"van-herk", "min:31", NULL, {.border = CLS_BORDER_REPEAT}},
    {"staged", "tophat:9", NULL, {.border = CLS_BORDER_MIRROR, .in = CLS_PIXEL_U8, .out = CLS_PIXEL_U8}},
    {"bilateral", "bilateral:3,0.1,13", NULL, {.border = CLS_BORDER_CLAMP}},
    {"fft", NULL, random_25, {.border = CLS_BORDER_MIRROR, .method = CLS_METHOD_FFT}},
    {ELEMENTWISE, NULL, NULL, {.border = CLS_BORDER_CLAMP}},
    {"user-body", NULL, window_maximum, {.border = CLS_BORDER_CONSTANT}},
};
#define FAMILY_COUNT (sizeof FAMILIES / sizeof FAMILIES[0])

size_t cls_cross_family_count(void) { return FAMILY_COUNT; }

const char *cls_cross_family_name(size_t index) { return index < FAMILY_COUNT ? FAMILIES[index].name : NULL; }

int cls_cross_family_spec(size_t index, cls_cross_family *family)
{
    memset(family, 0, sizeof *family);
    if (index >= FAMILY_COUNT) return 0;
    const family_entry *entry = &FAMILIES[index];
    const knobs *k = &entry->set;
    family->elementwise = strcmp(entry->name, ELEMENTWISE) == 0;
    cls_spec *s = &family->spec;
    cls_spec_init(s);
    if (entry->op) {
        if (cls_operator_parse(entry->op, &family->op) != CLS_OK) {
            fprintf(stderr, "cls_cross_sources: %s: %s\n", entry->op, cls_last_error());
            return 0;
        }
        *s = *cls_operator_spec(family->op);
    } else if (entry->mask) {
        entry->mask(s);
    } else {
        mask_spec(s, 5, 3, MASK_5X3);
    }
    s->border = k->border;
    s->border_value = k->value;
    s->input_type = k->in;
    s->output_type = k->out;
    if (k->partition) s->partition = k->partition;
    if (k->bake) s->bake_coefficients = k->bake;
    if (k->input) s->input_path = k->input;
    if (k->separable) s->separable = k->separable;
    if (k->method) s->method = k->method;
    if (k->rows) s->rows_per_item = k->rows;
    if (k->cols) s->cols_per_item = k->cols;
    return 1;
}

void cls_cross_family_free(cls_cross_family *family)
{
    cls_operator_release(family->op);
    family->op = NULL;
}
