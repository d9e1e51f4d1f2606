/* spec.c — the local-operator spec: defaults, names and aliases, and validation. */
#include "body_check.h"
#include "generator.h"
#include "staged_body.h"

#include "error.h"
#include "strbuf.h"
#include "struct_size.h"

#include <math.h>
#include <stddef.h>
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
    {"f32", CLS_PIXEL_F32}, {"u8", CLS_PIXEL_U8}, {"u16", CLS_PIXEL_U16}, {"i16", CLS_PIXEL_I16}, {"f16", CLS_PIXEL_F16}};

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
    return name_of(border_names, COUNT(border_names), border);
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
    }
    return 0;
}

/* Every value of `count` width x height arrays is finite. */
static cls_status check_finite(const char *what, const float *values, unsigned width, unsigned height,
                               unsigned count)
{
    for (unsigned m = 0; m < count; ++m)
        for (unsigned j = 0; j < height; ++j)
            for (unsigned i = 0; i < width; ++i) {
                const float value = values[((size_t)m * height + j) * width + i];
                if (isfinite(value)) continue;
                if (count > 1)
                    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s at column %u, row %u of mask %u is not finite (%g)",
                                    what, i, j, m, (double)value);
                return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s at column %u, row %u is not finite (%g)", what, i, j,
                                (double)value);
            }
    return CLS_OK;
}

int cls_rows_per_item_valid(unsigned rows)
{
    return (rows >= 1 && rows <= 8) || rows == 16 || rows == 32 || rows == 64 || rows == 128;
}

int cls_cols_per_item_valid(unsigned cols)
{
    return cols == 1 || cols == 2 || cols == 4 || cols == 8;
}

static cls_status check_mask_side(const char *what, unsigned size)
{
    if (size == 0 || size > CLS_MAX_MASK || size % 2 == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "mask %s %u is invalid: it must be odd and between 1 and %d", what, size,
                        CLS_MAX_MASK);
    return CLS_OK;
}

/* An epilogue is one expression of r0..r3, pasted into a statement and into the source's header
 * comment: nothing that could end either. */
static cls_status check_epilogue(const char *epilogue)
{
    if (!epilogue) return CLS_OK;
    for (const unsigned char *p = (const unsigned char *)epilogue; *p; ++p)
        if (*p < 0x20 || *p >= 0x7f)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the epilogue must be printable ASCII (byte %u at %zu)", *p,
                            (size_t)(p - (const unsigned char *)epilogue));
    if (strpbrk(epilogue, ";{}#\"'\\") || strstr(epilogue, "/*") || strstr(epilogue, "*/") || strstr(epilogue, "//"))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the epilogue is one expression of r0..r3: no ; { } # quotes, "
                                                  "backslashes or comments");
    return CLS_OK;
}

/* What the separated variants cannot combine with. */
/* The FFT method computes one built-in weighted sum, and separable passes are the other way of
 * making a large mask cheap. */
static cls_status check_method(const cls_spec *spec, unsigned masks)
{
    if ((unsigned)spec->method > CLS_METHOD_FFT)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "method %d is not a cls_method value", (int)spec->method);
    if (spec->method != CLS_METHOD_FFT) return CLS_OK;
    if (spec->body || masks > 1 || spec->epilogue)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the fft method needs the built-in weighted sum of one mask (no body, mask count or epilogue)");
    if (spec->separable == CLS_SEPARABLE_SINGLE_PASS || spec->separable == CLS_SEPARABLE_TWO_PASS ||
        spec->separable == CLS_SEPARABLE_LOW_RANK)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the fft method and separable %s exclude each other: choose one",
                        cls_separable_name(spec->separable));
    return CLS_OK;
}

/* A low-rank mask: of rank 2 to CLS_LOW_RANK_MAX, given as coefficients. */
static cls_status check_low_rank(const cls_spec *spec)
{
    if (spec->border == CLS_BORDER_UNDEFINED)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "separable low-rank cannot leave border pixels unwritten: use a "
                                                  "border mode other than undefined");
    if (!spec->coefficients)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "separable low-rank needs the mask's coefficients");
    const unsigned w = spec->mask_width, h = spec->mask_height;
    float *rows = malloc(sizeof(float) * w * CLS_LOW_RANK_MAX), *columns = malloc(sizeof(float) * h * CLS_LOW_RANK_MAX);
    double residual = 0;
    const unsigned rank = rows && columns ? cls_mask_low_rank(spec->coefficients, w, h, rows, columns, &residual) : 0;
    free(rows);
    free(columns);
    if (!rows || !columns) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (rank == 1)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the %ux%u mask is of rank 1: use separable two-pass", w, h);
    if (rank == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the %ux%u mask is not of rank %d or less (largest residual %g, tolerance %g of the largest "
                        "coefficient)",
                        w, h, CLS_LOW_RANK_MAX, residual, (double)CLS_SEPARABLE_TOLERANCE);
    return CLS_OK;
}

static cls_status check_separable(const cls_spec *spec, unsigned masks)
{
    if (spec->separable == CLS_SEPARABLE_LOW_RANK && (spec->body || masks > 1 || spec->epilogue))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable low-rank needs the built-in weighted sum of one mask (no body, mask count or epilogue)");
    if (spec->separable == CLS_SEPARABLE_LOW_RANK) return check_low_rank(spec);
    if (spec->separable != CLS_SEPARABLE_SINGLE_PASS && spec->separable != CLS_SEPARABLE_TWO_PASS) return CLS_OK;
    const char *name = cls_separable_name(spec->separable);
    if (spec->body || masks > 1 || spec->epilogue)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable %s needs the built-in weighted sum of one mask (no body, mask count or epilogue)", name);
    if (spec->separable == CLS_SEPARABLE_SINGLE_PASS &&
        (spec->cols_per_item > 1 || spec->input_path == CLS_INPUT_LOCAL || spec->input_path == CLS_INPUT_IMAGE ||
         spec->fold_equal_taps))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable single-pass stages its own row sums: it takes no columns per work-item, "
                        "no local or image input path and no tap folding");
    if (spec->separable == CLS_SEPARABLE_TWO_PASS && spec->border == CLS_BORDER_UNDEFINED)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable two-pass cannot leave border pixels unwritten: use a border mode other than "
                        "undefined");
    if (spec->coefficients && !spec->row_coefficients) {
        float *row = malloc(sizeof(float) * spec->mask_width), *column = malloc(sizeof(float) * spec->mask_height);
        cls_status status = row && column ? cls_mask_separate(spec->coefficients, spec->mask_width, spec->mask_height,
                                                              row, column)
                                          : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
        free(row);
        free(column);
        return status;
    }
    return CLS_OK;
}

cls_status cls_spec_validate(const cls_spec *caller_spec)
{
    cls_spec copy;
    cls_status status = cls_spec_read(caller_spec, &copy);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &copy;
    status = check_mask_side("width", spec->mask_width);
    if (status == CLS_OK) status = check_mask_side("height", spec->mask_height);
    if (status != CLS_OK) return status;
    if ((spec->row_coefficients == NULL) != (spec->column_coefficients == NULL))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "give both row and column coefficients, or neither");
    const unsigned masks = spec->mask_count ? spec->mask_count : 1;
    if (masks > CLS_MAX_MASKS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "mask count %u is more than %d", masks, CLS_MAX_MASKS);
    if (spec->row_coefficients) {
        if (masks > 1)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "row and column coefficients give one mask, not %u", masks);
        status = check_finite("row coefficient", spec->row_coefficients, spec->mask_width, 1, 1);
        if (status == CLS_OK)
            status = check_finite("column coefficient", spec->column_coefficients, 1, spec->mask_height, 1);
        if (status != CLS_OK) return status;
    }
    if (!spec->coefficients && !spec->row_coefficients)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "mask coefficients are missing (NULL)");
    if (spec->coefficients) {
        status = check_finite("mask coefficient", spec->coefficients, spec->mask_width, spec->mask_height, masks);
        if (status != CLS_OK) return status;
    }
    if ((unsigned)spec->border > CLS_BORDER_CONSTANT)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "border mode %d is not a cls_border value",
                        (int)spec->border);
    if (spec->border == CLS_BORDER_CONSTANT && !isfinite(spec->border_value))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "constant border value is not finite (%g)",
                        (double)spec->border_value);
    if ((unsigned)spec->partition > CLS_PARTITION_ISP_WARP)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "partition %d is not a cls_partition value",
                        (int)spec->partition);
    if ((spec->group_width == 0) != (spec->group_height == 0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "work-group shape %ux%u: give both sides, or 0x0 for auto",
                        spec->group_width, spec->group_height);
    if ((unsigned long)spec->group_width * spec->group_height > CLS_MAX_GROUP_ITEMS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "work-group shape %ux%u has more than %d work-items",
                        spec->group_width, spec->group_height, CLS_MAX_GROUP_ITEMS);
    if ((unsigned)spec->input_type > CLS_PIXEL_F16 || (unsigned)spec->output_type > CLS_PIXEL_F16)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pixel type is not a cls_pixel_type value");
    if (spec->rows_per_item && !cls_rows_per_item_valid(spec->rows_per_item))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "rows per work-item %u is not 1 to 8, 16, 32, 64 or 128",
                        spec->rows_per_item);
    if (spec->rows_per_item >= CLS_STREAM_MIN_ROWS &&
        (spec->input_path == CLS_INPUT_LOCAL || spec->input_path == CLS_INPUT_IMAGE || spec->fold_equal_taps ||
         spec->separable == CLS_SEPARABLE_SINGLE_PASS || spec->separable == CLS_SEPARABLE_TWO_PASS ||
         spec->separable == CLS_SEPARABLE_LOW_RANK))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "%u rows per work-item stream the window through registers: they read the global "
                        "input, unseparated and without tap folding",
                        spec->rows_per_item);
    if (spec->cols_per_item && !cls_cols_per_item_valid(spec->cols_per_item))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "columns per work-item %u is not 1, 2, 4 or 8", spec->cols_per_item);
    if ((spec->rows_per_item > 1 || spec->cols_per_item > 1) && spec->border == CLS_BORDER_UNDEFINED)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "several rows or columns per work-item need a border mode other than undefined");
    if (spec->rows_per_item >= CLS_STREAM_MIN_ROWS && spec->body)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%u rows per work-item stream a weighted sum: an operator body "
                                                  "takes 1 to 8", spec->rows_per_item);
    if (spec->body && (status = cls_body_is_staged(spec->body) ? cls_staged_body_check(spec)
                                                                : cls_body_check(spec->body, spec->mask_width,
                                                                                 spec->mask_height)) != CLS_OK)
        return status;
    if ((status = check_epilogue(spec->epilogue)) != CLS_OK) return status;
    if (spec->body && (masks > 1 || spec->epilogue))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "an operator body computes its own output: no mask count or epilogue");
    if (spec->epilogue && !spec->epilogue[0])
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the epilogue is empty");
    if (spec->bake_coefficients < CLS_COEFFICIENTS_BUFFER || spec->bake_coefficients > CLS_COEFFICIENTS_ARGUMENT)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "coefficient storage %d is not 0 (buffer), 1 (literals) or 2 (kernel argument)",
                        spec->bake_coefficients);
    if (spec->fold_equal_taps && spec->bake_coefficients != CLS_COEFFICIENTS_LITERALS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "folding equal taps needs the coefficients baked as literals");
    if (spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT &&
        (spec->separable == CLS_SEPARABLE_SINGLE_PASS || spec->separable == CLS_SEPARABLE_TWO_PASS ||
         spec->separable == CLS_SEPARABLE_LOW_RANK))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable passes take their vectors as literals or from the buffer, not as a kernel argument");
    if ((unsigned)spec->input_path > CLS_INPUT_IMAGE)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "input path %d is not a cls_input_path value", (int)spec->input_path);
    if ((unsigned)spec->separable > CLS_SEPARABLE_LOW_RANK)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "separable variant %d is not a cls_separable value",
                        (int)spec->separable);
    if ((unsigned)spec->region_code > CLS_REGION_CODE_BODY_APART)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "region code %d is not a cls_region_code value", (int)spec->region_code);
    if ((unsigned)spec->build_goal > CLS_BUILD_AUTO)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "build goal %d is not a cls_build_goal value", (int)spec->build_goal);
    if ((status = check_method(spec, masks)) != CLS_OK) return status;
    return check_separable(spec, masks);
}
