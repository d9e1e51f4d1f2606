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

static void types(cls_spec *s, cls_pixel_type input, cls_pixel_type output)
{
    s->input_type = input;
    s->output_type = output;
}

typedef struct family_entry {
    const char *name;
    const char *op; /* an operator of `clstencil filter --op`, or NULL */
    void (*shape)(cls_spec *);
} family_entry;

static void naive(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->partition = CLS_PARTITION_NAIVE;
    s->bake_coefficients = CLS_COEFFICIENTS_LITERALS;
}
static void isp_block(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->border = CLS_BORDER_MIRROR101;
    s->partition = CLS_PARTITION_ISP_BLOCK;
    types(s, CLS_PIXEL_U8, CLS_PIXEL_U8);
}
static void isp_warp(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->border = CLS_BORDER_CONSTANT;
    s->border_value = 1;
    s->partition = CLS_PARTITION_ISP_WARP;
    s->bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    types(s, CLS_PIXEL_U16, CLS_PIXEL_F32);
}
static void local_input(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->border = CLS_BORDER_MIRROR;
    s->input_path = CLS_INPUT_LOCAL;
    s->rows_per_item = 4;
    s->cols_per_item = 2;
}
static void image_input(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->border = CLS_BORDER_REPEAT;
    s->input_path = CLS_INPUT_IMAGE;
    types(s, CLS_PIXEL_U8, CLS_PIXEL_U8);
}
static void argument_mask(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->border = CLS_BORDER_UNDEFINED;
    s->bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    types(s, CLS_PIXEL_I16, CLS_PIXEL_I16);
}
static void single_pass(cls_spec *s)
{
    s->mask_width = s->mask_height = 5;
    s->row_coefficients = s->column_coefficients = BINOMIAL_5;
    s->separable = CLS_SEPARABLE_SINGLE_PASS;
    types(s, CLS_PIXEL_F16, CLS_PIXEL_F16);
}
static void two_pass(cls_spec *s)
{
    s->border = CLS_BORDER_MIRROR101;
    s->separable = CLS_SEPARABLE_TWO_PASS;
}
static void masks_epilogue(cls_spec *s)
{
    mask_spec(s, 3, 3, SOBEL_PAIR);
    s->mask_count = 2;
    s->epilogue = "hypot(r0, r1)";
    s->border = CLS_BORDER_MIRROR;
    types(s, CLS_PIXEL_U8, CLS_PIXEL_F32);
}
static void blocks_vector(cls_spec *s)
{
    mask_spec(s, 5, 3, MASK_5X3);
    s->rows_per_item = 4;
    s->cols_per_item = 4;
    s->bake_coefficients = CLS_COEFFICIENTS_LITERALS;
}
static void streaming(cls_spec *s)
{
    mask_spec(s, 9, 9, random_mask(random_9x9, 81));
    s->border = CLS_BORDER_REPEAT;
    s->rows_per_item = 32;
    s->cols_per_item = 4;
    s->bake_coefficients = CLS_COEFFICIENTS_LITERALS;
}
static void fft(cls_spec *s)
{
    mask_spec(s, 25, 25, random_mask(random_25x25, 625));
    s->border = CLS_BORDER_MIRROR;
    s->method = CLS_METHOD_FFT;
}
static void unsigned_16(cls_spec *s) { types(s, CLS_PIXEL_U16, CLS_PIXEL_U16); }
static void signed_16(cls_spec *s)
{
    s->border = CLS_BORDER_CONSTANT;
    types(s, CLS_PIXEL_I16, CLS_PIXEL_I16);
}
static void mirror_u8(cls_spec *s)
{
    s->border = CLS_BORDER_MIRROR;
    types(s, CLS_PIXEL_U8, CLS_PIXEL_U8);
}
static void repeat_f32(cls_spec *s) { s->border = CLS_BORDER_REPEAT; }
static void clamp_f32(cls_spec *s) { (void)s; }
static void user_body(cls_spec *s)
{
    for (unsigned k = 0; k < 25; ++k) ones_5x5[k] = 1;
    mask_spec(s, 5, 5, ones_5x5);
    s->border = CLS_BORDER_CONSTANT;
    s->body = "float best = -INFINITY;\nFOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\nOUT = best;\n";
}
static void elementwise(cls_spec *s) { (void)s; }

static const family_entry FAMILIES[] = {
    {"naive", NULL, naive},
    {"isp-block", NULL, isp_block},
    {"isp-warp", NULL, isp_warp},
    {"local-input", NULL, local_input},
    {"image-input", NULL, image_input},
    {"argument-mask", NULL, argument_mask},
    {"single-pass", NULL, single_pass},
    {"two-pass", "gaussian:13", two_pass},
    {"masks-epilogue", NULL, masks_epilogue},
    {"blocks-vector", NULL, blocks_vector},
    {"streaming", NULL, streaming},
    {"rank-network", "median:3", mirror_u8},
    {"sorted-rows", "median:5", unsigned_16},
    {"rank-loop", "percentile:30,9", signed_16},
    {"van-herk", "min:31", repeat_f32},
    {"staged", "tophat:9", mirror_u8},
    {"bilateral", "bilateral:3,0.1,13", clamp_f32},
    {"fft", NULL, fft},
    {"elementwise", NULL, elementwise},
    {"user-body", NULL, user_body},
};
#define FAMILY_COUNT (sizeof FAMILIES / sizeof FAMILIES[0])

size_t cls_cross_family_count(void) { return FAMILY_COUNT; }

const char *cls_cross_family_name(size_t index) { return index < FAMILY_COUNT ? FAMILIES[index].name : NULL; }

int cls_cross_family_spec(size_t index, cls_cross_family *family)
{
    memset(family, 0, sizeof *family);
    if (index >= FAMILY_COUNT) return 0;
    const family_entry *entry = &FAMILIES[index];
    cls_spec_init(&family->spec);
    family->spec.border = CLS_BORDER_CLAMP;
    family->elementwise = entry->shape == elementwise;
    if (entry->op) {
        if (cls_operator_parse(entry->op, &family->op) != CLS_OK) {
            fprintf(stderr, "cls_cross_sources: %s: %s\n", entry->op, cls_last_error());
            return 0;
        }
        family->spec = *cls_operator_spec(family->op);
    }
    entry->shape(&family->spec);
    return 1;
}

void cls_cross_family_free(cls_cross_family *family)
{
    cls_operator_release(family->op);
    family->op = NULL;
}
