/* regions.c — iteration-space partitioning: the group-index bounds of the nine regions (ISP
 * paper eq. 2 with ceil on the low side, as in Hipacc) and what each group runs. The emitter,
 * the launcher and the models all use these functions. */
#include "generator.h"

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* floor(a / b) for b > 0, clamped at 0: a negative bound means "every group", as 0 does. */
static int floor_div_at_least_0(int a, int b) { return a <= 0 ? 0 : a / b; }

void cls_region_bounds_compute(unsigned width, unsigned height, unsigned mask_width,
                               unsigned mask_height, unsigned group_width, unsigned group_height,
                               cls_region_bounds *bounds)
{
    const int hx = (int)mask_width / 2, hy = (int)mask_height / 2;
    const int sx = (int)width, sy = (int)height, tx = (int)group_width, ty = (int)group_height;
    bounds->left = ceil_div(hx, tx);
    bounds->right = floor_div_at_least_0(sx - hx, tx);
    bounds->top = ceil_div(hy, ty);
    bounds->bottom = floor_div_at_least_0(sy - hy, ty);
    bounds->groups_x = ceil_div(sx, tx);
    bounds->groups_y = ceil_div(sy, ty);
    bounds->body_x0 = hx;
    bounds->body_x1 = sx - hx;
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
