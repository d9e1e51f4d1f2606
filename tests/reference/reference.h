/* reference.h — the independent CPU reference for clstencil's local operators.
 *
 * Written from DESIGN.md's definitions only ("Border modes"), never from generator/ or host/:
 * it is the oracle the device tests compare against. Sums are accumulated in double; the
 * conversion to the output type follows OpenCL's convert_<type>_sat_rte (round to nearest,
 * ties to even, saturating, NaN -> 0). Only the enum values of clstencil.h are used. */
#ifndef CLS_TEST_REFERENCE_H
#define CLS_TEST_REFERENCE_H

#include <clstencil.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A typed host image: pixel (x, y) lives at (char *)data + y * row_pitch + x * pixel size. */
typedef struct ref_image {
    const void *data;
    size_t width, height;
    size_t row_pitch; /* bytes between the starts of two rows; 0 means tightly packed */
    cls_pixel_type type;
} ref_image;

/* Bytes per pixel of a type (4, 1, 2); 0 for an unknown type. */
size_t ref_pixel_size(cls_pixel_type type);

/* Maps a possibly out-of-range coordinate p on an axis of length n >= 1 to the coordinate that
 * is read, per DESIGN.md's border table, for any offset (folds repeat: mirror has period 2n,
 * mirror101 period 2n-2, repeat period n; a length-1 axis maps to 0). In-range p maps to itself.
 * Returns -1 when no pixel is read: constant outside the image (the border value is used) and
 * undefined outside the image (the result is garbage), and for n < 1. */
long ref_border_index(cls_border border, long p, long n);

/* 1 when the whole mask window of pixel (x, y) lies inside the image (an "interior" pixel, the
 * only ones where undefined mode has a defined result). */
int ref_window_inside(size_t x, size_t y, size_t width, size_t height, int mask_w, int mask_h);

/* The value of one pixel as a double. */
double ref_read(const ref_image *img, size_t x, size_t y);

/* out(x, y) = sum over j in [0, mask_h), i in [0, mask_w) of
 *     mask[j * mask_w + i] * in(x + i - mask_w / 2, y + j - mask_h / 2)
 * with out-of-range reads handled by `border` (border_value for constant), accumulated in
 * double (taps in row-major order). out receives width * height doubles, row-major, tightly
 * packed. In undefined mode only interior pixels are computed; the others are set to NaN.
 * Returns 0, or -1 on bad arguments (NULL, zero size, even or non-positive mask size) or when
 * memory runs out. */
int ref_stencil(const ref_image *in, const float *mask, int mask_w, int mask_h,
                cls_border border, float border_value, double *out);

/* The same with a border mode per axis: borders[0] along x, borders[1] along y (undefined on
 * both or neither; the border value for every constant one). */
int ref_stencil_axes(const ref_image *in, const float *mask, int mask_w, int mask_h, const cls_border borders[2],
                     float border_value, double *out);

/* The same in 3-D: a volume of `depth` slices of `in` (slice z at in->data + z * slice_pitch; 0:
 * row pitch x height), the mask mask_d slices of mask_w x mask_h (x fastest, then y, then z),
 * every axis bordered alike. out receives width * height * depth doubles, x fastest; in undefined
 * mode the voxels whose window leaves the volume are NaN. */
int ref_stencil3d(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                  int mask_d, cls_border border, float border_value, double *out);

/* The same with the window's minimum or maximum over the footprint (the taps whose coefficient is
 * not 0) where reduction asks for it. */
int ref_reduce3d(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                 int mask_d, cls_border border, float border_value, cls_reduction reduction, double *out);

/* The same with a border mode per axis: x, y, z (undefined on all or none). */
int ref_reduce3d_axes(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w,
                      int mask_h, int mask_d, const cls_border borders[3], float border_value, cls_reduction reduction,
                      double *out);

/* The value of rank `rank` (0: the smallest) among the values of the footprint (the taps whose
 * coefficient is not 0), bordered per axis as ref_reduce3d_axes. */
int ref_rank3d_axes(const ref_image *in, size_t depth, size_t slice_pitch, const float *mask, int mask_w, int mask_h,
                    int mask_d, const cls_border borders[3], float border_value, unsigned rank, double *out);

/* The value an output pixel of `type` holds for the exact result v, as a double:
 * f32: (float)v; u8/u16/i16: round to nearest, ties to even, saturate to the range, NaN -> 0;
 * f16: (float)v rounded to half precision, ties to even, beyond 65504 infinity. */
double ref_to_output(cls_pixel_type type, double v);

/* Stores ref_to_output(type, v) into one pixel of `type` at dst (no alignment needed). */
void ref_store(cls_pixel_type type, double v, void *dst);

/* The tests' f32 tolerance (docs/cross-vendor.md): within 1e-6 absolute or 1e-5 relative. */
int ref_f32_close(double got, double expected);
/* The f16 outputs' tolerance: within one half-precision step of the expected value (the kernel
 * rounds its f32 sum, the reference its double one); infinities and NaN exactly. */
int ref_f16_close(double got, double expected);

/* Loads one pixel of `type` from src (no alignment needed) as a double. */
double ref_load(cls_pixel_type type, const void *src);

#ifdef __cplusplus
}
#endif

#endif /* CLS_TEST_REFERENCE_H */
