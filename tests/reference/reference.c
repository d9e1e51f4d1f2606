/* reference.c — the independent CPU reference for clstencil's local operators (see
 * reference.h). Each border mode is implemented from its definition in DESIGN.md as a periodic
 * index map, so that any offset is right, including images smaller than the mask. */
#include "reference.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t ref_pixel_size(cls_pixel_type type)
{
    switch (type) {
    case CLS_PIXEL_F32: return 4;
    case CLS_PIXEL_U8: return 1;
    case CLS_PIXEL_U16:
    case CLS_PIXEL_I16:
    case CLS_PIXEL_F16: return 2;
    case CLS_PIXEL_F64: return 8;
    }
    return 0;
}

static double round_half_even(double v);

/* IEEE half precision from its bits: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
static double half_value(uint16_t bits)
{
    const int exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
    const double sign = bits & 0x8000 ? -1.0 : 1.0;
    if (exponent == 0x1f) return fraction ? NAN : sign * INFINITY;
    if (exponent == 0) return sign * ldexp(fraction, -24); /* subnormal */
    return sign * ldexp(1024 + fraction, exponent - 25);
}

/* The half-precision value nearest to v (ties to the even fraction); beyond the largest finite
 * half, 65504, from 65520 up (where rounding would carry past it): infinity. */
static double half_round(double v)
{
    if (isnan(v) || isinf(v)) return v;
    const double magnitude = fabs(v);
    if (magnitude >= 65520.0) return v < 0 ? -INFINITY : INFINITY;
    int exponent;
    frexp(magnitude, &exponent);             /* magnitude in [2^(exponent-1), 2^exponent) */
    const int step = exponent - 11 < -24 ? -24 : exponent - 11; /* 11 significant bits, or subnormal */
    const double rounded = ldexp(round_half_even(ldexp(magnitude, -step)), step);
    return v < 0 ? -rounded : rounded;
}

/* The bits of a half-precision value (v as half_round gives it). */
static uint16_t half_bits(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    const double magnitude = fabs(v);
    if (isnan(v)) return 0x7e00;
    if (isinf(v)) return sign | 0x7c00;
    if (magnitude < ldexp(1.0, -14)) return sign | (uint16_t)ldexp(magnitude, 24); /* subnormal or 0 */
    int exponent;
    const double mantissa = frexp(magnitude, &exponent); /* [0.5, 1) */
    return sign | (uint16_t)((exponent + 14) << 10) | (uint16_t)(ldexp(mantissa, 11) - 1024);
}

/* a mod m in [0, m) for m > 0, also for negative a. */
static long mod_floor(long a, long m)
{
    long r = a % m;
    return r < 0 ? r + m : r;
}

long ref_border_index(cls_border border, long p, long n)
{
    if (n < 1)
        return -1;
    if (p >= 0 && p < n)
        return p;
    switch (border) {
    case CLS_BORDER_CLAMP: /* aaaa|abcd|dddd */
        return p < 0 ? 0 : n - 1;
    case CLS_BORDER_MIRROR: { /* dcba|abcd|dcba: the edge pixel repeats, period 2n */
        long m = mod_floor(p, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case CLS_BORDER_MIRROR101: { /* dcb|abcd|cba: the edge pixel does not repeat, period 2n-2 */
        if (n == 1)
            return 0;
        long m = mod_floor(p, 2 * n - 2);
        return m < n ? m : 2 * n - 2 - m;
    }
    case CLS_BORDER_REPEAT: /* abcd|abcd|abcd */
        return mod_floor(p, n);
    case CLS_BORDER_CONSTANT:  /* kkkk|abcd|kkkk: never read */
    case CLS_BORDER_UNDEFINED: /* ????|abcd|????: no defined pixel */
    case CLS_BORDER_SAME:      /* not a mode of its own */
        return -1;
    }
    return -1;
}

int ref_window_inside(size_t x, size_t y, size_t width, size_t height, int mask_w, int mask_h)
{
    size_t hx = (size_t)(mask_w / 2), hy = (size_t)(mask_h / 2);
    size_t rx = (size_t)(mask_w - 1 - mask_w / 2), ry = (size_t)(mask_h - 1 - mask_h / 2);
    return x >= hx && y >= hy && x + rx < width && y + ry < height;
}

double ref_load(cls_pixel_type type, const void *src)
{
    switch (type) {
    case CLS_PIXEL_F32: {
        float v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    case CLS_PIXEL_U8:
        return *(const uint8_t *)src;
    case CLS_PIXEL_U16: {
        uint16_t v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    case CLS_PIXEL_I16: {
        int16_t v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    case CLS_PIXEL_F16: {
        uint16_t bits;
        memcpy(&bits, src, sizeof bits);
        return half_value(bits);
    }
    case CLS_PIXEL_F64: {
        double v;
        memcpy(&v, src, sizeof v);
        return v;
    }
    }
    return NAN;
}

double ref_read(const ref_image *img, size_t x, size_t y)
{
    size_t ps = ref_pixel_size(img->type);
    size_t pitch = img->row_pitch ? img->row_pitch : img->width * ps;
    return ref_load(img->type, (const char *)img->data + y * pitch + x * ps);
}

/* Round to nearest, ties to even, independent of the floating-point rounding mode. */
static double round_half_even(double v)
{
    double f = floor(v);
    double d = v - f; /* exact: f and v are within 1 of each other */
    if (d > 0.5)
        return f + 1.0;
    if (d < 0.5)
        return f;
    return fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

static double saturate_round(double v, double min, double max)
{
    if (isnan(v))
        return 0.0;
    if (v <= min)
        return min;
    if (v >= max)
        return max;
    double r = round_half_even(v);
    return r > max ? max : r < min ? min : r;
}

double ref_to_output(cls_pixel_type type, double v)
{
    switch (type) {
    case CLS_PIXEL_F32: return (double)(float)v;
    case CLS_PIXEL_U8: return saturate_round(v, 0.0, 255.0);
    case CLS_PIXEL_U16: return saturate_round(v, 0.0, 65535.0);
    case CLS_PIXEL_I16: return saturate_round(v, -32768.0, 32767.0);
    case CLS_PIXEL_F16: return half_round((double)(float)v); /* the kernel rounds its f32 result */
    case CLS_PIXEL_F64: return v;
    }
    return NAN;
}

void ref_store(cls_pixel_type type, double v, void *dst)
{
    double o = ref_to_output(type, v);
    switch (type) {
    case CLS_PIXEL_F32: {
        float f = (float)o;
        memcpy(dst, &f, sizeof f);
        break;
    }
    case CLS_PIXEL_U8:
        *(uint8_t *)dst = (uint8_t)o;
        break;
    case CLS_PIXEL_U16: {
        uint16_t u = (uint16_t)o;
        memcpy(dst, &u, sizeof u);
        break;
    }
    case CLS_PIXEL_I16: {
        int16_t i = (int16_t)o;
        memcpy(dst, &i, sizeof i);
        break;
    }
    case CLS_PIXEL_F16: {
        const uint16_t bits = half_bits(o);
        memcpy(dst, &bits, sizeof bits);
        break;
    }
    case CLS_PIXEL_F64:
        memcpy(dst, &o, sizeof o);
        break;
    }
}

/* The coordinate read for every position p in [-before, n + after), at table[p + before]. */
static long *axis_map(cls_border border, long n, long before, long after)
{
    long len = before + n + after;
    long *map = malloc((size_t)len * sizeof *map);
    if (!map)
        return NULL;
    for (long k = 0; k < len; ++k)
        map[k] = ref_border_index(border, k - before, n);
    return map;
}

int ref_stencil(const ref_image *in, const float *mask, int mask_w, int mask_h,
                cls_border border, float border_value, double *out)
{
    const cls_border borders[2] = {border, border};
    return ref_stencil_axes(in, mask, mask_w, mask_h, borders, border_value, out);
}

int ref_stencil_axes(const ref_image *in, const float *mask, int mask_w, int mask_h, const cls_border borders[2],
                     float border_value, double *out)
{
    const cls_border border = borders[0];
    if (!in || !in->data || !mask || !out || in->width == 0 || in->height == 0 ||
        mask_w < 1 || mask_h < 1 || mask_w % 2 == 0 || mask_h % 2 == 0 ||
        ref_pixel_size(in->type) == 0)
        return -1;

    const long w = (long)in->width, h = (long)in->height;
    const long hx = mask_w / 2, hy = mask_h / 2;
    const long rx = mask_w - 1 - hx, ry = mask_h - 1 - hy;
    const double k = border_value;

    double *pix = malloc((size_t)w * (size_t)h * sizeof *pix);
    long *xmap = axis_map(borders[0], w, hx, rx);
    long *ymap = axis_map(borders[1], h, hy, ry);
    if (!pix || !xmap || !ymap) {
        free(pix);
        free(xmap);
        free(ymap);
        return -1;
    }
    for (long y = 0; y < h; ++y)
        for (long x = 0; x < w; ++x)
            pix[y * w + x] = ref_read(in, (size_t)x, (size_t)y);

    for (long y = 0; y < h; ++y) {
        for (long x = 0; x < w; ++x) {
            if (border == CLS_BORDER_UNDEFINED &&
                !ref_window_inside((size_t)x, (size_t)y, (size_t)w, (size_t)h, mask_w, mask_h)) {
                out[y * w + x] = NAN;
                continue;
            }
            double sum = 0.0;
            for (long j = 0; j < mask_h; ++j) {
                long sy = ymap[y + j]; /* the table starts at -hy: index (y + j - hy) + hy */
                const float *mrow = mask + j * mask_w;
                for (long i = 0; i < mask_w; ++i) {
                    long sx = xmap[x + i];
                    double v = (sy < 0 || sx < 0) ? k : pix[sy * w + sx];
                    sum += (double)mrow[i] * v;
                }
            }
            out[y * w + x] = sum;
        }
    }
    free(pix);
    free(xmap);
    free(ymap);
    return 0;
}

int ref_stencil3d(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                  int mask_d, cls_border border, float border_value, double *out)
{
    return ref_reduce3d(in, depth, slice_pitch, mask, mask_w, mask_h, mask_d, border, border_value, CLS_REDUCTION_SUM, out);
}

int ref_reduce3d(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                 int mask_d, cls_border border, float border_value, cls_reduction reduction, double *out)
{
    const cls_border borders[3] = {border, border, border};
    return ref_reduce3d_axes(in, depth, slice_pitch, mask, mask_w, mask_h, mask_d, borders, border_value, reduction, out);
}

int ref_reduce3d_axes(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w,
                      int mask_h, int mask_d, const cls_border borders[3], float border_value, cls_reduction reduction,
                      double *out)
{
    const cls_border border = borders[0];
    if (!in || !in->data || !mask || !out || in->width == 0 || in->height == 0 || depth == 0 || mask_w < 1 ||
        mask_h < 1 || mask_d < 1 || mask_w % 2 == 0 || mask_h % 2 == 0 || mask_d % 2 == 0 ||
        ref_pixel_size(in->type) == 0)
        return -1;
    const long w = (long)in->width, h = (long)in->height, d = (long)depth;
    const long hx = mask_w / 2, hy = mask_h / 2, hz = mask_d / 2;
    const size_t pitch = in->row_pitch ? in->row_pitch : in->width * ref_pixel_size(in->type);
    const size_t slice = slice_pitch ? slice_pitch : pitch * in->height;
    double *pix = malloc((size_t)w * (size_t)h * (size_t)d * sizeof *pix);
    long *xmap = axis_map(borders[0], w, hx, hx), *ymap = axis_map(borders[1], h, hy, hy);
    long *zmap = axis_map(borders[2], d, hz, hz);
    if (!pix || !xmap || !ymap || !zmap) {
        free(pix), free(xmap), free(ymap), free(zmap);
        return -1;
    }
    for (long z = 0; z < d; ++z) {
        const ref_image plane = {(const char *)in->data + (size_t)z * slice, in->width, in->height, pitch, in->type};
        for (long y = 0; y < h; ++y)
            for (long x = 0; x < w; ++x) pix[(z * h + y) * w + x] = ref_read(&plane, (size_t)x, (size_t)y);
    }
    for (long z = 0; z < d; ++z)
        for (long y = 0; y < h; ++y)
            for (long x = 0; x < w; ++x) {
                double *at = &out[(z * h + y) * w + x];
                if (border == CLS_BORDER_UNDEFINED &&
                    (x < hx || x >= w - hx || y < hy || y >= h - hy || z < hz || z >= d - hz)) {
                    *at = NAN;
                    continue;
                }
                double sum = reduction == CLS_REDUCTION_MIN ? INFINITY : reduction == CLS_REDUCTION_MAX ? -INFINITY : 0.0;
                for (long k = 0; k < mask_d; ++k)
                    for (long j = 0; j < mask_h; ++j)
                        for (long i = 0; i < mask_w; ++i) {
                            const long sz = zmap[z + k], sy = ymap[y + j], sx = xmap[x + i];
                            const double v = sz < 0 || sy < 0 || sx < 0 ? (double)border_value
                                                                        : pix[(sz * h + sy) * w + sx];
                            const double c = mask[(k * mask_h + j) * mask_w + i];
                            if (reduction == CLS_REDUCTION_SUM) sum += c * v;
                            else if (c != 0.0) sum = reduction == CLS_REDUCTION_MIN ? fmin(sum, v) : fmax(sum, v);
                        }
                *at = sum;
            }
    free(pix), free(xmap), free(ymap), free(zmap);
    return 0;
}

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int ref_rank3d_axes(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                    int mask_d, const cls_border borders[3], float border_value, unsigned rank, double *out)
{
    const size_t taps = (size_t)mask_w * mask_h * mask_d, voxels = in ? in->width * in->height * depth : 0;
    /* each tap's value alone: a mask of one 1 at a time, its maximum (the reference's own reduction) */
    float *one = calloc(taps, sizeof *one);
    double *values = malloc(taps * voxels * sizeof *values), *window = malloc(taps * sizeof *window);
    size_t count = 0;
    int status = one && values && window ? 0 : -1;
    for (size_t t = 0; status == 0 && t < taps; ++t) {
        if (mask[t] == 0.0f) continue;
        one[t] = 1.0f;
        status = ref_reduce3d_axes(in, depth, slice_pitch, one, mask_w, mask_h, mask_d, borders, border_value,
                                   CLS_REDUCTION_MAX, values + count++ * voxels);
        one[t] = 0.0f;
    }
    if (status == 0 && rank >= count) status = -1;
    for (size_t v = 0; status == 0 && v < voxels; ++v) {
        for (size_t t = 0; t < count; ++t) window[t] = values[t * voxels + v];
        qsort(window, count, sizeof *window, ascending);
        out[v] = isnan(values[v]) ? NAN : window[rank]; /* undefined: NaN where the window leaves */
    }
    free(one), free(values), free(window);
    return status;
}

int ref_f32_close(double got, double expected)
{
    return fabs(got - expected) <= 1e-6 || fabs(got - expected) <= 1e-5 * fabs(expected);
}

int ref_f16_close(double got, double expected)
{
    if (isnan(expected) || isinf(expected)) return isnan(expected) ? isnan(got) : got == expected;
    int exponent;
    frexp(fabs(expected), &exponent);
    const double unit = ldexp(1.0, exponent - 11 < -24 ? -24 : exponent - 11); /* one half-precision step */
    return fabs(got - expected) <= unit;
}
