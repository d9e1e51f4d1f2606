/* models.c — the analytic models applied to a spec on a device (cls_plan_models): the build under
 * the policy gives the kernel's registers and local memory (through the runtime's callback),
 * Algorithm 2 (configure.c) the work-group shape, and the ISP gain (isp_model.c), from the naive and isp-block builds at that shape, the partition (ISP as isp-warp
 * on the global path), without any build for a register-capped compute-bound sum on NVIDIA; and
 * the check cost an ISP calibration solves for. */
#include "planner.h"

#include "models.h"

#include <string.h>

/* The model's guesses at work it cannot count from the spec: an operator body's tap (a load, the
 * weight and its multiply-add: the bilateral filter's exp is most of it), and the epilogue that
 * combines several masks' sums into one output (hypot, say). In multiply-add units. */
enum { BODY_TAP_COST = 8, EPILOGUE_COST = 10 };

/* The ISP model's view of one work-item (models.h): kernel units and loaded pixels. A baked
 * mask skips its zero coefficients; a coarsened weighted sum loads each input pixel of its
 * (rows + MASK_H - 1) x (cols + MASK_W - 1) window once; an operator body loads every tap. */
static void item_work(const cls_request *r, unsigned rows, unsigned cols, double *kernel, unsigned *loads)
{
    const cls_spec *s = &r->spec;
    const unsigned taps = s->mask_width * s->mask_height;
    if (s->body || !s->coefficients) {
        *loads = taps;
        *kernel = (double)taps * BODY_TAP_COST;
        return;
    }
    *loads = (rows + s->mask_height - 1) * (cols + s->mask_width - 1);
    *kernel = (double)r->computed_taps * rows * cols + *loads + (r->masks > 1 ? (double)EPILOGUE_COST * rows * cols : 0.0);
}

/* The ISP model's request for spec (resolved) on the planner's device at the choice's shape,
 * rows and columns, from the naive and isp-block builds: with a calibration of the border mode,
 * the work as the kernels do it, checks per load at the calibrated cost and waves over the
 * compute units; without one, eqs. 3-10 as printed with the default costs. check_per_load < 0:
 * the calibration's (or none); else that cost (what cls_isp_calibrate solves for).
 * An operator body always gets eqs. 3-10 as printed: its naive kernel folds both coordinates of
 * every tap, as the paper counts, while the calibration measures a weighted sum, whose window
 * shares one fold per row and column among its loads. On an H100 the calibrated cost made
 * bilateral 13x13 in mirror101 go naive (registers 32 against 48), 4.5x slower than ISP. */
static void isp_request_for(const cls_planner *planner, const cls_request *request, const cls_tuning *choice,
                            unsigned naive_registers, unsigned isp_registers, unsigned local_bytes,
                            double check_per_load, cls_isp_request *q)
{
    const cls_spec *spec = &request->spec;
    memset(q, 0, sizeof *q);
    q->record = planner->record;
    q->geometry = (cls_launch_geometry){choice->width, choice->height, 0, 0, choice->width, choice->height,
                                        spec->mask_width, spec->mask_height, choice->group_width,
                                        choice->group_height};
    q->rows_per_item = choice->rows_per_item;
    q->cols_per_item = choice->cols_per_item;
    q->naive_registers = naive_registers;
    q->isp_registers = isp_registers;
    q->local_bytes = local_bytes;
    if (spec->body || (check_per_load < 0.0 && !cls_plan_calibration(planner, spec->border, &check_per_load))) {
        cls_isp_costs_default(spec->border, cls_spec_border_on(spec, CLS_AXIS_Y), spec->mask_width, &q->costs);
        return;
    }
    cls_isp_costs_per_load(check_per_load, &q->costs);
    item_work(request, choice->rows_per_item ? choice->rows_per_item : 1, choice->cols_per_item ? choice->cols_per_item : 1,
              &q->kernel_per_item, &q->loads_per_item);
    cls_occupancy_extras extras;
    cls_occupancy_extras_default(planner->record, &extras);
    q->compute_units = planner->caps->compute_units;
    q->latency_warps = 2.0 * extras.register_partitions; /* two warps per scheduler hide its latency */
}

/* Where ISP wins, its warp-grained refinement (the ISP paper's Sec. V-B, global input only)
 * never runs more checks than the block partition, and on an H100 it was the faster of the two
 * in 23 of 24 cases of random 9x9 and 13x13 masks from 1024^2 up (by up to 28%, with groups one
 * warp wide, where it cannot even drop a check: the kernels differ only in code placement). */
static cls_partition isp_granularity(const cls_tuning *choice, cls_partition predicted)
{
    return predicted == CLS_PARTITION_ISP_BLOCK && choice->input_path == CLS_INPUT_GLOBAL ? CLS_PARTITION_ISP_WARP
                                                                                         : predicted;
}

/* choice->partition by the ISP gain from the naive and isp-block registers (where the models do
 * not weigh occupancy, both at the ISP build's). */
static cls_status predict_partition(const cls_planner *planner, const cls_request *request, cls_tuning *choice,
                                    const unsigned registers[2], int weighs_occupancy, unsigned local_bytes)
{
    cls_isp_request isp_request;
    isp_request_for(planner, request, choice, weighs_occupancy ? registers[0] : registers[1], registers[1], local_bytes,
                    -1.0, &isp_request);
    cls_isp_prediction prediction;
    if (cls_isp_predict(&isp_request, &prediction) == CLS_OK)
        choice->partition = choice->rows_per_item >= CLS_STREAM_MIN_ROWS ? prediction.choice
                                                                          : isp_granularity(choice, prediction.choice);
    return CLS_OK;
}

int cls_plan_weighs_occupancy(const cls_request *request, unsigned rows_per_item)
{
    const cls_spec *spec = &request->spec;
    return rows_per_item < CLS_STREAM_MIN_ROWS &&
           (spec->body || !spec->coefficients || request->computed_taps < CLS_COMPUTE_BOUND_TAPS);
}

/* The naive and isp-block builds of spec at the choice's shape: their registers. */
static cls_status build_pair(const cls_planner *planner, const cls_request *request, const cls_tuning *choice,
                             unsigned registers[2])
{
    static const cls_partition partitions[2] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK};
    for (int k = 0; k < 2; ++k) {
        cls_spec s = request->spec;
        s.partition = partitions[k];
        if (choice->group_width) s.group_width = choice->group_width, s.group_height = choice->group_height;
        cls_build_facts facts;
        const cls_status status = planner->build_facts(planner->runtime, &s, &facts);
        if (status != CLS_OK) return status;
        registers[k] = facts.registers;
    }
    return CLS_OK;
}

cls_status cls_plan_models_for(const cls_planner *planner, const cls_request *request, unsigned width,
                               unsigned height, cls_tuning *choice)
{
    const cls_spec *spec = &request->spec;
    const cls_partition partition = spec->partition == CLS_PARTITION_AUTO ? CLS_PARTITION_ISP_BLOCK : spec->partition;
    /* A register-capped kernel whose occupancy the models do not weigh (a compute-bound weighted
     * sum: below) needs no probe build: its shape is the policy's, and both of eq. 10's builds
     * count at the cap, which NVIDIA's build gives it. Its probes were the longest builds of a cold
     * specialized filter (random 9x9 and 13x13 masks on an H100: about 90 of 200 s). */
    unsigned capped = 0;
    if (planner->caps->vendor == CLS_VENDOR_NVIDIA) {
        cls_request probe = *request;
        probe.spec.partition = partition;
        cls_kernel_config config;
        if (cls_plan_configure(planner, &probe, &config) == CLS_OK) {
            if (!cls_plan_weighs_occupancy(request, config.rows) && config.separable == CLS_SEPARABLE_NONE)
                capped = cls_kernel_register_cap(&config);
            if (capped)
                *choice = (cls_tuning){CLS_TUNING_INIT, .partition = partition, .input_path = config.input_path,
                                       .group_width = config.group_width, .group_height = config.group_height,
                                       .rows_per_item = config.rows, .cols_per_item = config.cols,
                                       .width = width, .height = height};
            cls_kernel_config_free(&config);
        }
    }
    if (capped) {
        const unsigned registers[2] = {capped, capped};
        return spec->partition != CLS_PARTITION_AUTO ? CLS_OK : predict_partition(planner, request, choice, registers, 0, 0);
    }
    cls_spec first = request->spec;
    first.partition = partition;
    cls_build_facts facts;
    cls_status status = planner->build_facts(planner->runtime, &first, &facts);
    if (status != CLS_OK) return status;
    *choice = (cls_tuning){CLS_TUNING_INIT, .partition = partition, .input_path = facts.input_path,
                           .group_width = facts.group_width, .group_height = facts.group_height,
                           .rows_per_item = facts.rows, .cols_per_item = facts.cols, .width = width, .height = height};
    cls_config_request shape_request = {
        .record = planner->record,
        .usage = {facts.registers, facts.local_bytes},
        .max_group_items = planner->caps->max_work_group_size,
        .max_item_sizes = {planner->caps->max_work_item_sizes[0], planner->caps->max_work_item_sizes[1]},
        .max_local_bytes = planner->caps->local_mem_size,
        .border_handling = spec->border != CLS_BORDER_UNDEFINED,
        .geometry = {width, height, 0, 0, width, height, spec->mask_width, spec->mask_height, 0, 0},
        .rows_per_item = choice->rows_per_item,
        .cols_per_item = choice->cols_per_item,
        .compute_units = planner->caps->compute_units,
        .max_input_per_output = spec->body ? 0.0 : CLS_WEIGHTED_SUM_INPUT_PER_OUTPUT,
        .min_group_items = spec->body && !(request->body_writes_rows && choice->rows_per_item > 1) &&
                                   planner->caps->type == CLS_DEVICE_GPU &&
                                   spec->mask_width * spec->mask_height <= CLS_BODY_MIN_GROUP_WINDOW
                               ? CLS_BODY_MIN_GROUP_ITEMS
                               : 0,
    };
    /* A streaming kernel is one wave of work-items, each holding its window's sums in registers,
     * and a weighted sum of CLS_COMPUTE_BOUND_TAPS or more is bound by its multiply-adds:
     * occupancy, which Algorithm 2 and eq. 10 weigh, does not limit them. They keep the policy's
     * shape and eq. 10 counts both builds at the ISP build's occupancy; a streaming kernel's ISP
     * stays isp-block: the warp refinement cannot drop a check in groups one warp wide. On an
     * H100 (random masks, 4096^2), streaming 13x13: Algorithm 2's 32x1 took 168 registers in
     * constant mode (184 against 152 us), eq. 10 with the occupancies chose naive for mirror101
     * (232 against 145 us), the warp refinement took 168 registers in constant mode (174 us);
     * 9x9 with 8 x 2 blocks: Algorithm 2's 32x1 (25 warps at 80 registers, against 24) took 83.4
     * us in constant mode against 79.3 at 32x4, and eq. 10 chose naive in repeat (120 against 78). */
    const int weighs_occupancy = cls_plan_weighs_occupancy(request, choice->rows_per_item);
    if (!spec->group_width && !spec->group_height && weighs_occupancy) {
        cls_config_result result;
        if (cls_configure(&shape_request, &result) == CLS_OK) {
            choice->group_width = result.candidates[result.chosen].group_width;
            choice->group_height = result.candidates[result.chosen].group_height;
            cls_config_result_free(&result);
        }
    }
    if (spec->partition != CLS_PARTITION_AUTO) return CLS_OK;
    /* naive against isp-block at the chosen shape, from both builds' registers */
    unsigned registers[2];
    status = build_pair(planner, request, choice, registers);
    if (status == CLS_OK) status = predict_partition(planner, request, choice, registers, weighs_occupancy, shape_request.usage.local_bytes);
    return status;
}

cls_status cls_plan_models(const cls_planner *planner, const cls_spec *spec, unsigned width, unsigned height,
                           cls_tuning *choice)
{
    cls_request request;
    cls_status status = cls_request_init(&request, spec);
    if (status == CLS_OK) status = cls_plan_models_for(planner, &request, width, height, choice);
    cls_request_free(&request);
    return status;
}

cls_status cls_plan_isp_check(const cls_planner *planner, const cls_spec *reference, const cls_tuning *measured,
                              double gain, double *check_per_load)
{
    cls_request request;
    unsigned registers[2];
    cls_status status = cls_request_init(&request, reference);
    if (status == CLS_OK) status = build_pair(planner, &request, measured, registers);
    if (status == CLS_OK) {
        cls_isp_request isp_request;
        isp_request_for(planner, &request, measured, registers[0], registers[1], 0, 0.0, &isp_request);
        status = cls_isp_solve_check_cost(&isp_request, gain, check_per_load);
    }
    cls_request_free(&request);
    return status;
}
