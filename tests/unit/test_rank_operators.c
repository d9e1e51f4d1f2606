/* test_rank_operators.c — the rank operators without a device: footprint shapes against their
 * definitions, every window's body within the body rules, the unrolled selection networks run by a
 * small interpreter of their text against sorting, and the parser's refusals (the Gaussian-derived
 * operators' among them). */
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
#include "van_herk.h"

static void footprint_shapes(void **state)
{
    (void)state;
    const cls_footprint rect = {CLS_FOOTPRINT_RECT, 5, 3, NULL, 0}, cross = {CLS_FOOTPRINT_CROSS, 5, 3, NULL, 0},
                        disk = {CLS_FOOTPRINT_DISK, 5, 5, NULL, 0}, wide = {CLS_FOOTPRINT_DISK, 7, 3, NULL, 0},
                        point = {CLS_FOOTPRINT_DISK, 1, 1, NULL, 0}, line = {CLS_FOOTPRINT_DISK, 1, 9, NULL, 0};
    assert_int_equal(cls_footprint_count(&rect), 15);
    assert_int_equal(cls_footprint_count(&cross), 7);
    assert_int_equal(cls_footprint_count(&disk), 13); /* dx^2 + dy^2 <= 4 */
    /* x^2/9 + y^2 <= 1: the 7 pixels of the middle row and the centre column's 2 */
    assert_int_equal(cls_footprint_count(&wide), 7 + 2);
    assert_int_equal(cls_footprint_count(&point), 1);
    assert_int_equal(cls_footprint_count(&line), 9);
    assert_true(cls_footprint_contains(&disk, 2, 0));
    assert_false(cls_footprint_contains(&disk, 2, 1));
    assert_false(cls_footprint_contains(&cross, 1, 1));
    assert_false(cls_footprint_contains(&rect, 3, 0));
}

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

/* Every window the parser accepts gives a body within the rules (the parser validates it) and
 * within the size limit; rank filters stop at CLS_RANK_MAX_PIXELS. */
static void every_window_parses(void **state)
{
    (void)state;
    static const char *const kinds[] = {"median", "min", "max", "morphgradient", "percentile:37"};
    static const char *const shapes[] = {"rect", "cross", "disk"};
    for (unsigned w = 1; w <= CLS_MAX_MASK; w += 2)
        for (unsigned h = 1; h <= CLS_MAX_MASK; h += 2)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
                for (size_t s = 0; s < 3; ++s) {
                    if (k != 0 && (w % 4 != 1 || h % 4 != 1) && w != CLS_MAX_MASK) continue; /* min/max: a sample */
                    char text[64];
                    snprintf(text, sizeof text, "%s%s%ux%u,%s", kinds[k], strchr(kinds[k], ':') ? "," : ":", w, h, shapes[s]);
                    cls_operator *op = NULL;
                    const cls_status status = cls_operator_parse(text, &op);
                    const cls_footprint f = {(cls_footprint_shape)s, w, h, NULL, 0};
                    const int ranked = k == 0 || k == 4;
                    if (ranked && cls_footprint_count(&f) > CLS_RANK_MAX_PIXELS) {
                        assert_int_equal(status, CLS_ERR_INVALID_ARGUMENT);
                        assert_non_null(strstr(cls_last_error(), "at most 1024"));
                        continue;
                    }
                    if (status != CLS_OK) fail_msg("%s refused: %s", text, cls_last_error());
                    assert_true(strlen(cls_operator_spec(op)->body) <= CLS_BODY_MAX_BYTES);
                    cls_operator_release(op);
                }
}

/* The number of "#stage" lines of the operator's body. */
static unsigned stages_of(const char *text)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    unsigned count = 0;
    for (const char *at = cls_operator_spec(op)->body; (at = strstr(at, "#stage ")); ++at) ++count;
    cls_operator_release(op);
    return count;
}

/* The body of the operator TEXT (freed by the caller with cls_operator_release of *op). */
static const char *body_of(const char *text, cls_operator **op)
{
    if (cls_operator_parse(text, op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    return cls_operator_spec(*op)->body;
}

/* A rectangle's minimum and maximum: from a side of 7 on by van Herk/Gil-Werman, one extremum
 * stage (rows, then columns) up to 31x31, a row and a column stage beyond; below 7, more than 25
 * pixels as a row pass and a column pass of direct loops; smaller rectangles and other shapes as
 * one kernel. */
static void rectangles_separate(void **state)
{
    (void)state;
    assert_int_equal(stages_of("min:5x5"), 0);
    assert_int_equal(stages_of("max:5x1"), 0);
    assert_int_equal(stages_of("min:7x7,disk"), 0);
    assert_int_equal(stages_of("morphgradient:9"), 0);
    assert_int_equal(stages_of("min:5x3"), 0);
    assert_int_equal(stages_of("opening:5"), 2);
    assert_int_equal(stages_of("max:31x1"), 1);
    assert_int_equal(stages_of("min:7x5"), 1);
    assert_int_equal(stages_of("dilate:15"), 1);
    assert_int_equal(stages_of("dilate:31"), 1);
    assert_int_equal(stages_of("min:17x3"), 1);
    assert_int_equal(stages_of("min:33x31"), 2);
    assert_int_equal(stages_of("tophat:7x5"), 2);
    assert_int_equal(stages_of("blackhat:31x9"), 2);
    assert_int_equal(stages_of("min:63"), 2);
    assert_int_equal(stages_of("max:33x3"), 2);
    cls_operator *op = NULL;
    const char *body = body_of("max:9x7", &op);
    assert_non_null(strstr(body, "#stage 9x7 max\n"));
    assert_int_equal(cls_operator_spec(op)->mask_width, 9);
    assert_int_equal(cls_operator_spec(op)->mask_height, 7);
    assert_string_equal(cls_operator_name(op), "max:9x7,rect");
    cls_operator_release(op);
    body = body_of("erode:1x9", &op);
    assert_non_null(strstr(body, "#stage 1x9 min\n"));
    cls_operator_release(op);
    body = body_of("min:33x5", &op);
    assert_non_null(strstr(body, "#stage 33x1 min\n"));
    assert_true(strstr(body, "#stage 33x1 min") < strstr(body, "#stage 1x5 min"));
    cls_operator_release(op);
    body = body_of("min:5x3", &op); /* one kernel of direct loops */
    assert_non_null(strstr(body, "fmin"));
    cls_operator_release(op);
    body = body_of("opening:5x5", &op); /* extremum stages, run by the direct loops (staged_body.h) */
    assert_non_null(strstr(body, "#stage 5x5 min\n"));
    assert_non_null(strstr(body, "#stage 5x5 max\n"));
    cls_operator_release(op);
}

/* The source of the operator TEXT's spec in BORDER and TYPE (freed by the caller). */
static char *source_of(const char *text, cls_border border, cls_pixel_type type)
{
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_spec spec = *cls_operator_spec(op);
    spec.border = border;
    spec.input_type = spec.output_type = type;
    char *source = NULL;
    if (cls_generate_source(&spec, 32, &source) != CLS_OK) fail_msg("%s: %s", text, cls_last_error());
    cls_operator_release(op);
    return source;
}

/* The extremum stages' sources: a van Herk kernel each, in the stage's border mode and types. */
static void van_herk_sources(void **state)
{
    (void)state;
    char *source = source_of("min:15x15", CLS_BORDER_MIRROR101, CLS_PIXEL_U8);
    assert_non_null(strstr(source, "Stage 1 of 1: a 15x15 window over the input, into the output: its minimum"));
    assert_non_null(strstr(source, "one kernel walking down strips of the image, border mirror101"));
    assert_non_null(strstr(source, "#define EXTREME(a, b) fmin(a, b)"));
    assert_non_null(strstr(source, "__global const uchar *restrict input"));
    assert_non_null(strstr(source, "convert_uchar_sat_rte"));
    cls_free(source);
    source = source_of("max:63x63", CLS_BORDER_UNDEFINED, CLS_PIXEL_F32);
    assert_non_null(strstr(source, "Stage 1 of 2: a 63x1 window over the input, into an f32 image: its maximum"));
    assert_non_null(strstr(source, "Stage 2 of 2: a 1x63 window over stage 1's f32 image, into the output: its maximum"));
    assert_non_null(strstr(source, "the row pass, border clamp")); /* the undefined border runs as clamp */
    assert_non_null(strstr(source, "the column pass, border clamp"));
    assert_non_null(strstr(source, "#define NEUTRAL -INFINITY"));
    cls_free(source);
    source = source_of("opening:9x3", CLS_BORDER_CONSTANT, CLS_PIXEL_F32);
    assert_non_null(strstr(source, "inside_x[k] && inside_both(y, height) ? (float)row[across[k]] : border_value"));
    cls_free(source);
    /* in lanes (CPU runtimes): a window up to 31 wide by row extremes in float8s, then van Herk
     * down the columns; wider rows keep the row pass */
    cls_spec stage;
    cls_spec_init(&stage);
    stage.mask_width = 31, stage.mask_height = 11, stage.border = CLS_BORDER_CONSTANT, stage.input_type = CLS_PIXEL_F16;
    cls_van_herk_launch launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    assert_true(launch.lanes);
    assert_int_equal(launch.tile_width, CLS_VAN_HERK_LANES);
    assert_int_equal(launch.tile_height % 11, 0);
    char *lanes = cls_van_herk_source(&stage, 0, &launch);
    assert_non_null(strstr(lanes, "in lanes (each row's extreme across the window, then the columns)"));
    assert_non_null(strstr(lanes, "typedef float8 lanes_t;"));
    assert_non_null(strstr(lanes, "if (!inside_both(yy, height)) return (lanes_t)(border_value);"));
    assert_non_null(strstr(lanes, "e = EXTREME(e, (float8)(vload_half(0, line + x - HALF_W + dx), "));
    assert_non_null(strstr(lanes, "for (int i = 0; i < KH; ++i) h[i] = ROW(y0 - HALF_H + i);"));
    assert_null(strstr(lanes, "#pragma unroll\n    for (int i = 0; i < KH; ++i) h[i]")); /* 11 rows: loops */
    free(lanes);
    stage.mask_height = 7; /* a short window: its column walk unrolled */
    launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    lanes = cls_van_herk_source(&stage, 0, &launch);
    assert_non_null(strstr(lanes, "#pragma unroll\n    for (int i = 0; i < KH; ++i) h[i] = ROW(y0 - HALF_H + i);"));
    assert_non_null(strstr(lanes, "#pragma unroll\n        for (int i = 0; i < KH; ++i) v[i] = ROW("));
    free(lanes);
    stage.mask_height = 1; /* a row: its extremes alone */
    launch = cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES);
    lanes = cls_van_herk_source(&stage, 1, &launch);
    assert_non_null(strstr(lanes, "for (int y = y0; y < y0 + SEGMENTS && y < roi.w; ++y) STORE(ROW(y), y);"));
    free(lanes);
    stage.mask_width = 33;
    assert_false(cls_van_herk_plan(&stage, CLS_VAN_HERK_IN_LANES).lanes);
}

/* A spec of a W x H window of ones running BODY. */
static cls_status check_body(const char *body, unsigned width, unsigned height)
{
    static float ones[63 * 63];
    for (size_t k = 0; k < sizeof ones / sizeof ones[0]; ++k) ones[k] = 1.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = width;
    spec.mask_height = height;
    spec.coefficients = ones;
    spec.body = body;
    return cls_spec_validate(&spec);
}

/* An extremum stage's line: a window of a row, a column or a rectangle up to 63x63, min or max,
 * and comments alone after it. */
static void extremum_stage_rules(void **state)
{
    (void)state;
    assert_int_equal(check_body("#stage 63x1 min\n/* rows */\n#stage 1x63 max\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 31x63 max\n#combine input - result\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 33x3 min\n", 33, 3), CLS_OK);
    assert_int_equal(check_body("#stage 63x63 max\n", 63, 63), CLS_OK);
    assert_int_equal(check_body("#stage 3x3 min\nOUT = IN(0, 0);\n", 3, 3), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "only comments may follow an extremum stage's line"));
    assert_int_equal(check_body("#stage 3x3 median\n", 3, 3), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "then min or max for an extremum stage"));
}

static void refused(const char *text, const char *message)
{
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse(text, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' gave '%s', not '%s'", text, cls_last_error(), message);
}

static void refusals_name_the_rule(void **state)
{
    (void)state;
    refused("median:4", "odd sides up to 63");
    refused("median:3,square", "SHAPE rect (default), cross or disk");
    refused("median:33", "holds 1089 pixels: rank filters select among at most 1024");
    refused("percentile:-1,3", "from 0 to 100");
    refused("percentile:3", "expected percentile:P,SIZE");
    refused("min:65", "odd sides up to 63");
    refused("log:8", "larger than 63: give a SIZE");
    refused("dog:1,0", "SIGMA2 '0' is not a finite number above 0");
    refused("unsharp:1,inf", "a finite AMOUNT");
    refused("unsharp:1,1e300", "AMOUNT is too large");
    refused("log:1e-150,3", "SIGMA is too small");
    refused("tonemap:-1", "tonemap:SCALE");
    refused("correlate:2x64,1", "expected correlate:WxH");
    refused("nosuch:3", "unknown operator");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(footprint_shapes),    cmocka_unit_test(networks_select_every_rank),
        cmocka_unit_test(sorted_rows_select_every_rank), cmocka_unit_test(two_lanes_select_every_rank),
        cmocka_unit_test(median_3x3_on_every_window_of_ties),
        cmocka_unit_test(every_window_parses),
        cmocka_unit_test(refusals_name_the_rule), cmocka_unit_test(rectangles_separate),
        cmocka_unit_test(van_herk_sources),    cmocka_unit_test(extremum_stage_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
