/* emit_volume_rank.c — a box's rank by sorted slices, walking down z: a work-item sorts each input
 * slice's WxH window once (Batcher's sort) and keeps the last MASK_D + 1 sorted slices in a ring;
 * two neighbouring outputs (z, z + 1) share MASK_D - 1 of their slices, merged once (Batcher's
 * merges) and cut to the ranks that one more slice can still move to the rank sought, and each
 * output merges its own slice into those; every network pruned to what the rank depends on (the
 * scheme of the 2-D 5x5 rectangle's sorted rows, rank_bodies.c). Where the record says so a
 * work-item takes two neighbouring columns (x, x + 1), whose windows share their middle columns'
 * sorts, its ring turning instead of shifting; the exchanges are fmin and fmax or a comparison and
 * two selects, as the record says. Exchanges an output: for 3x3x3, 28 a slice (21.5 in pairs) and
 * 31.5 merging against 195 for the forgetful selection (emit_volume.c); for 5x5x5, 140 and 296
 * against 3,968. */
#include "emit.h"

#include "networks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a box's rank (every tap of the window, more than one slice deep and one pixel a slice)
 * of at most NETWORK_TAPS taps runs by sorted slices. */
static int rank_by_slices(const cls_spec *s, const float *coefficients, unsigned network_taps)
{
    const size_t slice = (size_t)s->mask_width * s->mask_height, taps = slice * s->mask_depth;
    if (s->reduction != CLS_REDUCTION_RANK || s->body || s->mask_depth < 2 || slice < 2 || 2 * taps > NETWORK_MAX_MERGE ||
        taps > network_taps)
        return 0;
    for (size_t k = 0; k < taps; ++k)
        if (coefficients[k] == 0.0f) return 0; /* not a box: each slice's taps differ */
    return 1;
}

int cls_volume_rank_pairs(const cls_spec *s, const float *coefficients, unsigned network_taps)
{
    return s->partition != CLS_PARTITION_NAIVE && s->mask_width >= 2 && s->mask_depth % 2 == 1 &&
           2u * (s->mask_depth + 1) * s->mask_width * s->mask_height <= CLS_RANK_PAIR_RING_MAX &&
           rank_by_slices(s, coefficients, network_taps);
}

int emit_volume_box_by_slices(const cls_kernel_config *c)
{
    return rank_by_slices(&c->spec, c->coefficients, NETWORK_MAX_MERGE);
}

void emit_rank_exchanges(strbuf *out, const cls_kernel_config *c, const char *name, int pruned)
{
    const int minmax = c->limits.rank_minmax != 0;
    strbuf_printf(out, "#define %s(v, a, b) { const float p_ = v[a], q_ = v[b]; %s }\n", name,
                  minmax ? "v[a] = fmin(p_, q_); v[b] = fmax(p_, q_);"
                         : "const int swap_ = q_ < p_; v[a] = swap_ ? q_ : p_; v[b] = swap_ ? p_ : q_;");
    if (!pruned) return;
    strbuf_append(out, minmax ? "#define LO(v, a, b) v[a] = fmin(v[a], v[b]);\n#define HI(v, a, b) v[b] = fmax(v[a], v[b]);\n"
                              : "#define LO(v, a, b) v[a] = v[b] < v[a] ? v[b] : v[a];\n"
                                "#define HI(v, a, b) v[b] = v[b] < v[a] ? v[a] : v[b];\n");
}

/* How the walk keeps its ring of MASK_D + 1 sorted slices a column: shifted down a slot at every
 * input slice (the newest in slot MASK_D), or, for a pair of columns, turning (the slice zz in slot
 * `at` of an unrolled loop, the oldest in at + 1): the statements' indent, the newest slice's
 * slot, and the slot of the k-th oldest. */
typedef struct ring {
    int indent;
    const char *newest, *kth_oldest;
} ring;

/* The sort of one slice's SLICE values (every output needed); its comparators in *sort. */
static size_t slice_sort(unsigned slice, comparator **sort)
{
    unsigned wires = 1;
    while (wires < slice) wires *= 2;
    const size_t count = batcher_sort(wires, slice, NULL);
    *sort = malloc((count ? count : 1) * sizeof **sort);
    if (*sort) batcher_sort(wires, slice, *sort);
    return *sort ? count : 0;
}

/* The merges of two neighbouring outputs (z, z + 1) over a ring of DEPTH + 1 sorted slices of
 * SLICE wires (ring position k: wires k * SLICE ...): the DEPTH - 1 slices they share merged once
 * and pruned to the ranks that one more slice can still move to RANK (`cut`), then each output's
 * own slice (position 0 for z, DEPTH for z + 1) merged into those, pruned to RANK. */
typedef struct pair_merges {
    comparator *shared, *first, *second;
    size_t shared_count, first_count, second_count;
    unsigned first_result, second_result; /* the wires that end with rank RANK */
} pair_merges;

/* The merge of the CUT wires (COUNT) with ring position K, pruned to rank TARGET of their union. */
static comparator *final_merge(const unsigned *cut, unsigned count, unsigned slice, unsigned k, unsigned target,
                               unsigned wires, size_t *merged, unsigned *result)
{
    unsigned *list = malloc(slice * sizeof *list), *order = malloc((count + slice) * sizeof *order);
    unsigned char *needed = calloc(wires, 1);
    for (unsigned i = 0; list && i < slice; ++i) list[i] = k * slice + i;
    const size_t total = list && order && needed ? batcher_merge(cut, count, list, slice, NULL, NULL) : 0;
    comparator *c = malloc((total ? total : 1) * sizeof *c);
    if (c && list && order && needed) {
        *merged = batcher_merge(cut, count, list, slice, c, order);
        *result = order[target];
        needed[*result] = 1;
        *merged = network_prune(c, *merged, needed);
    } else {
        free(c);
        c = NULL;
    }
    free(list), free(order), free(needed);
    return c;
}

static int pair_merges_plan(unsigned slice, unsigned depth, unsigned rank, pair_merges *p)
{
    memset(p, 0, sizeof *p);
    const unsigned shared = (depth - 1) * slice, wires = (depth + 1) * slice;
    unsigned *order = malloc(shared * sizeof *order), *next = malloc(shared * sizeof *next), *list = malloc(slice * sizeof *list);
    unsigned char *needed = calloc(wires, 1);
    int ok = order && next && list && needed;
    size_t total = 0;
    for (unsigned i = 0; ok && i < shared; ++i) order[i] = i; /* any wires: the count reads them */
    for (unsigned i = 0; ok && i < slice; ++i) list[i] = i;
    for (unsigned k = 2; ok && k < depth; ++k) total += batcher_merge(order, (k - 1) * slice, list, slice, NULL, NULL);
    ok = ok && (p->shared = malloc((total ? total : 1) * sizeof *p->shared)) != NULL;
    if (ok) {
        for (unsigned i = 0; i < slice; ++i) order[i] = slice + i; /* ring position 1, sorted */
        for (unsigned k = 2; k < depth; ++k) {
            for (unsigned i = 0; i < slice; ++i) list[i] = k * slice + i;
            p->shared_count += batcher_merge(order, (k - 1) * slice, list, slice, p->shared + p->shared_count, next);
            memcpy(order, next, (size_t)k * slice * sizeof *order);
        }
        /* one slice more moves a rank of the shared list up by at most SLICE */
        const unsigned lo = rank > slice ? rank - slice : 0, hi = rank < shared - 1 ? rank : shared - 1;
        for (unsigned i = lo; i <= hi; ++i) needed[order[i]] = 1;
        p->shared_count = network_prune(p->shared, p->shared_count, needed);
        p->first = final_merge(order + lo, hi - lo + 1, slice, 0, rank - lo, wires, &p->first_count, &p->first_result);
        p->second = final_merge(order + lo, hi - lo + 1, slice, depth, rank - lo, wires, &p->second_count, &p->second_result);
        ok = p->first && p->second;
    }
    free(order), free(next), free(list), free(needed);
    return ok;
}

static void pair_merges_free(pair_merges *p)
{
    free(p->shared), free(p->first), free(p->second);
}

/* Input slice `zz` (bordered) into the newest slot of the ring, then its sort. */
static void emit_slice_load(strbuf *out, const cls_kernel_config *c, const ring *r, const comparator *sort, size_t sorts)
{
    char slot[48];
    snprintf(slot, sizeof slot, "sorted[0][%s]", r->newest);
    emit_volume_slice_taps(out, r->indent + 1, &c->spec, NULL, slot, 0);
    indent_line(out, r->indent + 1);
    network_print(out, slot, sort, sorts, 0);
    strbuf_append(out, "\n");
}

/* The two windows of a pair of output columns from one slice, MASK_W + 1 columns of MASK_H pixels
 * (column i's at wires i * MASK_H ...): each column sorted, the MASK_W - 1 middle columns both
 * windows take merged once, then the first column merged into those (the first window) and, in a
 * copy, the last (the second); the wires that end with each window's ranks. */
typedef struct window_pair {
    comparator *shared, *first, *second;
    size_t shared_count, first_count, second_count;
    unsigned *first_order, *second_order; /* the wires of ranks 0 .. SLICE - 1 */
} window_pair;

static void window_pair_free(window_pair *w)
{
    free(w->shared), free(w->first), free(w->second), free(w->first_order), free(w->second_order);
}

/* The comparators of merging list A (na wires) with B (nb) appended to *c (count *n, room for
 * `room`), the merged order in ORDER. */
static int append_merge(const unsigned *a, unsigned na, const unsigned *b, unsigned nb, comparator *c, size_t *n,
                        size_t room, unsigned *order)
{
    const size_t count = batcher_merge(a, na, b, nb, NULL, NULL);
    if (!count && na + nb > 1) return 0;
    if (*n + count > room) return 0;
    *n += batcher_merge(a, na, b, nb, c + *n, order);
    return 1;
}

static int window_pair_plan(unsigned w, unsigned h, window_pair *p)
{
    memset(p, 0, sizeof *p);
    enum { ROOM = 4096 };
    const unsigned wires = (w + 1) * h, slice = w * h;
    unsigned *middle = malloc(wires * sizeof *middle), *next = malloc(wires * sizeof *next),
             *column = malloc(h * sizeof *column);
    p->shared = malloc(ROOM * sizeof *p->shared);
    p->first = malloc(ROOM * sizeof *p->first);
    p->second = malloc(ROOM * sizeof *p->second);
    p->first_order = malloc(slice * sizeof *p->first_order);
    p->second_order = malloc(slice * sizeof *p->second_order);
    int ok = middle && next && column && p->shared && p->first && p->second && p->first_order && p->second_order;
    unsigned pow2 = 1;
    while (pow2 < h) pow2 *= 2;
    comparator sort[64];
    const size_t sorts = ok && batcher_sort(pow2, h, NULL) <= 64 ? batcher_sort(pow2, h, sort) : 0;
    ok = ok && (sorts || h == 1);
    for (unsigned i = 0; ok && i <= w; ++i) /* each column sorted */
        for (size_t k = 0; k < sorts && p->shared_count < ROOM; ++k, ++p->shared_count) {
            p->shared[p->shared_count] = sort[k];
            p->shared[p->shared_count].lo = (unsigned short)(sort[k].lo + i * h);
            p->shared[p->shared_count].hi = (unsigned short)(sort[k].hi + i * h);
        }
    for (unsigned r = 0; ok && r < h; ++r) middle[r] = h + r; /* column 1 */
    for (unsigned i = 2; ok && i < w; ++i) { /* columns 2 .. w - 1 merged into it */
        for (unsigned r = 0; r < h; ++r) column[r] = i * h + r;
        ok = append_merge(middle, (i - 1) * h, column, h, p->shared, &p->shared_count, ROOM, next);
        if (ok) memcpy(middle, next, (size_t)i * h * sizeof *middle);
    }
    for (unsigned r = 0; ok && r < h; ++r) column[r] = r; /* column 0: the first window's own */
    ok = ok && append_merge(column, h, middle, (w - 1) * h, p->first, &p->first_count, ROOM, p->first_order);
    for (unsigned r = 0; ok && r < h; ++r) column[r] = w * h + r; /* column w: the second's */
    ok = ok && append_merge(middle, (w - 1) * h, column, h, p->second, &p->second_count, ROOM, p->second_order);
    free(middle), free(next), free(column);
    if (!ok) window_pair_free(p);
    return ok;
}

/* Input slice `zz` (bordered) for a pair of output columns: its MASK_W + 1 columns into p[] column
 * by column, the windows sorted (window_pair), into the ring slots sorted[0][at] and sorted[1][at]. */
static void emit_pair_slice_load(strbuf *out, const cls_kernel_config *c, const ring *r, const window_pair *w)
{
    const cls_spec *s = &c->spec;
    const unsigned slice = s->mask_width * s->mask_height;
    strbuf_line(out, r->indent + 1, "float p[(MASK_W + 1) * MASK_H], q[(MASK_W + 1) * MASK_H]; /* column by column */");
    for (unsigned dx = 0; dx <= s->mask_width; ++dx)
        for (unsigned dy = 0; dy < s->mask_height; ++dy) emit_volume_tap(out, r->indent + 1, s, dy, dx, "p", dx * s->mask_height + dy);
    strbuf_line(out, r->indent + 1, "/* each column sorted, the middle columns merged */");
    indent_line(out, r->indent + 1);
    network_print(out, "p", w->shared, w->shared_count, 0);
    strbuf_append(out, "\n");
    strbuf_line(out, r->indent + 1, "#pragma unroll");
    strbuf_line(out, r->indent + 1, "for (int i = 0; i < (MASK_W + 1) * MASK_H; ++i) q[i] = p[i];");
    strbuf_line(out, r->indent + 1, "/* the first column into the middle (the first window), the last into a copy (the second) */");
    indent_line(out, r->indent + 1);
    network_print(out, "p", w->first, w->first_count, 0);
    strbuf_append(out, "\n");
    indent_line(out, r->indent + 1);
    network_print(out, "q", w->second, w->second_count, 0);
    strbuf_append(out, "\n");
    for (unsigned k = 0; k < slice; ++k)
        strbuf_line(out, r->indent + 1, "sorted[0][%s][%u] = p[%u], sorted[1][%s][%u] = q[%u];", r->newest, k,
                    w->first_order[k], r->newest, k, w->second_order[k]);
}

/* The store of output slice Z (the text `z` or `z + 1`) of column x + J from VALUE, through the
 * pair's address `out_z` (output slice z, column x): the pair's second only before z_end, a pair
 * of columns' where it keeps the column, and in the undefined border only where the window lies
 * inside along z. */
static void emit_pair_store(strbuf *out, const cls_kernel_config *c, int indent, unsigned j, const char *z,
                            const char *value, int second)
{
    const cls_spec *s = &c->spec;
    static const char *const at[2][2] = {{"0", "1"}, {"output_slice_pitch", "output_slice_pitch + 1"}}; /* [second][j] */
    char store[352], condition[160] = "";
    emit_format_store(store, sizeof store, s->output_type, "out_z", at[second != 0][j != 0], value);
    size_t used = 0;
    if (c->cols == 2) used += (size_t)snprintf(condition, sizeof condition, "keep%u", j);
    if (second) used += (size_t)snprintf(condition + used, sizeof condition - used, "%s%s < z_end", used ? " && " : "", z);
    if (s->border == CLS_BORDER_UNDEFINED)
        snprintf(condition + used, sizeof condition - used, "%s%s >= HALF_D && %s < depth - HALF_D", used ? " && " : "", z, z);
    if (*condition) strbuf_line(out, indent, "if (%s) %s", condition, store);
    else strbuf_line(out, indent, "%s", store);
}

/* Output column J's pair of outputs (z, z + 1) from its ring of sorted slices. */
static void emit_pair_outputs(strbuf *out, const cls_kernel_config *c, const ring *r, unsigned j, const pair_merges *pair)
{
    char m[8], n[8], first[32], second[32];
    snprintf(m, sizeof m, "m%u", j);
    snprintf(n, sizeof n, "n%u", j);
    strbuf_line(out, r->indent, "float %s[(MASK_D + 1) * SLICE], %s[(MASK_D + 1) * SLICE]; /* column %u's z and z + 1 */", m, n, j);
    strbuf_line(out, r->indent, "#pragma unroll");
    strbuf_line(out, r->indent, "for (int k = 0; k <= MASK_D; ++k)");
    strbuf_line(out, r->indent + 1, "#pragma unroll");
    strbuf_line(out, r->indent + 1, "for (int i = 0; i < SLICE; ++i) %s[k * SLICE + i] = sorted[%u][%s][i];", m, j, r->kth_oldest);
    if (pair->shared_count) {
        indent_line(out, r->indent);
        network_print(out, m, pair->shared, pair->shared_count, 1);
        strbuf_append(out, "\n");
    }
    strbuf_line(out, r->indent, "#pragma unroll");
    strbuf_line(out, r->indent, "for (int i = 0; i < (MASK_D + 1) * SLICE; ++i) %s[i] = %s[i];", n, m);
    indent_line(out, r->indent);
    network_print(out, m, pair->first, pair->first_count, 1);
    strbuf_append(out, "\n");
    indent_line(out, r->indent);
    network_print(out, n, pair->second, pair->second_count, 1);
    strbuf_append(out, "\n");
    snprintf(first, sizeof first, "%s[%u]", m, pair->first_result);
    snprintf(second, sizeof second, "%s[%u]", n, pair->second_result);
    emit_pair_store(out, c, r->indent, j, "z", first, 0);
    emit_pair_store(out, c, r->indent, j, "z + 1", second, 1);
}

int emit_volume_sorted_slices(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const unsigned slice = s->mask_width * s->mask_height, columns = c->cols == 2 ? 2 : 1;
    comparator *sort = NULL;
    pair_merges pair = {0};
    window_pair windows = {0};
    const size_t sorts = columns == 1 ? slice_sort(slice, &sort) : 0;
    const int planned = columns == 1 ? sort != NULL : window_pair_plan(s->mask_width, s->mask_height, &windows);
    if (!planned || !pair_merges_plan(slice, s->mask_depth, s->rank, &pair)) {
        free(sort);
        if (planned && columns == 2) window_pair_free(&windows);
        pair_merges_free(&pair);
        return 0;
    }
    if (columns == 1)
        strbuf_printf(out,
                      "    /* Rank RANK by sorted slices, two outputs (z, z + 1) at a time: each input slice's window\n"
                      "     * sorted once (%zu exchanges), the MASK_D - 1 slices the two share merged once, to the ranks\n"
                      "     * that one more slice can still move to rank RANK (%zu), and each output's own slice merged\n"
                      "     * into those, pruned to what rank RANK depends on (%zu and %zu). */\n",
                      sorts, pair.shared_count, pair.first_count, pair.second_count);
    else
        strbuf_printf(out,
                      "    /* Rank RANK by sorted slices, two outputs (z, z + 1) at a time in each of two columns (x, x + 1):\n"
                      "     * each input slice's two windows sorted once from their MASK_W + 1 columns, the columns both\n"
                      "     * take sorted and merged once (%zu exchanges, then %zu and %zu for the two windows), the\n"
                      "     * MASK_D - 1 slices two outputs share merged once, to the ranks that one more slice can still\n"
                      "     * move to rank RANK (%zu), and each output's own slice merged into those (%zu and %zu). */\n",
                      windows.shared_count, windows.first_count, windows.second_count, pair.shared_count,
                      pair.first_count, pair.second_count);
    strbuf_line(out, 1, "#define SLICE (MASK_W * MASK_H)");
    emit_rank_exchanges(out, c, "CE", 1);
    /* A pair of columns turns its ring: MASK_D + 1 slots (an even count: the depth is odd) go round
     * once a step of the outer loop, whose inner loop the compiler unrolls, so every slot index is a
     * constant, no slice moves between registers and the pairs (z, z + 1) start at the odd slots
     * (H200, 512^3, median3d:3 in clamp 1,129 -> 1,044 us, its cold build 253 -> 352 ms). One column
     * shifts its ring, which builds the 5x5x5 box's rank in half the time for the same kernel time. */
    const int turns = columns == 2;
    const ring r = turns ? (ring){3, "at", "(at + 1 + k) % (MASK_D + 1)"} : (ring){2, "MASK_D", "k"};
    const char *z_ = border_suffix(s, CLS_AXIS_Z);
    strbuf_line(out, 1, "float sorted[%u][MASK_D + 1][SLICE]%s; /* sorted[j]: column x + j's sorted slices, a ring */", columns,
                turns ? "" : " = {{{0.0f}}}");
    if (turns) {
        strbuf_line(out, 1, "for (int zz0 = z_first - HALF_D; zz0 < z_end + HALF_D + 1; zz0 += MASK_D + 1) {");
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int at = 0; at <= MASK_D; ++at) { /* slice zz into slot at; the ring's oldest in slot at + 1 */");
        strbuf_line(out, 3, "const int zz = zz0 + at;");
        strbuf_line(out, 3, "if (zz >= z_end + HALF_D + 1) break;");
    } else {
        strbuf_line(out, 1, "for (int zz = z_first - HALF_D; zz < z_end + HALF_D + 1; ++zz) { /* slice zz into slot MASK_D */");
        strbuf_line(out, 2, "#pragma unroll");
        strbuf_line(out, 2, "for (int k = 0; k < MASK_D; ++k)");
        strbuf_line(out, 3, "#pragma unroll");
        strbuf_line(out, 3, "for (int i = 0; i < SLICE; ++i) sorted[0][k][i] = sorted[0][k + 1][i];");
    }
    strbuf_line(out, r.indent, "{ /* the slice's window%s, sorted */", turns ? "s" : "");
    strbuf_line(out, r.indent + 1, "const long slice = (long)slice_index(zz, depth) * input_slice_pitch;");
    if (cls_spec_border_on(s, CLS_AXIS_Z) == CLS_BORDER_CONSTANT)
        strbuf_line(out, r.indent + 1, "const int slice_inside = inside_both%s(zz, depth);", z_);
    if (turns) emit_pair_slice_load(out, c, &r, &windows);
    else emit_slice_load(out, c, &r, sort, sorts);
    strbuf_line(out, r.indent, "}");
    strbuf_line(out, r.indent, "const int z = zz - HALF_D - 1; /* the pair (z, z + 1), whose windows end at slices zz - 1 and zz */");
    if (turns) strbuf_line(out, r.indent, "if (at %% 2 == 0 || z < z_first) continue;");
    else strbuf_line(out, r.indent, "if (z < z_first || (z - z_first) %% 2 != 0) continue;");
    /* one address a pair (H200, 512^3, median3d:3 in clamp 1,048 -> 1,041 us) */
    strbuf_line(out, r.indent, "__global output_t *const out_z = output + (long)z * output_slice_pitch + (long)y * output_pitch + x;");
    for (unsigned j = 0; j < columns; ++j) emit_pair_outputs(out, c, &r, j, &pair);
    if (turns) strbuf_line(out, 2, "}");
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "#undef SLICE");
    strbuf_line(out, 1, "#undef CE");
    strbuf_line(out, 1, "#undef LO");
    strbuf_line(out, 1, "#undef HI");
    free(sort);
    if (columns == 2) window_pair_free(&windows);
    pair_merges_free(&pair);
    return 1;
}
