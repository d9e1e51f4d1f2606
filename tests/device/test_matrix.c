/* test_matrix.c — the big device correctness matrix: every border mode x partition (naive,
 * isp-block, isp-warp) x mask size x image size x work-group shape x pixel type x coefficient
 * storage (runtime / baked), on the default OpenCL device, compared pixel by pixel (border
 * pixels included) against the independent CPU reference in tests/reference/.
 *
 * Dimensions:
 *   f32:     masks 1x1 3x3 5x5 9x3 3x9 13x13 17x17 31x31, images 1x1 2x3 7x5 16x16 37x23
 *            256x256 1000x777, shapes 24x4 128x1 32x8, all partitions;
 *   u8, u16: masks 3x3 5x5, images 7x5 37x23 256x256, shapes 32x8 24x4, all partitions;
 *   coefficients runtime and, for masks up to 9x9, baked.
 * Default run (representatives; every filter runs on every image of its type):
 *   every border mode meets every f32 mask once, with the partition, shape and coefficient
 *   storage rotated over modes and masks so that every pair of mode, mask, partition, shape and
 *   storage meets; per mode one small mask also runs in all three partitions (compared with each
 *   other), and one integer type (u8 in even modes, u16 in odd ones) with a rotated mask,
 *   partition, shape and storage.
 * Exhaustive run (CLS_TEST_EXHAUSTIVE=1): the full product, except that on 1000x777 the 17x17
 *   and 31x31 masks run with one work-group shape per border mode (rotating over the three
 *   shapes, the same for all partitions so that they can be cross-checked); CLS_MATRIX_FULL=1
 *   lifts this.
 * Environment:
 *   CLS_MATRIX_QUICK=1    masks 1x1 3x3 5x5 9x3, images up to 37x23 (integers: 7x5 37x23),
 *                         shapes 24x4 and 32x8 only.
 *   CLS_MATRIX_BAKE=0|1|both   coefficient storage to test (default both; 1 = baked only).
 *   CLS_MATRIX_MODES=clamp,mirror,...   only these border modes (the others are skipped).
 *   CLS_MATRIX_FULL=1     no run-time limit on the large masks (see above).
 *
 * Comparison: f32 within 1e-5 relative or 1e-6 absolute; u8/u16 exact (the integer cases use
 * dyadic coefficients k/64, |k| <= 9, and integer pixels, so every partial sum of any order is
 * exactly representable in float and the result is order-independent). Undefined mode is
 * compared on interior pixels only (whole window inside); it runs through cls_filter_enqueue on
 * a sub-buffer with guard memory around it, since its border pixels read outside the image.
 * Partitions that run the same case must agree bit for bit on PoCL, and within the f32
 * tolerance elsewhere.
 * Some cases use row pitches larger than the row: input padding holds poison (NaN, max) that
 * must never be read, and output padding bytes must be left untouched. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <clstencil.h>

#include "../reference/reference.h"
#include "../support/test_level.h"

/* ---------------------------------------------------------------- the matrix */

typedef struct dims { int w, h; } dims;

static const dims MASKS[] = {{1, 1}, {3, 3}, {5, 5}, {9, 3}, {3, 9}, {13, 13}, {17, 17}, {31, 31}};
static const dims IMAGES[] = {{1, 1},   {2, 3},     {7, 5},     {16, 16},
                              {37, 23}, {256, 256}, {1000, 777}};
static const dims SHAPES[] = {{24, 4}, {128, 1}, {32, 8}};
#define N_MASKS (sizeof MASKS / sizeof MASKS[0])
#define N_IMAGES (sizeof IMAGES / sizeof IMAGES[0])
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

#define IMG_7x5 2
#define IMG_37x23 4
#define IMG_256 5
#define IMG_BIG 6
#define SHAPE_24x4 0
#define SHAPE_32x8 2

static const cls_partition PARTITIONS[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK,
                                           CLS_PARTITION_ISP_WARP};
#define N_PARTS 3
static const cls_pixel_type TYPES[] = {CLS_PIXEL_F32, CLS_PIXEL_U8, CLS_PIXEL_U16};
#define N_TYPES 3

#define F32_BORDER_VALUE 0.25f
#define INT_BORDER_VALUE 7.0f
#define MAX_BAKED 9      /* baked coefficients only for masks up to 9x9 */
#define PAD_SENTINEL 0xA5 /* output padding bytes before the run; must survive it */
#define MAX_REPORTS 12   /* failures printed per border mode */

static const char *mode_name(cls_border b)
{
    static const char *names[] = {"undefined", "clamp", "mirror", "mirror101", "repeat",
                                  "constant"};
    return (unsigned)b < 6 ? names[b] : "?";
}
static const char *part_name(cls_partition p)
{
    switch (p) {
    case CLS_PARTITION_NAIVE: return "naive";
    case CLS_PARTITION_ISP_BLOCK: return "isp-block";
    case CLS_PARTITION_ISP_WARP: return "isp-warp";
    default: return "auto";
    }
}
static const char *type_name(cls_pixel_type t)
{
    return t == CLS_PIXEL_F32 ? "f32" : t == CLS_PIXEL_U8 ? "u8" : "u16";
}

/* ---------------------------------------------------------------- configuration, state */

static struct {
    int quick, full, exhaustive;
    int bake[2];       /* bake[0]: runtime coefficients, bake[1]: baked */
    char modes[64];    /* CLS_MATRIX_MODES, "" = all */
} cfg;

static struct {
    cls_context *ctx;
    cls_status ctx_status;
    int is_pocl;
    cl_uint base_align;  /* bytes, for sub-buffer origins */
    size_t max_wg;
    /* totals */
    unsigned long filters, images, pixels, skipped_filters;
    double t_build, t_run, t_ref;
    /* per border mode */
    unsigned long failures;
} g;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Counts a failure of the current border mode and prints the first few. */
static void report(const char *fmt, ...)
{
    g.failures++;
    if (g.failures > MAX_REPORTS) {
        if (g.failures == MAX_REPORTS + 1)
            printf("  ... (further failures of this mode not printed)\n");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("  FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* ---------------------------------------------------------------- deterministic data */

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11; /* 53 high-quality bits */
}
/* uniform in [0, 1) */
static double lcg_unit(uint64_t *s) { return (double)lcg_next(s) * (1.0 / 9007199254740992.0); }

/* Mask coefficients: f32 positive in [0.5, 1.5) normalized to sum 1; integer types dyadic k/64
 * with k in [-5, 9] (so sums of u16 pixels stay below 2^18 and are exact in float). */
static float *make_mask(cls_pixel_type type, int mw, int mh)
{
    size_t n = (size_t)mw * (size_t)mh;
    float *m = malloc(n * sizeof *m);
    uint64_t s = 0x5eed0000u + (uint64_t)(mw * 100 + mh) + 7919u * (uint64_t)type;
    if (!m)
        return NULL;
    if (type == CLS_PIXEL_F32) {
        double sum = 0;
        double *v = malloc(n * sizeof *v);
        if (!v) {
            free(m);
            return NULL;
        }
        for (size_t i = 0; i < n; ++i)
            sum += v[i] = 0.5 + lcg_unit(&s);
        for (size_t i = 0; i < n; ++i)
            m[i] = (float)(v[i] / sum);
        free(v);
    } else {
        for (size_t i = 0; i < n; ++i)
            m[i] = (float)((int)(lcg_next(&s) % 15) - 5) / 64.0f;
    }
    return m;
}

/* A tightly packed input image: f32 in [0.5, 1.5), u8 in [0, 255], u16 in [0, 65535]. */
static void *make_image(cls_pixel_type type, int w, int h)
{
    size_t n = (size_t)w * (size_t)h, ps = ref_pixel_size(type);
    unsigned char *p = malloc(n * ps);
    uint64_t s = 0xC0FFEEu + (uint64_t)w * 131u + (uint64_t)h * 17u + 1000003u * (uint64_t)type;
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; ++i) {
        double v = type == CLS_PIXEL_F32 ? 0.5 + lcg_unit(&s)
                   : type == CLS_PIXEL_U8 ? (double)(lcg_next(&s) % 256)
                                          : (double)(lcg_next(&s) % 65536);
        ref_store(type, v, p + i * ps);
    }
    return p;
}

/* ---------------------------------------------------------------- one case */

typedef struct run_case {
    cls_border mode;
    cls_pixel_type type;
    int mask, bake, shape, image;
    int padded;
    size_t in_pitch, out_pitch; /* bytes, never 0 here */
} run_case;

/* Names a case in failure messages; image < 0 (filter creation) prints no image. */
static int case_desc(char *buf, size_t n, const run_case *c, int part)
{
    char image[64] = "";
    if (c->image >= 0)
        snprintf(image, sizeof image, " image=%dx%d pitch=%s", IMAGES[c->image].w,
                 IMAGES[c->image].h, c->padded ? "padded" : "packed");
    return snprintf(buf, n, "mode=%s partition=%s mask=%dx%d shape=%dx%d type=%s bake=%d%s",
                    mode_name(c->mode), part >= 0 ? part_name(PARTITIONS[part]) : "-",
                    MASKS[c->mask].w, MASKS[c->mask].h, SHAPES[c->shape].w, SHAPES[c->shape].h,
                    type_name(c->type), c->bake, image);
}

/* Copies a packed image into a buffer of row pitch `pitch` with poison in the padding. */
static unsigned char *pad_input(const run_case *c, const unsigned char *packed)
{
    const dims im = IMAGES[c->image];
    size_t ps = ref_pixel_size(c->type), row = (size_t)im.w * ps;
    unsigned char *buf = malloc((size_t)im.h * c->in_pitch);
    if (!buf)
        return NULL;
    for (size_t off = 0; off + ps <= (size_t)im.h * c->in_pitch; off += ps)
        ref_store(c->type, c->type == CLS_PIXEL_F32 ? NAN : 1e9, buf + off); /* NaN / max */
    for (int y = 0; y < im.h; ++y)
        memcpy(buf + (size_t)y * c->in_pitch, packed + (size_t)y * row, row);
    return buf;
}

/* Undefined mode: the border pixels read outside the image, so the input lives in a
 * sub-buffer with readable guard memory on both sides, and the filter runs through
 * cls_filter_enqueue. Returns 0 or -1 (reported). */
static int run_guarded(cls_filter *f, const run_case *c, int part, const unsigned char *input,
                       unsigned char *output, const cls_image_desc *desc)
{
    char what[256];
    const dims im = IMAGES[c->image], mk = MASKS[c->mask], sh = SHAPES[c->shape];
    size_t ps = ref_pixel_size(c->type);
    size_t body = (size_t)im.h * c->in_pitch;
    size_t margin = (size_t)(mk.h / 2 + sh.h + 2) * c->in_pitch + (size_t)(mk.w / 2 + sh.w + 1) * ps;
    size_t align = g.base_align ? g.base_align : 128;
    margin = (margin + align - 1) / align * align;
    size_t total = margin + body + margin;
    size_t out_bytes = (size_t)im.h * c->out_pitch;
    cl_context clctx = cls_context_cl(g.ctx);
    cl_command_queue q = cls_context_queue(g.ctx);
    cl_int err = CL_SUCCESS;
    cl_mem parent = NULL, sub = NULL, out = NULL;
    cl_event ev = NULL;
    int rc = -1;

    unsigned char *host = malloc(total);
    if (!host)
        goto done;
    for (size_t off = 0; off + ps <= total; off += ps)
        ref_store(c->type, 1.0, host + off); /* finite garbage */
    memcpy(host + margin, input, body);

    case_desc(what, sizeof what, c, part);
    parent = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total, host, &err);
    if (err != CL_SUCCESS) {
        report("%s: clCreateBuffer(input, %zu) = %d", what, total, err);
        goto done;
    }
    cl_buffer_region region = {margin, body};
    sub = clCreateSubBuffer(parent, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    if (err != CL_SUCCESS) {
        report("%s: clCreateSubBuffer(origin %zu) = %d", what, margin, err);
        goto done;
    }
    out = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_bytes, output, &err);
    if (err != CL_SUCCESS) {
        report("%s: clCreateBuffer(output, %zu) = %d", what, out_bytes, err);
        goto done;
    }
    cls_status st = cls_filter_enqueue(f, sub, out, desc, 0, NULL, &ev);
    if (st != CLS_OK) {
        report("%s: cls_filter_enqueue = %s: %s", what, cls_status_name(st), cls_last_error());
        goto done;
    }
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, out_bytes, output, ev ? 1 : 0, ev ? &ev : NULL,
                              NULL);
    if (err != CL_SUCCESS) {
        report("%s: clEnqueueReadBuffer = %d", what, err);
        goto done;
    }
    rc = 0;
done:
    if (ev)
        clReleaseEvent(ev);
    if (out)
        clReleaseMemObject(out);
    if (sub)
        clReleaseMemObject(sub);
    if (parent)
        clReleaseMemObject(parent);
    free(host);
    return rc;
}

static int tolerance_ok(double got, double want)
{
    double d = fabs(got - want);
    return d <= 1e-6 || d <= 1e-5 * fabs(want); /* false for NaN */
}

/* Compares one output against the reference; checks output padding. Returns pixels checked. */
static unsigned long compare_ref(const run_case *c, int part, const unsigned char *out,
                                 const double *ref)
{
    const dims im = IMAGES[c->image];
    size_t ps = ref_pixel_size(c->type);
    unsigned long checked = 0;
    char what[256];
    for (int y = 0; y < im.h; ++y) {
        const unsigned char *row = out + (size_t)y * c->out_pitch;
        for (int x = 0; x < im.w; ++x) {
            double want = ref[(size_t)y * (size_t)im.w + (size_t)x];
            if (isnan(want)) /* undefined mode, not an interior pixel */
                continue;
            double got = ref_load(c->type, row + (size_t)x * ps);
            int ok = c->type == CLS_PIXEL_F32 ? tolerance_ok(got, want)
                                              : got == ref_to_output(c->type, want);
            checked++;
            if (!ok) {
                case_desc(what, sizeof what, c, part);
                report("%s x=%d y=%d got=%.9g expected=%.9g", what, x, y, got,
                       ref_to_output(c->type, want));
            }
        }
        for (size_t b = (size_t)im.w * ps; b < c->out_pitch; ++b)
            if (row[b] != PAD_SENTINEL) {
                case_desc(what, sizeof what, c, part);
                report("%s: output padding byte %zu of row %d changed (0x%02x)", what, b, y,
                       row[b]);
                break;
            }
    }
    return checked;
}

/* Partition outputs must agree: bit for bit on PoCL, else within tolerance (exact for ints). */
static void compare_parts(const run_case *c, int part, const unsigned char *a,
                          const unsigned char *b, const double *ref)
{
    const dims im = IMAGES[c->image];
    size_t ps = ref_pixel_size(c->type);
    char what[256];
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) {
            if (isnan(ref[(size_t)y * (size_t)im.w + (size_t)x]))
                continue;
            const unsigned char *pa = a + (size_t)y * c->out_pitch + (size_t)x * ps;
            const unsigned char *pb = b + (size_t)y * c->out_pitch + (size_t)x * ps;
            double va = ref_load(c->type, pa), vb = ref_load(c->type, pb);
            int same = (g.is_pocl || c->type != CLS_PIXEL_F32) ? memcmp(pa, pb, ps) == 0
                                                                : tolerance_ok(vb, va);
            if (!same) {
                case_desc(what, sizeof what, c, part);
                report("%s x=%d y=%d differs from naive: %.9g vs naive %.9g%s", what, x, y, vb,
                       va, g.is_pocl ? " (PoCL: must be bit-identical)" : "");
                return; /* one report per pair is enough */
            }
        }
}

/* ---------------------------------------------------------------- the loops */

static int mode_selected(cls_border mode)
{
    if (!cfg.modes[0])
        return 1;
    char list[sizeof cfg.modes];
    memcpy(list, cfg.modes, sizeof list);
    char *save = NULL;
    for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        if (strcmp(t, mode_name(mode)) == 0)
            return 1;
    return 0;
}

static int mask_in_type(cls_pixel_type type, int m)
{
    if (type != CLS_PIXEL_F32)
        return m == 1 || m == 2; /* 3x3, 5x5 */
    return !cfg.quick || m <= 3;  /* quick: 1x1 3x3 5x5 9x3 */
}
static int image_in_type(cls_pixel_type type, int i)
{
    if (type != CLS_PIXEL_F32)
        return i == IMG_7x5 || i == IMG_37x23 || (!cfg.quick && i == IMG_256);
    return !cfg.quick || i <= IMG_37x23;
}
static int shape_in_type(cls_pixel_type type, int s)
{
    if (type != CLS_PIXEL_F32 || cfg.quick)
        return s == SHAPE_32x8 || s == SHAPE_24x4;
    return 1;
}
/* The run-time limit: large masks on the large image use one shape per border mode. */
static int image_in_shape(cls_border mode, int mask, int shape, int image)
{
    if (cfg.full || !cfg.exhaustive || image != IMG_BIG || MASKS[mask].w < 17)
        return 1;
    return shape == (int)mode % (int)N_SHAPES;
}
/* Padded pitches on 7x5, 37x23 and 256x256 with the 24x4 shape. */
static int padded_case(int shape, int image)
{
    return shape == SHAPE_24x4 && (image == IMG_7x5 || image == IMG_37x23 || image == IMG_256);
}

/* The default run's representatives (see the header); the exhaustive run takes every case. */
static int type_in_mode(cls_border mode, cls_pixel_type type)
{
    return cfg.exhaustive || type == CLS_PIXEL_F32 || (type == CLS_PIXEL_U8) == ((int)mode % 2 == 0);
}
/* The rotation index of a (mode, type, mask): f32 masks index themselves, an integer type's one
 * mask rotates with the mode. */
static int rotation(cls_border mode, cls_pixel_type type, int mask)
{
    return (int)mode + (type == CLS_PIXEL_F32 ? mask : 1 + (int)mode / 2);
}
static int mask_in_mode(cls_border mode, cls_pixel_type type, int mask)
{
    return cfg.exhaustive || type == CLS_PIXEL_F32 || mask == 1 + rotation(mode, type, 0) % 2;
}
static int bake_in_case(cls_border mode, cls_pixel_type type, int mask, int bake)
{
    return cfg.exhaustive || MASKS[mask].w > MAX_BAKED || MASKS[mask].h > MAX_BAKED ||
           bake == rotation(mode, type, mask) % 2;
}
static int shape_in_case(cls_border mode, cls_pixel_type type, int mask, int shape)
{
    if (cfg.exhaustive)
        return 1;
    const int shapes = type == CLS_PIXEL_F32 && !cfg.quick ? 3 : 2;
    const int chosen = rotation(mode, type, mask) % shapes;
    return shape == (shapes == 3 ? chosen : chosen == 0 ? SHAPE_24x4 : SHAPE_32x8);
}
/* The small mask that runs in all three partitions, compared with each other. */
static int cross_checked(cls_border mode, cls_pixel_type type, int mask)
{
    return type == CLS_PIXEL_F32 && mask == 1 + (int)mode % 4;
}
static int part_in_case(const run_case *c, int part)
{
    return cfg.exhaustive || cross_checked(c->mode, c->type, c->mask) ||
           part == (rotation(c->mode, c->type, c->mask) + c->mask) % N_PARTS;
}

static cls_filter *make_filter(const run_case *c, int part, const float *coef)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = (unsigned)MASKS[c->mask].w;
    spec.mask_height = (unsigned)MASKS[c->mask].h;
    spec.coefficients = coef;
    spec.bake_coefficients = c->bake;
    spec.border = c->mode;
    spec.border_value = c->type == CLS_PIXEL_F32 ? F32_BORDER_VALUE : INT_BORDER_VALUE;
    spec.partition = PARTITIONS[part];
    spec.group_width = (unsigned)SHAPES[c->shape].w;
    spec.group_height = (unsigned)SHAPES[c->shape].h;
    spec.input_type = c->type;
    spec.output_type = c->type;

    char what[256];
    case_desc(what, sizeof what, c, part);
    cls_filter *f = NULL;
    double t0 = now_s();
    cls_status st = cls_filter_create(g.ctx, &spec, &f);
    g.t_build += now_s() - t0;
    if (st != CLS_OK) {
        size_t groupsize = (size_t)SHAPES[c->shape].w * (size_t)SHAPES[c->shape].h;
        if (st == CLS_ERR_UNSUPPORTED && g.max_wg && groupsize > g.max_wg) {
            g.skipped_filters++;
            printf("  skip %s: work-group larger than the device's %zu\n", what, g.max_wg);
            return NULL;
        }
        const char *log = cls_last_error();
        report("%s: cls_filter_create = %s: %.2000s", what, cls_status_name(st), log ? log : "");
        return NULL;
    }
    g.filters++;
    unsigned gw = 0, gh = 0;
    cls_filter_group_shape(f, &gw, &gh);
    if (cls_filter_partition(f) != PARTITIONS[part] || gw != spec.group_width ||
        gh != spec.group_height)
        report("%s: filter resolved to partition %s shape %ux%u", what,
               part_name(cls_filter_partition(f)), gw, gh);
    return f;
}

/* Runs the filters of one (mode, type, mask, bake, shape) on every image of the matrix. */
static void run_shape(run_case *c, const float *coef, unsigned char *const *inputs,
                      double **refs)
{
    cls_filter *f[N_PARTS] = {NULL, NULL, NULL};
    for (int p = 0; p < N_PARTS; ++p)
        if (part_in_case(c, p))
            f[p] = make_filter(c, p, coef);

    size_t ps = ref_pixel_size(c->type);
    for (int i = 0; i < (int)N_IMAGES; ++i) {
        if (!image_in_type(c->type, i) || !image_in_shape(c->mode, c->mask, c->shape, i))
            continue;
        const dims im = IMAGES[i];
        const dims mk = MASKS[c->mask];
        c->image = i;
        c->padded = padded_case(c->shape, i);
        c->in_pitch = (size_t)(im.w + (c->padded ? 5 : 0)) * ps;
        c->out_pitch = (size_t)(im.w + (c->padded ? 3 : 0)) * ps;

        if (!refs[i]) { /* once per (mode, type, mask, image), shared by shapes and bakes */
            ref_image rin = {inputs[i], (size_t)im.w, (size_t)im.h, 0, c->type};
            double t0 = now_s();
            refs[i] = malloc((size_t)im.w * (size_t)im.h * sizeof(double));
            if (!refs[i] ||
                ref_stencil(&rin, coef, mk.w, mk.h, c->mode,
                            c->type == CLS_PIXEL_F32 ? F32_BORDER_VALUE : INT_BORDER_VALUE,
                            refs[i]) != 0) {
                report("reference failed (out of memory?)");
                free(refs[i]);
                refs[i] = NULL;
                continue;
            }
            g.t_ref += now_s() - t0;
        }

        unsigned char *in = c->padded ? pad_input(c, inputs[i]) : inputs[i];
        size_t out_bytes = (size_t)im.h * c->out_pitch;
        unsigned char *out[N_PARTS] = {NULL, NULL, NULL};
        int ran[N_PARTS] = {0, 0, 0};
        cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = (size_t)im.w, .height = (size_t)im.h,
                               .input_row_pitch = c->padded ? c->in_pitch : 0,
                               .output_row_pitch = c->padded ? c->out_pitch : 0};
        for (int p = 0; p < N_PARTS && in; ++p) {
            if (!f[p])
                continue;
            out[p] = malloc(out_bytes);
            if (!out[p])
                break;
            memset(out[p], PAD_SENTINEL, out_bytes);
            double t0 = now_s();
            if (c->mode == CLS_BORDER_UNDEFINED) {
                ran[p] = run_guarded(f[p], c, p, in, out[p], &desc) == 0;
            } else {
                cls_status st = cls_filter_run_host(f[p], in, out[p], &desc);
                ran[p] = st == CLS_OK;
                if (!ran[p]) {
                    char what[256];
                    case_desc(what, sizeof what, c, p);
                    report("%s: cls_filter_run_host = %s: %s", what, cls_status_name(st),
                           cls_last_error());
                }
            }
            g.t_run += now_s() - t0;
            if (ran[p]) {
                g.images++;
                g.pixels += compare_ref(c, p, out[p], refs[i]);
            }
        }
        if (!in)
            report("out of memory");
        for (int p = 1; p < N_PARTS; ++p)
            if (ran[0] && ran[p])
                compare_parts(c, p, out[0], out[p], refs[i]);
        for (int p = 0; p < N_PARTS; ++p)
            free(out[p]);
        if (c->padded)
            free(in);
    }
    for (int p = 0; p < N_PARTS; ++p)
        if (f[p])
            cls_filter_release(f[p]);
}

static void run_mode(cls_border mode)
{
    if (!g.ctx) {
        if (g.ctx_status == CLS_ERR_NO_PLATFORM || g.ctx_status == CLS_ERR_NO_DEVICE)
            skip();
        fail_msg("no context: %s", cls_status_name(g.ctx_status));
    }
    if (!mode_selected(mode))
        skip();
    g.failures = 0;
    double t0 = now_s();
    unsigned long filters0 = g.filters, images0 = g.images;

    for (int t = 0; t < N_TYPES; ++t) {
        cls_pixel_type type = TYPES[t];
        if (!type_in_mode(mode, type))
            continue;
        unsigned char *inputs[N_IMAGES] = {NULL};
        for (int i = 0; i < (int)N_IMAGES; ++i)
            if (image_in_type(type, i) && !(inputs[i] = make_image(type, IMAGES[i].w, IMAGES[i].h)))
                fail_msg("out of memory");
        for (int m = 0; m < (int)N_MASKS; ++m) {
            if (!mask_in_type(type, m) || !mask_in_mode(mode, type, m))
                continue;
            float *coef = make_mask(type, MASKS[m].w, MASKS[m].h);
            double *refs[N_IMAGES] = {NULL};
            assert_non_null(coef);
            for (int bake = 0; bake <= 1; ++bake) {
                if (!cfg.bake[bake] ||
                    (bake && (MASKS[m].w > MAX_BAKED || MASKS[m].h > MAX_BAKED)) ||
                    (cfg.bake[0] && cfg.bake[1] && !bake_in_case(mode, type, m, bake)))
                    continue;
                for (int s = 0; s < (int)N_SHAPES; ++s) {
                    if (!shape_in_type(type, s) || !shape_in_case(mode, type, m, s))
                        continue;
                    run_case c = {mode, type, m, bake, s, -1, 0, 0, 0};
                    run_shape(&c, coef, inputs, refs);
                }
            }
            for (int i = 0; i < (int)N_IMAGES; ++i)
                free(refs[i]);
            free(coef);
        }
        for (int i = 0; i < (int)N_IMAGES; ++i)
            free(inputs[i]);
    }
    printf("  %s: %lu filters, %lu images, %.1f s, %lu failures\n", mode_name(mode),
           g.filters - filters0, g.images - images0, now_s() - t0, g.failures);
    fflush(stdout);
    if (g.failures)
        fail_msg("%lu failures in border mode %s", g.failures, mode_name(mode));
}

static void test_undefined(void **state) { (void)state; run_mode(CLS_BORDER_UNDEFINED); }
static void test_clamp(void **state) { (void)state; run_mode(CLS_BORDER_CLAMP); }
static void test_mirror(void **state) { (void)state; run_mode(CLS_BORDER_MIRROR); }
static void test_mirror101(void **state) { (void)state; run_mode(CLS_BORDER_MIRROR101); }
static void test_repeat(void **state) { (void)state; run_mode(CLS_BORDER_REPEAT); }
static void test_constant(void **state) { (void)state; run_mode(CLS_BORDER_CONSTANT); }

/* ---------------------------------------------------------------- setup */

static int group_setup(void **state)
{
    (void)state;
    g.ctx_status = cls_context_create(NULL, &g.ctx);
    if (g.ctx_status != CLS_OK) {
        g.ctx = NULL;
        printf("matrix: no OpenCL context: %s: %s\n", cls_status_name(g.ctx_status),
               cls_last_error());
        return 0; /* the tests skip or fail */
    }
    const cls_device_caps *caps = cls_context_device(g.ctx);
    g.is_pocl = caps && caps->vendor == CLS_VENDOR_POCL;
    g.max_wg = caps ? caps->max_work_group_size : 0;
    cl_device_id dev = NULL;
    cl_uint bits = 0;
    if (clGetCommandQueueInfo(cls_context_queue(g.ctx), CL_QUEUE_DEVICE, sizeof dev, &dev,
                              NULL) == CL_SUCCESS &&
        clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) ==
            CL_SUCCESS)
        g.base_align = bits / 8;
    printf("matrix: device \"%s\" (%s), %s%s, bake=%s\n", caps ? caps->name : "?",
           caps ? caps->platform_name : "?",
           cfg.quick ? "quick" : cfg.exhaustive ? "full matrix" : "representatives",
           cfg.full ? " without run-time limit" : "",
           cfg.bake[0] && cfg.bake[1] ? "both" : cfg.bake[1] ? "1" : "0");
    fflush(stdout);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (g.ctx)
        cls_context_release(g.ctx);
    g.ctx = NULL;
    return 0;
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int main(void)
{
    cfg.quick = env_flag("CLS_MATRIX_QUICK");
    cfg.exhaustive = cls_test_exhaustive();
    cfg.full = env_flag("CLS_MATRIX_FULL");
    const char *bake = getenv("CLS_MATRIX_BAKE");
    cfg.bake[0] = !bake || !*bake || strcmp(bake, "1") != 0;
    cfg.bake[1] = !bake || !*bake || strcmp(bake, "0") != 0;
    const char *modes = getenv("CLS_MATRIX_MODES");
    if (modes)
        snprintf(cfg.modes, sizeof cfg.modes, "%s", modes);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undefined), cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_mirror),    cmocka_unit_test(test_mirror101),
        cmocka_unit_test(test_repeat),    cmocka_unit_test(test_constant),
    };
    double t0 = now_s();
    int rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
    printf("matrix: %lu filters built, %lu images compared, %lu pixels checked\n", g.filters,
           g.images, g.pixels);
    printf("matrix: %.1f s in all (build %.1f s, run %.1f s, reference %.1f s), %lu filters "
           "skipped\n",
           now_s() - t0, g.t_build, g.t_run, g.t_ref, g.skipped_filters);
    return rc;
}
