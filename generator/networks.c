/* networks.c — networks of comparators (networks.h): Batcher's odd-even merge sort and merge,
 * pruned to what chosen outputs depend on, and their text. */
#include "networks.h"

#include <string.h>

/* Batcher's odd-even merge sort of `wires` (a power of two) wires, keeping the comparators
 * whose wires are both below n (the others compare with +infinity padding: no-ops). Returns
 * the count written to C (NULL: count only). */
size_t batcher_sort(unsigned wires, unsigned n, comparator *c)
{
    size_t count = 0;
    for (unsigned p = 1; p < wires; p *= 2)
        for (unsigned k = p; k >= 1; k /= 2)
            for (unsigned j = k % p; j + k < wires; j += 2 * k)
                for (unsigned i = 0; i < k && i + j + k < wires; ++i)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p) && i + j + k < n) {
                        if (c) c[count] = (comparator){(unsigned short)(i + j), (unsigned short)(i + j + k), 0, 0};
                        ++count;
                    }
    return count;
}

/* From the last comparator back, keeps those an output marked in NEEDED (one flag per wire,
 * updated) depends on, marking which of their two outputs is needed; returns the count kept,
 * moved to the front of C in their order. */
size_t network_prune(comparator *c, size_t total, unsigned char *needed)
{
    size_t kept = total;
    for (size_t k = total; k-- > 0;) {
        comparator x = c[k];
        x.need_lo = needed[x.lo];
        x.need_hi = needed[x.hi];
        if (!x.need_lo && !x.need_hi) continue;
        needed[x.lo] = needed[x.hi] = 1;
        c[--kept] = x;
    }
    memmove(c, c + kept, (total - kept) * sizeof *c);
    return total - kept;
}

/* Batcher's odd-even merge of the sorted lists of wires A (na) and B (nb) into C (NULL: count
 * only): A at positions P - na .. P - 1, B at P .. P + nb - 1 of a merge of 2P positions (P a
 * power of two); the comparators touching the padding (-infinity below A, +infinity above B)
 * are no-ops and left out. ORDER (if not NULL) receives the wires in the merged order. */
size_t batcher_merge(const unsigned *a, unsigned na, const unsigned *b, unsigned nb, comparator *c, unsigned *order)
{
    unsigned half = 1;
    while (half < na || half < nb) half *= 2;
    if (2 * half > NETWORK_MAX_MERGE) return 0;
    int wire[NETWORK_MAX_MERGE];
    for (unsigned k = 0; k < 2 * half; ++k)
        wire[k] = k + na >= half && k < half ? (int)a[k + na - half] : k >= half && k < half + nb ? (int)b[k - half] : -1;
    size_t count = 0;
    for (unsigned k = half; k >= 1; k /= 2)
        for (unsigned j = k % half; j + k < 2 * half; j += 2 * k)
            for (unsigned i = j; i < j + k && i + k < 2 * half; ++i)
                if (wire[i] >= 0 && wire[i + k] >= 0) {
                    if (c) c[count] = (comparator){(unsigned short)wire[i], (unsigned short)wire[i + k], 0, 0};
                    ++count;
                }
    if (order)
        for (unsigned k = 0, n = 0; k < 2 * half; ++k)
            if (wire[k] >= 0) order[n++] = (unsigned)wire[k];
    return count;
}

/* COUNT comparators on one line over the array ARRAY: CE(ARRAY,a,b) both outputs, LO the
 * minimum only, HI the maximum only (where PRUNED). */
void network_print(strbuf *out, const char *array, const comparator *c, size_t count, int pruned)
{
    for (size_t k = 0; k < count; ++k) {
        const char *kind = !pruned || (c[k].need_lo && c[k].need_hi) ? "CE" : c[k].need_lo ? "LO" : "HI";
        strbuf_printf(out, "%s%s(%s,%u,%u)", k ? " " : "", kind, array, c[k].lo, c[k].hi);
    }
}

/* Batcher's odd-even merge sort of the N values p[0 .. N - 1] as loops (CE each exchange), each
 * loop under the pragma PRAGMA ("unroll" or "unroll 1"), INDENT levels deep: the comparators of
 * batcher_sort over the next power of two, in its order. */
static void indent_to(strbuf *out, int indent)
{
    for (int i = 0; i < indent; ++i) strbuf_append(out, "    ");
}

void network_print_sort_loops(strbuf *out, unsigned n, const char *pragma, int indent)
{
    unsigned wires = 1;
    while (wires < n) wires *= 2;
    indent_to(out, indent);
    strbuf_printf(out, "_Pragma(\"%s\") for (int m = 1; m < %u; m *= 2)\n", pragma, wires);
    indent_to(out, indent);
    strbuf_printf(out, "    _Pragma(\"%s\") for (int d = %u; d >= 1; d /= 2)\n", pragma, wires / 2);
    indent_to(out, indent);
    strbuf_printf(out, "        _Pragma(\"%s\") for (int i = 0; i < %u; ++i)\n", pragma, n);
    indent_to(out, indent);
    strbuf_append(out, "            if (d <= m && i >= d % m && (i - d % m) % (2 * d) < d &&\n");
    indent_to(out, indent);
    strbuf_printf(out, "                i / (2 * m) == (i + d) / (2 * m) && i + d < %u) CE(p, i, i + d)\n", n);
}
