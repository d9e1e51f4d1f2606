/* test_variants.c — the kernel variants in the correctness matrix: local-memory staging, the
 * image sampler path, columns per work-item, folded taps, multi-output kernels with and without
 * an epilogue, separable single-pass and two-pass filters and u8 pixels, each against the
 * independent CPU reference (tests/reference), with every pixel compared, borders included, on
 * images smaller than the mask and than a work-group's tile as well as larger ones.
 *
 * Each family has a few configurations per border mode, its other knobs (mask shape, partition,
 * baked or runtime mask, rows, columns, work-group shape, input path, ...) rotating over the
 * configurations and modes. Builds dominate the run time on a CPU device, so each build runs on
 * every image, and the default run takes representatives: one configuration per family and
 * border mode the family allows (undefined included where the variant allows it; the separable
 * family one single-pass and one two-pass per mode), picked so that every value of every knob
 * still appears in every family and the small knobs meet pairwise wherever one configuration per
 * mode allows (49 builds). CLS_TEST_EXHAUSTIVE=1 runs every configuration in every mode (140
 * builds). The u8 cases and the refused local tile run in both.
 *
 * Baked masks stay small (MAX_BAKED_WORK) to bound build time. Data are dyadic (pixels k/32,
 * coefficients k/64 or k/8), so most sums are exact in float; comparisons use the f32 tolerance
 * of the reference (exact for u8). Undefined mode: pixels whose window leaves the image must keep
 * the caller's values. CLS_VARIANTS_VERBOSE=1 prints the build and run time of every
 * configuration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clstencil.h>

#include "reference/reference.h"
#include "support/test_level.h"

/* ---------------------------------------------------------------- the matrix's dimensions */

typedef struct dims { unsigned w, h; } dims;

static const dims MASKS[] = {{3, 3}, {5, 3}, {1, 7}, {9, 9}, {17, 17}};
static const dims IMAGES[] = {{1, 1}, {3, 2}, {7, 5}, {37, 9}, {23, 41}, {70, 33}};
static const dims GROUPS[] = {{16, 4}, {8, 8}, {32, 2}};
#define N_MASKS (sizeof MASKS / sizeof MASKS[0])
#define N_IMAGES (sizeof IMAGES / sizeof IMAGES[0])
#define N_GROUPS (sizeof GROUPS / sizeof GROUPS[0])
static const cls_partition PARTITIONS[] = {CLS_PARTITION_NAIVE, CLS_PARTITION_ISP_BLOCK, CLS_PARTITION_ISP_WARP};

/* A border mode with its constant value. */
typedef struct mode { cls_border border; float value; } mode;
static const mode MODES[] = {{CLS_BORDER_UNDEFINED, 0.0f}, {CLS_BORDER_CLAMP, 0.0f},    {CLS_BORDER_MIRROR, 0.0f},
                             {CLS_BORDER_MIRROR101, 0.0f}, {CLS_BORDER_REPEAT, 0.0f},   {CLS_BORDER_CONSTANT, 0.75f},
                             {CLS_BORDER_CONSTANT, 0.0f}};
#define N_MODES (sizeof MODES / sizeof MODES[0])
#define MODE_UNDEFINED 0
#define MODE_CONSTANT_ZERO 6 /* the image path's hardware constant mode */

#define SENTINEL_F32 -1234.5f /* the caller's output values before a run */
#define SENTINEL_U8 77
#define MAX_REPORTS 20
/* Baked masks unroll taps x rows x columns multiply-adds per region; past this PoCL's compiler
 * takes tens of seconds (17x17 with 2 rows and 4 columns: over a minute), so larger ones run with
 * the runtime mask. */
#define MAX_BAKED_WORK 600

/* ---------------------------------------------------------------- one variant */

typedef enum mask_kind {
    MASK_GENERAL,   /* positive, asymmetric, k/64 */
    MASK_SEPARABLE, /* column x row of symmetric dyadic vectors (Gaussian-like) */
    MASK_GAUSSIAN,  /* a true float Gaussian, symmetric: many equal taps */
    MASK_DERIVATIVE /* mask k: a derivative along x (k = 0), along y (1), or general (2) */
} mask_kind;

typedef struct variant {
    const char *family;
    mode mode;
    dims mask;
    mask_kind kind;
    cls_partition partition;
    dims group;
    unsigned rows, cols, masks;
    int bake, fold, vectors; /* vectors: give row and column vectors instead of the mask */
    cls_input_path input;
    cls_separable separable;
    const char *epilogue; /* only "hypot(r0, r1)" has an oracle here */
    cls_pixel_type in_type, out_type;
} variant;

static struct {
    cls_context *context;
    int image_support, verbose; /* verbose: CLS_VARIANTS_VERBOSE=1 prints each build's times */
    unsigned long filters, unsupported, images, pixels, failures;
    double build_seconds, run_seconds;
} g;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void describe(char *text, size_t size, const variant *v)
{
    char border[48];
    if (v->mode.border == CLS_BORDER_CONSTANT) snprintf(border, sizeof border, "constant %g", (double)v->mode.value);
    else snprintf(border, sizeof border, "%s", cls_border_name(v->mode.border));
    snprintf(text, size,
             "%s: %s, mask %ux%u%s, %s, group %ux%u, rows %u, cols %u, masks %u%s%s, bake %d, fold %d, input %s, "
             "separable %s, %s -> %s",
             v->family, border, v->mask.w, v->mask.h, v->vectors ? " (vectors)" : "", cls_partition_name(v->partition),
             v->group.w, v->group.h, v->rows, v->cols, v->masks, v->epilogue ? ", epilogue " : "",
             v->epilogue ? v->epilogue : "", v->bake, v->fold, cls_input_path_name(v->input),
             cls_separable_name(v->separable), cls_pixel_type_name(v->in_type), cls_pixel_type_name(v->out_type));
}

/* Counts a failure and prints the first few. */
static void report(const variant *v, const char *format, ...)
{
    if (++g.failures > MAX_REPORTS) return;
    char what[512];
    describe(what, sizeof what, v);
    printf("  FAIL %s: ", what);
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
}

/* ---------------------------------------------------------------- deterministic data */

/* Symmetric dyadic vector of n values: (1 + distance from the nearer end) / scale. */
static void tent(float *values, unsigned n, float scale)
{
    for (unsigned i = 0; i < n; ++i) values[i] = (float)(1 + (i < n - 1 - i ? i : n - 1 - i)) / scale;
}

/* A float Gaussian of n values, sigma n/4 (exactly symmetric: equal distances, equal values). */
static void gaussian(float *values, unsigned n)
{
    const float sigma = (float)n / 4.0f, centre = (float)(n / 2);
    for (unsigned i = 0; i < n; ++i) values[i] = expf(-((float)i - centre) * ((float)i - centre) / (2 * sigma * sigma));
}

/* The masks of a variant, one after another (masks * w * h), and for MASK_SEPARABLE the
 * vectors (row: w values, column: h values). */
static void make_masks(const variant *v, float *coefficients, float *row, float *column)
{
    const unsigned w = v->mask.w, h = v->mask.h, taps = w * h;
    if (v->kind == MASK_SEPARABLE || v->kind == MASK_GAUSSIAN) {
        if (v->kind == MASK_SEPARABLE) tent(row, w, 16.0f), tent(column, h, 8.0f);
        else gaussian(row, w), gaussian(column, h);
        for (unsigned j = 0; j < h; ++j)
            for (unsigned i = 0; i < w; ++i) coefficients[j * w + i] = column[j] * row[i];
        return;
    }
    for (unsigned m = 0; m < v->masks; ++m)
        for (unsigned j = 0; j < h; ++j)
            for (unsigned i = 0; i < w; ++i) {
                const int dx = (int)i - (int)(w / 2), dy = (int)j - (int)(h / 2);
                const int wx = 1 + (int)(i < w - 1 - i ? i : w - 1 - i), wy = 1 + (int)(j < h - 1 - j ? j : h - 1 - j);
                float value = (float)(1 + (i * 7 + j * 3 + m * 5) % 9) / 64.0f; /* general */
                if (v->kind == MASK_DERIVATIVE && m == 0) value = (float)(dx * wy) / 8.0f;
                if (v->kind == MASK_DERIVATIVE && m == 1) value = (float)(dy * wx) / 8.0f;
                coefficients[m * taps + j * w + i] = value;
            }
}

/* A packed input image: f32 pixels k/32 in [0.5, 1.5], u8 pixels 0..255. */
static void *make_input(cls_pixel_type type, dims image)
{
    const size_t n = (size_t)image.w * image.h, size = ref_pixel_size(type);
    unsigned char *pixels = malloc(n * size);
    assert_non_null(pixels);
    for (size_t k = 0; k < n; ++k) {
        const size_t x = k % image.w, y = k / image.w;
        const double value = type == CLS_PIXEL_F32 ? (double)(16 + (x * 7 + y * 13 + x * y) % 33) / 32.0
                                                   : (double)((x * 37 + y * 101 + x * y * 3 + 11) % 256);
        ref_store(type, value, pixels + k * size);
    }
    return pixels;
}

/* ---------------------------------------------------------------- build, run, compare */

static cls_spec spec_of(const variant *v, const float *coefficients, const float *row, const float *column)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = v->mask.w;
    spec.mask_height = v->mask.h;
    spec.coefficients = v->vectors ? NULL : coefficients;
    spec.row_coefficients = v->vectors ? row : NULL;
    spec.column_coefficients = v->vectors ? column : NULL;
    spec.bake_coefficients = v->bake;
    spec.fold_equal_taps = v->fold;
    spec.border = v->mode.border;
    spec.border_value = v->mode.value;
    spec.partition = v->partition;
    spec.group_width = v->group.w;
    spec.group_height = v->group.h;
    spec.rows_per_item = v->rows;
    spec.cols_per_item = v->cols;
    spec.mask_count = v->masks;
    spec.epilogue = v->epilogue;
    spec.input_path = v->input;
    spec.separable = v->separable;
    spec.input_type = v->in_type;
    spec.output_type = v->out_type;
    return spec;
}

/* The expected value of output k at pixel p: NaN where undefined mode leaves it unwritten. */
static double expected_value(const variant *v, double *const *references, unsigned k, size_t p)
{
    if (v->epilogue) return hypot(references[0][p], references[1][p]);
    return references[k][p];
}

/* Compares the outputs of one run with the references; returns the pixels compared. */
static unsigned long compare(const variant *v, dims image, unsigned outputs, void *const *got,
                             double *const *references)
{
    const size_t size = ref_pixel_size(v->out_type), n = (size_t)image.w * image.h;
    unsigned long compared = 0;
    for (unsigned k = 0; k < outputs; ++k)
        for (size_t p = 0; p < n; ++p) {
            const double value = ref_load(v->out_type, (const unsigned char *)got[k] + p * size);
            const double expected = expected_value(v, references, k, p);
            const int keep = isnan(expected); /* undefined mode outside: the caller's value stays */
            const double want = keep ? (v->out_type == CLS_PIXEL_F32 ? (double)SENTINEL_F32 : SENTINEL_U8)
                                     : ref_to_output(v->out_type, expected);
            const int ok = keep || v->out_type != CLS_PIXEL_F32 ? value == want : ref_f32_close(value, want);
            ++compared;
            if (!ok) {
                report(v, "image %ux%u output %u pixel (%zu, %zu) is %.9g, expected %.9g%s", image.w, image.h, k,
                       p % image.w, p / image.w, value, want, keep ? " (the caller's value: not to be written)" : "");
                return compared;
            }
        }
    return compared;
}

/* Runs a built filter on one image and compares every output. */
static void run_image(const variant *v, cls_filter *filter, dims image, const float *coefficients)
{
    const unsigned outputs = v->epilogue ? 1 : v->masks;
    const size_t n = (size_t)image.w * image.h, out_size = ref_pixel_size(v->out_type);
    void *input = make_input(v->in_type, image);
    void *got[CLS_MAX_MASKS] = {NULL};
    double *references[CLS_MAX_MASKS] = {NULL};
    const ref_image in = {input, image.w, image.h, 0, v->in_type};
    for (unsigned m = 0; m < v->masks; ++m) {
        references[m] = malloc(n * sizeof(double));
        assert_non_null(references[m]);
        assert_int_equal(ref_stencil(&in, coefficients + (size_t)m * v->mask.w * v->mask.h, (int)v->mask.w,
                                     (int)v->mask.h, v->mode.border, v->mode.value, references[m]),
                         0);
    }
    for (unsigned k = 0; k < outputs; ++k) {
        got[k] = malloc(n * out_size);
        assert_non_null(got[k]);
        for (size_t p = 0; p < n; ++p)
            ref_store(v->out_type, v->out_type == CLS_PIXEL_F32 ? SENTINEL_F32 : SENTINEL_U8,
                      (unsigned char *)got[k] + p * out_size);
    }
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = image.w, .height = image.h};
    const double start = now_seconds();
    const cls_status status = outputs == 1 ? cls_filter_run_host(filter, input, got[0], &desc)
                                           : cls_filter_run_host_outputs(filter, input, outputs, got, &desc);
    g.run_seconds += now_seconds() - start;
    if (status != CLS_OK) {
        report(v, "image %ux%u: run = %s: %s", image.w, image.h, cls_status_name(status), cls_last_error());
    } else {
        g.pixels += compare(v, image, outputs, got, references);
        ++g.images;
    }
    for (unsigned k = 0; k < CLS_MAX_MASKS; ++k) free(got[k]), free(references[k]);
    free(input);
}

/* Builds one variant and runs it on every image; the image path on a device without image
 * support must be refused with CLS_ERR_UNSUPPORTED. */
static void run_variant(const variant *requested)
{
    variant copy = *requested, *v = &copy;
    if (v->bake && !v->fold && v->mask.w * v->mask.h * v->rows * v->cols > MAX_BAKED_WORK) v->bake = 0;
    float coefficients[CLS_MAX_MASKS * 17 * 17], row[17], column[17];
    make_masks(v, coefficients, row, column);
    const cls_spec spec = spec_of(v, coefficients, row, column);
    cls_filter *filter = NULL;
    const double start = now_seconds();
    const cls_status status = cls_filter_create(g.context, &spec, &filter);
    g.build_seconds += now_seconds() - start;
    if (v->input == CLS_INPUT_IMAGE && !g.image_support) {
        if (status != CLS_ERR_UNSUPPORTED)
            report(v, "without image support: create = %s, expected CLS_ERR_UNSUPPORTED", cls_status_name(status));
        ++g.unsupported;
        cls_filter_release(filter);
        return;
    }
    if (status != CLS_OK) {
        report(v, "create = %s: %.3000s", cls_status_name(status), cls_last_error());
        return;
    }
    ++g.filters;
    const unsigned outputs = v->epilogue ? 1 : v->masks;
    if (cls_filter_output_count(filter) != outputs)
        report(v, "cls_filter_output_count = %u, expected %u", cls_filter_output_count(filter), outputs);
    const double run_start = now_seconds();
    for (size_t i = 0; i < N_IMAGES; ++i) run_image(v, filter, IMAGES[i], coefficients);
    cls_filter_release(filter);
    if (g.verbose) {
        char what[512];
        describe(what, sizeof what, v);
        printf("    %s: build %.2f s, runs %.2f s\n", what, run_start - start, now_seconds() - run_start);
    }
}

/* A variant with every knob at its plain value. */
static variant plain(const char *family, size_t mode_index)
{
    variant v;
    memset(&v, 0, sizeof v);
    v.family = family;
    v.mode = MODES[mode_index];
    v.mask = MASKS[0];
    v.kind = MASK_GENERAL;
    v.partition = CLS_PARTITION_ISP_BLOCK;
    v.group = GROUPS[0];
    v.rows = v.cols = v.masks = 1;
    v.input = CLS_INPUT_GLOBAL;
    v.separable = CLS_SEPARABLE_NONE;
    v.in_type = v.out_type = CLS_PIXEL_F32;
    return v;
}

static void begin(void)
{
    if (!g.context) skip();
    g.failures = 0;
}

static void end(const char *family, unsigned long filters0, unsigned long pixels0, double start)
{
    printf("  %s: %lu filters, %lu pixels, %.1f s, %lu failures\n", family, g.filters - filters0,
           g.pixels - pixels0, now_seconds() - start, g.failures);
    fflush(stdout);
    if (g.failures) fail_msg("%lu failures in %s", g.failures, family);
}

/* Opens a family: its name, and the counters and clock that end() reports against. */
#define FAMILY(name)                                                                                                   \
    const unsigned long filters0 = g.filters, pixels0 = g.pixels;                                                      \
    const double start = now_seconds();                                                                                \
    const char *family = name;                                                                                         \
    begin()

/* The default run's representatives of a family: configuration c runs in mode mi when bit c of
 * picks[mi] is set; the exhaustive run takes every configuration. */
#define PICK(c) (1u << (c))

static int picked(const unsigned *picks, size_t mi, unsigned c)
{
    return cls_test_exhaustive() || (picks[mi] >> c & 1u);
}

/* ---------------------------------------------------------------- the families */

/* Local-memory staging: every mode but the zero constant (6), 6 configurations each: masks,
 * partitions, baked and runtime masks, rows 1 and 4, columns 1 and 2, group shapes rotate. The
 * default run takes one per mode: every mask, partition and group shape, baked and runtime,
 * every pair of rows and columns. */
static const unsigned LOCAL_PICKS[N_MODES] = {PICK(0), PICK(5), PICK(1), PICK(2), PICK(3), PICK(4), 0};

static void input_local(void **state)
{
    (void)state;
    FAMILY("input local");
    for (size_t mi = 0; mi < MODE_CONSTANT_ZERO; ++mi)
        for (unsigned c = 0; c < 6; ++c) {
            if (!picked(LOCAL_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.input = CLS_INPUT_LOCAL;
            v.mask = MASKS[(c + mi) % N_MASKS];
            v.partition = PARTITIONS[c % 3];
            v.group = GROUPS[(c + mi) % N_GROUPS];
            v.bake = (int)((c + mi) % 2);
            v.cols = c % 2 ? 2 : 1;
            v.rows = (c / 2 + mi) % 2 ? 4 : 1;
            if (mi == MODE_UNDEFINED) v.rows = v.cols = 1;
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* The image path: every mode, the zero constant (the sampler's own) included; 4 configurations
 * each. The default run takes one per mode: every mask, partition and group shape, baked and
 * runtime, every pair of partition, bake, rows and columns. */
static const unsigned IMAGE_PICKS[N_MODES] = {PICK(2), PICK(2), PICK(2), PICK(2), PICK(1), PICK(1), PICK(1)};

static void input_image(void **state)
{
    (void)state;
    FAMILY("input image");
    for (size_t mi = 0; mi < N_MODES; ++mi)
        for (unsigned c = 0; c < 4; ++c) {
            if (!picked(IMAGE_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.input = CLS_INPUT_IMAGE;
            v.mask = MASKS[(c * 2 + mi) % N_MASKS];
            v.partition = PARTITIONS[(c + mi) % 3];
            v.group = GROUPS[(c + 2 * mi) % N_GROUPS];
            v.bake = (int)((c + mi) % 2);
            v.cols = (c + mi / 2) % 2 ? 2 : 1;
            v.rows = c >= 2 ? 4 : 1;
            if (mi == MODE_UNDEFINED) v.rows = v.cols = 1;
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* Columns per work-item on the global path: 2, 4 and 8, rows 1 and 2, every mode that allows
 * them. The default run takes one per mode: columns 2 and 8 with rows 1 and 2, columns 4, every
 * mask, partition and group shape, baked and runtime. */
static const unsigned COLUMNS_PICKS[N_MODES] = {0, PICK(1), PICK(0), PICK(0), PICK(2), PICK(2), 0};

static void global_columns(void **state)
{
    (void)state;
    FAMILY("global columns");
    static const unsigned cols[] = {2, 4, 8};
    for (size_t mi = 1; mi < MODE_CONSTANT_ZERO; ++mi)
        for (unsigned c = 0; c < 3; ++c) {
            if (!picked(COLUMNS_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.cols = cols[c];
            v.rows = (c + mi) % 2 ? 2 : 1;
            v.mask = MASKS[(c + 2 * mi) % N_MASKS];
            v.partition = PARTITIONS[(c + mi) % 3];
            v.group = GROUPS[(c + mi) % N_GROUPS];
            v.bake = (int)((c + mi) % 2);
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* Folded taps: a symmetric Gaussian and an asymmetric mask in every mode, on the global, local
 * and image paths and with columns. The default run takes one per mode, the two masks in turn:
 * each on the three paths, every mask shape, partition and group shape. */
static const unsigned FOLDED_PICKS[N_MODES] = {PICK(0), PICK(1), PICK(0), PICK(1), PICK(0), PICK(1), 0};

static void folded_taps(void **state)
{
    (void)state;
    FAMILY("folded taps");
    for (size_t mi = 0; mi < MODE_CONSTANT_ZERO; ++mi)
        for (unsigned c = 0; c < 2; ++c) {
            if (!picked(FOLDED_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.bake = v.fold = 1;
            v.kind = c == 0 ? MASK_GAUSSIAN : MASK_GENERAL;
            v.mask = MASKS[(2 * mi + c) % N_MASKS];
            v.partition = PARTITIONS[(mi + c) % 3];
            v.group = GROUPS[mi % N_GROUPS];
            static const cls_input_path paths[] = {CLS_INPUT_GLOBAL, CLS_INPUT_LOCAL, CLS_INPUT_IMAGE};
            v.input = paths[(mi + c) % 3];
            if (mi != MODE_UNDEFINED && c == 1) v.cols = 2;
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* Several masks in one pass: 2 and 3 separate outputs, and 2 with the epilogue hypot(r0, r1),
 * in every mode, on the three input paths. The default run takes one per mode and the epilogue
 * on the image path in undefined mode besides: 2 outputs on the three paths, 3 outputs and the
 * epilogue on two each, every mask, partition and group shape, baked and runtime, rows 1 and 2. */
static const unsigned MULTI_PICKS[N_MODES] = {PICK(0) | PICK(2), PICK(0), PICK(0), PICK(1), PICK(1), PICK(2), 0};

static void multi_output(void **state)
{
    (void)state;
    FAMILY("multi-output");
    static const cls_input_path paths[] = {CLS_INPUT_GLOBAL, CLS_INPUT_LOCAL, CLS_INPUT_IMAGE};
    for (size_t mi = 0; mi < MODE_CONSTANT_ZERO; ++mi)
        for (unsigned c = 0; c < 3; ++c) {
            if (!picked(MULTI_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.kind = MASK_DERIVATIVE;
            v.masks = c == 1 ? 3 : 2;
            v.epilogue = c == 2 ? "hypot(r0, r1)" : NULL;
            v.mask = MASKS[(c + mi) % 4]; /* 17x17 x 3 is covered by no other family's budget */
            v.partition = PARTITIONS[(c + 2 * mi) % 3];
            v.group = GROUPS[(c + mi) % N_GROUPS];
            v.bake = (int)((c + mi) % 2);
            v.input = paths[(c + mi) % 3];
            if (mi != MODE_UNDEFINED && (c + mi) % 3 == 1) v.rows = 2;
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* Separable filters: single-pass and two-pass, from vectors and detected from a full mask, rows
 * 1 and 4, in clamp, mirror, mirror101, repeat, constant 0.75 and constant 0; single-pass also in
 * undefined mode. The default run takes one single-pass (configuration 0 or 1) and one two-pass
 * (2 or 3) per mode: each from vectors and from a full mask, with rows 1 and 4, every mask,
 * partition and group shape, baked and runtime. */
static const unsigned SEPARABLE_PICKS[N_MODES] = {PICK(0),           PICK(1) | PICK(2), PICK(1) | PICK(2),
                                                  PICK(0) | PICK(3), PICK(1) | PICK(2), PICK(1) | PICK(2),
                                                  PICK(1) | PICK(2)};

static void separable(void **state)
{
    (void)state;
    FAMILY("separable");
    for (size_t mi = 0; mi < N_MODES; ++mi)
        for (unsigned c = 0; c < 4; ++c) {
            const int two_pass = c >= 2;
            if (mi == MODE_UNDEFINED && two_pass) continue; /* refused: see test_spec */
            if (!picked(SEPARABLE_PICKS, mi, c)) continue;
            variant v = plain(family, mi);
            v.kind = MASK_SEPARABLE;
            v.separable = two_pass ? CLS_SEPARABLE_TWO_PASS : CLS_SEPARABLE_SINGLE_PASS;
            v.vectors = (int)((c + mi) % 2);
            v.rows = c % 2 ? 4 : 1;
            v.mask = MASKS[(c + mi) % N_MASKS];
            v.partition = PARTITIONS[(c + mi) % 3];
            v.group = GROUPS[(2 * c + mi) % N_GROUPS];
            v.bake = (int)((c / 2 + mi) % 2);
            if (mi == MODE_UNDEFINED) v.rows = 1;
            run_variant(&v);
        }
    end(family, filters0, pixels0, start);
}

/* u8 in, u8 out (exact): local and image paths, columns (vector loads), multi-output and
 * single-pass. */
static void u8_variants(void **state)
{
    (void)state;
    FAMILY("u8");
    static const size_t modes[] = {1, 2, 5, 6, 3};
    for (unsigned c = 0; c < 5; ++c) {
        variant v = plain(family, modes[c]);
        v.in_type = v.out_type = CLS_PIXEL_U8;
        v.mode.value = v.mode.border == CLS_BORDER_CONSTANT && v.mode.value != 0.0f ? 7.0f : 0.0f;
        v.mask = MASKS[c % 2];
        v.partition = PARTITIONS[c % 3];
        v.bake = (int)(c % 2);
        if (c == 0) v.input = CLS_INPUT_LOCAL, v.rows = 4;
        if (c == 1) v.input = CLS_INPUT_IMAGE, v.cols = 2;
        if (c == 2) v.cols = 4, v.bake = 1; /* baked: the body's rows are vector loads (convert_float4) */
        if (c == 3) v.kind = MASK_DERIVATIVE, v.masks = 3; /* negative sums saturate to 0 */
        if (c == 4) v.kind = MASK_SEPARABLE, v.separable = CLS_SEPARABLE_SINGLE_PASS, v.vectors = 1;
        run_variant(&v);
    }
    end(family, filters0, pixels0, start);
}

/* A local tile larger than the device's local memory must be refused when the filter is created
 * (a launch would fail, or abort inside the runtime): a 63x63 mask, 8 x 8 outputs per work-item
 * and the smallest group among a few whose tile exceeds the local memory. */
static void local_tile_beyond_local_memory_is_refused(void **state)
{
    (void)state;
    if (!g.context) skip();
    const cls_device_caps *caps = cls_context_device(g.context);
    static const dims shapes[] = {{16, 16}, {32, 32}, {64, 16}, {128, 32}};
    static float mask[63 * 63];
    for (size_t k = 0; k < 63 * 63; ++k) mask[k] = 1.0f / (63 * 63);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        const dims s = shapes[k];
        const unsigned long long tile = (unsigned long long)(s.w * 8 + 62) * (s.h * 8 + 62) * sizeof(float);
        if ((size_t)s.w * s.h > caps->max_work_group_size || s.w > caps->max_work_item_sizes[0] ||
            s.h > caps->max_work_item_sizes[1] || tile <= caps->local_mem_size)
            continue;
        cls_spec spec;
        cls_spec_init(&spec);
        spec.mask_width = spec.mask_height = 63;
        spec.coefficients = mask;
        spec.input_path = CLS_INPUT_LOCAL;
        spec.group_width = s.w;
        spec.group_height = s.h;
        spec.rows_per_item = spec.cols_per_item = 8;
        cls_filter *filter = NULL;
        const cls_status status = cls_filter_create(g.context, &spec, &filter);
        cls_filter_release(filter);
        if (status != CLS_ERR_UNSUPPORTED)
            fail_msg("a %llu-byte tile (group %ux%u) on a device with %llu bytes of local memory: create = %s, "
                     "expected CLS_ERR_UNSUPPORTED",
                     tile, s.w, s.h, (unsigned long long)caps->local_mem_size, cls_status_name(status));
        return;
    }
    skip(); /* no group shape of the list exceeds this device's local memory */
}

/* ---------------------------------------------------------------- setup */

static int setup(void **state)
{
    (void)state;
    if (cls_context_create(NULL, &g.context) != CLS_OK) {
        printf("variants: no OpenCL context: %s\n", cls_last_error());
        g.context = NULL;
        return 0; /* every test skips */
    }
    const cls_device_caps *caps = cls_context_device(g.context);
    g.image_support = caps->image_support;
    const char *verbose = getenv("CLS_VARIANTS_VERBOSE");
    g.verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
    printf("variants: device \"%s\" (%s), image support %s\n", caps->name, caps->platform_name,
           g.image_support ? "yes" : "no (the image path must be refused)");
    fflush(stdout);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(g.context);
    printf("variants: %lu filters built (%lu image-path builds refused as unsupported), %lu images, %lu pixels "
           "compared; build %.1f s, run %.1f s\n",
           g.filters, g.unsupported, g.images, g.pixels, g.build_seconds, g.run_seconds);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(input_local),  cmocka_unit_test(input_image), cmocka_unit_test(global_columns),
        cmocka_unit_test(folded_taps),  cmocka_unit_test(multi_output), cmocka_unit_test(separable),
        cmocka_unit_test(u8_variants),  cmocka_unit_test(local_tile_beyond_local_memory_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
