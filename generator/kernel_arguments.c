/* kernel_arguments.c — the generated kernel's arguments: their order, OpenCL C declarations and
 * the indices of the ones that follow the fixed list (cls_kernel_argument). */
#include "generator.h"

static const char *const declarations[CLS_ARGUMENT_FIXED_COUNT] = {
    [CLS_ARGUMENT_INPUT] = "__global const input_t *restrict input",
    [CLS_ARGUMENT_INPUT_OFFSET] = "const int input_offset",
    [CLS_ARGUMENT_INPUT_PITCH] = "const int input_pitch",
    [CLS_ARGUMENT_OUTPUT] = "__global output_t *restrict output",
    [CLS_ARGUMENT_OUTPUT_OFFSET] = "const int output_offset",
    [CLS_ARGUMENT_OUTPUT_PITCH] = "const int output_pitch",
    [CLS_ARGUMENT_WIDTH] = "const int width",
    [CLS_ARGUMENT_HEIGHT] = "const int height",
    [CLS_ARGUMENT_ROI] = "const int4 roi",
    [CLS_ARGUMENT_MASK] = "__constant float *restrict mask",
    [CLS_ARGUMENT_BORDER_VALUE] = "const float border_value",
    [CLS_ARGUMENT_GROUP_BOUNDS] = "const int4 group_bounds",
    [CLS_ARGUMENT_BODY_COLUMNS] = "const int2 body_columns",
};

const char *cls_kernel_argument_declaration(const cls_kernel_config *config, cls_kernel_argument argument)
{
    if (argument == CLS_ARGUMENT_INPUT && config->input_path == CLS_INPUT_IMAGE) return "__read_only image2d_t input";
    return declarations[argument];
}

unsigned cls_kernel_output_argument(const cls_kernel_config *config, unsigned k)
{
    (void)config;
    return k ? CLS_ARGUMENT_FIXED_COUNT + k - 1 : CLS_ARGUMENT_OUTPUT;
}

unsigned cls_kernel_coefficients_argument(const cls_kernel_config *config)
{
    return CLS_ARGUMENT_FIXED_COUNT + cls_kernel_outputs(config) - 1;
}
