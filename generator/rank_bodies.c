/* rank_bodies.c — the text of the rank filters' operator bodies (see rank_bodies.h): a pruned
 * Batcher odd-even merge network over registers for small footprints, sorted rows (whose sorts
 * a block of rows shares) for the 3x3 median and, in blocks of rows, the 5x5 rectangle (two columns
 * at once in two lanes where the kernel runs it so: rank_two_lanes.c), a private
 * array and Wirth's quickselect for larger ones, and fmin/fmax loops for min, max and their difference.
 * A mask file's footprint is tested with MASK in the loops, listed pixel by pixel in networks. */
#include "rank_bodies.h"

#include "error.h"
#include "networks.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const shape_names[] = {"rect", "cross", "disk", "mask"};

int cls_footprint_shape_parse(const char *word, cls_footprint_shape *shape)
{
    for (unsigned k = 0; k < CLS_FOOTPRINT_MASK; ++k)
        if (strcasecmp(word, shape_names[k]) == 0) {
            *shape = (cls_footprint_shape)k;
            return 1;
        }
    return 0;
}

const char *cls_footprint_shape_name(cls_footprint_shape shape)
{
    return (unsigned)shape < sizeof shape_names / sizeof shape_names[0] ? shape_names[shape] : "?";
}

int cls_footprint_contains(const cls_footprint *f, int dx, int dy)
{
    const long rx = (long)f->width / 2, ry = (long)f->height / 2;
    if (dx < -rx || dx > rx || dy < -ry || dy > ry) return 0;
    if (f->reflected) dx = -dx, dy = -dy;
    switch (f->shape) {
    case CLS_FOOTPRINT_MASK: return f->cells[(dy + ry) * (long)f->width + dx + rx] != 0;
    case CLS_FOOTPRINT_CROSS: return dx == 0 || dy == 0;
    case CLS_FOOTPRINT_DISK: return (long)dx * dx * ry * ry + (long)dy * dy * rx * rx <= rx * rx * ry * ry;
    default: return 1;
    }
}

unsigned cls_footprint_count(const cls_footprint *f)
{
    const int rx = (int)f->width / 2, ry = (int)f->height / 2;
    unsigned count = 0;
    for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx) count += (unsigned)cls_footprint_contains(f, dx, dy);
    return count;
}

cls_footprint cls_footprint_reflect(const cls_footprint *f)
{
    cls_footprint reflected = *f;
    reflected.reflected = !f->reflected;
    return reflected;
}

/* The OpenCL C condition on dx and dy that selects the footprint inside FOR_WINDOW, or NULL
 * for the rectangle (every pixel). */
static const char *condition(const cls_footprint *f, char *text, size_t size)
{
    const long rx = (long)f->width / 2, ry = (long)f->height / 2;
    switch (f->shape) {
    case CLS_FOOTPRINT_MASK:
        snprintf(text, size, f->reflected ? "MASK(-dx, -dy) != 0.0f" : "MASK(dx, dy) != 0.0f");
        return text;
    case CLS_FOOTPRINT_CROSS: snprintf(text, size, "dx == 0 || dy == 0"); return text;
    case CLS_FOOTPRINT_DISK:
        snprintf(text, size, "dx * dx * %ld + dy * dy * %ld <= %ld", ry * ry, rx * rx, rx * rx * ry * ry);
        return text;
    default: return NULL;
    }
}

static void describe(strbuf *out, const cls_footprint *f, const char *what)
{
    strbuf_printf(out, "/* %s over the %ux%u %s%s (%u pixels)", what, f->width, f->height,
                  cls_footprint_shape_name(f->shape), f->shape == CLS_FOOTPRINT_MASK && f->reflected ? " reflected" : "",
                  cls_footprint_count(f));
}

static cls_status finish(strbuf *out, char **body)
{
    *body = strbuf_take(out);
    return *body ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* The network selecting rank RANK of n values: Batcher's sort pruned to what it depends on. */
static comparator *selection_network(unsigned n, unsigned rank, size_t *count)
{
    unsigned wires = 1;
    while (wires < n) wires *= 2;
    const size_t total = batcher_sort(wires, n, NULL);
    comparator *c = malloc((total ? total : 1) * sizeof *c);
    unsigned char *needed = calloc(n, 1);
    if (!c || !needed) {
        free(c);
        free(needed);
        return NULL;
    }
    batcher_sort(wires, n, c);
    needed[rank] = 1;
    *count = network_prune(c, total, needed);
    free(needed);
    return c;
}

static cls_status unrolled_rank(const cls_footprint *f, unsigned n, unsigned rank, const char *what, char **body)
{
    size_t count = 0;
    comparator *c = selection_network(n, rank, &count);
    if (!c) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, what);
    strbuf_printf(&out, ": rank %u of a Batcher odd-even merge network pruned to the\n"
                        " * %zu comparators it depends on, over registers */\n", rank, count);
    const int rx = (int)f->width / 2, ry = (int)f->height / 2;
    unsigned k = 0;
    for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx)
            if (cls_footprint_contains(f, dx, dy)) strbuf_printf(&out, "value_t p%u = IN(%d, %d);\n", k++, dx, dy);
    strbuf_append(&out, "value_t t;\n");
    for (size_t i = 0; i < count; ++i) {
        const unsigned lo = c[i].lo, hi = c[i].hi;
        if (c[i].need_lo && c[i].need_hi)
            strbuf_printf(&out, "t = fmin(p%u, p%u); p%u = fmax(p%u, p%u); p%u = t;\n", lo, hi, hi, lo, hi, lo);
        else if (c[i].need_lo) strbuf_printf(&out, "p%u = fmin(p%u, p%u);\n", lo, lo, hi);
        else strbuf_printf(&out, "p%u = fmax(p%u, p%u);\n", hi, lo, hi);
    }
    strbuf_printf(&out, "(void)t;\nOUT = p%u;\n", rank);
    free(c);
    return finish(&out, body);
}

/* Rank RANK of a 5x5 or 7x7 rectangle (SIDE = 2 H + 1) by sorted rows, for a column of ROWS
 * outputs (OUT_AT). Two neighbouring outputs share 2 H rows of their windows: an even output's
 * rows 1 - H .. H, which the next output sees as rows -H .. H - 1. So the column walks down its
 * input rows: each row sorted once, every other pair of rows merged once into a list of 2 SIDE,
 * the H pairs of the shared rows merged once for two outputs (two merges for the 7x7's three), to
 * the SIDE + 1 ranks (fewer at the ends) that adding a row of SIDE can still make rank RANK, and
 * those merged with each output's own row (its first, or its last). The walk is fully unrolled
 * and keeps the last SIDE sorted rows and the last H pairs in rings, so the arrays stay in
 * registers. Per output, 5x5: about 18 minima and maxima of a row's sort, 15 of a pair's merge, 18
 * of the shared rows' and 10 of its own (74 in clang's NVPTX output at 8 rows), against 196 for
 * the Batcher network; H200, f32 4096^2, median:5x5 at 8 rows: 276 us for the Batcher network at
 * one row, 208 with one body call per output (the compiler shared little), 169 walking with every
 * pair merged, 115-117 so (docs/performance-log.md). 7x7: 32 of a row's sort, 23 of a pair's, 93
 * of the shared rows' and 14 of its own, 162 against 590 for the Batcher network.
 *
 * Every network of comparators gives the rank's value, but not always the same bits: where a
 * NaN is in the window (fmin and fmax drop it and copy the other value) or both zeros (equal,
 * ordered either way by fmin and fmax on some devices) the result is the network's own. Without
 * a NaN the networks' values compare equal, so only a zero result can differ in its bits. So
 * where an output is a zero, or its window's sum is NaN (a NaN in it, or infinities of both
 * signs), the column's input rows are searched for NaNs and zeros of each sign after the walk,
 * and an output whose window holds a NaN, or +0 with -0, runs unrolled_rank's network over its
 * pixels in raster order (Batcher's loops, rolled): the results stay those of that network, bit
 * for bit, on devices that keep single-precision denormals (a flushed denormal compares equal to
 * a zero without being one). The search runs for every column of an image of zeros (H200, 5x5:
 * 171 against 115 us). With one output row (ROWS 1: nothing to share; PoCL) the body is that
 * network alone, its loops unrolled: the compiler drops what rank RANK does not depend on, as
 * selection_network does (the 7x7's 64 wires written out, pruned: PoCL left their loops rolled,
 * 499 against 41 ms at 2048^2). The 5x5's body has a section of its own for two columns in two
 * lanes (rank_two_lanes.c). */
static cls_status rows_rank(const cls_footprint *f, unsigned rank, const char *what, char **body)
{
    enum { MAX_SIDE = 7, MAX_N = MAX_SIDE * MAX_SIDE, MAX_MERGES = 2, MAX_COMPARATORS = 128 };
    const unsigned side = f->width, h = side / 2, n = side * side, list = 2 * side, shared = 2 * h * side;
    const char *shared_name = h == 2 ? "four" : "six", *own_name = h == 2 ? "fifth" : "seventh"; /* rows */
    comparator sort[16], pair[32], merges[MAX_MERGES][MAX_COMPARATORS], last_merge[64];
    size_t merge_counts[MAX_MERGES];
    const size_t sorts = batcher_sort(8, side, sort);
    unsigned wires[MAX_N];
    for (unsigned k = 0; k < n; ++k) wires[k] = k;
    /* a pair: rows of wires 0 .. side - 1 and side .. 2 side - 1; the shared rows: H pairs of
     * wires list k .. list (k + 1) - 1, merged in turn into the first */
    unsigned first[2 * MAX_SIDE], merged[MAX_N], next[MAX_N], last[MAX_N];
    const size_t pairs = batcher_merge(wires, side, wires + side, side, pair, first);
    memcpy(merged, first, sizeof first);
    for (unsigned k = 1; k < h; ++k) {
        unsigned pair_k[2 * MAX_SIDE];
        for (unsigned i = 0; i < list; ++i) pair_k[i] = first[i] + k * list;
        merge_counts[k - 1] = batcher_merge(merged, k * list, pair_k, list, merges[k - 1], next);
        memcpy(merged, next, (k + 1) * list * sizeof *next);
    }
    /* the own row (wires shared .. n - 1) moves a rank of the shared rows up by at most SIDE */
    const unsigned lo = rank > side ? rank - side : 0, hi = rank < shared - 1 ? rank : shared - 1;
    size_t lasts = batcher_merge(merged + lo, hi - lo + 1, wires + shared, side, last_merge, last);
    unsigned char needed[MAX_N] = {0};
    needed[last[rank - lo]] = 1;
    lasts = network_prune(last_merge, lasts, needed);
    for (unsigned k = h - 1; k-- > 0;) merge_counts[k] = network_prune(merges[k], merge_counts[k], needed);
    const int two_lanes = side == 5;    /* a section for two columns in two lanes (rank_two_lanes.c) */
    const int written_out = n > 32;     /* the network at one row: PoCL left 64 wires' loops rolled */
    size_t alone_count = 0;
    comparator *alone = written_out ? selection_network(n, rank, &alone_count) : NULL;
    if (written_out && !alone) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");

    strbuf out;
    strbuf_init(&out);
    describe(&out, f, what);
    strbuf_printf(&out, ": rank %u by sorted rows, a column of ROWS outputs\n"
                        " * at a time: each row sorted once, every other pair of rows merged once, the %s rows\n"
                        " * two outputs share merged once (to ranks %u-%u), and each output's %s row merged */\n",
                  rank, shared_name, lo, hi, own_name);
    strbuf_append(&out, "#if ROWS > 1 /* the walks: one pixel's values */\n"
                        "#define CE(v, a, b) { const float t_ = fmin(v[a], v[b]); v[b] = fmax(v[a], v[b]); v[a] = t_; }\n"
                        "#else\n"
                        "#define CE(v, a, b) { const value_t t_ = fmin(v[a], v[b]); v[b] = fmax(v[a], v[b]); v[a] = t_; }\n"
                        "#endif\n"
                        "#define LO(v, a, b) v[a] = fmin(v[a], v[b]);\n"
                        "#define HI(v, a, b) v[b] = fmax(v[a], v[b]);\n"
                        "#if ROWS > 1\n");
    if (two_lanes) {
        strbuf_append(&out, "#if LANES == 2\n");
        cls_rank5_two_lanes(&out, rank);
        strbuf_append(&out, "#else\n");
    }
    strbuf_printf(&out, "int check_rows = 0; /* the outputs whose window may hold a NaN, or whose rank is a zero */\n"
                        "/* rings: the last %u input rows sorted and their sums (NaN where a row holds one), the\n"
                        " * last %u pairs of rows merged; %s: the middle rows of outputs t - %u and t - %u merged */\n"
                        "float row[%u][%u], total[%u], pair[%u][%u], %s[%u];\n"
                        "#pragma unroll\n"
                        "for (int t = 0; t < ROWS + %u; ++t) { /* input row t - %u */\n"
                        "    #pragma unroll\n"
                        "    for (int i = 0; i < %u; ++i) row[t %% %u][i] = IN(i - %u, t - %u);\n"
                        "    total[t %% %u] = ",
                  side, h, shared_name, 2 * h, 2 * h - 1, side, side, side, h, list, shared_name, shared, 2 * h, h,
                  side, side, h, h, side);
    for (unsigned i = 0; i < side; ++i) strbuf_printf(&out, "%srow[t %% %u][%u]", i ? " + " : "", side, i);
    strbuf_append(&out, ";\n    ");
    char array[32];
    snprintf(array, sizeof array, "row[t %% %u]", side);
    network_print(&out, array, sort, sorts, 0);
    strbuf_printf(&out, "\n"
                        "    if (t >= 2 && t %% 2 == 0) { /* rows t - %u and t - %u */\n"
                        "        #pragma unroll\n"
                        "        for (int i = 0; i < %u; ++i) pair[t / 2 %% %u][i] = row[(t - 1) %% %u][i], pair[t / 2 %% %u][i + %u] = row[t %% %u][i];\n"
                        "        ",
                  h + 1, h, side, h, side, h, side, side);
    snprintf(array, sizeof array, "pair[t / 2 %% %u]", h);
    network_print(&out, array, pair, pairs, 0);
    strbuf_printf(&out, "\n"
                        "    }\n"
                        "    if (t >= %u && t - %u < ROWS) { /* output t - %u */\n"
                        "        if (t %% 2 == 0) { /* its rows %d .. %u, which output t - %u shares as rows %d .. %u */\n"
                        "            #pragma unroll\n"
                        "            for (int i = 0; i < %u; ++i) ",
                  2 * h, 2 * h, 2 * h, 1 - (int)h, h, 2 * h - 1, -(int)h, h - 1, list);
    for (unsigned k = 0; k < h; ++k) { /* the pairs from the oldest, (t / 2 + 1) % H, to the newest, t / 2 % H */
        strbuf_printf(&out, k ? ", %s[i + %u] = " : "%s[i] = ", shared_name, k * list);
        if (k + 1 < h) strbuf_printf(&out, "pair[(t / 2 + %u) %% %u][i]", k + 1, h);
        else strbuf_printf(&out, "pair[t / 2 %% %u][i]", h);
    }
    strbuf_append(&out, ";\n");
    for (unsigned k = 0; k + 1 < h; ++k) {
        strbuf_append(&out, "            ");
        network_print(&out, shared_name, merges[k], merge_counts[k], 1);
        strbuf_append(&out, "\n");
    }
    strbuf_printf(&out, "        }\n"
                        "        float p[%u]; /* the %s rows and the %s: row %d, or row %u */\n"
                        "        #pragma unroll\n"
                        "        for (int i = 0; i < %u; ++i) p[i] = %s[i];\n"
                        "        #pragma unroll\n"
                        "        for (int i = 0; i < %u; ++i) p[i + %u] = row[(t %% 2 == 0 ? t - %u : t) %% %u][i];\n"
                        "        ",
                  n, shared_name, own_name, -(int)h, h, shared, shared_name, side, shared, 2 * h, side);
    network_print(&out, "p", last_merge, lasts, 1);
    strbuf_printf(&out, "\n"
                        "        OUT_AT(t - %u) = p[%u];\n"
                        "        check_rows |= (isnan(",
                  2 * h, last[rank - lo]);
    for (unsigned i = 0; i < side; ++i) strbuf_printf(&out, "%stotal[%u]", i ? " + " : "", i);
    strbuf_printf(&out, ") | (p[%u] == 0.0f)) << (t - %u);\n"
                        "    }\n"
                        "}\n",
                  last[rank - lo], 2 * h);
    strbuf_printf(&out, "/* After the unrolled walk (which stays in registers): the outputs whose window holds a NaN,\n"
                        " * or +0 with -0, take the network. */\n"
                        "int network_rows = 0;\n"
                        "if (check_rows) {\n"
                        "    int positive_zero = 0, negative_zero = 0, not_a_number = 0; /* bit r: input row r - %u holds one */\n"
                        "    #pragma unroll\n"
                        "    for (int r = 0; r < ROWS + %u; ++r) {\n"
                        "        #pragma unroll\n"
                        "        for (int i = 0; i < %u; ++i) {\n"
                        "            const float v = IN(i - %u, r - %u);\n"
                        "            positive_zero |= (as_uint(v) == 0u) << r;\n"
                        "            negative_zero |= (as_uint(v) == 0x80000000u) << r;\n"
                        "            not_a_number |= isnan(v) << r;\n"
                        "        }\n"
                        "    }\n"
                        "    for (int k = 0; k < ROWS; ++k) {\n"
                        "        const int window = %u << k; /* input rows k - %u .. k + %u */\n"
                        "        if ((not_a_number & window) || ((positive_zero & window) && (negative_zero & window)))\n"
                        "            network_rows |= check_rows & 1 << k;\n"
                        "    }\n"
                        "}\n"
                        "#pragma unroll 1\n"
                        "for (int k = 0; k < ROWS; ++k) {\n"
                        "    if (network_rows >> k & 1) { /* the other rank bodies' Batcher network */\n"
                        "        float p[%u];\n"
                        "        #pragma unroll\n"
                        "        for (int w = 0; w < %u; ++w) p[w] = IN(w %% %u - %u, w / %u - %u + k);\n",
                  h, 2 * h, side, h, h, (1u << side) - 1, h, h, n, n, side, h, side, h);
    network_print_sort_loops(&out, n, "unroll 1", 2);
    strbuf_printf(&out, "        #pragma unroll\n"
                        "        for (int j = 0; j < ROWS; ++j) /* constant indices: OUT_AT's array stays in registers */\n"
                        "            if (j == k) OUT_AT(j) = p[%u];\n"
                        "    }\n"
                        "}\n",
                  rank);
    if (two_lanes) strbuf_append(&out, "#endif\n");
    strbuf_printf(&out, "#else\n"
                        "/* One output a work-item (nothing to share), or one vector of them in lanes: the network\n"
                        " * alone, unrolled, the compiler dropping what rank %u does not depend on. */\n"
                        "value_t p[%u];\n"
                        "#pragma unroll\n"
                        "for (int w = 0; w < %u; ++w) p[w] = IN(w %% %u - %u, w / %u - %u);\n",
                  rank, n, n, side, h, side, h);
    if (!written_out) {
        network_print_sort_loops(&out, n, "unroll", 0);
    } else { /* the pruned network, 12 comparators a line */
        for (size_t k = 0; k < alone_count; k += 12) {
            network_print(&out, "p", alone + k, alone_count - k < 12 ? alone_count - k : 12, 1);
            strbuf_append(&out, "\n");
        }
    }
    free(alone);
    strbuf_printf(&out, "OUT_AT(0) = p[%u];\n"
                        "#endif\n"
                        "#undef CE\n#undef LO\n#undef HI\n",
                  rank);
    return finish(&out, body);
}

/* The median of the 3x3 rectangle by sorted rows, for a column of ROWS outputs (OUT_AT): each
 * input row sorted once (6 fmin/fmax), and each output the median of three: its rows' largest
 * minimum, median middle and smallest maximum (12 more; exact with ties). Every output runs the
 * same expressions on its window's rows, in window order, whatever ROWS is, so its bits are the
 * same in every block of rows (NaN and signed zeros included: fmin and fmax may drop a NaN or
 * order +0 and -0 either way, which makes any network's result its own). That is 30 minima and
 * maxima for one output, 19.5 an output at 8 rows, against 48 for the pruned Batcher network. */
static cls_status median_3x3(const cls_footprint *f, const char *what, char **body)
{
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, what);
    strbuf_append(&out, ": by sorted rows, a column of ROWS outputs at a time:\n"
                        " * each input row sorted once, and each output the median of its rows' largest minimum,\n"
                        " * median middle and smallest maximum */\n"
                        "#define MEDIAN3(a, b, c) fmax(fmin(a, b), fmin(fmax(a, b), c))\n"
                        "value_t low[3], middle[3], high[3]; /* rings: input row t - 1 sorted, at t % 3 */\n"
                        "#pragma unroll\n"
                        "for (int t = 0; t < ROWS + 2; ++t) { /* input row t - 1 */\n"
                        "    const value_t a = IN(-1, t - 1), b = IN(0, t - 1), c = IN(1, t - 1);\n"
                        "    low[t % 3] = fmin(fmin(a, b), c);\n"
                        "    middle[t % 3] = MEDIAN3(a, b, c);\n"
                        "    high[t % 3] = fmax(fmax(a, b), c);\n"
                        "    if (t >= 2) { /* output t - 2, its rows in window order */\n"
                        "        const int top = (t - 2) % 3, centre = (t - 1) % 3, bottom = t % 3;\n"
                        "        const value_t lows = fmax(fmax(low[top], low[centre]), low[bottom]);\n"
                        "        const value_t highs = fmin(fmin(high[top], high[centre]), high[bottom]);\n"
                        "        const value_t middles = MEDIAN3(middle[top], middle[centre], middle[bottom]);\n"
                        "        OUT_AT(t - 2) = MEDIAN3(lows, middles, highs);\n"
                        "    }\n"
                        "}\n"
                        "#undef MEDIAN3\n");
    return finish(&out, body);
}

static cls_status array_rank(const cls_footprint *f, unsigned n, unsigned rank, const char *what, char **body)
{
    char test[96];
    const char *cond = condition(f, test, sizeof test);
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, what);
    strbuf_printf(&out, ": rank %u by Wirth's quickselect over a private array */\n", rank);
    strbuf_printf(&out, "float values[%u];\nint count = 0;\nFOR_WINDOW(dx, dy) {\n", n);
    if (cond) strbuf_printf(&out, "    if (%s) values[count++] = IN(dx, dy);\n", cond);
    else strbuf_append(&out, "    values[count++] = IN(dx, dy);\n");
    /* Hoare partitions around values[rank] until it holds the rank's value; every scan stops
     * at an element that is not strictly on its side (NaN included), so none leaves the array. */
    strbuf_printf(&out,
                  "}\n"
                  "int lo = 0, hi = %u;\n"
                  "while (lo < hi) {\n"
                  "    const float pivot = values[%u];\n"
                  "    int i = lo, j = hi;\n"
                  "    do {\n"
                  "        while (values[i] < pivot) ++i;\n"
                  "        while (pivot < values[j]) --j;\n"
                  "        if (i <= j) {\n"
                  "            const float t = values[i];\n"
                  "            values[i] = values[j];\n"
                  "            values[j] = t;\n"
                  "            ++i;\n"
                  "            --j;\n"
                  "        }\n"
                  "    } while (i <= j);\n"
                  "    if (j < %u) lo = i;\n"
                  "    if (%u < i) hi = j;\n"
                  "}\n"
                  "OUT = values[%u];\n",
                  n - 1, rank, rank, rank, rank);
    return finish(&out, body);
}

cls_status cls_rank_body(const cls_footprint *f, unsigned rank, const char *what, char **body)
{
    *body = NULL;
    const unsigned n = cls_footprint_count(f);
    if (n > CLS_RANK_MAX_PIXELS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "a %s footprint of %ux%u holds %u pixels: rank filters select among at most %d (a private "
                        "array of floats per work-item; 31x31 is the largest square)",
                        cls_footprint_shape_name(f->shape), f->width, f->height, n, CLS_RANK_MAX_PIXELS);
    if (rank >= n) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "rank %u of a footprint of %u pixels", rank, n);
    if (f->shape == CLS_FOOTPRINT_RECT && f->width == 3 && f->height == 3 && rank == 4) return median_3x3(f, what, body);
    if (f->shape == CLS_FOOTPRINT_RECT && f->width == f->height && (f->width == 5 || f->width == 7))
        return rows_rank(f, rank, what, body);
    return n <= CLS_RANK_UNROLLED_MAX ? unrolled_rank(f, n, rank, what, body) : array_rank(f, n, rank, what, body);
}

/* The loop over the footprint's pixels around STATEMENT (which reads `v`). */
static void footprint_loop(strbuf *out, const cls_footprint *f, const char *statement)
{
    char test[96];
    const char *cond = condition(f, test, sizeof test);
    strbuf_append(out, "FOR_WINDOW(dx, dy) {\n");
    if (cond) strbuf_printf(out, "    if (!(%s)) continue;\n", cond);
    strbuf_printf(out, "    const value_t v = IN(dx, dy);\n    %s\n}\n", statement);
}

cls_status cls_extremum_body(const cls_footprint *f, int maximum, char **body)
{
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, maximum ? "grey dilation: the maximum" : "grey erosion: the minimum");
    strbuf_append(&out, "; NaN pixels are skipped (fmin, fmax) */\n");
    strbuf_printf(&out, "value_t extreme = %sINFINITY;\n", maximum ? "-" : "");
    footprint_loop(&out, f, maximum ? "extreme = fmax(extreme, v);" : "extreme = fmin(extreme, v);");
    strbuf_append(&out, "OUT = extreme;\n");
    return finish(&out, body);
}

cls_status cls_morph_gradient_body(const cls_footprint *f, char **body)
{
    const cls_footprint reflected = cls_footprint_reflect(f);
    char test[96], reflected_test[96];
    const char *cond = condition(f, test, sizeof test), *reflected_cond = condition(&reflected, reflected_test, sizeof reflected_test);
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, "morphological gradient: maximum - minimum");
    if (!cond || strcmp(cond, reflected_cond) == 0) {
        strbuf_append(&out, " in one pass */\nvalue_t lowest = INFINITY, highest = -INFINITY;\n");
        footprint_loop(&out, f, "lowest = fmin(lowest, v);\n    highest = fmax(highest, v);");
    } else {
        /* an asymmetric footprint: grey dilation takes the maximum over its reflection */
        strbuf_append(&out, " in one pass, the maximum over the footprint reflected (grey\n"
                            " * dilation), the minimum over the footprint (grey erosion) */\n"
                            "value_t lowest = INFINITY, highest = -INFINITY;\nFOR_WINDOW(dx, dy) {\n"
                            "    const value_t v = IN(dx, dy);\n");
        strbuf_printf(&out, "    if (%s) lowest = fmin(lowest, v);\n    if (%s) highest = fmax(highest, v);\n}\n", cond,
                      reflected_cond);
    }
    strbuf_append(&out, "OUT = highest - lowest;\n");
    return finish(&out, body);
}
