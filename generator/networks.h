/* networks.h — networks of comparators over numbered wires (internal), the exchanges of the rank
 * filters' kernels: Batcher's odd-even merge sort of n wires and merge of two sorted lists,
 * pruned from the last comparator back to those a chosen output depends on, and printed as the
 * kernels' CE (both outputs), LO (the minimum only) and HI (the maximum only) macros. */
#ifndef CLS_NETWORKS_H
#define CLS_NETWORKS_H

#include "strbuf.h"

#include <stddef.h>

/* A comparator of the network: wires lo < hi; which of its outputs later comparators need. */
typedef struct comparator {
    unsigned short lo, hi;
    unsigned char need_lo, need_hi;
} comparator;

/* The most positions a merge takes: lists of up to 128 wires each. */
#define NETWORK_MAX_MERGE 256

/* Batcher's sort of WIRES (a power of two) wires, the comparators with a wire at n or above
 * left out (padding: no-ops); the count written to C (NULL: count only). */
size_t batcher_sort(unsigned wires, unsigned n, comparator *c);
/* Batcher's merge of the sorted lists of wires A (na) and B (nb); ORDER (if not NULL) receives the
 * wires in the merged order; the count written to C (NULL: count only), 0 past NETWORK_MAX_MERGE. */
size_t batcher_merge(const unsigned *a, unsigned na, const unsigned *b, unsigned nb, comparator *c, unsigned *order);
/* Keeps the comparators of C (TOTAL) that an output marked in NEEDED (a flag per wire, updated)
 * depends on, in order, at the front of C; returns their count. */
size_t network_prune(comparator *c, size_t total, unsigned char *needed);
/* COUNT comparators on one line over ARRAY: CE(ARRAY,a,b), or where PRUNED LO or HI for those
 * of which one output is needed. */
void network_print(strbuf *out, const char *array, const comparator *c, size_t count, int pruned);
/* Batcher's odd-even merge sort of the N values p[0 .. N - 1] as loops over CE (the rank filters'
 * network where a window holds a NaN or zeros of both signs), each loop under the pragma PRAGMA
 * ("unroll" or "unroll 1"), INDENT levels deep. */
void network_print_sort_loops(strbuf *out, unsigned n, const char *pragma, int indent);

#endif
