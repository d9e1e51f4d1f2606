/* emit.c — writes the OpenCL C source of one kernel configuration: header, signature, the region
 * switch and the stores around the sums (emit_sum.c), staging (emit_stage.c) and accessors
 * (emit_access.c).
 *
 * The kernel (CLS_KERNEL_NAME) takes the arguments of cls_kernel_argument (generator.h,
 * kernel_arguments.c), in that order.
 * Every work-group picks its region from its logical group id (the launch id rotated so that
 * border groups start first: emit_group_order) against group_bounds; each region holds
 * only the border checks of the sides it touches, and a tap at a known offset only the check of
 * the side it faces (access_at_column; the border functions come from the mode's
 * cl-templates/border-*.cl, the one place of the index arithmetic). On the local-memory paths
 * the regions differ only in how they stage the tile. */
#include "emit.h"

#include <stdio.h>
#include <string.h>

typedef struct isp_region {
    const char *condition; /* C condition on at_left/at_right/at_top/at_bottom; NULL = else */
    const char *label;
    const char *sides;     /* the sides it checks, for the comment */
    axis_check x, y;
} isp_region;

/* Order matters: the fallback first, then Listing 3 of the ISP paper. */
static const isp_region isp_regions[] = {
    {"(at_left && at_right) || (at_top && at_bottom)", "Fallback", "every side, any distance",
     CHECK_BOTH, CHECK_BOTH},
    {"at_top && at_left", "TL", "left and top", CHECK_LO, CHECK_LO},
    {"at_top && at_right", "TR", "right and top", CHECK_HI, CHECK_LO},
    {"at_top", "T", "top", CHECK_NONE, CHECK_LO},
    {"at_bottom && at_left", "BL", "left and bottom", CHECK_LO, CHECK_HI},
    {"at_bottom && at_right", "BR", "right and bottom", CHECK_HI, CHECK_HI},
    {"at_bottom", "B", "bottom", CHECK_NONE, CHECK_HI},
    {"at_left", "L", "left", CHECK_LO, CHECK_NONE},
    {"at_right", "R", "right", CHECK_HI, CHECK_NONE},
    {NULL, "Body", "no side", CHECK_NONE, CHECK_NONE},
};

/* The local-memory paths of the regions: a staged tile, or the single pass's row sums (unless it
 * streams; one whose group stages its input rows has no regions: emit_staged_rows.c). */
static int local_memory(const cls_kernel_config *c)
{
    return (c->input_path == CLS_INPUT_LOCAL && !cls_kernel_stages_input_rows(c)) || cls_kernel_stages_row_sums(c);
}

/* How the groups of a kernel with the body region apart that are neither body nor left or right
 * groups fold indices: fully, except in mirror101 mode, whose full fold is the dearest: there once
 * where that suffices (border_any; on an H200 it took a 13x13 mirror101 kernel whose border
 * groups all folded this way from 142 to 136 µs, and made the mirror and repeat ones 1-3% slower
 * than their full folds). A record may ask for the full fold: PoCL's vectorizer gave up on the
 * branch around border_both's remainder, and a Gaussian 3x3 at 2048^2 took 27 ms, not 1.6. */
static axis_check other_groups_check(const cls_kernel_config *c)
{
    if (!cls_kernel_body_apart(c)) return CHECK_NONE;
    return cls_spec_border_any(&c->spec, CLS_BORDER_MIRROR101) && !c->limits.border_groups_fold_fully ? CHECK_ANY
                                                                                                      : CHECK_BOTH;
}

/* Undefined border: pixels whose window leaves the image are not written (only the sides the
 * region checks can be left). */
static void emit_undefined_skip(emitter *e, int indent, axis_check x, axis_check y)
{
    strbuf *out = e->out;
    strbuf_line(out, indent, "/* The window must lie inside the image; else the pixel is left as it is. */");
    const struct { axis_check check, skip; const char *index; cls_axis axis; } sides[] = {
        {x, CHECK_HI, "x - HALF_W", CLS_AXIS_X}, {x, CHECK_LO, "x + HALF_W", CLS_AXIS_X},
        {y, CHECK_HI, "y - HALF_H", CLS_AXIS_Y}, {y, CHECK_LO, "y + HALF_H", CLS_AXIS_Y}};
    indent_line(out, indent);
    strbuf_append(out, "if (!(");
    int terms = 0;
    for (size_t k = 0; k < sizeof sides / sizeof sides[0]; ++k) {
        if (sides[k].check == CHECK_NONE || sides[k].check == sides[k].skip) continue;
        if (terms++) strbuf_append(out, " && ");
        append_inside(e, out, sides[k].check, sides[k].index, sides[k].axis);
    }
    strbuf_append(out, ")) return;\n");
}

static void emit_guard(emitter *e, int indent, int guard_x, int guard_y)
{
    if (guard_x || guard_y)
        strbuf_line(e->out, indent, "if (%s%s%s) return; /* outside the region computed (partial group) */",
                    guard_x ? "x >= roi.s2" : "", guard_x && guard_y ? " || " : "", guard_y ? "y >= roi.s3" : "");
}

/* The code of one region reading the input directly (global buffer or image): guards, then the
 * sums through the region's checks, unrolled or (`rolled`) as loops over baked_mask. */
static void emit_region_direct(emitter *e, int indent, axis_check x, axis_check y, int rolled)
{
    const cls_kernel_config *c = e->config;
    emit_guard(e, indent, x == CHECK_HI || x == CHECK_BOTH, y == CHECK_HI || y == CHECK_BOTH);
    if (c->spec.border == CLS_BORDER_UNDEFINED && (x || y)) {
        emit_undefined_skip(e, indent, x, y);
        x = y = CHECK_NONE;
    }
    /* A coarsened item's outputs past the last row (column) may reach further beyond the image
     * than one fold covers (their sums are discarded): those sides fold fully. */
    const axis_check check_y = c->rows > 1 && y == CHECK_HI ? CHECK_BOTH : y;
    const axis_check check_x = c->cols > 1 && x == CHECK_HI ? CHECK_BOTH : x;
    const access a = {c->input_path == CLS_INPUT_IMAGE ? ACCESS_IMAGE : ACCESS_GLOBAL, check_x, check_y, "x", "y", x, y};
    if (c->spec.body) emit_body_call(e, indent, &a);
    else if (cls_kernel_streams(c)) emit_stream(e, indent, &a, rolled);
    else if (rolled) emit_sums_rolled(e, indent, &a);
    else emit_sums(e, indent, &a);
}

/* The code of one region on a local-memory path: stage the tile (or the row sums). */
static void emit_region_staging(emitter *e, int indent, axis_check x, axis_check y)
{
    if (cls_kernel_stages_row_sums(e->config)) emit_row_pass(e, indent, x, y);
    else emit_staging(e, indent, x, y);
}

static void emit_region(emitter *e, int indent, axis_check x, axis_check y, int rolled)
{
    if (local_memory(e->config)) emit_region_staging(e, indent, x, y);
    else emit_region_direct(e, indent, x, y, rolled);
}

/* Whether an operator body runs in four regions, as body_apart sums do, instead of nine: every
 * ISP kernel of a body on the global path. Each region inlines its own copy of the body, and
 * the border groups are a few percent of an image: PoCL's vectorizer gave up on nine copies (a
 * 3x3 sum as a body at 2048^2: 26.5 ms in nine regions, 2.1 ms in four), and on an H200 (4096^2,
 * f32) four built 2-3 times faster at the same kernel time (median 5x5 12.0 -> 4.4 s, 115.9 ->
 * 115.3 us; bilateral 13x13 1.07 -> 0.55 s). */
static int bodies_in_four_regions(const cls_kernel_config *c)
{
    return c->spec.body && c->partition != CLS_PARTITION_NAIVE &&
           c->input_path == CLS_INPUT_GLOBAL && !local_memory(c) && !cls_kernel_body_lanes(c);
}

/* The variant in words, for the header comment. */
static void describe_variant(emitter *e)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    strbuf_printf(out, " * Input %s", cls_input_path_name(c->input_path));
    if (c->input_path == CLS_INPUT_IMAGE)
        strbuf_append(out, cls_kernel_hardware_border(c) ? " (the sampler's address mode is the border)"
                                                         : " (software border, the sampler never leaves the image)");
    if (c->separable != CLS_SEPARABLE_NONE) strbuf_printf(out, ", separable %s", cls_separable_name(c->separable));
    if (cls_kernel_stages_input_rows(c))
        strbuf_append(out, " (the group's input rows staged in local memory a chunk at a time, row sums fed to the "
                           "column sums in registers)");
    else if (c->separable == CLS_SEPARABLE_SINGLE_PASS)
        strbuf_append(out, cls_kernel_streams(c) ? " (row sums fed to the column sums in registers)"
                                                 : " (row sums through local memory)");
    strbuf_printf(out, ", %u output row%s x %u output column%s per work-item", c->rows, c->rows > 1 ? "s" : "",
                  c->cols, c->cols > 1 ? "s" : "");
    if (cls_kernel_body_lanes(c)) strbuf_append(out, " in lanes (one vector)");
    if (c->masks > 1) strbuf_printf(out, ", %u masks in one pass", c->masks);
    if (c->epilogue) strbuf_printf(out, ", epilogue %s", c->epilogue);
    if (c->spec.fold_equal_taps) strbuf_append(out, ", equal taps folded");
    if (cls_kernel_body_apart(c) || bodies_in_four_regions(c))
        strbuf_append(out, ", four regions: the body, left, right and every other border group");
    else if (cls_kernel_shares_rows(c)) strbuf_append(out, ", the regions sharing one copy of the sums");
    strbuf_append(out, ".\n");
}

static const char *coefficient_storage(int storage)
{
    switch (storage) {
    case CLS_COEFFICIENTS_LITERALS: return "baked as literals";
    case CLS_COEFFICIENTS_ARGUMENT: return "from a kernel argument";
    default: return "from a __constant buffer";
    }
}

static void emit_header(emitter *e)
{
    const cls_kernel_config *c = e->config;
    const cls_spec *s = &c->spec;
    strbuf *out = e->out;
    char borders[64];
    cls_border_axes_name(s, borders, sizeof borders);
    char simd_note[32] = "";
    if (c->partition == CLS_PARTITION_ISP_WARP)
        snprintf(simd_note, sizeof simd_note, ", SIMD width %u", c->simd_width);
    strbuf_printf(out,
                  "#line 1 \"clstencil\"\n"
                  "/* Generated by clstencil %s: do not edit.\n"
                  " * %s %ux%u, coefficients %s, border %s%s, partition %s,\n"
                  " * work-group %ux%u%s, %s -> %s (accumulated in %s).\n",
                  CLS_VERSION_STRING, s->body ? "User-written operator" : "Local operator", s->mask_width,
                  s->mask_height, coefficient_storage(s->bake_coefficients),
                  borders, cls_spec_borders_differ(s) ? " (x, y)" : "", cls_partition_name(c->partition), c->group_width, c->group_height,
                  simd_note, cls_pixel_type_name(s->input_type), cls_pixel_type_name(s->output_type), emit_value_type(c));
    describe_variant(e);
    strbuf_append(out, " */\n\n");
    if (cls_spec_in_double(s)) strbuf_append(out, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable /* f64 pixels: sums in double */\n\n");
    border_append_templates(out, s);
    emit_epilogue_functions(e);
    if (cls_kernel_shares_rows(c))
        border_append_per_axis(out, s, "/* One fold on the side an index leaves by: a border group's window crosses one side of an axis,\n"
                           " * by less than the axis (outputs past the region's end, whose sums are discarded, may reach\n"
                           " * further: their indices are kept in range). */\n"
                           "int border_once(int i, int n) { return i < 0 ? border_lo(max(i, 1 - n), n) : border_hi(min(i, 2 * n - 2), n); }\n");
    if (other_groups_check(c) == CHECK_ANY)
        border_append_per_axis(out, s, "/* Any index, folded once on the side it leaves by where that suffices (a window in an image\n"
                           " * larger than its half), else fully: the top and bottom groups' code. */\n"
                           "int border_any(int i, int n)\n{\n"
                           "    if (i < 1 - n || i > 2 * n - 2) return border_both(i, n);\n"
                           "    return i < 0 ? border_lo(i, n) : border_hi(i, n);\n}\n");
    strbuf_printf(out,
                  "\n#define MASK_W %u\n#define MASK_H %u\n#define HALF_W %u\n#define HALF_H %u\n"
                  "#define GROUP_W %u\n#define GROUP_H %u\n"
                  "#define ROWS %u /* output rows per work-item */\n#define COLS %u /* output columns per work-item */\n"
                  "#define MASKS %u\n",
                  s->mask_width, s->mask_height, s->mask_width / 2, s->mask_height / 2, c->group_width,
                  c->group_height, c->rows, c->cols, c->masks);
    if (c->partition == CLS_PARTITION_ISP_WARP) strbuf_printf(out, "#define SIMD_WIDTH %u\n", c->simd_width);
    if (cls_kernel_register_cap(c))
        strbuf_printf(out, "#define REGISTER_CAP %u /* per work-item, built to where the compiler takes a cap: "
                           "border code spills, not the body */\n", cls_kernel_register_cap(c));
    if (cls_kernel_streams(c)) strbuf_append(out, "#define SPAN_W (MASK_W + COLS - 1) /* input columns of a row of outputs */\n");
    if (cls_kernel_ahead_rows(c) > 1)
        strbuf_printf(out, "#define AHEAD %u /* input rows loaded together, then summed */\n", cls_kernel_ahead_rows(c));
    if (cls_kernel_stages_row_sums(c))
        strbuf_append(out, "#define TILE_W GROUP_W /* row sums: one column per work-item */\n"
                           "#define TILE_H (GROUP_H * ROWS + 2 * HALF_H)\n");
    else if (cls_kernel_stages_input_rows(c))
        emit_staged_rows_defines(e);
    else if (c->input_path == CLS_INPUT_LOCAL)
        strbuf_append(out, "#define TILE_W (GROUP_W * COLS + 2 * HALF_W)\n#define TILE_H (GROUP_H * ROWS + 2 * HALF_H)\n");
    strbuf_printf(out, "typedef %s input_t;\ntypedef %s output_t;\n", emit_cl_type(s->input_type), emit_cl_type(s->output_type));
    if (s->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT && c->separable == CLS_SEPARABLE_SINGLE_PASS)
        strbuf_append(out, "typedef struct { float c[MASK_W + MASK_H]; } coefficients_t; /* the row, then the column */\n");
    else if (s->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT)
        strbuf_append(out, "typedef struct { float c[MASKS * MASK_W * MASK_H]; } coefficients_t; /* row by row, mask after mask */\n");
    if (c->input_path == CLS_INPUT_IMAGE)
        strbuf_printf(out, "__constant sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | %s | CLK_FILTER_NEAREST;\n",
                      !cls_kernel_hardware_border(c)       ? "CLK_ADDRESS_NONE"
                      : s->border == CLS_BORDER_CLAMP ? "CLK_ADDRESS_CLAMP_TO_EDGE"
                                                      : "CLK_ADDRESS_CLAMP");
    strbuf_append(out, "\n");
    if (s->body) emit_body_helpers(e);
    else if (cls_kernel_rolls_borders(c) && cls_kernel_literal_coefficients(c)) {
        emit_baked_array(e, "baked_mask", "The border regions loop over these; the body region has them as literals.");
        strbuf_append(out, "\n");
    }
}

/* The launch order of the work-groups. GPUs start groups in the order of their ids, and the
 * last ones to start make the kernel's tail: the border groups (slower, a few hundred of them
 * in one row or column) must not be last. Logical group (group_x, group_y) therefore takes id
 * (group_x - group_bounds.s1, group_y - group_bounds.s3) modulo the grid: the bottom row(s)
 * and right column(s) start first, body groups end the launch. Every partition uses the same
 * order, naive included, so that a comparison against it measures border handling alone. */
static void emit_group_order(strbuf *out)
{
    strbuf_line(out, 1, "/* Launch order: bottom and right border groups first, body groups last (no slow tail). */");
    strbuf_line(out, 1, "int group_x = (int)get_group_id(0) + group_bounds.s1, group_y = (int)get_group_id(1) + group_bounds.s3;");
    strbuf_line(out, 1, "if (group_x >= (int)get_num_groups(0)) group_x -= (int)get_num_groups(0);");
    strbuf_line(out, 1, "if (group_y >= (int)get_num_groups(1)) group_y -= (int)get_num_groups(1);");
}

static void emit_signature(emitter *e)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    strbuf_append(out, "__kernel __attribute__((reqd_work_group_size(GROUP_W, GROUP_H, 1)))\n");
    /* One argument per line, in cls_kernel_argument's order. */
    strbuf_append(out, "void " CLS_KERNEL_NAME "(");
    for (int a = 0; a < CLS_ARGUMENT_FIXED_COUNT; ++a)
        strbuf_printf(out, "%s%s", a ? ",\n                      " : "",
                      cls_kernel_argument_declaration(c, (cls_kernel_argument)a));
    for (unsigned k = 1; k < cls_kernel_outputs(c); ++k)
        strbuf_printf(out, ",\n                      __global output_t *restrict output%u", k);
    if (c->spec.bake_coefficients == CLS_COEFFICIENTS_ARGUMENT)
        strbuf_append(out, ",\n                      const coefficients_t coef");
    strbuf_append(out, ")\n{\n");
    emit_group_order(out);
    strbuf_line(out, 1, "const int x = roi.s0 + (group_x * GROUP_W + (int)get_local_id(0)) * COLS; /* the first of COLS output columns */");
    strbuf_line(out, 1, "const int y = roi.s1 + (group_y * GROUP_H + (int)get_local_id(1)) * ROWS; /* the first of ROWS output rows */");
    if (c->input_path == CLS_INPUT_IMAGE) strbuf_line(out, 1, "(void)input_offset; (void)input_pitch;");
    else strbuf_line(out, 1, "input += input_offset;");
    if (cls_kernel_hardware_border(c)) strbuf_line(out, 1, "(void)width; (void)height; /* the sampler handles borders */");
    strbuf_line(out, 1, "output += output_offset;");
    for (unsigned k = 1; k < cls_kernel_outputs(c); ++k) strbuf_line(out, 1, "output%u += output_offset;", k);
    if (c->spec.body) strbuf_line(out, 1, "(void)mask; /* only the operator's function may read it */");
    else if (cls_kernel_literal_coefficients(c)) strbuf_line(out, 1, "(void)mask; /* coefficients are baked */");
    else if (c->spec.bake_coefficients == CLS_COEFFICIENTS_ARGUMENT) strbuf_line(out, 1, "(void)mask; /* coefficients come in coef */");
    if (!software_constant(e)) strbuf_line(out, 1, "(void)border_value;");
    if (local_memory(c)) {
        strbuf_line(out, 1, "/* The group's tile: its outputs and the halo, from image column tile_x and row tile_y. */");
        strbuf_line(out, 1, "const int tile_x = roi.s0 + group_x * GROUP_W * COLS - HALF_W;");
        strbuf_line(out, 1, "const int tile_y = roi.s1 + group_y * GROUP_H * ROWS - HALF_H;");
        if (cls_kernel_stages_row_sums(c)) strbuf_line(out, 1, "(void)tile_x;");
        emit_tile_declaration(e, 1);
    }
}

/* ISP Listing 5, generalized: a warp (SIMD_WIDTH consecutive work-items in row-major order)
 * whose columns all lie in the body columns, and inside the region computed, needs no x check
 * (and no guard), even in a left or right group. */
static void emit_warp_refinement(emitter *e)
{
    strbuf *out = e->out;
    strbuf_line(out, 1, "/* Warp-grained refinement (ISP Listing 5): a warp whose columns all lie inside the");
    strbuf_line(out, 1, " * body columns needs no x check, even in a left or right work-group. */");
    strbuf_line(out, 1, "if (at_left || at_right) {");
    strbuf_line(out, 2, "const int item = get_local_id(1) * GROUP_W + get_local_id(0);");
    strbuf_line(out, 2, "const int first = item / SIMD_WIDTH * SIMD_WIDTH;");
    strbuf_line(out, 2, "const int last = min(first + SIMD_WIDTH, GROUP_W * GROUP_H) - 1;");
    strbuf_line(out, 2, "const int one_row = first / GROUP_W == last / GROUP_W;");
    strbuf_line(out, 2, "const int group_left = roi.s0 + group_x * GROUP_W * COLS;");
    strbuf_line(out, 2, "const int x0 = group_left + (one_row ? first %% GROUP_W : 0) * COLS;");
    strbuf_line(out, 2, "const int x1 = group_left + (one_row ? last %% GROUP_W : GROUP_W - 1) * COLS + COLS - 1;");
    strbuf_line(out, 2, "if (x0 >= body_columns.s0 && x1 < min(body_columns.s1, roi.s2)) at_left = at_right = 0;");
    strbuf_line(out, 1, "}");
}

/* The body, left and right regions, each its own copy, and one for every other group. */
static void emit_four_regions(emitter *e)
{
    const cls_kernel_config *config = e->config;
    strbuf *out = e->out;
    const char *what = config->spec.body ? "body" : "sums";
    strbuf_line(out, 1, "/* Four copies of the %s: the body region's, checking nothing; the left and right regions',", what);
    strbuf_line(out, 1, " * which most border groups run; and one that the top and bottom rows, the corners and the");
    strbuf_line(out, 1, " * fallback share, checking every side. */");
    strbuf_line(out, 1, "if (!(at_left || at_right || at_top || at_bottom)) {");
    strbuf_line(out, 2, "/* Region Body: checks no side. */");
    emit_region(e, 2, CHECK_NONE, CHECK_NONE, 0);
    strbuf_line(out, 1, "} else if (at_left && !at_right && !at_top && !at_bottom) {");
    strbuf_line(out, 2, "/* Region L: checks left. */");
    emit_region(e, 2, CHECK_LO, CHECK_NONE, 0);
    strbuf_line(out, 1, "} else if (at_right && !at_left && !at_top && !at_bottom) {");
    strbuf_line(out, 2, "/* Region R: checks right. */");
    emit_region(e, 2, CHECK_HI, CHECK_NONE, 0);
    strbuf_line(out, 1, "} else {");
    strbuf_line(out, 2, "/* Regions T, B, the corners and the fallback: check every side, any distance. */");
    if (config->spec.body) {
        emit_region(e, 2, CHECK_BOTH, CHECK_BOTH, 0);
    } else {
        emit_guard(e, 2, 1, 1);
        const axis_check check = other_groups_check(config);
        const access a = {ACCESS_GLOBAL, check, check, "x", "y", CHECK_BOTH, CHECK_BOTH};
        emit_sums(e, 2, &a);
    }
    strbuf_line(out, 1, "}");
}

/* The region switch: naive checks everything; ISP picks one of the regions per group. */
static void emit_regions(emitter *e)
{
    const cls_kernel_config *config = e->config;
    strbuf *out = e->out;
    if (cls_kernel_hardware_border(config)) { /* never on a local-memory path */
        strbuf_line(out, 1, "(void)body_columns;");
        strbuf_line(out, 1, "/* The sampler's address mode handles every side: no region needs a check. */");
        emit_guard(e, 1, 1, 1);
        emit_region_direct(e, 1, CHECK_NONE, CHECK_NONE, 0);
        return;
    }
    if (config->partition == CLS_PARTITION_NAIVE) {
        strbuf_line(out, 1, "(void)body_columns;");
        strbuf_line(out, 1, "/* Naive: every tap checks every side. */");
        emit_region(e, 1, CHECK_BOTH, CHECK_BOTH, 0);
        return;
    }
    strbuf_line(out, 1, "int at_left = group_x < group_bounds.s0;");
    strbuf_line(out, 1, "int at_right = group_x >= group_bounds.s1;");
    strbuf_line(out, 1, "const int at_top = group_y < group_bounds.s2;");
    strbuf_line(out, 1, "const int at_bottom = group_y >= group_bounds.s3;");
    if (config->partition == CLS_PARTITION_ISP_WARP && !local_memory(config)) emit_warp_refinement(e);
    else strbuf_line(out, 1, "(void)body_columns;%s",
                     local_memory(config) && config->partition == CLS_PARTITION_ISP_WARP
                         ? " /* staging is per group: no warp refinement */"
                         : "");
    if (cls_kernel_body_apart(config) || bodies_in_four_regions(config)) {
        emit_four_regions(e);
        return;
    }
    if (cls_kernel_shares_rows(config)) {
        strbuf_line(out, 1, "/* One copy of the sums for every region: a border group or warp only loads differently. */");
        strbuf_line(out, 1, "const int border = at_left || at_right || at_top || at_bottom;");
        strbuf_line(out, 1, "const int fold_fully = (at_left && at_right) || (at_top && at_bottom); /* the fallback */");
        emit_guard(e, 1, 1, 1);
        emit_sums_shared(e, 1);
        return;
    }
    const int rolled = cls_kernel_rolls_borders(config);
    if (rolled) strbuf_line(out, 1, "/* Large unrolled mask: only the body region is unrolled; the border regions loop. */");
    const size_t count = sizeof isp_regions / sizeof isp_regions[0];
    for (size_t r = 0; r < count; ++r) {
        const isp_region *region = &isp_regions[r];
        if (region->condition) strbuf_line(out, 1, "%sif (%s) {", r ? "} else " : "", region->condition);
        else strbuf_line(out, 1, "} else {");
        strbuf_line(out, 2, "/* Region %s: checks %s. */", region->label, region->sides);
        emit_region(e, 2, region->x, region->y, rolled && region->condition);
    }
    strbuf_line(out, 1, "}");
}

/* After staging: wait for the tile, then the sums from local memory, unchecked. */
static void emit_local_sums(emitter *e)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    strbuf_line(out, 1, "barrier(CLK_LOCAL_MEM_FENCE);");
    emit_guard(e, 1, 1, 1);
    if (c->spec.border == CLS_BORDER_UNDEFINED) emit_undefined_skip(e, 1, CHECK_BOTH, CHECK_BOTH);
    if (cls_kernel_stages_row_sums(c)) {
        emit_column_pass(e, 1);
        return;
    }
    strbuf_line(out, 1, "/* The sums read the tile: no checks. */");
    strbuf_line(out, 1, "const int tx = get_local_id(0) * COLS + HALF_W, ty = get_local_id(1) * ROWS + HALF_H;");
    const access a = {ACCESS_TILE, CHECK_NONE, CHECK_NONE, "tx", "ty", CHECK_NONE, CHECK_NONE};
    if (c->spec.body) emit_body_call(e, 1, &a);
    else emit_sums(e, 1, &a);
}

static void emit_store(emitter *e)
{
    const cls_kernel_config *c = e->config;
    strbuf *out = e->out;
    if (c->rows * c->cols * c->masks == 1) {
        emit_store_outputs(e, 1, "k", "(long)y * output_pitch + x");
        return;
    }
    strbuf_line(out, 1, "for (int k = 0; k < ROWS && y + k < roi.s3; ++k) {");
    emit_row_store(e, 2, "k", "y + k", 0);
    strbuf_line(out, 1, "}");
}

char *cls_emit_source(const cls_kernel_config *config)
{
    if (cls_spec_is_volume(&config->spec)) return cls_emit_volume_source(config);
    strbuf out, kernel;
    strbuf_init(&out);
    strbuf_init(&kernel);
    emitter header = {&out, config, NULL};
    emit_header(&header);
    emitter e = {&kernel, config, &out}; /* an operator body's functions go before the kernel */
    emit_signature(&e);
    if (cls_kernel_body_lanes(config)) {
        emit_body_lanes(&e);
    } else if (cls_kernel_stages_input_rows(config)) {
        emit_staged_rows(&e);
    } else {
        emit_sum_declaration(&e, 1);
        emit_regions(&e);
        if (local_memory(config)) emit_local_sums(&e);
        if (!cls_kernel_streams(config)) emit_store(&e); /* a streaming region stores as it goes */
    }
    strbuf_append(&kernel, "}\n");
    strbuf_append(&out, strbuf_text(&kernel));
    strbuf_free(&kernel);
    return strbuf_take(&out);
}
