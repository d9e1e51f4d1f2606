/* isp_model.c — the ISP paper's prediction (Qiao, Teich, Hannig, "An Efficient Approach for
 * Image Border Handling on GPUs via Iteration Space Partitioning", Sec. IV): instructions of the
 * naive kernel (eq. 3) against the partitioned one (eqs. 4-8, blocks per region from the shared
 * region math), their ratio R_reduced (eq. 9), and the gain G = R_reduced * O_ISP / O_naive
 * (eq. 10) with the occupancies of the two builds' register counts. G > 1 chooses isp-block.
 *
 * Two departures from the printed equations, both so that the counts match this library's
 * kernels: the region switch runs once per work-item (eq. 5 multiplies n_switch by m * n), and
 * both builds are counted over the launched work-items, n_block(p) * tx * ty as in eq. 5 (eq. 3
 * prints sx * sy; the two agree when the group divides the image). Checking both sides of an
 * axis has a cost of its own (check_both; eq. 3 uses 2 * n_check), since the naive and fallback
 * code fold any distance, which for mirror and repeat costs a remainder.
 *
 * The generated regions check a tap only on the side it faces (docs/design-notes.md); the counts
 * here keep eq. 6's checks on every tap of a region, an upper bound on the ISP kernel's work.
 *
 * Two refinements a request may ask for (models.h), both measured to matter on an H100: the work
 * of a work-item as the unrolled kernels do it (checks per loaded pixel rather than per tap, as
 * a coarsened item loads each pixel once for several outputs), and waves: the instructions of
 * the busiest compute unit, with a latency floor, instead of the whole device's. */
#include "models.h"

#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Instructions of one index check of a mode: on one side, and on both sides at any distance. */
static void check_costs(cls_border border, double *side, double *both)
{
    *side = *both = 0.0; /* undefined: no per-tap checks (one window test per item) */
    switch (border) {
    case CLS_BORDER_CLAMP: *side = 1.0; *both = 2.0; break;              /* max or min; clamp */
    case CLS_BORDER_MIRROR:
    case CLS_BORDER_MIRROR101: *side = 3.0; *both = 20.0; break;         /* compare, subtract, select;
                                                                          * remainder by 2n and fold */
    case CLS_BORDER_REPEAT: *side = 3.0; *both = 17.0; break;            /* compare, add, select;
                                                                          * remainder by n, sign fix */
    case CLS_BORDER_CONSTANT: *side = 3.0; *both = 6.0; break;           /* inside test, clamp, select */
    case CLS_BORDER_UNDEFINED:
    case CLS_BORDER_SAME: break;
    }
}

/* Per tap, instructions; the y check runs once per mask row in emit.c, hence / mask width. */
void cls_isp_costs_default(cls_border border_x, cls_border border_y, unsigned mask_width, cls_isp_costs *costs)
{
    const double per_row = mask_width ? 1.0 / mask_width : 1.0;
    check_costs(border_x, &costs->check[CLS_AXIS_X], &costs->check_both[CLS_AXIS_X]);
    check_costs(border_y, &costs->check[CLS_AXIS_Y], &costs->check_both[CLS_AXIS_Y]);
    costs->check[CLS_AXIS_Y] *= per_row;
    costs->check_both[CLS_AXIS_Y] *= per_row;
    costs->kernel = 4.0;         /* index add, load, conversion, multiply-add */
    costs->region_switch = 12.0; /* four group-id compares and the region chain of emit.c */
}

void cls_isp_costs_per_load(double check_per_load, cls_isp_costs *costs)
{
    const double half = check_per_load > 0.0 ? 0.5 * check_per_load : 0.0;
    for (int axis = 0; axis < 2; ++axis) costs->check[axis] = costs->check_both[axis] = half;
    costs->kernel = 1.0;
    costs->region_switch = 12.0; /* as the defaults: the group-id compares and the region chain */
}

typedef enum sides { SIDES_NONE, SIDES_ONE, SIDES_BOTH } sides;

/* Eq. 6: the sides each region checks on one axis. With several rows per item the bottom
 * regions fold fully (emit.c), as the rows past the last output row may reach further. */
static sides region_sides(cls_region region, int axis, unsigned rows)
{
    if (region == CLS_REGION_FALLBACK) return SIDES_BOTH;
    const int row = (int)region / 3, column = (int)region % 3; /* 0 low side, 1 middle, 2 high side */
    const int place = axis == CLS_AXIS_X ? column : row;
    if (place == 1) return SIDES_NONE;
    if (axis == CLS_AXIS_Y && place == 2 && rows > 1) return SIDES_BOTH;
    return SIDES_ONE;
}

static double axis_cost(const cls_isp_costs *c, int axis, sides s)
{
    return s == SIDES_NONE ? 0.0 : s == SIDES_ONE ? c->check[axis] : c->check_both[axis];
}

/* The instructions of one work-item in region p (or of the naive kernel, naive set): eq. 6 per
 * tap times the taps, or the request's kernel work and checks per loaded pixel; ISP adds the
 * region switch once per work-item. */
static double item_cost(const cls_isp_request *q, unsigned rows, double taps, cls_region region, int naive)
{
    const cls_isp_costs *c = &q->costs;
    double checks = 0.0;
    for (int axis = 0; axis < 2; ++axis)
        checks += naive ? c->check_both[axis] : axis_cost(c, axis, region_sides(region, axis, rows));
    if (q->loads_per_item) return q->kernel_per_item + q->loads_per_item * checks + (naive ? 0.0 : c->region_switch);
    return taps * (c->kernel + checks) + (naive ? 0.0 : c->region_switch);
}

/* Waves: groups dealt to the compute units in launch order (row by row); each unit's time is the
 * sum of its groups' instructions, or latency_warps times its slowest warp if that is more. */
static cls_status busiest_unit(const cls_isp_request *q, const cls_region_bounds *bounds, const double cost[],
                               double naive_cost, double *naive_out, double *isp_out)
{
    const unsigned units = q->compute_units;
    double *sums = calloc(4 * (size_t)units, sizeof *sums);
    if (!sums) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    double *slowest = sums + units, *naive_sums = sums + 2 * units, *naive_slowest = sums + 3 * units;
    const double items = (double)q->geometry.group_width * q->geometry.group_height;
    const unsigned simd = q->record->simd_width ? q->record->simd_width : 1;
    size_t unit = 0;
    for (int gy = 0; gy < bounds->groups_y; ++gy)
        for (int gx = 0; gx < bounds->groups_x; ++gx, unit = unit + 1 == units ? 0 : unit + 1) {
            const double c = cost[cls_region_of_group(bounds, gx, gy)];
            sums[unit] += c * items;
            if (c > slowest[unit]) slowest[unit] = c;
            naive_sums[unit] += naive_cost * items;
            naive_slowest[unit] = naive_cost;
        }
    const double floor_items = q->latency_warps * simd;
    *naive_out = *isp_out = 0.0;
    for (size_t u = 0; u < units; ++u) {
        const double isp = fmax(sums[u], floor_items * slowest[u]);
        const double naive = fmax(naive_sums[u], floor_items * naive_slowest[u]);
        if (isp > *isp_out) *isp_out = isp;
        if (naive > *naive_out) *naive_out = naive;
    }
    free(sums);
    return CLS_OK;
}

/* Eqs. 3-9 for the request's geometry; fills blocks, n_naive, n_isp, the busiest unit's counts
 * and reduced. */
static cls_status count_instructions(const cls_isp_request *q, unsigned rows, cls_isp_prediction *out)
{
    const cls_launch_geometry *g = &q->geometry;
    const unsigned cols = q->cols_per_item ? q->cols_per_item : 1;
    cls_launch_geometry covered = *g;
    covered.group_width = g->group_width * cols;   /* the columns and rows a group covers, */
    covered.group_height = g->group_height * rows; /* as host/filter.c */
    cls_region_bounds bounds;
    cls_region_bounds_compute(&covered, &bounds);
    cls_region_group_counts(&bounds, out->blocks);                         /* eqs. 7-8 */
    const double items_per_block = (double)g->group_width * g->group_height;
    const double taps = (double)rows * cols * g->mask_width * g->mask_height; /* m * n per output */
    double cost[CLS_REGION_COUNT];
    unsigned long all_blocks = 0;
    out->n_isp = 0.0;
    for (int p = 0; p < CLS_REGION_COUNT; ++p) {
        cost[p] = item_cost(q, rows, taps, (cls_region)p, 0);
        out->n_isp += (double)out->blocks[p] * items_per_block * cost[p];   /* eqs. 4-5 */
        all_blocks += out->blocks[p];
    }
    const double naive_cost = item_cost(q, rows, taps, CLS_REGION_BODY, 1);
    out->n_naive = (double)all_blocks * items_per_block * naive_cost;     /* eq. 3 */
    out->reduced = out->n_isp > 0.0 ? out->n_naive / out->n_isp : 1.0;     /* eq. 9 */
    if (!q->compute_units) return CLS_OK;
    const cls_status status = busiest_unit(q, &bounds, cost, naive_cost, &out->busiest_naive, &out->busiest_isp);
    if (status == CLS_OK && out->busiest_isp > 0.0) out->reduced = out->busiest_naive / out->busiest_isp;
    return status;
}

static cls_status check_request(const cls_isp_request *q)
{
    if (!q || !q->record) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "ISP model: NULL request or record");
    const cls_launch_geometry *g = &q->geometry;
    if (g->group_width == 0 || g->group_height == 0 || g->roi_width == 0 || g->roi_height == 0 ||
        g->mask_width == 0 || g->mask_height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "ISP model: empty group, region of interest or mask");
    return CLS_OK;
}

cls_status cls_isp_predict(const cls_isp_request *request, cls_isp_prediction *out)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "ISP model: NULL prediction");
    memset(out, 0, sizeof *out);
    cls_status status = check_request(request);
    if (status != CLS_OK) return status;
    const unsigned rows = request->rows_per_item ? request->rows_per_item : 1;
    const unsigned items = request->geometry.group_width * request->geometry.group_height;
    /* A register count the build did not report (0: NVIDIA's driver answers a build from its own
     * cache without ptxas's log) is no ground for an occupancy ratio: then neither counts. */
    const int known = request->naive_registers && request->isp_registers;
    const cls_kernel_usage naive = {known ? request->naive_registers : 0, request->local_bytes};
    const cls_kernel_usage isp = {known ? request->isp_registers : 0, request->local_bytes};
    cls_occupancy o_naive, o_isp;
    status = cls_occupancy_compute(request->record, request->extras, &naive, items, &o_naive);
    if (status == CLS_OK) status = cls_occupancy_compute(request->record, request->extras, &isp, items, &o_isp);
    if (status != CLS_OK) return status;
    if (o_naive.resident_groups == 0 && o_isp.resident_groups == 0)
        return cls_fail(CLS_ERR_UNSUPPORTED, "ISP model: neither build fits a %ux%u group on record %s",
                        request->geometry.group_width, request->geometry.group_height, request->record->id);
    status = count_instructions(request, rows, out);
    if (status != CLS_OK) return status;
    out->occupancy_naive = o_naive.occupancy;
    out->occupancy_isp = o_isp.occupancy;
    /* Eq. 10: G = R_reduced * O_ISP / O_naive. */
    out->gain = o_naive.resident_groups == 0 ? INFINITY
                                             : out->reduced * out->occupancy_isp / out->occupancy_naive;
    out->choice = out->gain > 1.0 ? CLS_PARTITION_ISP_BLOCK : CLS_PARTITION_NAIVE;
    return CLS_OK;
}

cls_status cls_isp_solve_check_cost(const cls_isp_request *request, double gain, double *check_per_load)
{
    if (!request || !check_per_load || !(gain > 0.0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "ISP calibration: NULL request or a gain that is not positive");
    cls_isp_request q = *request;
    double low = 0.0, high = CLS_ISP_CHECK_MAX;
    cls_isp_prediction p;
    for (int step = 0; step < 60; ++step) { /* the predicted gain grows with the check cost */
        const double middle = 0.5 * (low + high);
        cls_isp_costs_per_load(middle, &q.costs);
        const cls_status status = cls_isp_predict(&q, &p);
        if (status != CLS_OK) return status;
        if (p.gain < gain) low = middle;
        else high = middle;
    }
    *check_per_load = 0.5 * (low + high);
    return CLS_OK;
}
