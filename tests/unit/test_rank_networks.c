/* test_rank_networks.c — the rank bodies' networks without a device: the unrolled selection
 * networks, the sorted rows of the 3x3 median and of the 5x5 and 7x7 rectangles, and the 5x5's
 * walk in two lanes, each run by a small interpreter of its text against sorting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_check.h"
#include "policy.h"
#include "rank_bodies.h"

/* Runs the comparators KIND(array,a,b) of one line of the sorted rows' body on P: CE both
 * outputs, LO the minimum only, HI the maximum only. */
static void run_comparators(const char *line, float *p)
{
    const char *end = line + strcspn(line, "\n");
    for (const char *k = line; (k = strpbrk(k, "CLH")) != NULL && k < end; ++k) {
        if (strncmp(k, "CE(", 3) != 0 && strncmp(k, "LO(", 3) != 0 && strncmp(k, "HI(", 3) != 0) continue;
        const char kind = k[0];
        char *at = strchr(k, ',');
        assert_true(at && at < end);
        const unsigned a = (unsigned)strtoul(at + 1, &at, 10);
        assert_int_equal(*at, ',');
        const unsigned b = (unsigned)strtoul(at + 1, &at, 10);
        assert_int_equal(*at, ')');
        const float lo = fminf(p[a], p[b]), hi = fmaxf(p[a], p[b]);
        if (kind == 'C' || kind == 'L') p[a] = lo;
        if (kind == 'C' || kind == 'H') p[b] = hi;
        k = at;
    }
}

/* The line of BODY that starts with PREFIX (after blanks). */
static const char *line_of(const char *body, const char *prefix)
{
    for (const char *line = body; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *text = line + strspn(line, " ");
        if (strncmp(text, prefix, strlen(prefix)) == 0) return text;
    }
    fail_msg("no line starting with %s", prefix);
    return NULL;
}

/* The line of BODY whose comparators, the first of any kind, work on ARRAY. */
static const char *comparators_on(const char *body, const char *array)
{
    static const char *const kinds[] = {"CE(", "LO(", "HI("};
    for (const char *line = body; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *text = line + strspn(line, " ");
        for (int k = 0; k < 3; ++k)
            if (strncmp(text, kinds[k], 3) == 0 && strncmp(text + 3, array, strlen(array)) == 0 &&
                text[3 + strlen(array)] == ',')
                return text;
    }
    fail_msg("no comparators on %s", array);
    return NULL;
}

/* The line after LINE whose comparators, the first of any kind, work on ARRAY. */
static const char *comparators_after(const char *line, const char *array)
{
    const char *next = strchr(line, '\n');
    assert_non_null(next);
    return comparators_on(next + 1, array);
}

/* Runs the 5x5 or 7x7 rectangle's sorted-rows body (the path of blocks of rows without NaN) on
 * one window of SIDE rows, VALUES in raster order, as both outputs of a pair of rows see it: each
 * row sorted, the rows the two share merged from their pairs, and the own row (the first, or the
 * last) merged with them, up to its first OUT_AT; both must agree. */
static float run_sorted_rows(const char *body, const float *values, unsigned side)
{
    enum { MAX = 7 };
    const unsigned h = side / 2, list = 2 * side, shared = 2 * h * side;
    body = strstr(body, "int check_rows = 0;"); /* the walk of one column (the 5x5's lanes come first) */
    assert_non_null(body);
    float rows[MAX][MAX], results[2];
    for (unsigned r = 0; r < side; ++r) memcpy(rows[r], values + r * side, side * sizeof(float));
    char array[32], out_at[32];
    snprintf(array, sizeof array, "row[t %% %u]", side);
    for (unsigned r = 0; r < side; ++r) run_comparators(comparators_on(body, array), rows[r]);
    snprintf(out_at, sizeof out_at, "OUT_AT(t - %u) = p[", 2 * h);
    unsigned g;
    assert_int_equal(sscanf(line_of(body, out_at) + strlen(out_at), "%u];", &g), 1);
    const char *name = h == 2 ? "four" : "six";
    snprintf(array, sizeof array, "pair[t / 2 %% %u]", h);
    for (int own_last = 0; own_last < 2; ++own_last) {
        const unsigned first = own_last ? 0 : 1, own = own_last ? side - 1 : 0; /* the shared rows: first .. */
        float middle[MAX * MAX], p[MAX * MAX];
        for (unsigned k = 0; k < h; ++k) {
            memcpy(middle + list * k, rows[first + 2 * k], side * sizeof(float));
            memcpy(middle + list * k + side, rows[first + 2 * k + 1], side * sizeof(float));
            run_comparators(comparators_on(body, array), middle + list * k);
        }
        const char *merge = NULL; /* the shared pairs merged in turn: H - 1 lines */
        for (unsigned k = 1; k < h; ++k) {
            merge = merge ? comparators_after(merge, name) : comparators_on(body, name);
            run_comparators(merge, middle);
        }
        memcpy(p, middle, shared * sizeof(float));
        memcpy(p + shared, rows[own], side * sizeof(float));
        run_comparators(comparators_on(body, "p"), p);
        results[own_last] = p[g];
    }
    assert_true(results[0] == results[1]);
    return results[0];
}

/* The line of BODY holding FRAGMENT, from its first non-blank character. */
static const char *line_with(const char *body, const char *fragment)
{
    const char *at = strstr(body, fragment);
    if (!at) fail_msg("no line with %s", fragment);
    while (at > body && at[-1] != '\n') --at;
    return at + strspn(at, " ");
}

/* Runs the comparators of the line of BODY that works on ARRAY first, then those of the next. */
static void run_two_lines(const char *body, const char *array, float *p)
{
    const char *first = comparators_on(body, array);
    run_comparators(first, p);
    run_comparators(comparators_after(first, array), p);
}

/* Runs the 5x5 rectangle's walk in two lanes (its LANES == 2 section) on five rows of six pixels,
 * VALUES in raster order: RESULTS[c][f] for column x + c (window columns c .. c + 4) as both
 * outputs of a pair of rows see it, the fifth row first (f 0) or last (f 1). Each row's middle
 * four sorted, pairs of rows merged (the middles, and each column's two side pixels), the four
 * rows' middles merged, each column's four sides merged in, then its fifth row. */
static void run_two_lanes(const char *body, const float *values, float results[2][2])
{
    const char *walk = strstr(body, "#if LANES == 2");
    assert_non_null(walk);
    unsigned middles, core_lo, candidates, offset, out_at;
    assert_int_equal(sscanf(line_with(walk, "four_left[i + 4] = four_right[i] = both[i + "),
                            "for (int i = 0; i < %u; ++i) four_left[i + 4] = four_right[i] = both[i + %u];", &middles,
                            &core_lo),
                     2);
    assert_int_equal(sscanf(line_with(walk, "p[i] = four_left[i + "), "for (int i = 0; i < %u; ++i) p[i] = four_left[i + %u]",
                            &candidates, &offset),
                     2);
    assert_int_equal(sscanf(line_with(walk, "OUT_AT(t - 4).s0 = p["), "OUT_AT(t - 4).s0 = p[%u]", &out_at), 1);
    assert_true(middles <= 10 && candidates <= 6 && offset + candidates <= 4 + middles);
    float middle[5][4], side[2][5];
    for (int r = 0; r < 5; ++r) {
        memcpy(middle[r], values + 6 * r + 1, sizeof middle[r]);
        side[0][r] = values[6 * r], side[1][r] = values[6 * r + 5];
        run_comparators(comparators_on(walk, "middle[t % 5]"), middle[r]);
    }
    for (int fifth_last = 0; fifth_last < 2; ++fifth_last) {
        const int first = fifth_last ? 0 : 1, fifth = fifth_last ? 4 : 0; /* the four rows: first .. first + 3 */
        float both[16], sides[2][4], four_left[14], four_right[14], p[11], q[11];
        for (int k = 0; k < 2; ++k) {
            memcpy(both + 8 * k, middle[first + 2 * k], sizeof middle[0]);
            memcpy(both + 8 * k + 4, middle[first + 2 * k + 1], sizeof middle[0]);
            run_comparators(comparators_on(walk, "pair[t / 2 % 2]"), both + 8 * k);
            for (int c = 0; c < 2; ++c) {
                sides[c][2 * k] = fminf(side[c][first + 2 * k], side[c][first + 2 * k + 1]);
                sides[c][2 * k + 1] = fmaxf(side[c][first + 2 * k], side[c][first + 2 * k + 1]);
            }
        }
        run_comparators(comparators_on(walk, "both"), both);
        memcpy(four_left, sides[0], sizeof sides[0]);
        memcpy(four_right + middles, sides[1], sizeof sides[1]);
        for (unsigned i = 0; i < middles; ++i) four_left[i + 4] = four_right[i] = both[i + core_lo];
        run_two_lines(walk, "four_left", four_left);
        run_two_lines(walk, "four_right", four_right);
        for (unsigned i = 0; i < candidates; ++i) p[i] = four_left[i + offset], q[i] = four_right[i + offset];
        p[candidates] = side[0][fifth], q[candidates + 4] = side[1][fifth];
        for (unsigned i = 0; i < 4; ++i) p[candidates + 1 + i] = q[candidates + i] = middle[fifth][i];
        run_two_lines(walk, "p", p);
        run_two_lines(walk, "q", q);
        results[0][fifth_last] = p[out_at], results[1][fifth_last] = q[out_at];
    }
}

static float median_of_three(float a, float b, float c)
{
    return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c));
}

/* Runs the 3x3 median's body (sorted rows) on one window, VALUES in raster order, after checking
 * that its text says what this does, line by line: each input row t - 1 loaded and its minimum,
 * median and maximum kept at t % 3, then for output t - 2 (rows t - 2, t - 1, t of the rings, in
 * window order) the median of the rows' largest minimum, median middle and smallest maximum. */
static float run_median_3x3(const char *body, const float *values)
{
    static const char *const lines[] = {
        "#define MEDIAN3(a, b, c) fmax(fmin(a, b), fmin(fmax(a, b), c))\n",
        "for (int t = 0; t < ROWS + 2; ++t) { /* input row t - 1 */\n",
        "const value_t a = IN(-1, t - 1), b = IN(0, t - 1), c = IN(1, t - 1);\n",
        "low[t % 3] = fmin(fmin(a, b), c);\n",
        "middle[t % 3] = MEDIAN3(a, b, c);\n",
        "high[t % 3] = fmax(fmax(a, b), c);\n",
        "if (t >= 2) { /* output t - 2, its rows in window order */\n",
        "const int top = (t - 2) % 3, centre = (t - 1) % 3, bottom = t % 3;\n",
        "const value_t lows = fmax(fmax(low[top], low[centre]), low[bottom]);\n",
        "const value_t highs = fmin(fmin(high[top], high[centre]), high[bottom]);\n",
        "const value_t middles = MEDIAN3(middle[top], middle[centre], middle[bottom]);\n",
        "OUT_AT(t - 2) = MEDIAN3(lows, middles, highs);\n",
    };
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; ++k)
        if (!strstr(body, lines[k])) fail_msg("the 3x3 median's body lacks: %s", lines[k]);
    float low[3], middle[3], high[3];
    for (int r = 0; r < 3; ++r) {
        const float a = values[3 * r], b = values[3 * r + 1], c = values[3 * r + 2];
        low[r] = fminf(fminf(a, b), c);
        middle[r] = median_of_three(a, b, c);
        high[r] = fmaxf(fmaxf(a, b), c);
    }
    return median_of_three(fmaxf(fmaxf(low[0], low[1]), low[2]), median_of_three(middle[0], middle[1], middle[2]),
                           fminf(fminf(high[0], high[1]), high[2]));
}

/* Runs a rank body on VALUES (the footprint's pixels in the order it loads them): the unrolled
 * network, the 3x3 median's or the 5x5 rectangle's sorted rows. */
static float run_network(const char *body, const float *values, unsigned n)
{
    if (strstr(body, "MEDIAN3(lows, middles, highs)")) {
        assert_int_equal(n, 9);
        return run_median_3x3(body, values);
    }
    if (strstr(body, "by sorted rows")) {
        assert_true(n == 25 || n == 49);
        return run_sorted_rows(body, values, n == 25 ? 5 : 7);
    }
    float p[CLS_RANK_UNROLLED_MAX] = {0}, t = 0;
    unsigned loaded = 0;
    for (const char *line = body; *line; line = strchr(line, '\n') + 1) {
        unsigned a, b, c, d, e, f, g;
        int dx, dy;
        if (strncmp(line, "/*", 2) == 0 || strncmp(line, " *", 2) == 0 || strncmp(line, "value_t t;", 10) == 0 ||
            strncmp(line, "(void)t;", 8) == 0) {
            /* comments and declarations */
        } else if (sscanf(line, "value_t p%u = IN(%d, %d);", &a, &dx, &dy) == 3) {
            assert_int_equal(a, loaded);
            p[a] = values[loaded++];
        } else if (sscanf(line, "t = fmin(p%u, p%u); p%u = fmax(p%u, p%u); p%u = t;", &a, &b, &c, &d, &e, &f) == 6) {
            assert_true(a == d && a == f && b == c && b == e && a < b);
            t = fminf(p[a], p[b]);
            p[b] = fmaxf(p[a], p[b]);
            p[a] = t;
        } else if (sscanf(line, "p%u = fmin(p%u, p%u);", &a, &b, &c) == 3 && a == b) {
            p[a] = fminf(p[a], p[c]);
        } else if (sscanf(line, "p%u = fmax(p%u, p%u);", &a, &b, &c) == 3 && a == c) {
            p[a] = fmaxf(p[b], p[a]);
        } else if (sscanf(line, "OUT = p%u;", &g) == 1) {
            assert_int_equal(loaded, n);
            return p[g];
        } else {
            fail_msg("unexpected line in a network body: %.60s", line);
        }
        if (!strchr(line, '\n')) break;
    }
    fail_msg("the body never assigns OUT");
    return 0;
}

static int ascending(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Every rank of every footprint the networks serve, on random values with ties. */
static void networks_select_every_rank(void **state)
{
    (void)state;
    srand(11);
    for (unsigned w = 1; w <= 7; w += 2)
        for (unsigned h = 1; h <= 7; h += 2)
            for (int shape = 0; shape < 3; ++shape) {
                const cls_footprint f = {(cls_footprint_shape)shape, w, h, NULL, 0};
                const unsigned n = cls_footprint_count(&f);
                for (unsigned rank = 0; rank < n; ++rank) {
                    char *body = NULL;
                    assert_int_equal(cls_rank_body(&f, rank, "test", &body), CLS_OK);
                    for (int trial = 0; trial < 20; ++trial) {
                        float values[CLS_RANK_UNROLLED_MAX], sorted[CLS_RANK_UNROLLED_MAX];
                        for (unsigned k = 0; k < n; ++k) sorted[k] = values[k] = (float)(rand() % (trial < 10 ? 7 : 1000));
                        qsort(sorted, n, sizeof *sorted, ascending);
                        const float got = run_network(body, values, n);
                        if (got != sorted[rank]) fail_msg("%ux%u shape %d rank %u: %g, not %g", w, h, shape, rank, got, sorted[rank]);
                    }
                    free(body);
                }
            }
}

/* Runs the 7x7 rectangle's network at one row (its pruned comparators written out, after the walk)
 * on VALUES in raster order. */
static float run_network_alone(const char *body, const float *values)
{
    const char *line = strstr(body, "\nvalue_t p[49];\n");
    assert_non_null(line);
    float p[49];
    memcpy(p, values, sizeof p);
    for (line = strchr(line + 1, '\n') + 1; strncmp(line, "OUT_AT(0) = p[", 14) != 0; line = strchr(line, '\n') + 1)
        run_comparators(line, p);
    unsigned g;
    assert_int_equal(sscanf(line, "OUT_AT(0) = p[%u];", &g), 1);
    return p[g];
}

/* The 5x5 and 7x7 rectangles' ranks by sorted rows (in blocks of rows; one row runs the Batcher
 * network in loops): random values with ties ran above; here the bodies' sizes, within what a
 * block of rows takes (CLS_BODY_BLOCK_BYTES: the body runs once per column), and the comparators
 * without ties, each rank against sorting. */
static void sorted_rows_select_every_rank(void **state)
{
    (void)state;
    srand(12);
    for (unsigned side = 5; side <= 7; side += 2) {
        const cls_footprint f = {CLS_FOOTPRINT_RECT, side, side, NULL, 0};
        const unsigned n = side * side;
        for (unsigned rank = 0; rank < n; ++rank) {
            char *body = NULL;
            assert_int_equal(cls_rank_body(&f, rank, "test", &body), CLS_OK);
            assert_non_null(strstr(body, "by sorted rows"));
            assert_non_null(strstr(body, "#if ROWS > 1"));
            assert_non_null(strstr(body, "check_rows |= (isnan(total[0] + total[1]"));
            if (strlen(body) > CLS_BODY_BLOCK_BYTES) fail_msg("%ux%u rank %u: %zu bytes", side, side, rank, strlen(body));
            assert_true(cls_body_writes_rows(body));
            assert_int_equal(cls_body_check(body, side, side), CLS_OK);
            for (int trial = 0; trial < 200; ++trial) {
                float values[49], sorted[49];
                for (unsigned k = 0; k < n; ++k) sorted[k] = values[k] = (float)rand() / (float)RAND_MAX - 0.5f;
                qsort(sorted, n, sizeof *sorted, ascending);
                const float got = run_network(body, values, n);
                if (got != sorted[rank]) fail_msg("%ux%u rank %u: %g, not %g", side, side, rank, got, sorted[rank]);
                if (side == 7 && run_network_alone(body, values) != sorted[rank]) fail_msg("7x7 rank %u at one row", rank);
            }
            free(body);
        }
    }
}

/* The 5x5 rectangle's ranks in two lanes (two columns sharing the middle of their rows), each
 * rank on random windows with and without ties against sorting, in both columns and both
 * outputs of a pair of rows; the body has that form for two lanes. */
static void two_lanes_select_every_rank(void **state)
{
    (void)state;
    const cls_footprint f = {CLS_FOOTPRINT_RECT, 5, 5, NULL, 0};
    srand(13);
    for (unsigned rank = 0; rank < 25; ++rank) {
        char *body = NULL;
        assert_int_equal(cls_rank_body(&f, rank, "test", &body), CLS_OK);
        assert_int_equal(cls_body_row_lanes(body), 2);
        assert_int_equal(cls_body_in_lanes(body), 1); /* its other walks: scalars beyond one row */
        for (int trial = 0; trial < 200; ++trial) {
            float values[30], results[2][2];
            for (unsigned k = 0; k < 30; ++k)
                values[k] = trial % 2 ? (float)(rand() % 4) : (float)rand() / (float)RAND_MAX - 0.5f;
            run_two_lanes(body, values, results);
            for (int c = 0; c < 2; ++c) {
                float sorted[25];
                for (unsigned k = 0; k < 25; ++k) sorted[k] = values[6 * (k / 5) + c + k % 5];
                qsort(sorted, 25, sizeof *sorted, ascending);
                for (int fifth_last = 0; fifth_last < 2; ++fifth_last)
                    if (results[c][fifth_last] != sorted[rank])
                        fail_msg("rank %u, column %d, fifth row %s: %g, not %g", rank, c, fifth_last ? "last" : "first",
                                 (double)results[c][fifth_last], (double)sorted[rank]);
            }
        }
        free(body);
    }
}

/* The 3x3 median by sorted rows on every window of the values 0, 1 and 2 (every pattern of ties),
 * against sorting; the body within the rules and writing its column of outputs. */
static void median_3x3_on_every_window_of_ties(void **state)
{
    (void)state;
    const cls_footprint f = {CLS_FOOTPRINT_RECT, 3, 3, NULL, 0};
    char *body = NULL;
    assert_int_equal(cls_rank_body(&f, 4, "test", &body), CLS_OK);
    assert_true(cls_body_writes_rows(body));
    assert_int_equal(cls_body_check(body, 3, 3), CLS_OK);
    for (unsigned pattern = 0; pattern < 19683; ++pattern) { /* 3^9 */
        float values[9], sorted[9];
        for (unsigned k = 0, p = pattern; k < 9; ++k, p /= 3) sorted[k] = values[k] = (float)(p % 3);
        qsort(sorted, 9, sizeof *sorted, ascending);
        const float got = run_network(body, values, 9);
        if (got != sorted[4]) fail_msg("window %u: %g, not %g", pattern, got, sorted[4]);
    }
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(networks_select_every_rank), cmocka_unit_test(sorted_rows_select_every_rank),
        cmocka_unit_test(two_lanes_select_every_rank), cmocka_unit_test(median_3x3_on_every_window_of_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
