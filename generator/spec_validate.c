/* spec_validate.c — the rules of a local-operator spec (cls_spec_validate): mask sides and values,
 * coefficient storage, variants and what they cannot combine with, epilogues, operator bodies
 * (body_check.c) and staged bodies (staged_body.c). */
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

/* The border mode of every axis: a cls_border value (border_y and border_z: or CLS_BORDER_SAME),
 * the undefined mode on every axis or on none, a finite value for a constant axis. */
static cls_status check_borders(const cls_spec *spec)
{
    static const char *const fields[3] = {"border", "border_y", "border_z"};
    const cls_border modes[3] = {spec->border, spec->border_y, spec->border_z};
    for (int axis = 0; axis < 3; ++axis)
        if (!(modes[axis] >= CLS_BORDER_UNDEFINED && modes[axis] <= CLS_BORDER_CONSTANT) &&
            !(axis && modes[axis] == CLS_BORDER_SAME))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s %d is not a cls_border value", fields[axis], (int)modes[axis]);
    const int undefined = spec->border == CLS_BORDER_UNDEFINED;
    for (cls_axis axis = CLS_AXIS_Y; axis <= CLS_AXIS_Z; ++axis)
        if ((cls_spec_border_on(spec, axis) == CLS_BORDER_UNDEFINED) != undefined)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "border %s along x and %s along %s: the undefined border "
                            "(border pixels unwritten) takes every axis or none",
                            cls_border_name(spec->border), cls_border_name(cls_spec_border_on(spec, axis)),
                            axis == CLS_AXIS_Y ? "y" : "z");
    if (cls_spec_border_any(spec, CLS_BORDER_CONSTANT) && !isfinite(spec->border_value))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "constant border value is not finite (%g)",
                        (double)spec->border_value);
    return CLS_OK;
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

int cls_volume_slices_valid(unsigned slices)
{
    return cls_rows_per_item_valid(slices) || slices == 256 || slices == 512;
}

int cls_cols_per_item_valid(unsigned cols)
{
    return cols == 1 || cols == 2 || cols == 4 || cols == 8;
}

int cls_volume_cols_per_item_valid(unsigned cols)
{
    return cols == 1 || cols == 4 || cols == 8;
}

static cls_status check_mask_side(const char *what, unsigned size)
{
    if (size == 0 || size > CLS_MAX_MASK || size % 2 == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "mask %s %u is invalid: it must be odd and between 1 and %d", what, size,
                        CLS_MAX_MASK);
    return CLS_OK;
}

/* A volume's mask (mask_depth 1 or more) is one built-in weighted sum walked down z or by FFT, or
 * a pass an axis where it separates (two-pass), or a user-written body run for every voxel: what
 * it does not take is named. */
static cls_status check_volume(const cls_spec *spec, unsigned masks)
{
    const unsigned depth = spec->mask_depth;
    if ((unsigned)spec->reduction > CLS_REDUCTION_RANK)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "reduction %d is not a cls_reduction value", (int)spec->reduction);
    if (!depth && spec->reduction != CLS_REDUCTION_SUM)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a minimum, maximum or rank reduction takes a volume's mask "
                        "(mask_depth): 2-D images have the min:, max:, median: and percentile: operators");
    if (!depth) return CLS_OK;
    if (spec->reduction == CLS_REDUCTION_RANK) {
        size_t taps = 0;
        for (size_t k = 0, n = (size_t)spec->mask_width * spec->mask_height * depth; spec->coefficients && k < n; ++k)
            taps += spec->coefficients[k] != 0.0f;
        if (taps > CLS_RANK_MAX_TAPS)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a rank over %zu taps: a volume's rank takes at most %d (each "
                            "work-item holds them in private memory)", taps, CLS_RANK_MAX_TAPS);
        if (spec->rank >= taps)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "rank %u of a footprint of %zu taps: ranks go from 0 to %zu",
                            spec->rank, taps, taps ? taps - 1 : 0);
        if (spec->separable == CLS_SEPARABLE_TWO_PASS || spec->separable == CLS_SEPARABLE_SINGLE_PASS)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a rank does not separate into a pass an axis");
    }
    if (spec->method == CLS_METHOD_FFT && !spec->body && spec->reduction != CLS_REDUCTION_SUM)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the fft method computes a weighted sum: a volume's minimum, "
                        "maximum or rank runs direct");
    /* what neither a volume's sum nor its body takes */
    const char *refused = spec->method == CLS_METHOD_FFT && spec->body ? "the FFT method"
                          : spec->input_path == CLS_INPUT_IMAGE ? "the image input path"
                          : spec->input_path == CLS_INPUT_LOCAL && spec->cols_per_item <= 1
                              ? "the local input path with one column per work-item (the slice's tile: 4 or 8)"
                          : spec->cols_per_item > 1 && spec->body ? "several columns per work-item"
                          : spec->reduction == CLS_REDUCTION_RANK && spec->cols_per_item > 2
                              ? "more than 2 columns per work-item for a rank (a box's sorted slices take 2)"
                          : spec->reduction != CLS_REDUCTION_RANK && spec->cols_per_item > 1 &&
                                    !cls_volume_cols_per_item_valid(spec->cols_per_item)
                              ? "2 columns per work-item (1, 4 or 8: columns come from the slice's tile in float4s)"
                              : NULL;
    if (spec->body) {
        const int separated = spec->separable == CLS_SEPARABLE_TWO_PASS || spec->separable == CLS_SEPARABLE_SINGLE_PASS ||
                              spec->separable == CLS_SEPARABLE_LOW_RANK;
        if (!refused)
            refused = spec->reduction != CLS_REDUCTION_SUM ? "a minimum, maximum or rank reduction"
                      : cls_body_is_staged(spec->body)      ? "stages (#stage)"
                      : separated                           ? "separation"
                                                            : NULL;
        if (refused)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a volume's operator body (depth %u) runs once per voxel: it "
                            "does not take %s", depth, refused);
        return cls_body_check_volume(spec->body, spec->mask_width, spec->mask_height, depth);
    }
    /* the lanes walk (emit_volume_lanes.c) */
    const int lanes = spec->separable == CLS_SEPARABLE_SINGLE_PASS && spec->input_path == CLS_INPUT_GLOBAL;
    if (!refused)
        refused = spec->epilogue           ? "an epilogue"
                  : masks > 1              ? "several masks"
                  : spec->row_coefficients ? "row and column vectors (give the whole mask)"
                  : spec->separable == CLS_SEPARABLE_LOW_RANK ? "low-rank separation"
                  : spec->separable == CLS_SEPARABLE_SINGLE_PASS && spec->cols_per_item == 1
                      ? "a single pass of one column per work-item (it reads the slice's tile: 4 or 8 columns)"
                  : lanes && spec->reduction != CLS_REDUCTION_SUM
                      ? "a minimum's or maximum's single pass on the global input path (the lanes walk sums; the "
                        "slice's tile, the local path, takes them)"
                  : lanes && spec->mask_width > CLS_VOLUME_LANES_MAX_WIDTH
                      ? "a single pass on the global input path over a mask wider than 9 (the lane beside a "
                        "work-item holds 4 columns of its halo; the slice's tile, the local path, takes it)"
                  : lanes && spec->cols_per_item && spec->cols_per_item != 4
                      ? "a single pass on the global input path of other than 4 columns per work-item (one vector a row)"
                  : lanes && spec->group_width % CLS_VOLUME_LANES
                      ? "a single pass on the global input path in groups whose width is not a multiple of 32 (a "
                        "warp's lanes share a row)"
                  : spec->separable == CLS_SEPARABLE_TWO_PASS && spec->border == CLS_BORDER_UNDEFINED
                      ? "passes in the undefined border mode"
                  : spec->fold_equal_taps ? "tap folding"
                                          : NULL;
    if (refused)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a volume mask (depth %u) is one weighted sum walked down z: it does "
                        "not take %s", depth, refused);
    if (spec->separable != CLS_SEPARABLE_TWO_PASS && spec->separable != CLS_SEPARABLE_SINGLE_PASS) return CLS_OK;
    return cls_mask_is_separable3d(spec->coefficients, spec->mask_width, spec->mask_height, depth);
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

/* Whether a 2-D spec asks for the single pass that stages its group's input rows (the local path). */
static int single_pass_stages_rows(const cls_spec *spec)
{
    return spec->separable == CLS_SEPARABLE_SINGLE_PASS && spec->input_path == CLS_INPUT_LOCAL;
}

static cls_status check_separable(const cls_spec *spec, unsigned masks)
{
    if (cls_spec_is_volume(spec)) return CLS_OK; /* check_volume's */
    if (spec->separable == CLS_SEPARABLE_LOW_RANK && (spec->body || masks > 1 || spec->epilogue))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable low-rank needs the built-in weighted sum of one mask (no body, mask count or epilogue)");
    if (spec->separable == CLS_SEPARABLE_LOW_RANK) return check_low_rank(spec);
    if (spec->separable != CLS_SEPARABLE_SINGLE_PASS && spec->separable != CLS_SEPARABLE_TWO_PASS) return CLS_OK;
    const char *name = cls_separable_name(spec->separable);
    if (spec->body || masks > 1 || spec->epilogue)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable %s needs the built-in weighted sum of one mask (no body, mask count or epilogue)", name);
    const int staged_rows = single_pass_stages_rows(spec);
    if (staged_rows && ((spec->rows_per_item && spec->rows_per_item < CLS_STREAM_MIN_ROWS) ||
                        (spec->cols_per_item && spec->cols_per_item != 4) || spec->group_height > 1 ||
                        spec->border == CLS_BORDER_UNDEFINED))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable single-pass on the local input path stages the group's input rows: it streams "
                        "%u rows or more, 4 columns a work-item, in groups of one row, in a border mode other than "
                        "undefined", CLS_STREAM_MIN_ROWS);
    if (spec->separable == CLS_SEPARABLE_SINGLE_PASS &&
        ((!staged_rows && spec->cols_per_item > 1 && spec->rows_per_item < CLS_STREAM_MIN_ROWS) ||
         spec->input_path == CLS_INPUT_IMAGE || spec->fold_equal_taps))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "separable single-pass computes its own row sums: it takes no image input path and no tap "
                        "folding, and several columns per work-item only where it streams (%u rows or more)",
                        CLS_STREAM_MIN_ROWS);
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

/* Double-precision pixels (F64 on either side): the kernels that compute in double are the plain
 * weighted sums (emit_sum.c with a double accumulator); every other form computes in float. */
static cls_status check_double(const cls_spec *spec)
{
    if (!cls_spec_in_double(spec)) return CLS_OK;
    const char *why = spec->body                                          ? "an operator body"
                      : (spec->mask_count > 1 || spec->epilogue)          ? "several masks or an epilogue"
                      : cls_spec_is_volume(spec)                          ? "a volume's mask"
                      : spec->method == CLS_METHOD_FFT                    ? "the FFT method"
                      : (spec->separable != CLS_SEPARABLE_NONE && spec->separable != CLS_SEPARABLE_AUTO)
                          ? "a separable or low-rank form"
                      : (spec->input_path != CLS_INPUT_GLOBAL && spec->input_path != CLS_INPUT_AUTO)
                          ? "the local or image input path"
                      : (spec->rows_per_item > 1 || spec->cols_per_item > 1) ? "several outputs per work-item"
                                                                               : NULL;
    if (!why) return CLS_OK;
    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "f64 pixels compute in double only as one built-in weighted sum, "
                    "direct, from global memory, one output per work-item: not with %s", why);
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
    if (spec->mask_depth > CLS_MAX_MASK_DEPTH || (spec->mask_depth && spec->mask_depth % 2 == 0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "mask depth %u is invalid: it must be odd and between 1 and %d",
                        spec->mask_depth, CLS_MAX_MASK_DEPTH);
    const unsigned depth = cls_mask_depth(spec);
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
        status = check_finite("mask coefficient", spec->coefficients, spec->mask_width, spec->mask_height,
                              masks * depth);
        if (status != CLS_OK) return status;
    }
    if ((status = check_borders(spec)) != CLS_OK) return status;
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
    if ((unsigned)spec->input_type > CLS_PIXEL_F64 || (unsigned)spec->output_type > CLS_PIXEL_F64)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pixel type is not a cls_pixel_type value");
    if ((status = check_double(spec)) != CLS_OK) return status;
    if (spec->rows_per_item && cls_spec_is_volume(spec) && !cls_volume_slices_valid(spec->rows_per_item))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "slices per work-item %u is not 1 to 8, 16, 32, 64, 128, 256 or 512",
                        spec->rows_per_item);
    if (spec->rows_per_item && !cls_spec_is_volume(spec) && !cls_rows_per_item_valid(spec->rows_per_item))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "rows per work-item %u is not 1 to 8, 16, 32, 64 or 128",
                        spec->rows_per_item);
    if (spec->rows_per_item >= CLS_STREAM_MIN_ROWS && !cls_spec_is_volume(spec) &&
        ((spec->input_path == CLS_INPUT_LOCAL && !single_pass_stages_rows(spec)) || spec->input_path == CLS_INPUT_IMAGE ||
         spec->fold_equal_taps || spec->separable == CLS_SEPARABLE_TWO_PASS || spec->separable == CLS_SEPARABLE_LOW_RANK))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "%u rows per work-item stream the window through registers: they read the global "
                        "input, unseparated or in a single pass (which may stage its rows in local memory), without "
                        "tap folding",
                        spec->rows_per_item);
    if (spec->cols_per_item && !cls_cols_per_item_valid(spec->cols_per_item))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "columns per work-item %u is not 1, 2, 4 or 8", spec->cols_per_item);
    if ((status = check_volume(spec, masks)) != CLS_OK) return status;
    if ((spec->rows_per_item > 1 || spec->cols_per_item > 1) && spec->border == CLS_BORDER_UNDEFINED &&
        !cls_spec_is_volume(spec))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "several rows or columns per work-item need a border mode other than undefined");
    if (spec->rows_per_item >= CLS_STREAM_MIN_ROWS && spec->body && !cls_spec_is_volume(spec))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%u rows per work-item stream a weighted sum: an operator body "
                                                  "takes 1 to 8", spec->rows_per_item);
    if (spec->body && !cls_spec_is_volume(spec) &&
        (status = cls_body_is_staged(spec->body) ? cls_staged_body_check(spec)
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
        (spec->separable == CLS_SEPARABLE_TWO_PASS || spec->separable == CLS_SEPARABLE_LOW_RANK))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "separable passes take their vectors as literals or from the buffer, "
                                                  "not as a kernel argument (the single pass does)");
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
