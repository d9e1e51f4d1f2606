/* emit_volume_rank.c — a box's rank by sorted slices, walking down z: a work-item sorts each input
 * slice's WxH window once (Batcher's sort), keeps the last MASK_D sorted slices, and for each output
 * merges them (Batcher's merges, one list after another) pruned to the comparators that the rank
 * depends on. Three outputs share each slice's sort, and merging sorted lists takes far fewer
 * exchanges than selecting from the window's values: for 3x3x3, 28 a slice and 56 an output
 * against 195 for the forgetful selection (emit_volume.c); for 5x5x5, 140 and 675 against 3,968. */
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

/* The merges of DEPTH sorted lists of SLICE wires (list k: wires k * SLICE ...) pruned to the one
 * holding rank RANK, whose wire goes to *result; its comparators in *merges. */
static size_t slice_merges(unsigned slice, unsigned depth, unsigned rank, comparator **merges, unsigned *result)
{
    const unsigned taps = slice * depth;
    unsigned *order = malloc(taps * sizeof *order), *next = malloc(taps * sizeof *next), *list = malloc(slice * sizeof *list);
    unsigned char *needed = calloc(taps, 1);
    size_t total = 0;
    for (unsigned k = 0; k < taps; ++k) order[k] = k;
    for (unsigned k = 1; order && next && list && k < depth; ++k) /* the count first */
        total += batcher_merge(order, k * slice, order + k * slice, slice, NULL, NULL);
    *merges = malloc((total ? total : 1) * sizeof **merges);
    size_t count = 0;
    if (*merges && order && next && list && needed) {
        for (unsigned k = 1; k < depth; ++k) {
            for (unsigned i = 0; i < slice; ++i) list[i] = k * slice + i;
            count += batcher_merge(order, k * slice, list, slice, *merges + count, next);
            memcpy(order, next, (size_t)(k + 1) * slice * sizeof *order);
        }
        *result = order[rank];
        needed[*result] = 1;
        count = network_prune(*merges, count, needed);
    }
    free(order), free(next), free(list), free(needed);
    return count;
}

/* Input slice `zz` (bordered) into sorted[MASK_D - 1], then its sort. */
static void emit_slice_load(strbuf *out, const cls_kernel_config *c, const comparator *sort, size_t sorts)
{
    const cls_spec *s = &c->spec;
    const char *z_ = border_suffix(s, CLS_AXIS_Z);
    strbuf_line(out, 2, "const long slice = (long)border_both%s(zz, depth) * input_slice_pitch;", z_);
    if (cls_spec_border_on(s, CLS_AXIS_Z) == CLS_BORDER_CONSTANT) strbuf_line(out, 2, "const int slice_inside = inside_both%s(zz, depth);", z_);
    unsigned n = 0;
    for (unsigned dy = 0; dy < s->mask_height; ++dy)
        for (unsigned dx = 0; dx < s->mask_width; ++dx) {
            char index[64], load[160], row[16], column[16], inside[96];
            snprintf(index, sizeof index, "slice + row[%u] + column[%u]", dy, dx);
            emit_format_load(load, sizeof load, s->input_type, "input", index);
            snprintf(row, sizeof row, "%u", dy);
            snprintf(column, sizeof column, "%u", dx);
            emit_volume_inside(inside, sizeof inside, s, row, column);
            if (*inside) strbuf_line(out, 2, "sorted[MASK_D - 1][%u] = %s ? %s : border_value;", n++, inside, load);
            else strbuf_line(out, 2, "sorted[MASK_D - 1][%u] = %s;", n++, load);
        }
    indent_line(out, 2);
    network_print(out, "sorted[MASK_D - 1]", sort, sorts, 0);
    strbuf_append(out, "\n");
}

int emit_volume_sorted_slices(strbuf *out, const cls_kernel_config *c)
{
    const cls_spec *s = &c->spec;
    const unsigned slice = s->mask_width * s->mask_height;
    comparator *sort = NULL, *merges = NULL;
    unsigned result = 0;
    const size_t sorts = slice_sort(slice, &sort), merged = slice_merges(slice, s->mask_depth, s->rank, &merges, &result);
    if (!sort || !merges) {
        free(sort), free(merges);
        return 0;
    }
    strbuf_printf(out,
                  "    /* Rank RANK by sorted slices: each input slice's window sorted once (%zu exchanges), the\n"
                  "     * MASK_D sorted slices of an output merged, pruned to what rank RANK depends on (%zu). */\n",
                  sorts, merged);
    strbuf_line(out, 1, "#define SLICE (MASK_W * MASK_H)");
    strbuf_line(out, 1, "#define CE(v, a, b) { const float p_ = v[a], q_ = v[b]; const int swap_ = q_ < p_; "
                        "v[a] = swap_ ? q_ : p_; v[b] = swap_ ? p_ : q_; }");
    strbuf_line(out, 1, "#define LO(v, a, b) v[a] = v[b] < v[a] ? v[b] : v[a];");
    strbuf_line(out, 1, "#define HI(v, a, b) v[b] = v[b] < v[a] ? v[a] : v[b];");
    strbuf_line(out, 1, "float sorted[MASK_D][SLICE] = {{0.0f}}; /* sorted[k]: input slice zz - MASK_D + 1 + k, sorted */");
    strbuf_line(out, 1, "for (int zz = z_first - HALF_D; zz < z_end + HALF_D; ++zz) {");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = 0; k < MASK_D - 1; ++k)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < SLICE; ++i) sorted[k][i] = sorted[k + 1][i];");
    emit_slice_load(out, c, sort, sorts);
    strbuf_line(out, 2, "const int z = zz - HALF_D; /* the output whose window ends at slice zz */");
    if (s->border == CLS_BORDER_UNDEFINED)
        strbuf_line(out, 2, "if (z < z_first || z < HALF_D || z >= depth - HALF_D) continue; /* undefined: left unwritten */");
    else
        strbuf_line(out, 2, "if (z < z_first) continue;");
    strbuf_line(out, 2, "float m[FOOTPRINT];");
    strbuf_line(out, 2, "#pragma unroll");
    strbuf_line(out, 2, "for (int k = 0; k < MASK_D; ++k)");
    strbuf_line(out, 3, "#pragma unroll");
    strbuf_line(out, 3, "for (int i = 0; i < SLICE; ++i) m[k * SLICE + i] = sorted[k][i];");
    indent_line(out, 2);
    network_print(out, "m", merges, merged, 1);
    strbuf_append(out, "\n");
    char value[32], store[320];
    snprintf(value, sizeof value, "m[%u]", result);
    emit_format_store(store, sizeof store, s->output_type, "output", "(long)z * output_slice_pitch + (long)y * output_pitch + x",
                      value);
    strbuf_line(out, 2, "%s", store);
    strbuf_line(out, 1, "}");
    strbuf_line(out, 1, "#undef SLICE");
    strbuf_line(out, 1, "#undef CE");
    strbuf_line(out, 1, "#undef LO");
    strbuf_line(out, 1, "#undef HI");
    free(sort), free(merges);
    return 1;
}
