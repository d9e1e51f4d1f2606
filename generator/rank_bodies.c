/* rank_bodies.c — the text of the rank filters' operator bodies (see rank_bodies.h): a pruned
 * Batcher odd-even merge network over registers for small footprints, a private array and
 * Wirth's quickselect for larger ones, and fmin/fmax loops for min, max and their difference.
 * A mask file's footprint is tested with MASK in the loops, listed pixel by pixel in networks. */
#include "rank_bodies.h"

#include "error.h"
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

/* A comparator of the network: wires lo < hi; which of its outputs later comparators need. */
typedef struct comparator {
    unsigned short lo, hi;
    unsigned char need_lo, need_hi;
} comparator;

/* Batcher's odd-even merge sort of `wires` (a power of two) wires, keeping the comparators
 * whose wires are both below n (the others compare with +infinity padding: no-ops). Returns
 * the count written to C (NULL: count only). */
static size_t batcher(unsigned wires, unsigned n, comparator *c)
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

/* The network selecting rank RANK of n values: from the last comparator back, keep those an
 * output that is needed depends on, and mark which of their two outputs is needed. */
static comparator *selection_network(unsigned n, unsigned rank, size_t *count)
{
    unsigned wires = 1;
    while (wires < n) wires *= 2;
    const size_t total = batcher(wires, n, NULL);
    comparator *c = malloc((total ? total : 1) * sizeof *c);
    unsigned char *needed = calloc(n, 1);
    if (!c || !needed) {
        free(c);
        free(needed);
        return NULL;
    }
    batcher(wires, n, c);
    needed[rank] = 1;
    size_t kept = total;
    for (size_t k = total; k-- > 0;) {
        comparator x = c[k];
        x.need_lo = needed[x.lo];
        x.need_hi = needed[x.hi];
        if (!x.need_lo && !x.need_hi) continue;
        needed[x.lo] = needed[x.hi] = 1;
        c[--kept] = x;
    }
    free(needed);
    memmove(c, c + kept, (total - kept) * sizeof *c);
    *count = total - kept;
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
            if (cls_footprint_contains(f, dx, dy)) strbuf_printf(&out, "float p%u = IN(%d, %d);\n", k++, dx, dy);
    strbuf_append(&out, "float t;\n");
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
    return n <= CLS_RANK_UNROLLED_MAX ? unrolled_rank(f, n, rank, what, body) : array_rank(f, n, rank, what, body);
}

/* The loop over the footprint's pixels around STATEMENT (which reads `v`). */
static void footprint_loop(strbuf *out, const cls_footprint *f, const char *statement)
{
    char test[96];
    const char *cond = condition(f, test, sizeof test);
    strbuf_append(out, "FOR_WINDOW(dx, dy) {\n");
    if (cond) strbuf_printf(out, "    if (!(%s)) continue;\n", cond);
    strbuf_printf(out, "    const float v = IN(dx, dy);\n    %s\n}\n", statement);
}

cls_status cls_extremum_body(const cls_footprint *f, int maximum, char **body)
{
    strbuf out;
    strbuf_init(&out);
    describe(&out, f, maximum ? "grey dilation: the maximum" : "grey erosion: the minimum");
    strbuf_append(&out, "; NaN pixels are skipped (fmin, fmax) */\n");
    strbuf_printf(&out, "float extreme = %sINFINITY;\n", maximum ? "-" : "");
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
        strbuf_append(&out, " in one pass */\nfloat lowest = INFINITY, highest = -INFINITY;\n");
        footprint_loop(&out, f, "lowest = fmin(lowest, v);\n    highest = fmax(highest, v);");
    } else {
        /* an asymmetric footprint: grey dilation takes the maximum over its reflection */
        strbuf_append(&out, " in one pass, the maximum over the footprint reflected (grey\n"
                            " * dilation), the minimum over the footprint (grey erosion) */\n"
                            "float lowest = INFINITY, highest = -INFINITY;\nFOR_WINDOW(dx, dy) {\n"
                            "    const float v = IN(dx, dy);\n");
        strbuf_printf(&out, "    if (%s) lowest = fmin(lowest, v);\n    if (%s) highest = fmax(highest, v);\n}\n", cond,
                      reflected_cond);
    }
    strbuf_append(&out, "OUT = highest - lowest;\n");
    return finish(&out, body);
}
