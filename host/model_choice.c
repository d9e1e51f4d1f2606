/* model_choice.c — the analytic models applied to a spec on a device (cls_model_choose): a build
 * under the policy gives the kernel's registers and local memory, Algorithm 2 (device-db/
 * configure.c) the work-group shape, and the ISP gain (device-db/isp_model.c), from the naive
 * and isp-block builds at that shape, the partition. */
#include "host.h"

#include "error.h"
#include "generator.h"
#include "models.h"

#include <string.h>

/* The policy's filter for spec with the given partition and shape (0 x 0: the spec's). */
static cls_status build(cls_context *context, const cls_spec *spec, cls_partition partition, unsigned width,
                        unsigned height, cls_filter **filter)
{
    cls_spec s = *spec;
    s.partition = partition;
    if (width) s.group_width = width, s.group_height = height;
    return cls_filter_create_by_policy(context, &s, filter);
}

static unsigned registers_of(const cls_filter *filter)
{
    cls_build_info info;
    cls_filter_build_info(filter, &info);
    return info.registers;
}

cls_status cls_model_choose(cls_context *context, const cls_spec *spec, unsigned width, unsigned height,
                            cls_tuning *choice)
{
    if (!context || !spec || !choice || !width || !height)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "cls_model_choose: an argument is NULL or the size is empty");
    const cls_partition partition = spec->partition == CLS_PARTITION_AUTO ? CLS_PARTITION_ISP_BLOCK : spec->partition;
    cls_filter *first = NULL;
    cls_status status = build(context, spec, partition, 0, 0, &first);
    if (status != CLS_OK) return status;
    const cls_spec *resolved = cls_filter_spec(first);
    memset(choice, 0, sizeof *choice);
    cls_filter_outputs_per_item(first, &choice->rows_per_item, &choice->cols_per_item);
    choice->input_path = resolved->input_path;
    cls_filter_group_shape(first, &choice->group_width, &choice->group_height);
    choice->partition = partition;
    choice->width = width;
    choice->height = height;
    cls_build_info info;
    cls_filter_build_info(first, &info);
    cls_config_request request = {
        .record = &context->record,
        .usage = {info.registers, (unsigned)info.local_mem_size},
        .max_group_items = context->caps.max_work_group_size,
        .max_item_sizes = {context->caps.max_work_item_sizes[0], context->caps.max_work_item_sizes[1]},
        .max_local_bytes = context->caps.local_mem_size,
        .border_handling = spec->border != CLS_BORDER_UNDEFINED,
        .geometry = {width, height, 0, 0, width, height, resolved->mask_width, resolved->mask_height, 0, 0},
        .rows_per_item = choice->rows_per_item,
        .cols_per_item = choice->cols_per_item,
        .compute_units = context->caps.compute_units,
    };
    cls_filter_release(first);
    if (!spec->group_width && !spec->group_height) {
        cls_config_result result;
        if (cls_configure(&request, &result) == CLS_OK) {
            choice->group_width = result.candidates[result.chosen].group_width;
            choice->group_height = result.candidates[result.chosen].group_height;
            cls_config_result_free(&result);
        }
    }
    if (spec->partition != CLS_PARTITION_AUTO) return CLS_OK;
    /* naive against isp-block at the chosen shape, from both builds' registers */
    cls_filter *naive = NULL, *isp = NULL;
    status = build(context, spec, CLS_PARTITION_NAIVE, choice->group_width, choice->group_height, &naive);
    if (status == CLS_OK)
        status = build(context, spec, CLS_PARTITION_ISP_BLOCK, choice->group_width, choice->group_height, &isp);
    if (status == CLS_OK) {
        cls_isp_request isp_request = {
            .record = &context->record,
            .geometry = request.geometry,
            .rows_per_item = choice->rows_per_item,
            .cols_per_item = choice->cols_per_item,
            .naive_registers = registers_of(naive),
            .isp_registers = registers_of(isp),
            .local_bytes = request.usage.local_bytes,
        };
        isp_request.geometry.group_width = choice->group_width;
        isp_request.geometry.group_height = choice->group_height;
        cls_isp_costs_default(spec->border, request.geometry.mask_width, &isp_request.costs);
        cls_isp_prediction prediction;
        if (cls_isp_predict(&isp_request, &prediction) == CLS_OK) choice->partition = prediction.choice;
    }
    cls_filter_release(naive);
    cls_filter_release(isp);
    return status;
}
