/* separable.c — splitting a rank-1 mask into a row and a column vector (separable variants), and
 * a volume's into a vector an axis. */
#include "generator.h"

#include "error.h"

#include <math.h>
#include <stdlib.h>

cls_status cls_mask_separate(const float *mask, unsigned width, unsigned height, float *row, float *column)
{
    if (!mask || !row || !column || width == 0 || height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "mask, row or column is NULL, or the mask is empty");
    /* Through the largest coefficient: row = its mask row, column = its mask column / it. */
    unsigned pi = 0, pj = 0;
    float largest = 0.0f;
    for (unsigned j = 0; j < height; ++j)
        for (unsigned i = 0; i < width; ++i)
            if (fabsf(mask[j * width + i]) > largest) largest = fabsf(mask[j * width + i]), pi = i, pj = j;
    const float pivot = mask[pj * width + pi];
    for (unsigned i = 0; i < width; ++i) row[i] = mask[pj * width + i];
    for (unsigned j = 0; j < height; ++j) column[j] = pivot != 0.0f ? mask[j * width + pi] / pivot : 0.0f;
    double worst = 0.0;
    unsigned wi = 0, wj = 0;
    for (unsigned j = 0; j < height; ++j)
        for (unsigned i = 0; i < width; ++i) {
            const double residual = fabs((double)mask[j * width + i] - (double)column[j] * row[i]);
            if (residual > worst) worst = residual, wi = i, wj = j;
        }
    if (worst > (double)CLS_SEPARABLE_TOLERANCE * largest)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the %ux%u mask is not separable: at column %u, row %u it differs from column x row by %g "
                        "(tolerance %g of the largest coefficient %g)",
                        width, height, wi, wj, worst, (double)CLS_SEPARABLE_TOLERANCE, (double)largest);
    return CLS_OK;
}

cls_status cls_mask_separate3d(const float *mask, unsigned width, unsigned height, unsigned depth, float *x, float *y,
                                float *z)
{
    /* slices as rows of a (width * height) x depth mask: the slice through the pivot and z; then
     * that slice as a width x height mask: x and y */
    float *slice = malloc(sizeof(float) * width * height);
    if (!slice) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    cls_status status = cls_mask_separate(mask, width * height, depth, slice, z);
    if (status == CLS_OK) status = cls_mask_separate(slice, width, height, x, y);
    free(slice);
    return status;
}

cls_status cls_mask_is_separable3d(const float *mask, unsigned width, unsigned height, unsigned depth)
{
    float *x = malloc(sizeof(float) * width), *y = malloc(sizeof(float) * height), *z = malloc(sizeof(float) * depth);
    const cls_status status = x && y && z ? cls_mask_separate3d(mask, width, height, depth, x, y, z)
                                          : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    free(x), free(y), free(z);
    return status;
}

void cls_two_pass_specs(const cls_kernel_config *config, cls_spec *row_pass, cls_spec *column_pass)
{
    const cls_spec *s = &config->spec;
    cls_spec common = *s;
    common.separable = CLS_SEPARABLE_NONE;
    common.row_coefficients = common.column_coefficients = NULL;
    common.mask_count = 1;
    *row_pass = cls_spec_along(&common, CLS_AXIS_X);
    row_pass->mask_height = 1;
    row_pass->coefficients = config->row;
    row_pass->output_type = CLS_PIXEL_F32;
    *column_pass = cls_spec_along(&common, CLS_AXIS_Y);
    column_pass->mask_width = 1;
    column_pass->coefficients = config->column;
    column_pass->input_type = CLS_PIXEL_F32;
    /* In the 2-D definition an outside row contributes k to every tap of its mask row: the row
     * sum of such a row is k * sum(row), the column pass's border value. */
    float row_sum = 0.0f;
    for (unsigned i = 0; i < s->mask_width; ++i) row_sum += config->row[i];
    column_pass->border_value = s->border_value * row_sum;
}
