/* rank_two_lanes.c — the 5x5 rectangle's rank RANK for two columns of ROWS outputs at once, in two
 * lanes (x and x + 1): the section of its body that a device coarsening rows runs (rank_bodies.h).
 * The two windows of a row share its middle four pixels (x - 1 .. x + 2), so the walk down the
 * rows sorts those four once a row, merges them once a pair of rows and once for the four rows
 * that two outputs of a column share (ranks that can still become RANK only), and only then adds
 * each column's side pixels (x - 2, or x + 3) and each output's fifth row: per output about 60
 * fmin and fmax (a column alone by sorted rows: 74). */
#include "rank_bodies.h"

#include "networks.h"

enum { SIDE = 5, CORE = 4, PAIR = 2 * CORE, FOUR = 2 * PAIR, MERGED_MAX = 32 };

/* The comparators merging the sorted lists at wires FIRST .. FIRST + NA - 1 and the next NB. */
static size_t merge_at(unsigned first, unsigned na, unsigned nb, comparator *c)
{
    unsigned a[MERGED_MAX], b[MERGED_MAX];
    for (unsigned k = 0; k < na; ++k) a[k] = first + k;
    for (unsigned k = 0; k < nb; ++k) b[k] = first + na + k;
    return batcher_merge(a, na, b, nb, c, NULL);
}

/* The merge of lists of NA and NB wires, pruned to the outputs from NEED_LO to NEED_HI, printed over ARRAY. */
static void print_merge(strbuf *out, const char *array, unsigned na, unsigned nb, unsigned need_lo, unsigned need_hi)
{
    comparator c[MERGED_MAX * 4];
    unsigned char needed[MERGED_MAX] = {0};
    for (unsigned k = need_lo; k <= need_hi; ++k) needed[k] = 1;
    const size_t count = network_prune(c, merge_at(0, na, nb, c), needed);
    network_print(out, array, c, count, 1);
}

void cls_rank5_two_lanes(strbuf *out, unsigned rank)
{
    /* of the four rows' 20 pixels, the ranks that their fifth row (5) can still make RANK; of
     * the middle 16, the ranks that the columns' sides (4) can still make those */
    const unsigned lo = rank > SIDE ? rank - SIDE : 0, hi = rank < 19 ? rank : 19;
    const unsigned core_lo = lo > CORE ? lo - CORE : 0, core_hi = hi < FOUR - 1 ? hi : FOUR - 1;
    const unsigned middle = core_hi - core_lo + 1, candidates = hi - lo + 1;
    comparator sort[8];
    const size_t sorts = batcher_sort(4, CORE, sort);
    strbuf_printf(out, "/* Two columns in two lanes, x and x + 1: their windows share the middle four pixels of every\n"
                       " * row (x - 1 .. x + 2), sorted once a row, merged once a pair of rows and once for the four\n"
                       " * rows that two outputs of a column share (to ranks %u-%u of the 16); then each column's side\n"
                       " * pixels (x - 2, or x + 3) of those rows (to ranks %u-%u of the 20), and each output's fifth\n"
                       " * row. */\n",
                   core_lo, core_hi, lo, hi);
    strbuf_append(out, "/* rings: the last 5 input rows' middle four sorted and their side pixels; the last 2 pairs\n"
                       " * of rows merged; the four rows of outputs t - 4 and t - 3 with each column's sides */\n"
                       "float middle[5][4], sides[5][2], pair[2][8], left[2][2], right[2][2], four_left[14], four_right[14];\n"
                       "float seen = 0.0f; /* the sum of the pixels read: NaN where one is (or infinities of both signs) */\n"
                       "#pragma unroll\n"
                       "for (int t = 0; t < ROWS + 4; ++t) { /* input row t - 2 */\n"
                       "    const value_t a = IN(-2, t - 2), b = IN(0, t - 2), c = IN(2, t - 2); /* x - 2 .. x + 3 */\n"
                       "    seen += (a.s0 + a.s1) + (b.s0 + b.s1) + (c.s0 + c.s1);\n"
                       "    sides[t % 5][0] = a.s0, sides[t % 5][1] = c.s1;\n"
                       "    middle[t % 5][0] = a.s1, middle[t % 5][1] = b.s0, middle[t % 5][2] = b.s1, middle[t % 5][3] = c.s0;\n"
                       "    ");
    network_print(out, "middle[t % 5]", sort, sorts, 0);
    strbuf_append(out, "\n"
                       "    if (t >= 2 && t % 2 == 0) { /* rows t - 3 and t - 2 */\n"
                       "        #pragma unroll\n"
                       "        for (int i = 0; i < 4; ++i) pair[t / 2 % 2][i] = middle[(t - 1) % 5][i], pair[t / 2 % 2][i + 4] = middle[t % 5][i];\n"
                       "        ");
    print_merge(out, "pair[t / 2 % 2]", CORE, CORE, 0, PAIR - 1);
    strbuf_append(out, "\n"
                       "        left[t / 2 % 2][0] = sides[(t - 1) % 5][0], left[t / 2 % 2][1] = sides[t % 5][0];\n"
                       "        right[t / 2 % 2][0] = sides[(t - 1) % 5][1], right[t / 2 % 2][1] = sides[t % 5][1];\n"
                       "        CE(left[t / 2 % 2], 0, 1) CE(right[t / 2 % 2], 0, 1)\n"
                       "    }\n"
                       "    if (t >= 4 && t - 4 < ROWS) { /* output t - 4 */\n"
                       "        if (t % 2 == 0) { /* its rows -1 .. 2, which output t - 3 shares as rows -2 .. 1 */\n"
                       "            float both[16];\n"
                       "            #pragma unroll\n"
                       "            for (int i = 0; i < 8; ++i) both[i] = pair[(t / 2 + 1) % 2][i], both[i + 8] = pair[t / 2 % 2][i];\n"
                       "            ");
    print_merge(out, "both", PAIR, PAIR, core_lo, core_hi);
    strbuf_printf(out, "\n"
                       "            four_left[0] = left[(t / 2 + 1) %% 2][0], four_left[1] = left[(t / 2 + 1) %% 2][1];\n"
                       "            four_left[2] = left[t / 2 %% 2][0], four_left[3] = left[t / 2 %% 2][1];\n"
                       "            four_right[%u] = right[(t / 2 + 1) %% 2][0], four_right[%u] = right[(t / 2 + 1) %% 2][1];\n"
                       "            four_right[%u] = right[t / 2 %% 2][0], four_right[%u] = right[t / 2 %% 2][1];\n"
                       "            #pragma unroll\n"
                       "            for (int i = 0; i < %u; ++i) four_left[i + 4] = four_right[i] = both[i + %u];\n"
                       "            CE(four_left, 0, 2) CE(four_left, 1, 3) CE(four_left, 1, 2)\n"
                       "            CE(four_right, %u, %u) CE(four_right, %u, %u) CE(four_right, %u, %u)\n"
                       "            ",
                  middle, middle + 1, middle + 2, middle + 3, middle, core_lo, middle, middle + 2, middle + 1,
                  middle + 3, middle + 1, middle + 2);
    print_merge(out, "four_left", CORE, middle, lo - core_lo, hi - core_lo);
    strbuf_append(out, "\n            ");
    print_merge(out, "four_right", middle, CORE, lo - core_lo, hi - core_lo);
    strbuf_printf(out, "\n"
                       "        }\n"
                       "        const int r = (t %% 2 == 0 ? t - 4 : t) %% 5; /* the fifth row: row -2, or row 2 */\n"
                       "        float p[%u], q[%u]; /* columns x and x + 1: the candidates and the fifth row */\n"
                       "        #pragma unroll\n"
                       "        for (int i = 0; i < %u; ++i) p[i] = four_left[i + %u], q[i] = four_right[i + %u];\n"
                       "        p[%u] = sides[r][0], q[%u] = sides[r][1];\n"
                       "        #pragma unroll\n"
                       "        for (int i = 0; i < 4; ++i) p[i + %u] = q[i + %u] = middle[r][i];\n"
                       "        ",
                  candidates + SIDE, candidates + SIDE, candidates, lo - core_lo, lo - core_lo, candidates,
                  candidates + CORE, candidates + 1, candidates);
    comparator insert[8];
    size_t inserts = merge_at(candidates, 1, CORE, insert);
    network_print(out, "p", insert, inserts, 0);
    strbuf_append(out, "\n        ");
    inserts = merge_at(candidates, CORE, 1, insert);
    network_print(out, "q", insert, inserts, 0);
    strbuf_append(out, "\n        ");
    print_merge(out, "p", candidates, SIDE, rank - lo, rank - lo);
    strbuf_append(out, "\n        ");
    print_merge(out, "q", candidates, SIDE, rank - lo, rank - lo);
    strbuf_printf(out, "\n"
                       "        OUT_AT(t - 4).s0 = p[%u], OUT_AT(t - 4).s1 = q[%u];\n"
                       "    }\n"
                       "}\n",
                  rank - lo, rank - lo);
    strbuf_append(out, "/* After the walk, where a pixel read was NaN or an output is a zero. Every network orders\n"
                       " * every value but NaN and the two zeros alike, so an image of +0 alone (a background, a mask)\n"
                       " * needs nothing more: first whether a pixel is a -0; then, where one is or a pixel was NaN, the\n"
                       " * outputs whose window holds a NaN, or +0 with -0, take the network (the six columns searched a\n"
                       " * row at a time, a lane's window its five). The reads add an offset of 0 that the compiler\n"
                       " * cannot see (a launch has no global offset), so they read the pixels again instead of keeping\n"
                       " * the walk's in registers. */\n"
                       "int zero = 0;\n"
                       "#pragma unroll\n"
                       "for (int k = 0; k < ROWS; ++k) zero |= (OUT_AT(k).s0 == 0.0f) | (OUT_AT(k).s1 == 0.0f);\n"
                       "int network_rows[2] = {0, 0};\n"
                       "if (isnan(seen) || zero) {\n"
                       "    const int again = (int)get_global_offset(0);\n"
                       "    int any_negative_zero = 0; /* among the six columns, four rows at a time */\n"
                       "    #pragma unroll 4\n"
                       "    for (int r = 0; r < ROWS + 4; ++r) {\n"
                       "        const value_t a = IN(-2 + again, r - 2), b = IN(again, r - 2), c = IN(2 + again, r - 2);\n"
                       "        any_negative_zero |= (as_uint(a.s0) == 0x80000000u) | (as_uint(a.s1) == 0x80000000u) |\n"
                       "                             (as_uint(b.s0) == 0x80000000u) | (as_uint(b.s1) == 0x80000000u) |\n"
                       "                             (as_uint(c.s0) == 0x80000000u) | (as_uint(c.s1) == 0x80000000u);\n"
                       "    }\n"
                       "    if (isnan(seen) || any_negative_zero) {\n"
                       "        int positive_zero[2] = {0, 0}, negative_zero[2] = {0, 0}, not_a_number[2] = {0, 0};\n"
                       "        #pragma unroll 1\n"
                       "        for (int r = 0; r < ROWS + 4; ++r) {\n"
                       "            #pragma unroll\n"
                       "            for (int i = 0; i < 6; ++i) { /* column x - 2 + i: lane 0's up to x + 2, lane 1's from x - 1 */\n"
                       "                const float v = i < 5 ? IN(i - 2 + again, r - 2).s0 : IN(2 + again, r - 2).s1;\n"
                       "                #pragma unroll\n"
                       "                for (int l = 0; l < 2; ++l)\n"
                       "                    if (i - l >= 0 && i - l < 5) {\n"
                       "                        positive_zero[l] |= (as_uint(v) == 0u) << r;\n"
                       "                        negative_zero[l] |= (as_uint(v) == 0x80000000u) << r;\n"
                       "                        not_a_number[l] |= isnan(v) << r;\n"
                       "                    }\n"
                       "            }\n"
                       "        }\n"
                       "        #pragma unroll\n"
                       "        for (int l = 0; l < 2; ++l)\n"
                       "            for (int k = 0; k < ROWS; ++k) {\n"
                       "                const int window = 31 << k; /* input rows k - 2 .. k + 2 */\n"
                       "                if ((not_a_number[l] & window) || ((positive_zero[l] & window) && (negative_zero[l] & window)))\n"
                       "                    network_rows[l] |= 1 << k;\n"
                       "            }\n"
                       "    }\n"
                       "}\n"
                       "#pragma unroll 1\n"
                       "for (int k = 0; k < ROWS; ++k) {\n"
                       "    #pragma unroll\n"
                       "    for (int l = 0; l < 2; ++l) {\n"
                       "        if (!(network_rows[l] >> k & 1)) continue;\n"
                       "        float p[25]; /* the other rank bodies' Batcher network, lane l's window */\n"
                       "        #pragma unroll\n"
                       "        for (int w = 0; w < 25; ++w) {\n"
                       "            const value_t v = IN(w % 5 - 2, w / 5 - 2 + k);\n"
                       "            p[w] = l ? v.s1 : v.s0;\n"
                       "        }\n");
    network_print_sort_loops(out, SIDE * SIDE, "unroll 1", 2);
    strbuf_printf(out, "        #pragma unroll\n"
                       "        for (int j = 0; j < ROWS; ++j) /* constant indices: OUT_AT's array stays in registers */\n"
                       "            if (j == k) {\n"
                       "                if (l) OUT_AT(j).s1 = p[%u];\n"
                       "                else OUT_AT(j).s0 = p[%u];\n"
                       "            }\n"
                       "    }\n"
                       "}\n",
                  rank, rank);
}
