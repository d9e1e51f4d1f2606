/* regions.c — iteration-space partitioning: the group-index bounds of the nine regions (ISP
 * paper eq. 2 with ceil on the low side, as in Hipacc, generalized to a region of interest)
 * and what each group runs. The emitter, the launcher and the models all use these functions. */
#include "generator.h"

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* The first group free of the low-side check: ceil((half - origin) / group), at least 0. */
static int low_bound(int half, int origin, int group)
{
    return half - origin <= 0 ? 0 : ceil_div(half - origin, group);
}

/* The first group needing the high-side check: reads past the edge, or a partial group. */
static int high_bound(int size, int half, int origin, int extent, int group)
{
    const int inside = size - half - origin <= 0 ? 0 : (size - half - origin) / group;
    const int whole = extent / group;
    return inside < whole ? inside : whole;
}

void cls_region_bounds_compute(const cls_launch_geometry *g, cls_region_bounds *bounds)
{
    const int hx = (int)g->mask_width / 2, hy = (int)g->mask_height / 2;
    const int tx = (int)g->group_width, ty = (int)g->group_height;
    bounds->left = low_bound(hx, (int)g->roi_x, tx);
    bounds->right = high_bound((int)g->width, hx, (int)g->roi_x, (int)g->roi_width, tx);
    bounds->top = low_bound(hy, (int)g->roi_y, ty);
    bounds->bottom = high_bound((int)g->height, hy, (int)g->roi_y, (int)g->roi_height, ty);
    bounds->groups_x = ceil_div((int)g->roi_width, tx);
    bounds->groups_y = ceil_div((int)g->roi_height, ty);
    bounds->body_x0 = hx;
    bounds->body_x1 = (int)g->width - hx;
}

cls_region cls_region_of_group(const cls_region_bounds *b, int gx, int gy)
{
    const int left = gx < b->left, right = gx >= b->right;
    const int top = gy < b->top, bottom = gy >= b->bottom;
    if ((left && right) || (top && bottom)) return CLS_REGION_FALLBACK;
    const int row = top ? 0 : bottom ? 2 : 1;
    const int column = left ? 0 : right ? 2 : 1;
    return (cls_region)(row * 3 + column);
}

void cls_region_group_counts(const cls_region_bounds *bounds, unsigned long counts[CLS_REGION_COUNT])
{
    for (int r = 0; r < CLS_REGION_COUNT; ++r) counts[r] = 0;
    for (int gy = 0; gy < bounds->groups_y; ++gy)
        for (int gx = 0; gx < bounds->groups_x; ++gx) ++counts[cls_region_of_group(bounds, gx, gy)];
}

const char *cls_region_name(cls_region region)
{
    static const char *const names[CLS_REGION_COUNT] = {"TL", "T", "TR", "L", "Body",
                                                        "R", "BL", "B", "BR", "Fallback"};
    return (unsigned)region < CLS_REGION_COUNT ? names[region] : "invalid";
}
