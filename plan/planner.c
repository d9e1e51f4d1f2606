/* planner.c — `auto`'s order (planner.h): the tuning results for the spec's expected size, else
 * the analytic models (models.c) where the record uses them, else the record's policy; and the
 * lookups each of them makes (a tuned result, an ISP calibration) in the planner's table. */
#include "planner.h"

#include <string.h>

const char *cls_plan_arch(const cls_planner *planner)
{
    return planner->caps->arch[0] ? planner->caps->arch : planner->record->id;
}

cls_kernel_policy cls_plan_kernel_policy(const cls_planner *planner)
{
    const cls_arch_record *record = planner->record;
    cls_kernel_policy policy = cls_kernel_policy_default();
    policy.simd_width = planner->caps->simd_width ? planner->caps->simd_width : record->simd_width;
    policy.compute_units = planner->caps->compute_units;
    if (record->type == CLS_DEVICE_GPU)
        policy.resident_items = (unsigned long)planner->caps->compute_units * record->max_threads_per_cu;
    policy.rows = record->default_rows;
    policy.group_width = record->default_wg_x;
    policy.group_height = record->default_wg_y;
    if (record->unroll_limit) policy.limits.unroll_limit = record->unroll_limit;
    if (record->register_cap) policy.limits.register_cap = record->register_cap;
    policy.limits.border_groups_fold_fully = record->border_groups_fold_fully;
    policy.limits.rank_network_taps = record->rank_network_taps;
    if (record->block_budget) policy.block_budget = record->block_budget;
    if (record->stream_rows) policy.stream_rows = record->stream_rows;
    if (record->stream_cols) policy.stream_cols = record->stream_cols;
    if (record->stream_below_rows) policy.stream_below_rows = record->stream_below_rows;
    policy.stream_min_taps = record->stream_min_taps;
    policy.separate_min_taps = record->separate_min_taps;
    policy.single_pass_min_taps = record->single_pass_min_taps;
    policy.single_pass_rows = record->single_pass_rows;
    policy.single_pass_cols = record->single_pass_cols;
    policy.limits.single_pass_ahead = record->single_pass_ahead;
    policy.limits.inline_ptx = record->inline_ptx;
    policy.limits.rank_minmax = record->rank_minmax;
    policy.limits.rank_register_cap = record->rank_register_cap;
    policy.limits.volume_y_first = record->volume_y_first;
    policy.limits.volume_block_rows = record->volume_block_rows;
    policy.limits.volume_lane_rows = record->volume_lane_rows;
    policy.single_pass_stages_rows = record->single_pass_stages_rows;
    policy.single_pass_tall_mask = record->single_pass_tall_mask;
    if (record->volume_slices) policy.volume_slices = record->volume_slices;
    policy.volume_columns = record->volume_columns;
    policy.rank_columns = record->rank_columns;
    policy.volume_deep_slices = record->volume_deep_slices;
    policy.volume_pass_slices = record->volume_pass_slices;
    policy.wide_block_max_taps = record->wide_block_max_taps;
    policy.volume_fft_min_taps = record->volume_fft_min_taps;
    policy.body_lanes = record->body_lanes;
    policy.row_body_lanes = record->row_body_lanes;
    policy.fft_min_taps = record->fft_min_taps;
    policy.low_rank_min_taps = record->low_rank_min_taps;
    return policy;
}

unsigned cls_plan_body_lanes(const cls_planner *planner, const cls_spec *spec)
{
    cls_request request;
    if (cls_request_init(&request, spec) != CLS_OK) return 1;
    const cls_kernel_policy policy = cls_plan_kernel_policy(planner);
    const unsigned lanes = cls_policy_body_lanes(&policy, &request);
    cls_request_free(&request);
    return lanes;
}

cls_status cls_plan_configure(const cls_planner *planner, const cls_request *request, cls_kernel_config *config)
{
    cls_kernel_policy policy = cls_plan_kernel_policy(planner);
    for (;; policy.rows /= 2) {
        cls_status status = cls_policy_configure(&policy, request, config);
        if (status == CLS_OK && cls_kernel_stages_input_rows(config) && request->spec.input_path == CLS_INPUT_AUTO &&
            cls_kernel_local_bytes(config) > planner->caps->local_mem_size) {
            cls_kernel_config_free(config); /* the staged rows' tiles do not fit: the single pass streams */
            policy.single_pass_stages_rows = 0;
            status = cls_policy_configure(&policy, request, config);
        }
        if (status == CLS_OK && config->tile_buffers > 1 && cls_kernel_local_bytes(config) > planner->caps->local_mem_size)
            config->tile_buffers = 1; /* one slice tile where two do not fit */
        if (status != CLS_OK || request->spec.rows_per_item || policy.rows <= 1 ||
            cls_kernel_local_bytes(config) <= planner->caps->local_mem_size)
            return status;
        cls_kernel_config_free(config);
    }
}

cls_status cls_plan_policy(const cls_planner *planner, const cls_spec *spec, cls_kernel_config *config)
{
    cls_request request;
    cls_status status = cls_request_init(&request, spec);
    if (status == CLS_OK) status = cls_plan_configure(planner, &request, config);
    else memset(config, 0, sizeof *config);
    cls_request_free(&request);
    return status;
}

int cls_plan_tuned_for(const cls_planner *planner, const cls_request *request, unsigned width, unsigned height,
                       cls_tuning *tuning)
{
    char hash[17];
    if (cls_operator_hash_of(&request->spec, request->masks, request->values, hash) != CLS_OK) return 0;
    int exact = 0;
    const unsigned size_class = cls_tuning_size_class(width, height, request->volume ? request->spec.expected_depth : 0);
    const cls_tuning_entry *entry = cls_tuning_table_find(planner->tuning, cls_plan_arch(planner), hash, size_class, &exact);
    /* a volume's result serves its own size class only: the slices a walk covers set how many
     * groups run, so another class's is no guide (a 512^3 result's 32x16 groups walking 128
     * slices would leave a 128^3 volume 32 groups) */
    if (!entry || entry->calibrated || (request->volume && !exact)) return 0;
    *tuning = entry->tuning;
    return 1;
}

int cls_plan_tuned(const cls_planner *planner, const cls_spec *spec, unsigned width, unsigned height,
                   cls_tuning *tuning)
{
    cls_request request;
    const int found = cls_request_init(&request, spec) == CLS_OK && cls_plan_tuned_for(planner, &request, width, height, tuning);
    cls_request_free(&request);
    return found;
}

int cls_plan_calibration(const cls_planner *planner, cls_border border, double *check_per_load)
{
    char hash[17];
    cls_isp_calibration_hash(border, hash);
    const cls_tuning_entry *entry = cls_tuning_table_find(planner->tuning, cls_plan_arch(planner), hash, 0, NULL);
    if (!entry || !entry->calibrated) return 0;
    *check_per_load = entry->isp_check;
    return 1;
}

int cls_plan_choice(const cls_planner *planner, const cls_request *request, cls_tuning *choice)
{
    const cls_spec *spec = &request->spec;
    if (request->volume) /* tuning results only: the models describe 2-D kernels */
        return (!spec->group_width || !spec->rows_per_item) &&
               cls_plan_tuned_for(planner, request, spec->expected_width, spec->expected_height, choice);
    if (spec->partition != CLS_PARTITION_AUTO && spec->input_path != CLS_INPUT_AUTO && spec->group_width &&
        spec->group_height && spec->rows_per_item && spec->cols_per_item)
        return 0;
    if (cls_plan_tuned_for(planner, request, spec->expected_width, spec->expected_height, choice)) return 1;
    return planner->record->use_models && spec->expected_width && spec->expected_height &&
           cls_plan_models_for(planner, request, spec->expected_width, spec->expected_height, choice) == CLS_OK;
}

cls_spec cls_plan_apply(const cls_spec *spec, const cls_tuning *t)
{
    cls_spec chosen = *spec;
    if (cls_spec_is_volume(spec)) { /* the group and the slices a work-item walks; the form stays the policy's */
        if (!spec->group_width && !spec->group_height) chosen.group_width = t->group_width, chosen.group_height = t->group_height;
        if (!spec->rows_per_item) chosen.rows_per_item = t->rows_per_item;
        return chosen;
    }
    if (spec->partition == CLS_PARTITION_AUTO) chosen.partition = t->partition;
    /* half images are not read through the image path (image_input.c): a choice of it, made for
     * another pixel type, reads the buffer */
    if (spec->input_path == CLS_INPUT_AUTO)
        chosen.input_path = spec->input_type == CLS_PIXEL_F16 && t->input_path == CLS_INPUT_IMAGE ? CLS_INPUT_GLOBAL
                                                                                                 : t->input_path;
    if (!spec->group_width && !spec->group_height) chosen.group_width = t->group_width, chosen.group_height = t->group_height;
    if (!spec->rows_per_item) chosen.rows_per_item = t->rows_per_item;
    if (!spec->cols_per_item) chosen.cols_per_item = t->cols_per_item;
    return chosen;
}

cls_status cls_plan_candidates(const cls_planner *planner, const cls_spec *spec, cls_spec candidates[2], unsigned *count)
{
    *count = 0;
    cls_request request;
    const cls_status status = cls_request_init(&request, spec);
    if (status == CLS_OK) {
        cls_tuning choice = {CLS_TUNING_INIT};
        if (cls_plan_choice(planner, &request, &choice)) candidates[(*count)++] = cls_plan_apply(&request.spec, &choice);
        candidates[(*count)++] = request.spec;
    }
    cls_request_free(&request);
    return status;
}
