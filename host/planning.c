/* planning.c — the public entry points of the models, cls_model_choose and cls_isp_calibrate,
 * over the context's planner (cls_context_planner, build_goals.c). */
#include "host.h"

#include "error.h"
#include "struct_size.h"

#include <stdio.h>

cls_status cls_model_choose(cls_context *context, const cls_spec *spec, unsigned width, unsigned height,
                            cls_tuning *choice)
{
    if (!context || !spec || !choice || !width || !height)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_model_choose: an argument is NULL or the size is empty");
    cls_spec spec_copy;
    cls_tuning chosen = {CLS_TUNING_INIT};
    cls_status status = cls_struct_check(&cls_tuning_layout, choice);
    if (status == CLS_OK) status = cls_spec_read(spec, &spec_copy);
    const cls_planner planner = cls_context_planner(context);
    if (status == CLS_OK) status = cls_plan_models(&planner, &spec_copy, width, height, &chosen);
    return status == CLS_OK ? cls_struct_write(&cls_tuning_layout, choice, &chosen) : status;
}

cls_status cls_isp_calibrate(cls_context *context, const cls_spec *caller_reference, unsigned width, unsigned height,
                             double naive_us, double isp_us, const char *label, double *check_per_load)
{
    if (!context || !caller_reference || !check_per_load || !width || !height || !(naive_us > 0.0) || !(isp_us > 0.0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_isp_calibrate: an argument is NULL, empty or not positive");
    cls_spec copy;
    cls_status status = cls_spec_read(caller_reference, &copy);
    if (status != CLS_OK) return status;
    const cls_spec *reference = &copy;
    if (reference->border == CLS_BORDER_UNDEFINED || !reference->group_width || !reference->group_height ||
        !reference->rows_per_item || !reference->cols_per_item || reference->input_path == CLS_INPUT_AUTO)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_isp_calibrate: the reference names its border (not "
                                                  "undefined), work-group shape, rows, columns and input path");
    if (reference->body)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_isp_calibrate: the reference must be a built-in weighted sum: "
                                                  "operator bodies get the ISP paper's equations, uncalibrated");
    cls_tuning measured = {CLS_TUNING_INIT,
                           .partition = naive_us < isp_us ? CLS_PARTITION_NAIVE : CLS_PARTITION_ISP_BLOCK,
                           .input_path = reference->input_path,
                           .group_width = reference->group_width, .group_height = reference->group_height,
                           .rows_per_item = reference->rows_per_item, .cols_per_item = reference->cols_per_item,
                           .kernel_us = naive_us < isp_us ? naive_us : isp_us, .width = width, .height = height};
    const cls_planner planner = cls_context_planner(context);
    status = cls_plan_isp_check(&planner, reference, &measured, naive_us / isp_us, check_per_load);
    if (status != CLS_OK) return status;
    char description[128];
    snprintf(description, sizeof description, "ISP calibration: %s %s, naive %.1f us, isp-block %.1f us",
             label ? label : "reference", cls_border_name(reference->border), naive_us, isp_us);
    return cls_isp_calibration_store(context, reference->border, &measured, *check_per_load, description);
}
