/* configure.c — the work-group shape by Hipacc's Algorithm 2 (Membarth et al., "Generating
 * Device-specific GPU Code for Local Operators in Medical Imaging", Sec. IV-C): shapes whose
 * work-items are a multiple of the SIMD width and that fit the device and the kernel, sorted by
 * occupancy and then by fewer work-items; with border handling, the shape of the highest
 * occupancy that leaves the fewest work-items in border code, counted exactly with the region
 * math of generator/regions.c. A request may also limit the input a group reads per output
 * (its halo): a departure from Hipacc for weighted sums, and set a least number of work-items a
 * group, one for operator bodies (models.h). */
#include "models.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

unsigned long cls_border_work_items(const cls_launch_geometry *geometry, unsigned rows_per_item,
                                    unsigned cols_per_item)
{
    const unsigned rows = rows_per_item ? rows_per_item : 1, cols = cols_per_item ? cols_per_item : 1;
    if (geometry->group_width == 0 || geometry->group_height == 0) return 0;
    cls_launch_geometry g = *geometry;
    g.group_width = geometry->group_width * cols;   /* the columns and rows a group covers, */
    g.group_height = geometry->group_height * rows; /* as host/filter.c */
    cls_region_bounds bounds;
    cls_region_bounds_compute(&g, &bounds);
    unsigned long counts[CLS_REGION_COUNT];
    cls_region_group_counts(&bounds, counts);
    /* Work-items with output: one per `cols` columns and `rows` rows of the region of interest.
     * Body groups lie whole inside it (regions.c), so all their work-items have output. */
    const unsigned long with_output =
        (unsigned long)((g.roi_width + cols - 1) / cols) * ((g.roi_height + rows - 1) / rows);
    const unsigned long body = counts[CLS_REGION_BODY] * geometry->group_width * geometry->group_height;
    return with_output - body;
}

/* The growable list of candidates. */
typedef struct candidate_list {
    cls_config_candidate *items;
    size_t count, capacity;
} candidate_list;

static int list_push(candidate_list *list, const cls_config_candidate *candidate)
{
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity ? 2 * list->capacity : 64;
        cls_config_candidate *items = realloc(list->items, capacity * sizeof *items);
        if (!items) return 0;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = *candidate;
    return 1;
}

/* Algorithm 2, lines 1-2: one shape's residency and problem occupancies; 0 if it does not fit. */
static int evaluate(const cls_config_request *q, unsigned width, unsigned height, cls_config_candidate *c)
{
    memset(c, 0, sizeof *c);
    c->group_width = width;
    c->group_height = height;
    const double out_w = (double)width * (q->cols_per_item ? q->cols_per_item : 1),
                 out_h = (double)height * (q->rows_per_item ? q->rows_per_item : 1);
    c->input_per_output = (out_w + q->geometry.mask_width - 1) * (out_h + q->geometry.mask_height - 1) / (out_w * out_h);
    if (cls_occupancy_compute(q->record, q->extras, &q->usage, width * height, &c->occupancy) != CLS_OK ||
        c->occupancy.resident_groups == 0)
        return 0;
    if (q->compute_units) {
        const cls_problem problem = {q->geometry.roi_width, q->geometry.roi_height, q->rows_per_item,
                                     q->compute_units, q->cols_per_item};
        if (cls_problem_occupancy_compute(&c->occupancy, width, height, &problem, &c->problem) != CLS_OK)
            return 0;
    }
    /* The problem's warps (of work-items with output) spread over the compute units. */
    c->busy_warps = c->occupancy.resident_warps;
    if (c->problem.elements) {
        const unsigned long simd = q->record->simd_width, units = q->compute_units;
        const unsigned long per_unit = ((c->problem.elements + simd - 1) / simd + units - 1) / units;
        if (per_unit < c->busy_warps) c->busy_warps = (unsigned)per_unit;
    }
    return 1;
}

/* Every shape (width a multiple of the SIMD width, any height) within the device limits, of at
 * least LEAST work-items. */
static cls_status enumerate(const cls_config_request *q, size_t least, candidate_list *list)
{
    const size_t simd = q->record->simd_width;
    for (size_t width = simd; width <= q->max_item_sizes[0] && width <= q->max_group_items; width += simd)
        for (size_t height = 1; height <= q->max_item_sizes[1] && width * height <= q->max_group_items; ++height) {
            if (width * height < least) continue;
            cls_config_candidate c;
            if (evaluate(q, (unsigned)width, (unsigned)height, &c) && !list_push(list, &c))
                return cls_fail(CLS_ERR_OUT_OF_MEMORY, "configure: out of memory");
        }
    return CLS_OK;
}

/* Line 3: descending occupancy (busy warps), ascending work-items; then the tiling, narrower
 * first (prefer y, with border handling) or wider first (prefer x). */
static int compare_common(const cls_config_candidate *a, const cls_config_candidate *b)
{
    if (a->busy_warps != b->busy_warps) return a->busy_warps > b->busy_warps ? -1 : 1;
    if (a->occupancy.group_items != b->occupancy.group_items)
        return a->occupancy.group_items < b->occupancy.group_items ? -1 : 1;
    return 0;
}

static int compare_prefer_y(const void *pa, const void *pb)
{
    const cls_config_candidate *a = pa, *b = pb;
    const int common = compare_common(a, b);
    if (common) return common;
    return a->group_width < b->group_width ? -1 : a->group_width > b->group_width;
}

static int compare_prefer_x(const void *pa, const void *pb)
{
    const cls_config_candidate *a = pa, *b = pb;
    const int common = compare_common(a, b);
    if (common) return common;
    return a->group_width > b->group_width ? -1 : a->group_width < b->group_width;
}

/* Lines 5-17: among the shapes of the highest occupancy, the fewest border work-items (the
 * earlier shape wins a tie). A grid that does not fill the first shape's residency runs in one
 * partial wave: the smallest shape spreads it the widest, whatever its border work-items. With a
 * limit on the input per output, only shapes within it compete where any of them are within it. */
static size_t choose(const cls_config_request *q, cls_config_candidate *c, size_t count)
{
    size_t top = 1;
    while (top < count && c[top].busy_warps == c[0].busy_warps) ++top;
    int limited = 0;
    for (size_t k = 0; k < top && q->max_input_per_output > 0; ++k)
        limited |= c[k].input_per_output <= q->max_input_per_output;
    const int one_wave = c[0].busy_warps < c[0].occupancy.resident_warps;
    size_t best = top;
    for (size_t k = 0; k < top; ++k) {
        if (limited && c[k].input_per_output > q->max_input_per_output) continue;
        if (!q->border_handling || one_wave) return k;
        cls_launch_geometry g = q->geometry;
        g.group_width = c[k].group_width;
        g.group_height = c[k].group_height;
        c[k].border_items = cls_border_work_items(&g, q->rows_per_item, q->cols_per_item);
        c[k].border_counted = 1;
        if (best == top || c[k].border_items < c[best].border_items) best = k;
    }
    return best;
}

static cls_status check_request(const cls_config_request *q)
{
    if (!q || !q->record) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "configure: NULL request or record");
    if (q->record->simd_width == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "configure: record %s has no SIMD width", q->record->id);
    const cls_launch_geometry *g = &q->geometry;
    if (g->roi_width == 0 || g->roi_height == 0 || g->mask_width == 0 || g->mask_height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "configure: empty region of interest or mask");
    if (q->max_local_bytes && q->usage.local_bytes > q->max_local_bytes)
        return cls_fail(CLS_ERR_UNSUPPORTED, "configure: the kernel needs %u bytes of local memory, the device "
                        "gives a group %zu", q->usage.local_bytes, q->max_local_bytes);
    return CLS_OK;
}

cls_status cls_configure(const cls_config_request *request, cls_config_result *out)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "configure: NULL result");
    memset(out, 0, sizeof *out);
    cls_status status = check_request(request);
    if (status != CLS_OK) return status;
    candidate_list list = {NULL, 0, 0};
    status = enumerate(request, request->min_group_items, &list);
    if (status == CLS_OK && list.count == 0 && request->min_group_items) /* none that large fits */
        status = enumerate(request, 0, &list);
    if (status == CLS_OK && list.count == 0)
        status = cls_fail(CLS_ERR_UNSUPPORTED, "configure: no work-group shape that is a multiple of the SIMD "
                          "width (%u) fits record %s and the kernel", request->record->simd_width,
                          request->record->id);
    if (status != CLS_OK) {
        free(list.items);
        return status;
    }
    qsort(list.items, list.count, sizeof *list.items,
          request->border_handling ? compare_prefer_y : compare_prefer_x);
    out->candidates = list.items;
    out->count = list.count;
    out->chosen = choose(request, list.items, list.count);
    return CLS_OK;
}

void cls_config_result_free(cls_config_result *result)
{
    if (!result) return;
    free(result->candidates);
    memset(result, 0, sizeof *result);
}
