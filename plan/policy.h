/* policy.h — `auto`'s policy for one kernel (policy.c): what a device's record says about the
 * knobs a spec leaves to auto, and the spec with those knobs decided, which the generator applies
 * (cls_kernel_config_init) without deciding anything itself. The tuning results and the models
 * (planner.h) choose partition, input path, shape and blocks first; the policy decides what they
 * leave: method, separability, rows and columns per work-item, streaming and the group shape. */
#ifndef CLS_POLICY_H
#define CLS_POLICY_H

#include "request.h"

/* The columns per work-item of a baked sum read from global memory where the policy streams. */
#define CLS_STREAM_POLICY_COLS 4u
/* A block policy (NVIDIA's) streams CLS_STREAM_POLICY_ROWS rows instead of blocks that
 * CLS_BLOCK_BUDGET cuts to CLS_STREAM_BELOW_ROWS rows or fewer (random 15x15 to 17x17 masks), while
 * one input row's multiply-adds unroll in every region (CLS_UNROLL_LIMIT: rolled border regions
 * took the window's sums out of registers, 542-605 us at 13x13). On an H100 (random masks, 4096^2)
 * 15x15 took 189-207 us streaming against 218-228 with 3 x 2 blocks, 17x17 297 against 390 with
 * 1 x 2 blocks (clamp). */
#define CLS_STREAM_POLICY_ROWS 64u
#define CLS_STREAM_BELOW_ROWS 3u
/* Baked multiply-adds per work-item (non-zero taps x masks x rows x columns) within which the
 * policy gives a work-item as many output rows as fit (up to the record's): the unroll limit, past
 * which the border regions roll and the kernel gets slower. H100, random masks, 2 columns, isp-warp
 * 32x4, 4096^2: 9x9 with 8 rows (1,296) 78-80 us against 6 rows 80-82; 13x13 with 4 rows (1,352)
 * 130-139 against 3 rows 135-144, with 5 rows (1,690, past the limit unrolled) 131-138. */
#ifndef CLS_BLOCK_BUDGET
#define CLS_BLOCK_BUDGET CLS_UNROLL_LIMIT
#endif
/* The body text (bytes) a block of rows of an operator body may unroll: rows x body length. */
#define CLS_BODY_BLOCK_BYTES 16384

/* Output slices per work-item of a volume's weighted sum: the partial sums of MASK_D - 1 slices
 * before the block are computed and dropped, so each input slice is read (32 + D - 1) / 32 times
 * per column (3x3x3: 1.06, 9x9x9: 1.25), while a 512-slice volume still has 16 blocks of
 * work-items along z. */
#define CLS_VOLUME_SLICES 32u
/* The taps from which a separable volume mask runs as a pass an axis: on an H200 (512^3 f32) one
 * walk of a 3x3x3 mask took 2.3 times a copy of the volume, of 5x5x5 6.3 times and of 13x13x13
 * 238; three passes cost about three walks of one-axis masks. */
#define CLS_VOLUME_PASSES_MIN_TAPS 64u
/* Where a record gives a volume's walk several output columns a work-item (volume_columns), the
 * slice's tile must fit: a work-item loads at most CLS_VOLUME_TILE_LOADS of its pixels a slice,
 * and keeps at most CLS_VOLUME_TILE_SUMS partial sums (mask depth x columns), each a register it
 * holds down the whole walk (and each load's offset one more). */
#define CLS_VOLUME_TILE_LOADS 16u
/* A separable volume mask of 64 taps or more in one pass from the slice's tile sums the tile's
 * rows along x for the group's rows and the mask's halo: groups of 8 rows (the record's width)
 * spread that over more outputs. H200, 512^3 f32, clamp, 4 columns a work-item, groups 32x4 / 32x8 / 32x16: gaussian3d:5
 * 464 / 445 / 488 us (three passes: 969), gaussian3d:13,2 1,338 / 1,126 / 1,246 (1,325), min3d:9
 * 913 / 913 / 1,067 (1,194). */
#define CLS_VOLUME_SINGLE_PASS_ROWS 8u
/* The group of a volume's walk in explicit vectors (CPU runtimes) where the spec leaves it to
 * auto: PoCL, 2 cores, 128^3 f32, 8 columns a work-item, groups 128x1 / 16x1 / 16x4 / 16x8 /
 * 32x4: box3d:3 2.08 / 1.78 / 1.76 / 1.74 / 1.77 ms, gaussian3d:13,2 4.58 / 4.09 / 3.72 / 3.63 /
 * 3.71 (the one-row groups of the work-item vectorizer leave most work-items of a narrow volume
 * idle). */
#define CLS_VOLUME_VECTOR_GROUP_WIDTH 16u
#define CLS_VOLUME_VECTOR_GROUP_HEIGHT 8u
#define CLS_VOLUME_TILE_SUMS 64u
/* A separable sum's single pass reads global memory by the lanes walk (emit_volume_lanes.c) where
 * the record gives it rows (volume_lane_rows) and its mask is at most CLS_VOLUME_LANES_MAX_WIDTH
 * wide and CLS_VOLUME_LANES_MAX_SIDE tall and deep (a work-item holds its rows' window of rows and
 * its window of sums down z: gaussian3d:5,1 spilled, 1,320 us against the tile's 353), in no constant border mode (its tests of each row and column held 159 registers: box3d:3
 * 460 us against the tile's 330), in groups of CLS_VOLUME_LANES x CLS_VOLUME_LANES_GROUP_HEIGHT
 * where the spec leaves them to auto: 512 work-items keep the walk at 128 registers (H200, 512^3
 * f32, clamp, box3d:3, 32 / 64 / 128 slices: 32x8 groups 342 / 335 / 335 us at 138 registers,
 * 64x4 340 / 333 / 333, 32x16 281 / 278 / 283 at 128). */
#define CLS_VOLUME_LANES_MAX_SIDE 3u
#define CLS_VOLUME_LANES_GROUP_HEIGHT 16u
/* The partial sums a separable mask's single pass may keep instead (masks up to 19 deep at 4
 * columns): its z window is all it holds, where the walk of any mask keeps its window's rows as
 * well. H200, 512^3 f32, clamp / mirror101, 32x4 groups: gaussian3d:17,3 in one pass 1,521 / 1,520
 * us (206 registers) against 2,961 / 4,009 by passes, gaussian3d:19,3 1,824 / 1,833 against 3,205
 * / 3,674, box3d:17 1,522 / 1,522 against 2,964 / 4,004. Masks that would go by passes
 * (volume_passes) keep up to CLS_VOLUME_DEEP_PASS_SUMS (31 deep), and a work-item of theirs loads
 * up to CLS_VOLUME_DEEP_PASS_LOADS tile pixels a slice (a 31x31 window in 32x8 groups: 23.5, where
 * CLS_VOLUME_TILE_LOADS bounds the others): past 76 sums the pass spills and still beats three
 * passes through two temporary volumes. H200, 512^3 f32, clamp / mirror101, 32x8 groups walking
 * 256 slices, one pass against passes: gaussian3d:21,3.5 1,029 / 1,054 us (230 registers) against
 * 1,207 / 1,334, max3d:21 1,077 / 1,060 against 1,665 / 1,666, gaussian3d:25,4 1,153 / 1,167
 * against 1,471 / 1,474, gaussian3d:31,5 1,436 / 1,434 (248) against 1,980 / 2,354, min3d:31 1,480
 * / 1,401 against 3,202 / 8,153, a 3x3x31 box 953 against 1,057 (clamp); built to 160 or 168
 * registers every one ran slower (gaussian3d:21,3.5 1,102, gaussian3d:31,5 3,925). A mask of one
 * column (1x1x21: 462 in one pass) walks a column a work-item faster (361); shallower wide masks
 * keep their limits (a 31x31x5 box in mirror101 2,710 in one pass against 2,229). A walk that a
 * small volume shortens (filling_slices) re-reads its mask's halo of slices each time: where its
 * slices are fewer than that halo, passes (128^3, 8 slices, clamp / mirror101: gaussian3d:31,5 101
 * / 102 us in one pass against 72 / 73, gaussian3d:25,4 70 / 73 against 52 / 55, gaussian3d:21,3.5
 * 57 / 60 against 50 / 52, max3d:21 60 / 61 against 61 / 64; 256^3, 32 slices: gaussian3d:31,5 314
 * / 314 against 298 / 375, gaussian3d:21,3.5 197 / 203 against 191 / 222, max3d:21 207 / 206
 * against 251 / 257). */
#define CLS_VOLUME_SINGLE_PASS_SUMS 76u
#define CLS_VOLUME_DEEP_PASS_SUMS 124u
#define CLS_VOLUME_DEEP_PASS_LOADS 24u
/* A single pass whose z window holds CLS_VOLUME_TALL_PASS_MIN_SUMS to CLS_VOLUME_TALL_PASS_MAX_SUMS
 * partial sums (15 to 17 deep at 4 columns) runs in groups of CLS_VOLUME_TALL_PASS_ROWS rows: the
 * compiler fits 512 work-items' kernel in the 128 registers they leave (119-128), twice the warps
 * of an 8-row group at 128-198. H200, 512^3 f32, 512 slices, clamp / mirror101, 32x8 against
 * 32x16 groups: gaussian3d:15,2.5 914 / 641 against 591 / 572 us, box3d:15 917 / 638 against 591
 * / 578, max3d:15 730 / 902 against 614 / 604, gaussian3d:17,3 909 / 924 against 607 / 599,
 * box3d:17 910 / 920 against 604 / 600, max3d:17 936 / 1,028 against 743 / 636; 13 deep the 8-row
 * group is as fast or faster (gaussian3d:13,2 565 / 539 against 567 / 558), 19 deep the two
 * split (gaussian3d:19,3 937 / 926 against 826 / 834, min3d:19 958 / 951 against 1,067 / 1,084),
 * and from 21 deep the 16-row group spills (gaussian3d:21,3.5 998 against 1,179). Narrower masks
 * load fewer tile pixels, fit the 8-row group's 128 registers already and lose in the taller one
 * (boxes, clamp / mirror101, 8 against 16 rows: 3x3x15 485 against 517 in clamp, 5x5x17 497
 * against 517, 9x9x15 525 / 513 against 544 / 530, 9x9x17 533 / 527 against 544 / 534, 11x11x15
 * 545 / 540 against 557 / 549): the taller group takes masks at least CLS_VOLUME_TALL_PASS_MIN_MASK
 * wide and tall. */
#define CLS_VOLUME_TALL_PASS_MIN_SUMS 60u
#define CLS_VOLUME_TALL_PASS_MAX_SUMS 68u
#define CLS_VOLUME_TALL_PASS_MIN_MASK 15u
#define CLS_VOLUME_TALL_PASS_ROWS 16u
/* A walk that `auto` shortens for a small volume on a GPU (the expected volume known) halves its
 * slices while the launch has fewer work-items than 1 / CLS_VOLUME_FILL_SHARE of those the device
 * holds at once, down to CLS_VOLUME_MIN_SLICES. H200 (132 SMs of 2,048 work-items), f32, clamp,
 * 32x4 groups of 4 columns, walks of 128 / 64 / 32 / 16 / 8 slices: at 128^3 a random 5x5x5 68.3 /
 * 38.5 / 24.0 / 22.4 / 24.1 us, max3d:9 81.1 / 45.8 / 28.1 / 23.9 / 26.3, box3d:3 43.4 / 25.3 /
 * 16.4 / 13.2 / 12.0; at 256^3 the 5x5x5 112.1 / 105.2 / 106.6 / 115.0 / 136.9, a random 3x3x3
 * 96.5 / 63.3 / 49.6 / 52.6 / 53.9 (at 32 slices it keeps 131,072 work-items); at 512^3 the
 * record's walks stay. */
#define CLS_VOLUME_FILL_SHARE 4u
/* A separable single pass walks the record's volume_pass_slices where its mask is at least this
 * deep and tall: its slices' two passes through the tile (y first from 9 tall) make the slices
 * its walk re-reads weigh most. H200, 512^3 f32, clamp, 32x8 groups, the walks of 128 / 256
 * slices: gaussian3d:9,1.5 520 / 507 us, box3d:5 and gaussian3d:5,1 within 1%, gaussian3d:7,1.5
 * (80 registers: three groups an SM, 512 groups leave a second wave of 116) 445 / 503. */
#define CLS_VOLUME_PASS_SLICES_MIN_MASK 9u
#define CLS_VOLUME_MIN_SLICES 8u

/* What a device's record sets about auto's choices for a kernel (device-db keys default_rows,
 * default_wg_x/_y, block_budget, wide_block_max_taps, stream_rows, stream_cols, stream_below_rows, stream_min_taps,
 * separate_min_taps, single_pass_min_taps, single_pass_rows, single_pass_cols, single_pass_stages_rows,
 * single_pass_tall_mask,
 * fft_min_taps, low_rank_min_taps;
 * docs/device-db.md) and about the generated
 * code (limits). Zero thresholds mean never. */
typedef struct cls_kernel_policy {
    unsigned simd_width;                /* the device's (0: the generator's fallback) */
    unsigned compute_units;             /* the device's (0: unknown) */
    unsigned long resident_items;       /* work-items a GPU holds at once (compute units x the
                                         * record's max_threads_per_cu; 0: not a GPU, or unknown) */
    unsigned rows;                      /* output rows a work-item takes where it coarsens; 16 or
                                         * more (CLS_STREAM_MIN_ROWS): the policy streams */
    unsigned group_width, group_height; /* the default work-group (0: the generator's fallback) */
    unsigned block_budget;              /* CLS_BLOCK_BUDGET */
    unsigned stream_rows, stream_cols;  /* CLS_STREAM_POLICY_ROWS, _COLS */
    unsigned stream_below_rows;         /* CLS_STREAM_BELOW_ROWS */
    unsigned wide_block_max_taps;       /* a block of a mask of at most this many computed taps
                                         * takes 4 columns and half the rows (0: 2 columns) */
    unsigned stream_min_taps;   /* a streaming policy streams masks of at least this many computed
                                 * taps; smaller ones get one output per work-item (0: every mask) */
    unsigned separate_min_taps; /* a rank-1 mask of at least this many taps runs as two passes */
    unsigned single_pass_min_taps; /* a rank-1 mask of at least this many taps runs as one kernel
                                    * of a row pass into local memory and a column pass from it
                                    * (before two passes, where both apply) */
    unsigned single_pass_rows, single_pass_cols; /* that kernel's block (0: rows x 1); 16 rows or
                                    * more stream the row sums through registers */
    unsigned single_pass_stages_rows; /* 1: that kernel, where it streams, stages its group's input
                                    * rows in local memory, 4 columns a work-item in one-row groups */
    unsigned single_pass_tall_mask; /* such a kernel over a mask at least this tall walks strips of
                                    * twice single_pass_rows, keeping a group a compute unit busy
                                    * rather than two (0: never) */
    unsigned fft_min_taps;      /* a weighted sum of at least this many taps that does not run as
                                 * separable passes runs by FFT */
    unsigned low_rank_min_taps; /* a mask of rank 2 to CLS_LOW_RANK_MAX and at least this many taps
                                 * runs as low-rank pairs where they save taps */
    unsigned volume_slices;     /* output slices a work-item walks down z through a volume's mask
                                 * (CLS_VOLUME_SLICES) */
    unsigned volume_columns;    /* output columns a work-item of that walk computes from the slice's
                                 * tile in local memory, where the tile fits (0 or 1: one, no tile) */
    unsigned rank_columns;      /* output columns a work-item of a box's rank by sorted slices computes
                                 * (0 or 1: one; 2: two sharing their middle columns' sorts) */
    unsigned volume_deep_slices; /* the walk's slices from the tile for a mask more than 3 deep
                                  * (0: volume_slices) */
    unsigned volume_pass_slices; /* the slices of a separable mask's single pass at least
                                  * CLS_VOLUME_PASS_SLICES_MIN_MASK deep and tall (0: volume_deep_slices) */
    unsigned volume_fft_min_taps; /* a volume's weighted sum of at least this many taps that does not
                                   * separate runs by FFT (0: never) */
    unsigned body_lanes;        /* adjacent outputs a work-item computes in one vector for an
                                 * operator body that runs in lanes (0 or 1: none) */
    unsigned row_body_lanes;    /* the same for one that writes a column of outputs at any rows,
                                 * where body_lanes is 0 or 1 */
    cls_generation_limits limits;
} cls_kernel_policy;

/* The policy of a device without a record: one row, the generator's fallback group, never
 * separating, streaming or going by FFT. */
cls_kernel_policy cls_kernel_policy_default(void);
/* *resolved = the request's spec with every knob it leaves to auto decided by the policy
 * (separable, method, input path, partition, group shape, rows and columns per work-item); what
 * the spec sets stays. Pointers in *resolved are the caller's. */
void cls_policy_resolve(const cls_kernel_policy *policy, const cls_request *request, cls_spec *resolved);
/* The generator's configuration of the request resolved by the policy (freed by the caller). */
cls_status cls_policy_configure(const cls_kernel_policy *policy, const cls_request *request, cls_kernel_config *config);
/* The columns the request's operator body computes as one vector where it reads global memory:
 * the policy's body_lanes for a body that runs in lanes (cls_body_in_lanes) in a border mode
 * other than undefined, one mask, no epilogue; where the device coarsens rows, the lanes of the
 * body's own form for a column of rows (cls_body_row_lanes), or the row_body_lanes where the body
 * runs in lanes at any rows and writes a column of outputs; else 1. */
unsigned cls_policy_body_lanes(const cls_kernel_policy *policy, const cls_request *request);

#endif
