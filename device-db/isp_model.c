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
 * code fold any distance, which for mirror and repeat costs a remainder. */
#include "models.h"

#include "error.h"

#include <math.h>
#include <string.h>

/* Per tap, instructions; the y check runs once per mask row in emit.c, hence / mask width. */
void cls_isp_costs_default(cls_border border, unsigned mask_width, cls_isp_costs *costs)
{
    double side = 0.0, both = 0.0; /* undefined: no per-tap checks (one window test per item) */
    switch (border) {
    case CLS_BORDER_CLAMP: side = 1.0; both = 2.0; break;              /* max or min; clamp */
    case CLS_BORDER_MIRROR:
    case CLS_BORDER_MIRROR101: side = 3.0; both = 20.0; break;         /* compare, subtract, select;
                                                                        * remainder by 2n and fold */
    case CLS_BORDER_REPEAT: side = 3.0; both = 17.0; break;            /* compare, add, select;
                                                                        * remainder by n, sign fix */
    case CLS_BORDER_CONSTANT: side = 3.0; both = 6.0; break;           /* inside test, clamp, select */
    case CLS_BORDER_UNDEFINED: break;
    }
    const double per_row = mask_width ? 1.0 / mask_width : 1.0;
    costs->check[CLS_AXIS_X] = side;
    costs->check_both[CLS_AXIS_X] = both;
    costs->check[CLS_AXIS_Y] = side * per_row;
    costs->check_both[CLS_AXIS_Y] = both * per_row;
    costs->kernel = 4.0;         /* index add, load, conversion, multiply-add */
    costs->region_switch = 12.0; /* four group-id compares and the region chain of emit.c */
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

/* n_region(p) of eq. 6 for one tap: the kernel and the checks of the region's sides. */
static double region_tap_cost(const cls_isp_costs *c, cls_region region, unsigned rows)
{
    return c->kernel + axis_cost(c, CLS_AXIS_X, region_sides(region, CLS_AXIS_X, rows)) +
           axis_cost(c, CLS_AXIS_Y, region_sides(region, CLS_AXIS_Y, rows));
}

/* Eqs. 3-9 for the request's geometry; fills blocks, n_naive, n_isp and reduced. */
static void count_instructions(const cls_isp_request *q, unsigned rows, cls_isp_prediction *out)
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
    unsigned long all_blocks = 0;
    out->n_isp = 0.0;
    for (int p = 0; p < CLS_REGION_COUNT; ++p) {
        const double items = (double)out->blocks[p] * items_per_block;
        out->n_isp += items * (region_tap_cost(&q->costs, (cls_region)p, rows) * taps +
                               q->costs.region_switch);                   /* eqs. 4-5 */
        all_blocks += out->blocks[p];
    }
    const double naive_tap = q->costs.kernel + q->costs.check_both[CLS_AXIS_X] + q->costs.check_both[CLS_AXIS_Y];
    out->n_naive = (double)all_blocks * items_per_block * taps * naive_tap; /* eq. 3 */
    out->reduced = out->n_isp > 0.0 ? out->n_naive / out->n_isp : 1.0;     /* eq. 9 */
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
    const cls_kernel_usage naive = {request->naive_registers, request->local_bytes};
    const cls_kernel_usage isp = {request->isp_registers, request->local_bytes};
    cls_occupancy o_naive, o_isp;
    status = cls_occupancy_compute(request->record, request->extras, &naive, items, &o_naive);
    if (status == CLS_OK) status = cls_occupancy_compute(request->record, request->extras, &isp, items, &o_isp);
    if (status != CLS_OK) return status;
    if (o_naive.resident_groups == 0 && o_isp.resident_groups == 0)
        return cls_fail(CLS_ERR_UNSUPPORTED, "ISP model: neither build fits a %ux%u group on record %s",
                        request->geometry.group_width, request->geometry.group_height, request->record->id);
    count_instructions(request, rows, out);
    out->occupancy_naive = o_naive.occupancy;
    out->occupancy_isp = o_isp.occupancy;
    /* Eq. 10: G = R_reduced * O_ISP / O_naive. */
    out->gain = o_naive.resident_groups == 0 ? INFINITY
                                             : out->reduced * out->occupancy_isp / out->occupancy_naive;
    out->choice = out->gain > 1.0 ? CLS_PARTITION_ISP_BLOCK : CLS_PARTITION_NAIVE;
    return CLS_OK;
}
