/* operators.c — the operator library: named operators (Gaussian, box, Laplace, Sobel, Scharr,
 * bilateral, a-trous, tone mapping, any convolution, the Gaussian family) as specs with baked
 * masks or operator bodies, parsed from text such as "gaussian:5,1.2"; the rank and morphology
 * operators are morphology_operators.c's. Pure C, like the rest of the generator. */
#include "generator.h"

#include "error.h"
#include "gaussian_masks.h"
#include "operator_internal.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ARGUMENTS 8

static cls_status set_body(cls_operator *op, const char *body)
{
    if (!(op->body = strdup(body))) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    op->spec.body = op->body;
    return CLS_OK;
}

/* A refusal of TEXT (short for cls_operator_refuse: every parser below has several). */
static cls_status bad(const char *text, const char *why) { return cls_operator_refuse(text, why); }

/* A sigma is usable when 2 sigma^2 is a normal, finite double and, for the bilateral range, the
 * float coefficient -log2(e) / (2 sigma^2) is finite. 0 after a message naming the parameter. */
static int sigma_ok(const char *text, const char *name, const char *word, double sigma, int as_float, cls_status *status)
{
    const double twice_square = 2 * sigma * sigma;
    const char *why = NULL;
    if (!isfinite(sigma) || !(sigma > 0)) why = "is not a finite number above 0";
    else if (!(twice_square >= DBL_MIN) || !isfinite(twice_square)) why = "is out of range (2*SIGMA^2 underflows or overflows)";
    else if (as_float && 1.4426950408889634 / twice_square > FLT_MAX) why = "is too small (its weights would not be finite in float)";
    if (!why) return 1;
    *status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator '%s': %s '%s' %s", text, name, word, why);
    return 0;
}

static cls_status gaussian(unsigned size, double sigma, cls_operator **out)
{
    cls_status status = cls_operator_new(size, size, out);
    if (status != CLS_OK) return status;
    double weights[CLS_MAX_MASK], total = 0;
    const int half = (int)size / 2;
    for (int i = -half; i <= half; ++i) total += weights[i + half] = exp(-(double)(i * i) / (2 * sigma * sigma));
    for (unsigned j = 0; j < size; ++j)
        for (unsigned i = 0; i < size; ++i) (*out)->mask[j * size + i] = (float)(weights[j] * weights[i] / (total * total));
    snprintf((*out)->name, sizeof (*out)->name, "gaussian:%u,%g", size, sigma);
    cls_operator_bake_rank1(*out);
    return CLS_OK;
}

static cls_status from_values(unsigned width, unsigned height, const float *values, const char *name, cls_operator **out)
{
    cls_status status = cls_operator_new(width, height, out);
    if (status != CLS_OK) return status;
    memcpy((*out)->mask, values, sizeof(float) * width * height);
    snprintf((*out)->name, sizeof (*out)->name, "%s", name);
    return CLS_OK;
}

/* The derivative mask across `reach` columns (x) or rows (y) with side weights 1-2-1 (Sobel,
 * reach 1) or 3-10-3 (Scharr). */
static void fill_derivative(float *mask, unsigned size, int scharr, int along_y)
{
    const int reach = (int)size / 2;
    const float side = scharr ? 3.0f : 1.0f, middle = scharr ? 10.0f : 2.0f;
    for (int k = -1; k <= 1; ++k) {
        const float weight = k == 0 ? middle : side;
        const int across = k + reach, plus = reach + reach, minus = 0;
        if (along_y) {
            mask[plus * size + (unsigned)across] = weight;
            mask[minus * size + (unsigned)across] = -weight;
        } else {
            mask[(unsigned)across * size + (unsigned)plus] = weight;
            mask[(unsigned)across * size + (unsigned)minus] = -weight;
        }
    }
}

/* A Sobel or Scharr derivative; "mag" applies the x and the y mask in one pass (two masks) and
 * writes their hypotenuse (the epilogue). */
static cls_status derivative(const char *family, const char *direction, unsigned size, cls_operator **out)
{
    const int scharr = strcmp(family, "scharr") == 0, magnitude = strcmp(direction, "mag") == 0;
    cls_status status = cls_operator_new(size, size, out);
    if (status != CLS_OK) return status;
    cls_operator *op = *out;
    snprintf(op->name, sizeof op->name, "%s:%s,%u", family, direction, size);
    if (!magnitude) {
        fill_derivative(op->mask, size, scharr, direction[0] == 'y');
        return CLS_OK;
    }
    float *both = calloc(2 * (size_t)size * size, sizeof *both);
    if (!both) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    free(op->mask);
    op->mask = both;
    fill_derivative(both, size, scharr, 0);
    fill_derivative(both + (size_t)size * size, size, scharr, 1);
    op->spec.coefficients = both;
    op->spec.mask_count = 2;
    op->spec.epilogue = "magnitude(r0, r1)"; /* hypot without calling it (emit_store.c) */
    return CLS_OK;
}

/* A C float literal's digits for value (always with a point or an exponent). */
static const char *float_literal(double value, char *text, size_t size)
{
    snprintf(text, size, "%.9g", value);
    if (!strpbrk(text, ".e")) strncat(text, ".0", size - strlen(text) - 1);
    return text;
}

static cls_status bilateral(double sigma_d, double sigma_r, unsigned size, cls_operator **out)
{
    cls_status status = cls_operator_new(size, size, out);
    if (status != CLS_OK) return status;
    cls_operator *op = *out;
    const int half = (int)size / 2;
    for (int j = -half; j <= half; ++j) /* the closeness mask */
        for (int i = -half; i <= half; ++i)
            op->mask[(unsigned)(j + half) * size + (unsigned)(i + half)] =
                (float)exp(-(double)(i * i + j * j) / (2 * sigma_d * sigma_d));
    /* similarity exp2(-d^2 k), k = log2(e) / (2 sigma_r^2), and closeness exp2(c (dx^2 + dy^2)),
     * c = -log2(e) / (2 sigma_d^2) */
    const double k = 0.5 / (sigma_r * sigma_r) * 1.4426950408889634, c = -0.5 / (sigma_d * sigma_d) * 1.4426950408889634;
    char body[1600], similarity[40], root[40], closeness[40];
    float_literal(-k, similarity, sizeof similarity);
    float_literal(sqrt(k), root, sizeof root);
    float_literal(c, closeness, sizeof closeness);
    snprintf(body, sizeof body,
             "/* bilateral: closeness (the mask) times similarity exp(-d^2 / (2 sigma_r^2)), both written as\n"
             " * powers of two: exp2 is one hardware instruction on GPUs */\n"
             "const value_t centre = IN(0, 0);\n"
             "value_t weights = 0.0f, total = 0.0f;\n"
             "#if COLS > 1\n"
             "/* COLS outputs in lanes (CPU runtimes): the closeness from the mask */\n"
             "FOR_WINDOW(dx, dy) {\n"
             "    const value_t value = IN(dx, dy), difference = value - centre;\n"
             "    const value_t weight = MASK(dx, dy) * exp2(difference * difference * %sf);\n"
             "    weights += weight;\n"
             "    total += weight * value;\n"
             "}\n"
             "#else\n"
             "/* One output (GPUs): a row's closeness (the mask's middle column) applied to its sums once,\n"
             " * a column's added to the similarity's exponent, the difference scaled by sqrt(k) in one\n"
             " * multiply-add: five instructions and an exponential a tap */\n"
             "for (int dy = -HALF_H; dy <= HALF_H; ++dy) {\n"
             "    value_t row_weights = 0.0f, row_total = 0.0f;\n"
             "    #pragma unroll\n"
             "    for (int dx = -HALF_W; dx <= HALF_W; ++dx) {\n"
             "        const value_t value = IN(dx, dy), scaled = fma(value, %sf, -centre * %sf);\n"
             "        const value_t weight = FAST_EXP2(fma(scaled, -scaled, (dx * dx) * %sf));\n"
             "        row_weights += weight;\n"
             "        row_total = fma(weight, value, row_total);\n"
             "    }\n"
             "    weights = fma(MASK(0, dy), row_weights, weights);\n"
             "    total = fma(MASK(0, dy), row_total, total);\n"
             "}\n"
             "#endif\n"
             "OUT = total / weights;\n",
             similarity, root, root, closeness);
    snprintf(op->name, sizeof op->name, "bilateral:%g,%g,%u", sigma_d, sigma_r, size);
    return set_body(op, body);
}

/* The 3x3 linear B-spline smoothing [1 2 1]/4 x [1 2 1]/4 with holes: taps `dilation` apart. */
static cls_status atrous(unsigned dilation, cls_operator **out)
{
    const unsigned size = 2 * dilation + 1;
    cls_status status = cls_operator_new(size, size, out);
    if (status != CLS_OK) return status;
    static const float weights[3] = {0.25f, 0.5f, 0.25f};
    for (unsigned j = 0; j < 3; ++j)
        for (unsigned i = 0; i < 3; ++i) (*out)->mask[j * dilation * size + i * dilation] = weights[j] * weights[i];
    snprintf((*out)->name, sizeof (*out)->name, "atrous:%u", dilation);
    return CLS_OK;
}

/* v / (1 + v) on values of 0..1; with a SCALE other than 1 on values of 0..SCALE (an integer
 * image's stored scale), which it maps to 0..1 and back. */
static cls_status tonemap(double scale, cls_operator **out)
{
    static const float one = 1.0f;
    cls_status status = from_values(1, 1, &one, "tonemap", out);
    if (status != CLS_OK) return status;
    if (scale == 1) return set_body(*out, "/* tone mapping: v / (1 + v) */\nconst float v = IN(0, 0);\nOUT = v / (1.0f + v);\n");
    char body[256], factor[40], inverse[40];
    snprintf(body, sizeof body,
             "/* tone mapping on 0..%g: v / (1 + v) of the value scaled to 0..1, scaled back */\n"
             "const float v = IN(0, 0) * %sf;\nOUT = %sf * (v / (1.0f + v));\n",
             scale, float_literal(1 / scale, inverse, sizeof inverse), float_literal(scale, factor, sizeof factor));
    snprintf((*out)->name, sizeof (*out)->name, "tonemap:%g", scale);
    return set_body(*out, body);
}

/* The operator's name, the text before the colon (or all of it), in lower case; 0 when it is
 * empty or longer than name_size allows. */
static int operator_name(const char *text, char *name, size_t name_size)
{
    const char *colon = strchr(text, ':');
    const size_t length = colon ? (size_t)(colon - text) : strlen(text);
    if (length == 0 || length >= name_size) return 0;
    for (size_t i = 0; i < length; ++i) name[i] = (char)tolower((unsigned char)text[i]);
    name[length] = '\0';
    return 1;
}

/* Splits "name:a,b,c" into the name and up to MAX_ARGUMENTS numbers; returns the count, or -1. */
static int split(const char *text, char *name, size_t name_size, double *numbers, char words[][16], int max)
{
    if (!operator_name(text, name, name_size)) return -1;
    const char *colon = strchr(text, ':');
    if (!colon) return 0;
    int count = 0;
    for (const char *p = colon + 1;; ++count) {
        if (count == max) return -1;
        const size_t part = strcspn(p, ",");
        if (part == 0 || part >= 16) return -1;
        memcpy(words[count], p, part);
        words[count][part] = '\0';
        if (!cls_operator_number(words[count], &numbers[count])) numbers[count] = NAN; /* a word, not a number */
        p += part;
        if (*p == '\0') return count + 1;
        ++p;
    }
}

/* Reverses the mask's rows and columns (a rotation by 180 degrees), in place. */
/* Every axis reversed: the values in the opposite order. */
static void flip_mask(float *mask, size_t taps)
{
    for (size_t k = 0, last = taps - 1; k < last - k; ++k) {
        const float t = mask[k];
        mask[k] = mask[last - k];
        mask[last - k] = t;
    }
}

/* correlate: (NAME), the mask applied as written, and convolve:, the mask flipped first (a true
 * convolution, scipy's convolve): the spec always holds the coefficients as correlated. Sides of
 * any length: an even one has its output pixel at cell W/2 of the mask as given (scipy's rule),
 * and runs as the next odd window (anchored_operators.c). */
static cls_status parse_convolve(const char *text, const char *name, const char *arguments, cls_operator **out)
{
    const int convolve = strcmp(name, "convolve") == 0;
    const char *usage = convolve ? "expected convolve:WxH[xD][@X,Y[,Z]],c1,...,cN with W and H up to 63 and D up to 31"
                                 : "expected correlate:WxH[xD][@X,Y[,Z]],c1,...,cN with W and H up to 63 and D up to 31";
    unsigned width, height, depth = 0; /* 0: a 2-D mask (WxH) */
    int used = 0, used_3d = 0;
    const int sides = arguments ? sscanf(arguments, "%ux%u%nx%u%n", &width, &height, &used, &depth, &used_3d) : 0;
    if (sides == 3) used = used_3d;
    if (sides < 2 || width < 1 || width > CLS_MAX_MASK || height < 1 || height > CLS_MAX_MASK ||
        (sides == 3 && (depth < 1 || depth > CLS_MAX_MASK_DEPTH)))
        return bad(text, usage);
    int given[3] = {0, 0, 0}; /* the origin: scipy's, of the mask as written */
    if (arguments[used] == '@') {
        const char *at = arguments + used + 1;
        int read = 0;
        for (int k = 0; k < (depth ? 3 : 2); ++k) {
            int n = 0;
            if (sscanf(at + read, k ? ",%d%n" : "%d%n", &given[k], &n) != 1) return bad(text, usage);
            read += n;
        }
        used += 1 + read;
    }
    const size_t taps = (size_t)width * height * (depth ? depth : 1);
    float *values = malloc(taps * sizeof *values);
    if (!values) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    const char *p = arguments + used;
    for (size_t k = 0; k < taps && p; ++k) {
        char *end;
        p = *p == ',' && (values[k] = strtof(p + 1, &end), end != p + 1) && isfinite(values[k]) ? end : NULL;
    }
    if (!p || *p) {
        free(values);
        return bad(text, "needs exactly W*H*D finite coefficients");
    }
    /* convolve: flipped, and scipy's origin o as -o along an odd side, -o - 1 along an even one
     * (which keeps cell W/2 the output's) */
    const unsigned lengths[3] = {width, height, depth};
    int origin[3];
    for (int k = 0; k < 3; ++k)
        origin[k] = convolve ? -given[k] - (lengths[k] && lengths[k] % 2 == 0) : given[k];
    if (convolve) flip_mask(values, taps);
    const cls_status status = cls_weights_operator(name, values, width, height, depth, origin, out);
    free(values);
    if (status == CLS_OK && (given[0] || given[1] || given[2])) { /* the origin as written */
        const size_t n = strlen((*out)->name);
        if (depth) snprintf((*out)->name + n, sizeof (*out)->name - n, "@%d,%d,%d", given[0], given[1], given[2]);
        else snprintf((*out)->name + n, sizeof (*out)->name - n, "@%d,%d", given[0], given[1]);
    }
    return status;
}

/* An odd SIZE argument, or the default window of SIGMA; 0 after a message when neither fits. */
static unsigned gaussian_window(const char *text, int given, double size, double sigma, cls_status *status)
{
    if (given) {
        if (cls_operator_odd_size(size)) return (unsigned)size;
        *status = bad(text, "the window SIZE must be odd and at most 63");
        return 0;
    }
    const double fallback = cls_gaussian_default_size(sigma);
    if (fallback <= CLS_MAX_MASK) return (unsigned)fallback;
    *status = bad(text, "the default window 2*int(4*SIGMA+0.5)+1 is larger than 63: give a SIZE");
    return 0;
}

/* Keeps the operator when its mask's SIZE x SIZE values are finite floats; else releases it and
 * says which parameter is out of range. */
static cls_status finite_mask(const char *text, unsigned size, const char *why, cls_operator **out)
{
    for (size_t k = 0; k < (size_t)size * size; ++k)
        if (!isfinite((*out)->mask[k])) {
            cls_operator_release(*out);
            *out = NULL;
            return bad(text, why);
        }
    return CLS_OK;
}

/* Difference of Gaussians (dog), Laplacian of Gaussian (log), unsharp masking (unsharp) and the
 * Gaussian's derivatives (gaussian_d). */
static cls_status parse_gaussian_family(const char *text, const char *name, int count, const double *n,
                                        char words[][16], cls_operator **out)
{
    cls_status status = CLS_OK;
    unsigned size;
    if (strcmp(name, "dog") == 0) {
        if (count < 2 || count > 3) return bad(text, "expected dog:SIGMA1,SIGMA2[,SIZE] with both sigmas > 0");
        if (!sigma_ok(text, "SIGMA1", words[0], n[0], 0, &status) || !sigma_ok(text, "SIGMA2", words[1], n[1], 0, &status))
            return status;
        if (!(size = gaussian_window(text, count == 3, n[2], fmax(n[0], n[1]), &status))) return status;
        if ((status = cls_operator_new(size, size, out)) != CLS_OK) return status;
        cls_difference_of_gaussians_mask(size, n[0], n[1], (*out)->mask);
        snprintf((*out)->name, sizeof (*out)->name, "dog:%g,%g,%u", n[0], n[1], size);
        return CLS_OK;
    }
    if (strcmp(name, "log") == 0) {
        if (count < 1 || count > 2) return bad(text, "expected log:SIGMA[,SIZE] with SIGMA > 0");
        if (!sigma_ok(text, "SIGMA", words[0], n[0], 0, &status)) return status;
        if (!(size = gaussian_window(text, count == 2, n[1], n[0], &status))) return status;
        if ((status = cls_operator_new(size, size, out)) != CLS_OK) return status;
        cls_laplacian_of_gaussian_mask(size, n[0], (*out)->mask);
        snprintf((*out)->name, sizeof (*out)->name, "log:%g,%u", n[0], size);
        return finite_mask(text, size, "SIGMA is too small: the weights (1/SIGMA^4) are not finite in float", out);
    }
    if (strcmp(name, "unsharp") == 0) {
        if (count < 2 || count > 3 || !isfinite(n[1]))
            return bad(text, "expected unsharp:SIGMA,AMOUNT[,SIZE] with SIGMA > 0 and a finite AMOUNT");
        if (!sigma_ok(text, "SIGMA", words[0], n[0], 0, &status)) return status;
        if (!(size = gaussian_window(text, count == 3, n[2], n[0], &status))) return status;
        if ((status = cls_operator_new(size, size, out)) != CLS_OK) return status;
        cls_unsharp_mask(size, n[0], n[1], (*out)->mask);
        snprintf((*out)->name, sizeof (*out)->name, "unsharp:%g,%g,%u", n[0], n[1], size);
        return finite_mask(text, size, "AMOUNT is too large: the weights are not finite in float", out);
    }
    if (strcmp(name, "gaussian_d") == 0) {
        const int orders_ok = count >= 3 && n[1] == floor(n[1]) && n[1] >= 0 && n[1] <= 2 && n[2] == floor(n[2]) &&
                              n[2] >= 0 && n[2] <= 2;
        if (count < 3 || count > 4 || !orders_ok)
            return bad(text, "expected gaussian_d:SIGMA,ORDER_X,ORDER_Y[,SIZE] with SIGMA > 0 and orders 0, 1 or 2");
        if (!sigma_ok(text, "SIGMA", words[0], n[0], 0, &status)) return status;
        if (!(size = gaussian_window(text, count == 4, n[3], n[0], &status))) return status;
        if ((status = cls_operator_new(size, size, out)) != CLS_OK) return status;
        cls_gaussian_derivative_mask(size, n[0], (unsigned)n[1], (unsigned)n[2], (*out)->mask);
        snprintf((*out)->name, sizeof (*out)->name, "gaussian_d:%g,%u,%u,%u", n[0], (unsigned)n[1], (unsigned)n[2], size);
        return finite_mask(text, size, "SIGMA is too small: the weights (up to 1/SIGMA^4) are not finite in float", out);
    }
    return bad(text, "unknown operator");
}

cls_status cls_operator_parse(const char *text, cls_operator **out)
{
    if (!text || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator text or output pointer is NULL");
    *out = NULL;
    char name[32], words[MAX_ARGUMENTS][16];
    double n[MAX_ARGUMENTS];
    if (strncasecmp(text, "convolve:", 9) == 0) return parse_convolve(text, "convolve", text + 9, out);
    if (strncasecmp(text, "correlate:", 10) == 0) return parse_convolve(text, "correlate", text + 10, out);
    /* the rank and morphology operators split their own arguments: a mask file's path may hold commas */
    if (operator_name(text, name, sizeof name) && cls_morphology_operator(name)) {
        const char *colon = strchr(text, ':');
        return cls_morphology_parse(text, name, colon ? colon + 1 : NULL, out);
    }
    const int count = split(text, name, sizeof name, n, words, MAX_ARGUMENTS);
    if (count < 0) return bad(text, "expected NAME or NAME:ARGUMENTS");
    cls_status status = CLS_OK;
    if (cls_volume_operator(name)) return cls_volume_parse(text, name, count, n, out);
    if (strcmp(name, "gaussian") == 0) {
        if (count < 1 || count > 2 || !cls_operator_odd_size(n[0]))
            return bad(text, "expected gaussian:SIZE[,SIGMA] with an odd SIZE up to 63 and SIGMA > 0");
        if (count == 2 && !sigma_ok(text, "SIGMA", words[1], n[1], 0, &status)) return status;
        return gaussian((unsigned)n[0], count == 2 ? n[1] : 0.3 * ((n[0] - 1) * 0.5 - 1) + 0.8, out);
    }
    if (strcmp(name, "box") == 0) {
        if (count != 1 || !cls_operator_odd_size(n[0])) return bad(text, "expected box:SIZE with an odd SIZE up to 63");
        const unsigned size = (unsigned)n[0];
        status = cls_operator_new(size, size, out);
        if (status != CLS_OK) return status;
        for (unsigned k = 0; k < size * size; ++k) (*out)->mask[k] = 1.0f / (float)(size * size);
        snprintf((*out)->name, sizeof (*out)->name, "box:%u", size);
        cls_operator_bake_rank1(*out);
        return CLS_OK;
    }
    if (strcmp(name, "laplace") == 0) {
        static const float three[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
        static const float five[25] = {2, 4, 4, 4, 2, 4, 0, -8, 0, 4, 4, -8, -24, -8, 4, 4, 0, -8, 0, 4, 2, 4, 4, 4, 2};
        if (count > 1 || (count == 1 && n[0] != 3 && n[0] != 5)) return bad(text, "expected laplace, laplace:3 or laplace:5");
        return count == 1 && n[0] == 5 ? from_values(5, 5, five, "laplace:5", out) : from_values(3, 3, three, "laplace:3", out);
    }
    if (strcmp(name, "sobel") == 0 || strcmp(name, "scharr") == 0) {
        const int scharr = name[1] == 'c';
        const int direction_ok = count >= 1 && (strcasecmp(words[0], "x") == 0 || strcasecmp(words[0], "y") == 0 ||
                                                strcasecmp(words[0], "mag") == 0);
        const int size_ok = count == 1 || (scharr && count == 2 && (n[1] == 3 || n[1] == 5 || n[1] == 7 || n[1] == 9));
        if (!direction_ok || !size_ok)
            return bad(text, scharr ? "expected scharr:x|y|mag[,SIZE] with SIZE 3, 5, 7 or 9" : "expected sobel:x|y|mag");
        char direction[4];
        for (int i = 0; i < 4; ++i) direction[i] = (char)tolower((unsigned char)words[0][i]);
        return derivative(name, direction, count == 2 ? (unsigned)n[1] : 3, out);
    }
    if (strcmp(name, "bilateral") == 0) {
        if (count < 2 || count > 3)
            return bad(text, "expected bilateral:SIGMA_D,SIGMA_R[,SIZE] with both sigmas > 0");
        if (!sigma_ok(text, "SIGMA_D", words[0], n[0], 0, &status) || !sigma_ok(text, "SIGMA_R", words[1], n[1], 1, &status))
            return status;
        if (count == 3 && !cls_operator_odd_size(n[2])) return bad(text, "the window SIZE must be odd and at most 63");
        if (count == 2 && !(4 * n[0] + 1 < CLS_MAX_MASK + 1)) return bad(text, "the window 4*SIGMA_D+1 is larger than 63");
        unsigned size = count == 3 ? (unsigned)n[2] : (unsigned)(4 * n[0] + 1);
        size += size % 2 == 0;
        if (size > CLS_MAX_MASK) return bad(text, "the window 4*SIGMA_D+1 is larger than 63");
        return bilateral(n[0], n[1], size, out);
    }
    if (strcmp(name, "atrous") == 0) {
        if (count != 1 || !(n[0] >= 1) || n[0] != floor(n[0]) || 2 * n[0] + 1 > CLS_MAX_MASK)
            return bad(text, "expected atrous:DILATION with a DILATION from 1 to 31");
        return atrous((unsigned)n[0], out);
    }
    if (strcmp(name, "tonemap") == 0) {
        if (count > 1 || (count == 1 && !(n[0] > 0 && n[0] <= 1e30)))
            return bad(text, "expected tonemap or tonemap:SCALE, the values' full scale (255 for u8), above 0");
        return tonemap(count ? n[0] : 1, out);
    }
    if (strcmp(name, "dog") == 0 || strcmp(name, "log") == 0 || strcmp(name, "unsharp") == 0 ||
        strcmp(name, "gaussian_d") == 0)
        return parse_gaussian_family(text, name, count, n, words, out);
    return bad(text, "unknown operator (convolve, correlate, gaussian, gaussian_d, box, gaussian3d, box3d, min3d, max3d, median3d, percentile3d, laplace, sobel, scharr, "
                     "bilateral, atrous, tonemap, median, percentile, min, max, erode, dilate, morphgradient, opening, "
                     "closing, tophat, blackhat, dog, log, unsharp)");
}

/* The user operator of a body over a window already checked, made by MADE; released on failure. */
static cls_status finish_user(cls_operator **out, cls_status made, const char *body, const float *mask)
{
    if (made != CLS_OK) return made;
    const cls_spec *spec = &(*out)->spec;
    const size_t taps = (size_t)spec->mask_width * spec->mask_height * (spec->mask_depth ? spec->mask_depth : 1);
    for (size_t k = 0; k < taps; ++k) (*out)->mask[k] = mask ? mask[k] : 1.0f;
    (*out)->spec.bake_coefficients = 0; /* one build serves every mask */
    cls_status status = set_body(*out, body);
    if (status == CLS_OK) status = cls_spec_validate(&(*out)->spec); /* the body's rules included */
    if (status != CLS_OK) {
        cls_operator_release(*out);
        *out = NULL;
    }
    return status;
}

cls_status cls_operator_user_volume(const char *body, unsigned width, unsigned height, unsigned depth,
                                    const float *mask, cls_operator **out)
{
    if (!body || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body or output pointer is NULL");
    *out = NULL;
    if (!cls_operator_odd_size(width) || !cls_operator_odd_size(height) || !cls_operator_odd_size(depth) ||
        depth > CLS_MAX_MASK_DEPTH)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "user operator window %ux%ux%u: sides must be odd, at most 63 "
                        "(the depth at most %d)", width, height, depth, CLS_MAX_MASK_DEPTH);
    const cls_status made = cls_operator_new_volume(width, height, depth, out);
    if (made == CLS_OK) snprintf((*out)->name, sizeof (*out)->name, "user:%ux%ux%u", width, height, depth);
    return finish_user(out, made, body, mask);
}

cls_status cls_operator_user(const char *body, unsigned width, unsigned height, const float *mask, cls_operator **out)
{
    if (!body || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body or output pointer is NULL");
    *out = NULL;
    if (!cls_operator_odd_size(width) || !cls_operator_odd_size(height))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "user operator window %ux%u: sides must be odd and at most 63", width, height);
    const cls_status made = cls_operator_new(width, height, out);
    if (made == CLS_OK) snprintf((*out)->name, sizeof (*out)->name, "user:%ux%u", width, height);
    return finish_user(out, made, body, mask);
}
