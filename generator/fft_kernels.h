/* fft_kernels.h — the OpenCL C kernels around the FFTs of the FFT method (internal): tiles of
 * the input gathered with the border mode's rule into the transform's padded real layout, their
 * spectra multiplied by the mask's, and the valid part of each tile written to the output in its
 * type. The transforms themselves are VkFFT's (host/fft_transform.c). */
#ifndef CLS_FFT_KERNELS_H
#define CLS_FFT_KERNELS_H

#include "clstencil.h"

#define CLS_FFT_GATHER_KERNEL "cls_fft_gather"
#define CLS_FFT_MULTIPLY_KERNEL "cls_fft_multiply"
#define CLS_FFT_SCATTER_KERNEL "cls_fft_scatter"
/* Rows a work-item of gather and scatter handles (a column of them): one value each would make
 * groups too small to keep a GPU busy (an H200 gathered a 4096^2 image in 173 µs, not 40). */
#define CLS_FFT_ROWS 8

/* The argument order of the three kernels (host/fft_work.c sets them by these indices).
 *
 * Global sizes may be rounded up: work-items past the sizes below return at once.
 *
 * gather, one work-item per CLS_FFT_ROWS values of a tile's column: global size (transform width,
 * transform height / CLS_FFT_ROWS, tiles). Value (u, v) of tile first_tile + t = ty * tiles_x + tx
 * is the input at (origin_x + tx * step_x + u - half_w, origin_y + ty * step_y + v - half_h),
 * through the border mode, at tiles[(t * transform_height + v) * row_floats + u].
 *
 * multiply, one work-item per complex value of every tile: global size (spectrum values of a
 * tile); spectra[t][i] *= conj(mask[i]) (a correlation, as the direct kernels compute).
 *
 * scatter, one work-item per CLS_FFT_ROWS outputs of a tile's column: global size (step_x,
 * step_y / CLS_FFT_ROWS, tiles); writes output (origin_x + tx * step_x + u, origin_y + ty *
 * step_y + v) where it lies in the region (and, under the undefined border, where its window
 * stays inside the image).
 *
 * A volume's kernels take six arguments more (the *_VOLUME_* indices) and a slice of a tile a
 * work-item: gather's third global size is tiles x the transform's depth (tile t's slice w at
 * t * tile_depth + w), scatter's tiles x step_z; tile = tz * tiles_x * tiles_y + ty * tiles_x + tx. */
enum {
    CLS_FFT_GATHER_INPUT, /* __global const T *, offset and pitch in pixels */
    CLS_FFT_GATHER_INPUT_OFFSET,
    CLS_FFT_GATHER_INPUT_PITCH,
    CLS_FFT_GATHER_SIZE,      /* int2: the image's width and height */
    CLS_FFT_GATHER_ORIGIN,    /* int2: the region's first output */
    CLS_FFT_GATHER_STEP,      /* int2: outputs per tile along x and y */
    CLS_FFT_GATHER_TILES_X,   /* int: tiles per row of tiles */
    CLS_FFT_GATHER_FIRST,     /* int: the first tile of this chunk */
    CLS_FFT_GATHER_TILES,     /* __global float *: the transform's buffer */
    CLS_FFT_GATHER_ROW_FLOATS,
    CLS_FFT_GATHER_TILE_SIZE,    /* int2: the transform's width and height */
    CLS_FFT_GATHER_BORDER_VALUE, /* float */
    CLS_FFT_GATHER_VOLUME_SLICE_PITCH, /* long: pixels from one input slice to the next */
    CLS_FFT_GATHER_VOLUME_DEPTH,       /* int: the volume's slices */
    CLS_FFT_GATHER_VOLUME_ORIGIN_Z,    /* int: the region's first slice */
    CLS_FFT_GATHER_VOLUME_STEP_Z,      /* int: output slices per tile */
    CLS_FFT_GATHER_VOLUME_TILES_Y,     /* int: tiles per column of tiles */
    CLS_FFT_GATHER_VOLUME_TILE_DEPTH,  /* int: the transform's depth */
};
enum { CLS_FFT_MULTIPLY_SPECTRA, CLS_FFT_MULTIPLY_MASK, CLS_FFT_MULTIPLY_VALUES, CLS_FFT_MULTIPLY_TILES };
enum {
    CLS_FFT_SCATTER_TILES, /* __global const float * */
    CLS_FFT_SCATTER_ROW_FLOATS,
    CLS_FFT_SCATTER_TILE_HEIGHT, /* int: the transform's height */
    CLS_FFT_SCATTER_OUTPUT,      /* __global T *, offset and pitch in pixels */
    CLS_FFT_SCATTER_OUTPUT_OFFSET,
    CLS_FFT_SCATTER_OUTPUT_PITCH,
    CLS_FFT_SCATTER_SIZE,   /* int2: the image's width and height */
    CLS_FFT_SCATTER_REGION, /* int4: x0, y0, x1, y1 of the outputs computed */
    CLS_FFT_SCATTER_STEP,   /* int2 */
    CLS_FFT_SCATTER_TILES_X,
    CLS_FFT_SCATTER_FIRST,
    CLS_FFT_SCATTER_VOLUME_SLICE_PITCH, /* long: pixels from one output slice to the next */
    CLS_FFT_SCATTER_VOLUME_DEPTH,       /* int */
    CLS_FFT_SCATTER_VOLUME_REGION_Z,    /* int2: the region's first slice and the one past its last */
    CLS_FFT_SCATTER_VOLUME_STEP_Z,      /* int */
    CLS_FFT_SCATTER_VOLUME_TILES_Y,     /* int */
    CLS_FFT_SCATTER_VOLUME_TILE_DEPTH,  /* int: the transform's depth */
};

/* The three kernels for SPEC's border mode, input and output types and mask size (malloc'd;
 * NULL on OOM). */
char *cls_fft_kernels_source(const cls_spec *spec);

/* The one-kernel form (generator/fft_tile_kernel.c, cl-templates/fft-tile*.cl): a work-group of
 * CLS_FFT_TILE_GROUP work-items transforms a complex tile of CLS_FFT_TILE_SIDE^2 values in local
 * memory, multiplies it by the mask's spectrum and transforms it back. Masks up to
 * CLS_FFT_TILE_MAX_MASK a side (at least 24 outputs a tile's side). The complex tile holds two
 * real tiles of CLS_FFT_TILE_SIDE^2 (pairs), or, for masks at least CLS_FFT_TILE_WIDE_MIN_MASK
 * wide, one real tile twice as wide (wide): H200, 4096^2 f32, random masks, pairs / wide: 13x13
 * 107-108 / 132-133 us, 19x19 130-131 / 148-149, 25x25 147-149 / 153-154, 31x31 192 / 187-189,
 * 41x41 314-323 / 246-248. A tile writes its (width - mask width + 1) x (CLS_FFT_TILE_SIDE - mask
 * height + 1) outputs. */
#define CLS_FFT_TILE_KERNEL "cls_fft_tile"
#define CLS_FFT_TILE_SIDE 64u
#define CLS_FFT_TILE_GROUP 256u
#define CLS_FFT_TILE_MAX_MASK 41u
#define CLS_FFT_TILE_WIDE_MIN_MASK 31u

/* Global size: CLS_FFT_TILE_GROUP x ceil(tiles / 2) for pairs, x tiles for wide tiles. Tile t =
 * ty * tiles_x + tx covers the outputs from (region.x + tx * step_x, region.y + ty * step_y) on,
 * step_x = tile width - 2 * (mask width / 2); the spectrum holds CLS_FFT_TILE_SIDE rows (the
 * vertical frequency) of CLS_FFT_TILE_SIDE float2 values (wide: CLS_FFT_TILE_SIDE + 1, the
 * horizontal frequencies 0 .. CLS_FFT_TILE_SIDE of the real tile): conj(DFT(mask at the origin))
 * / CLS_FFT_TILE_SIDE^2. */
enum {
    CLS_FFT_TILE_INPUT, /* __global const T *, offset and pitch in pixels */
    CLS_FFT_TILE_INPUT_OFFSET,
    CLS_FFT_TILE_INPUT_PITCH,
    CLS_FFT_TILE_SIZE,    /* int2: the image's width and height */
    CLS_FFT_TILE_REGION,  /* int4: x0, y0, x1, y1 of the outputs computed */
    CLS_FFT_TILE_TILES_X, /* int: tiles per row of tiles */
    CLS_FFT_TILE_TILES,   /* int: tiles in all */
    CLS_FFT_TILE_SPECTRUM,
    CLS_FFT_TILE_OUTPUT, /* __global T *, offset and pitch in pixels */
    CLS_FFT_TILE_OUTPUT_OFFSET,
    CLS_FFT_TILE_OUTPUT_PITCH,
    CLS_FFT_TILE_BORDER_VALUE, /* float */
};

/* Whether SPEC's mask fits the one-kernel form and MAX_SIDE (a device record's limit), and whether
 * that kernel takes one wide tile a group. */
int cls_fft_tile_fits(const cls_spec *spec, unsigned max_side);
int cls_fft_tile_wide(const cls_spec *spec);
/* The one-kernel form's source for a resolved configuration (malloc'd; NULL on OOM); it names the
 * registers its build is capped at (cls_kernel_register_cap), which only lower the compiler's. */
struct cls_kernel_config;
char *cls_fft_tile_source(const struct cls_kernel_config *config);

#endif
