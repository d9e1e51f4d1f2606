/* emit_volume_rank.c — a box's rank by sorted slices, walking down z: a work-item sorts each input
 * slice's WxH window once (Batcher's sort) and keeps the last MASK_D + 1 sorted slices; two
 * neighbouring outputs (z, z + 1) share MASK_D - 1 of their slices, merged once (Batcher's merges)
 * and cut to the ranks that one more slice can still move to the rank sought, and each output
 * merges its own slice into those; every network pruned to what the rank depends on (the scheme
 * of the 2-D 5x5 rectangle's sorted rows, rank_bodies.c). Exchanges an output: for 3x3x3, 28 a
 * slice and 31.5 merging against 195 for the forgetful selection (emit_volume.c); for 5x5x5, 140
 * and 296 against 3,968. */
#include "emit.h"

#include "networks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int emit_volume_box_by_slices(const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const size_t slice = (size_t)s->mask_width * s->mask_height, taps = slice * s->mask_depth;
    if (s->reduction != CLS_REDUCTION_RANK || s->mask_depth < 2 || slice < 2 || 2 * taps > NETWORK_MAX_MERGE) return 0;
    for (size_t k = 0; k < taps; ++k)
        if (c->coefficients[k] == 0.0f) return 0; /* not a box: each slice's taps differ */
    return 1;
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

/* Input slice `zz` (bordered) into sorted[MASK_D], then its sort. */
static void emit_slice_load(strbuf *out, const cls_kernel_config *c, const comparator *sort, size_t sorts)
{
    const cls_spec *s = &c->spec;
    const char *z_ = border_suffix(s, CLS_AXIS_Z);
    strbuf_line(out, 2, "const long slice = (long)border_both%s(zz, depth) * input_slice_pitch;", z_);
    if (cls_spec_border_on(s, CLS_AXIS_Z) == CLS_BORDER_CONSTANT) strbuf_line(out, 2, "const int slice_inside = inside_both%s(zz, depth);", z_);
    emit_volume_slice_taps(out, 2, s, NULL, "sorted[MASK_D]", 0);
    indent_line(out, 2);
    network_print(out, "sorted[MASK_D]", sort, sorts, 0);
    strbuf_append(out, "\n");
}

/* The store of output slice Z (the text `z` or `z + 1`) from VALUE: the pair's second only before
 * z_end, and in the undefined border only where the window lies inside along z. */
static void emit_pair_store(strbuf *out, const cls_spec *s, const char *z, const char *value, int second)
{
    char at[96], store[320], condition[128] = "";
    snprintf(at, sizeof at, "(long)(%s) * output_slice_pitch + (long)y * output_pitch + x", z);
    emit_format_store(store, sizeof store, s->output_type, "output", at, value);
    int used = second ? snprintf(condition, sizeof condition, "%s < z_end", z) : 0;
    if (s->border == CLS_BORDER_UNDEFINED)
        snprintf(condition + used, sizeof condition - (size_t)used, "%s%s >= HALF_D && %s < depth - HALF_D",
                 used ? " && " : "", z, z);
    if (*condition) strbuf_line(out, 2, "if (%s) %s", condition, store);
    else strbuf_line(out, 2, "%s", store);
}

int emit_volume_sorted_slices(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const unsigned slice = s->mask_width * s->mask_height;
    comparator *sort = NULL;
    pair_merges pair = {0};
    const size_t sorts = slice_sort(slice, &sort);
    if (!sort || !pair_merges_plan(slice, s->mask_depth, s->rank, &pair)) {
        free(sort);
        pair_merges_free(&pair);
        return 0;
    }
    strbuf_printf(out,
                  "    /* Rank RANK by sorted slices, two outputs (z, z + 1) at a time: each input slice's window\n"
                  "     * sorted once (%zu exchanges), the MASK_D - 1 slices the two share merged once, to the ranks\n"
                  "     * that one more slice can still move to rank RANK (%zu), and each output's own slice merged\n"
                  "     * into those, pruned to what rank RANK depends on (%zu and %zu). */\n",
                  sorts, pair.shared_count, pair.first_count, pair.second_count);
    strbuf_line(out, 1, "#define SLICE (MASK_W * MASK_H)");
    emit_rank_exchanges(out, c, "CE", 1);
    strbuf_line(out, 1, "float sorted[MASK_D + 1][SLICE] = {{0.0f}}; /* sorted[k]: input slice zz - MASK_D + k, sorted */");
    strbuf_line(out, 1, "for (int zz = z_first - HALF_D; zz < z_end + HALF_D + 1; ++zz) {");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = 0; k < MASK_D; ++k)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < SLICE; ++i) sorted[k][i] = sorted[k + 1][i];");
    emit_slice_load(out, c, sort, sorts);
    strbuf_line(out, 2, "const int z = zz - HALF_D - 1; /* the pair (z, z + 1), whose windows end at slices zz - 1 and zz */");
    strbuf_line(out, 2, "if (z < z_first || (z - z_first) %% 2 != 0) continue;");
    strbuf_line(out, 2, "float m[(MASK_D + 1) * SLICE], n[(MASK_D + 1) * SLICE]; /* z's and z + 1's */");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = 0; k <= MASK_D; ++k)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < SLICE; ++i) m[k * SLICE + i] = sorted[k][i];");
    if (pair.shared_count) {
        indent_line(out, 2);
        network_print(out, "m", pair.shared, pair.shared_count, 1);
        strbuf_append(out, "\n");
    }
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int i = 0; i < (MASK_D + 1) * SLICE; ++i) n[i] = m[i];");
    indent_line(out, 2);
    network_print(out, "m", pair.first, pair.first_count, 1);
    strbuf_append(out, "\n");
    indent_line(out, 2);
    network_print(out, "n", pair.second, pair.second_count, 1);
    strbuf_append(out, "\n");
    char first[32], second[32];
    snprintf(first, sizeof first, "m[%u]", pair.first_result);
    snprintf(second, sizeof second, "n[%u]", pair.second_result);
    emit_pair_store(out, s, "z", first, 0);
    emit_pair_store(out, s, "z + 1", second, 1);
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "#undef SLICE");
    strbuf_line(out, 1, "#undef CE");
    strbuf_line(out, 1, "#undef LO");
    strbuf_line(out, 1, "#undef HI");
    free(sort);
    pair_merges_free(&pair);
    return 1;
}
