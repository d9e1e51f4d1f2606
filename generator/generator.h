/* generator.h — the spec → source stage (internal): resolved kernel configuration, canonical
 * key, region math and OpenCL C emission. Pure C: no OpenCL calls, deterministic. */
#ifndef CLS_GENERATOR_H
#define CLS_GENERATOR_H

#include "axis.h"
#include "clstencil.h"

/* Sanity cap on work-items per group before any device limit is known. */
#define CLS_MAX_GROUP_ITEMS 4096
/* The shape `auto` means when no device policy says otherwise. */
#define CLS_FALLBACK_GROUP_WIDTH 32u
#define CLS_FALLBACK_GROUP_HEIGHT 4u
#define CLS_FALLBACK_SIMD_WIDTH 32u

/* What a device's record sets about the code the generator writes (device-db keys unroll_limit,
 * register_cap, border_groups_fold_fully); where a record says nothing, the CLS_* defaults below,
 * measured on an H100. What `auto` chooses (method, separability, blocks, streaming, group shape)
 * is the planner's (plan/policy.h): the generator applies a spec and decides none of it. */
typedef struct cls_generation_limits {
    unsigned unroll_limit;             /* CLS_UNROLL_LIMIT */
    unsigned register_cap;             /* CLS_REGISTER_CAP */
    unsigned border_groups_fold_fully; /* 1: mirror101's border groups fold fully (border_both),
                                        * not once where that suffices (border_any) */
    unsigned rank_network_taps;        /* a volume's rank over at most this many taps runs as a
                                        * network of exchanges (0: Wirth's selection for every one) */
    unsigned single_pass_ahead;        /* input rows a streaming single pass loads together
                                        * (cls_kernel_ahead_rows; 0 or 1: one row ahead) */
    unsigned inline_ptx;               /* 1: the compiler takes inline PTX (NVIDIA): an operator
                                        * body's FAST_EXP2 is ex2.approx.ftz */
    unsigned rank_minmax;              /* 1: a volume's rank network orders two values by fmin and
                                        * fmax, else by a comparison and two selects */
    unsigned rank_register_cap;        /* registers a box's rank in pairs of columns is built to
                                        * where the compiler takes more (0: none) */
    unsigned volume_y_first;           /* 1: a volume's tall separable single pass may run along y
                                        * first (cls_volume_y_first) */
    unsigned volume_block_rows;        /* output rows a work-item of a volume's walk from the slice's
                                        * tile may sum (cls_volume_block_rows; 0 or 1: one) */
    unsigned volume_lane_rows;         /* output rows a work-item of a volume's lanes walk sums
                                        * (cls_volume_lanes; 0: CLS_VOLUME_LANE_ROWS) */
} cls_generation_limits;

typedef struct cls_kernel_config {
    cls_spec spec;           /* spec.coefficients points at `coefficients` below */
    cls_generation_limits limits; /* the device's, else the defaults */
    float *coefficients;     /* owned copy */
    char *body;              /* owned copy of spec.body, or NULL */
    int body_writes_rows;    /* the body writes a column of outputs (OUT_AT) */
    int body_in_lanes;       /* the body may run in lanes (value_t a vector): cls_body_in_lanes */
    int body_row_lanes;      /* the lanes of its own form for a column of rows: cls_body_row_lanes */
    cls_partition partition; /* never AUTO */
    unsigned group_width, group_height;
    unsigned simd_width;     /* used by isp-warp only */
    unsigned rows;           /* output rows per work-item (coarsening), >= 1 */
    unsigned cols;           /* output columns per work-item (coarsening), >= 1 */
    unsigned masks;          /* masks summed in one pass, >= 1 */
    char *epilogue;          /* owned copy of spec.epilogue, or NULL */
    cls_input_path input_path; /* never AUTO */
    cls_separable separable;   /* never AUTO */
    cls_method method;         /* never AUTO */
    float *row, *column;     /* owned: the separated mask when separable is not NONE (LOW_RANK:
                              * `rank` rows of mask_width values, `rank` columns of mask_height) */
    unsigned rank;           /* the terms in row and column: 1, or 2 to CLS_LOW_RANK_MAX */
    int unaligned_input;     /* the launch's rows may start anywhere: no aligned vector loads */
    unsigned tile_buffers;   /* a volume's walk from local memory: slice tiles kept (cls_volume_tile_buffers) */
} cls_kernel_config;

/* The number of output buffers of a kernel: masks, or 1 with an epilogue. */
unsigned cls_kernel_outputs(const cls_kernel_config *config);
/* Whether the image sampler's address mode does the border handling: the image path with clamp
 * (CLK_ADDRESS_CLAMP_TO_EDGE) or with constant 0 (CLK_ADDRESS_CLAMP: a CL_R image's border
 * colour reads as 0). */
int cls_kernel_hardware_border(const cls_kernel_config *config);
/* Rows per work-item from which a kernel streams (cls_kernel_streams); fewer are a register block.
 * A record's policy streams with a default_rows of 16 or more (PoCL's CPU record: 64): on PoCL
 * (2 cores, 1024^2) 64 rows of 4 columns ran 2.6x (3x3) to 13x (13x13) faster than one row.
 * NVIDIA's record keeps blocks up to 13x13, where streaming lost to them on an H100 (random
 * masks, 4096^2: 9x9 96-102 against 79-83 us, 13x13 144-153 against 134-141), and streams the
 * larger masks (CLS_STREAM_BELOW_ROWS). */
#define CLS_STREAM_MIN_ROWS 16u
/* Baked multiply-adds (non-zero taps x masks x rows x columns; a streaming kernel's are one
 * input row's, non-zero taps x masks x columns) that every region of the fat kernel may unroll:
 * past it, only the body region is unrolled and the border regions loop over the coefficients in
 * a program-scope array, which keeps the build time of large masks in bounds (NVIDIA's compiler
 * takes about a minute and a half for a 13x13 mask with 4 x 2 blocks, and grows with the code).
 * Rolled border regions cost 4-30% of kernel time on an H100 at 4096^2 (random 9x9 with 8 x 2
 * blocks: 105-118 us rolled, 78-80 unrolled), so the limit sits above the blocks that pay: 1,400
 * multiply-adds are some 1,550 instructions with their loads, 24 KB of the ~32 KB instruction
 * cache that a warp streams through (13x13 with 5 x 2 blocks, 1,690, was slower than 4 x 2). */
#ifndef CLS_UNROLL_LIMIT /* a -D may set it, to compare builds */
#define CLS_UNROLL_LIMIT 1400
#endif
/* A generated kernel as the host builds it: its OpenCL C text (not owned), entry point, the
 * registers per work-item its build is capped at (cls_kernel_register_cap; 0: none), and whether
 * the cap only lowers the compiler's count (cls_kernel_cap_only_lowers) or also raises it. */
typedef struct cls_kernel_source {
    const char *text;
    const char *name;
    unsigned register_cap;
    int cap_only_lowers;
} cls_kernel_source;

/* Whether the coefficients are literals of the source (CLS_COEFFICIENTS_LITERALS): zero taps are
 * skipped and equal ones may fold. Otherwise an unrolled kernel (ARGUMENT) reads every tap from
 * the argument `coef`, and loops (BUFFER, and the rolled code of ARGUMENT) the buffer `mask`. */
int cls_kernel_literal_coefficients(const cls_kernel_config *config);
/* Whether the regions of an ISP kernel share one unrolled copy of the multiply-adds
 * (CLS_REGION_CODE_SHARED where it applies: unrolled built-in weighted sums, literals or
 * argument, not folded, on the global path, not streaming, border mode other than undefined):
 * window row by window row, a border group (or warp) folds the row's pixels once on the side
 * crossed, the fallback folds fully, a body group loads them unchecked; then all run the row's
 * multiply-adds. The compiler sees one copy of the sums instead of nine (NVIDIA's build time
 * grows faster than the code). */
int cls_kernel_shares_rows(const cls_kernel_config *config);
/* Whether the kernel has four regions (CLS_REGION_CODE_BODY_APART, which AUTO gives, where it
 * applies: as above, and within CLS_UNROLL_LIMIT, past which separate regions loop in the border
 * regions): the body region, checking nothing, the left and right regions of separate regions,
 * and one for the top and bottom rows, the corners and the fallback, checking every side (in
 * mirror101 mode folding once where that suffices). Four copies of the sums instead of nine. */
int cls_kernel_body_apart(const cls_kernel_config *config);
/* The most floats the sorted slices of a pair of output columns keep (two rings of MASK_D + 1
 * sorted slices): a 3x3x3 box's 72, not a 5x5x5 box's 300, which the registers would not hold. */
#define CLS_RANK_PAIR_RING_MAX 80u
/* Whether a volume's rank can take a pair of neighbouring output columns a work-item (cols 2,
 * generator/emit_volume_rank.c): it runs by sorted slices (a box's: every tap of the window, one
 * of at most NETWORK_TAPS, not in the naive partition), its window is at least 2 wide and of an
 * odd depth (its ring of MASK_D + 1 slots turns in pairs of slices), and its rings stay within
 * CLS_RANK_PAIR_RING_MAX. */
int cls_volume_rank_pairs(const cls_spec *s, const float *coefficients, unsigned network_taps);
/* Whether the border regions of an ISP kernel loop rather than unroll (baked direct sums past
 * CLS_UNROLL_LIMIT). */
int cls_kernel_rolls_borders(const cls_kernel_config *config);
/* Weighted sums of this many multiply-adds per output or more are bound by their multiply-adds
 * (81 per 8 bytes moved, about an H100's FP32 rate over its memory bandwidth), not by the latency
 * that more resident warps hide. The models keep the policy's work-group shape for them, and eq.
 * 10 weighs the naive build at the ISP build's occupancy, as for streaming (departures from
 * Hipacc and the ISP paper; plan/models.c). On an H100 (random 9x9, 8 x 2 outputs per
 * work-item, 4096^2) Algorithm 2's 32x1 took 83 us in constant mode against 79 at 32x4, and the
 * occupancies chose naive in repeat, 120 against 78 us. */
#define CLS_COMPUTE_BOUND_TAPS 81u
/* The registers per work-item that a compute-bound register block's fat kernel is built to by a
 * compiler that takes a cap (NVIDIA's, through .maxnreg in the PTX: host/register_cap.c): the
 * border regions' index and select code spills instead of lowering every group's occupancy, and
 * a body that ptxas fits in fewer gets the spare registers; 0: no cap. Weighted sums (not bodies)
 * of CLS_COMPUTE_BOUND_TAPS multiply-adds or more, with ISP regions, not streaming (its window
 * lives in registers), of at most CLS_CAPPED_SUMS outputs x masks per work-item. Memory-bound
 * sums keep the compiler's count and their occupancy. H100, random masks, isp-warp 32x4, 4096^2:
 * 13x13 4x2 in constant mode took 80 registers and 136.9 us, at 64 130.4; repeat 68 and 133.8,
 * at 64 130.4; clamp 56 and 131.1-131.5, at 64 129.2-129.4 (72: 133-135); 9x9 8x2 in mirror101
 * 72 and 79.7, at 64 77.4. */
#define CLS_REGISTER_CAP 64u
#define CLS_CAPPED_SUMS 16u
/* A volume's separable single pass from the slice's tile (emit_volume_tile.c) is capped at the
 * same count where its window down z holds at most CLS_VOLUME_CAPPED_SUMS partial sums (MASK_D x
 * COLUMNS), and only where the compiler takes more: the border modes' extra registers spill
 * instead of costing a group a compute unit. H200, 512^3 f32, 32x8 groups (64 registers: four
 * groups a unit, 65-72: three): gaussian3d:5,1 in mirror101 71 registers and 433.9 us, at 64
 * 374.2; constant 80 and 428.4, at 64 362.3; repeat 74 and 443.6, at 64 379.1; clamp 64 either
 * way; box3d:5 in mirror101 and mirror 434-438 -> 375-376. Deeper windows need their registers:
 * gaussian3d:7,1.5 at 80 took 443 us, at 64 540; correlate:5x5x5's walk (not a single pass) 711 at
 * 72, 722 at 64; and a cap above the compiler's count slowed the 3x3x3 walk (56 registers 328 us,
 * given 64: 354). */
#define CLS_VOLUME_CAPPED_SUMS 20u
/* The FFT's tile kernel (cl-templates/fft-tile.cl) takes the cap too, lowering only: H200, 4096^2
 * f32, 78-80 registers (three groups of 256 a compute unit) against 64 (four): random 31x31 196
 * -> 190 us, 25x25 152 -> 147, 19x19 132-133 -> 129-131 (56: 131-192 us, 48: no faster). */
unsigned cls_kernel_register_cap(const cls_kernel_config *config);
int cls_kernel_cap_only_lowers(const cls_kernel_config *config);
/* Whether the kernel streams (CLS_STREAM_MIN_ROWS or more rows per work-item): the work-item
 * walks down its strip with a window of MASK_H partial sums (emit_stream.c), so its unrolled
 * code is one input row's multiply-adds instead of the whole block's. */
int cls_kernel_streams(const cls_kernel_config *config);
/* Whether an operator body runs in lanes: a body that may (body_in_lanes; at one row where it says
 * so, or at any rows in COLS lanes where it has a form for them: body_row_lanes), COLS 2, 4 or 8
 * columns a work-item, one mask and no epilogue, on the global input path. The work-item's COLS adjacent
 * outputs are one vector (value_t a floatN), each IN(dx, dy) one vector load where the work-item's
 * windows lie inside the image, else lane by lane through the borders (emit_body.c): the
 * vectorizers of CPU runtimes need not find the lanes across work-items. */
int cls_kernel_body_lanes(const cls_kernel_config *config);
/* Whether a separable single pass stages the row sums of its tile in local memory for the column
 * pass (fewer rows than streaming); a streaming one feeds them to its window in registers. */
int cls_kernel_stages_row_sums(const cls_kernel_config *config);
/* Whether a separable single pass stages its input rows in local memory (emit_staged_rows.c): the
 * single pass on the local input path, streaming 4 columns a work-item in groups of one row, its
 * group's input rows CLS_STAGED_ROWS_CHUNK at a time through two tiles. The rows' loads are in
 * flight while the chunk before is summed, in a few registers: on an H200 (f32 4096^2, a Gaussian
 * 13x13 by hand-written probes) 44.7 us against 63 for the streaming single pass, a copy 38. */
int cls_kernel_stages_input_rows(const cls_kernel_config *config);
#define CLS_STAGED_ROWS_CHUNK 4u
#define CLS_STAGED_ROWS_DEFAULT_ROWS 64u /* its rows where a spec leaves them to auto */
/* The tile's columns on either side of such a group's outputs: the half width rounded up to a
 * float4, so that the tile's rows load as aligned float4s. */
unsigned cls_staged_rows_pad(const cls_kernel_config *config);
/* The input rows a streaming single pass loads together before it sums them (AHEAD in the
 * source): the record's single_pass_ahead where that many rows of the window's span fit in
 * CLS_AHEAD_PIXELS registers, else 1 (the next row loaded while the current one is summed). One
 * row in flight per work-item leaves an H200 waiting on memory: Gaussian 13x13 at 4096^2 took
 * 99 us one row ahead, 76 two, 63 four; Gaussian 31x31 (a span of 32) 237 one row ahead and 282
 * two, its rows' registers crowding out work-items. */
unsigned cls_kernel_ahead_rows(const cls_kernel_config *config);
#define CLS_AHEAD_PIXELS 64u
/* The rows a streaming single pass of that mask width and columns loads together when the record
 * asks for `ahead`: ahead where they fit in CLS_AHEAD_PIXELS, else 1 (the planner asks it too). */
unsigned cls_single_pass_ahead(unsigned ahead, unsigned mask_width, unsigned cols);
/* The pixels per aligned vector load of the window rows (4, 2, or 1 for none): the largest of 4
 * and 2 that divides both the columns per work-item and the mask's half width, so that every
 * row's window starts on a multiple of it; a streaming single pass needs only the columns
 * divided, its loads starting up to 3 pixels before the window (cls_kernel_chunk_origin). The
 * launch must keep the input's offset plus the region of interest's x, and its pitch, multiples
 * of it, and where the loads start before the window also the image's rows' ends, since its
 * buffer may end with the last row (cls_filter falls back otherwise): the padded loads then stay
 * within the row. */
unsigned cls_kernel_aligned_loads(const cls_kernel_config *config);
/* The window column (0 or negative) where those aligned loads start: the half width's remainder
 * moved back to a multiple of the width (box 15x15 in pairs: column -1). On an H200 at 4096^2,
 * two columns a work-item: box 15x15 79.6 -> 69.6 us, 11x11 67.4 -> 61.7, against single loads. */
int cls_kernel_chunk_origin(const cls_kernel_config *config);
/* The window taps a body's FOR_WINDOW writes out in its source (what its build pays for): on
 * records whose border groups fold fully (PoCL, which inlines by force) the window's columns,
 * and its rows too where the unrolled text, taps x the body's length, stays small; elsewhere
 * every tap (the compiler's own unrolling). */
unsigned cls_body_unrolled_taps(const cls_spec *spec, int fold_fully);
/* Bytes of local memory the generated kernel declares (its tile; rows padded by one float). */
size_t cls_kernel_local_bytes(const cls_kernel_config *config);
/* The slice tiles a volume's walk from local memory keeps: two where even and odd slices take
 * turns (one barrier a slice fewer; a single pass's, where they fit the device: the planner keeps
 * one where they do not), else one. */
unsigned cls_volume_tile_buffers(const cls_kernel_config *config);
/* The output rows a work-item of a volume's walk sums: the lanes walk's (its record's
 * volume_lane_rows, else CLS_VOLUME_LANE_ROWS); from the slice's tile, each tile row its rows
 * reach read once for all of them, the record's volume_block_rows for a weighted sum not
 * separated whose mask is at most CLS_VOLUME_BLOCK_MAX_SIDE on every side, else 1. Its partial
 * sums (MASK_D x rows x COLUMNS) and tile loads take registers: on an H200 (512^3 f32, 2 rows
 * against 1) a random 3x3x3 ran 2-3% faster, a 5x5x5 as fast or 6% faster, a 7x7x7 54% slower. */
#define CLS_VOLUME_BLOCK_MAX_SIDE 5u
unsigned cls_volume_block_rows(const cls_kernel_config *config);
/* Whether a volume's kernel is the lanes walk (emit_volume_lanes.c): a separable single pass on
 * the global input path, each work-item loading its own 4 columns of a row and the lanes of its
 * warp (CLS_VOLUME_LANES work-items side by side along x) handing each other the window's halo
 * columns. Its masks are at most CLS_VOLUME_LANES_MAX_WIDTH wide: the halo comes from the lane
 * beside, 4 columns at most. H200, 512^3 f32, clamp, box 3x3x3 written by hand: 2 rows a
 * work-item 331-336 us, 4 rows 301-302, 8 rows 340 (copy 254-256); loads a slice ahead 4 rows
 * 278-281 against the tile's 322-325. */
#define CLS_VOLUME_LANES 32u
#define CLS_VOLUME_LANE_ROWS 4u
#define CLS_VOLUME_LANES_MAX_WIDTH 9u
int cls_volume_lanes(const cls_kernel_config *config);
/* Whether a volume's separable single pass runs along y first, over its tile's columns in columns
 * of COLUMNS rows, then along x over the group's rows alone (emit_volume_tile.c): where the record
 * says so (volume_y_first), the mask is at least 9 and 2 COLUMNS + 1 tall, and the group a
 * whole number of COLUMNS rows tall. */
int cls_volume_y_first(const cls_kernel_config *config);
/* The two ordinary specs of a two-pass separable kernel: a MASK_W x 1 row pass from the input
 * to f32, then a 1 x MASK_H column pass to the output (pointing into config's row and column). */
void cls_two_pass_specs(const cls_kernel_config *config, cls_spec *row_pass, cls_spec *column_pass);
/* A mask as a sum of rank-1 terms, mask(i, j) = sum over k of columns[k * height + j] *
 * rows[k * width + i], from its singular value decomposition (low_rank.c): the least rank, up
 * to CLS_LOW_RANK_MAX, whose terms stay within CLS_SEPARABLE_TOLERANCE of the largest
 * coefficient at every tap; 0 when none does (*residual: the largest difference at rank
 * CLS_LOW_RANK_MAX). rows and columns hold CLS_LOW_RANK_MAX vectors each. */
/* A volume's mask as x[i] * y[j] * z[k] within CLS_SEPARABLE_TOLERANCE (x: width values, y:
 * height, z: depth); CLS_ERR_INVALID_ARGUMENT when it is not of rank 1. */
cls_status cls_mask_separate3d(const float *mask, unsigned width, unsigned height, unsigned depth, float *x, float *y,
                                float *z);
/* The same check without keeping the vectors. */
cls_status cls_mask_is_separable3d(const float *mask, unsigned width, unsigned height, unsigned depth);
unsigned cls_mask_low_rank(const float *mask, unsigned width, unsigned height, float *rows, float *columns,
                           double *residual);

/* Reads a caller's spec into *copy by its struct_size (cls_struct_read), the fields an older
 * caller lacks at cls_spec_init's defaults; "spec is NULL" for NULL. Every public entry that
 * takes a spec works on such a copy. */
cls_status cls_spec_read(const cls_spec *spec, cls_spec *copy);
/* Validates the spec and applies it: the configuration of a spec whose knobs the planner decided
 * (plan/policy.h). A knob still left to `auto` takes its plain form, with no policy: not
 * separated, direct, isp-block, the global input path, a CLS_FALLBACK_GROUP_WIDTH x _HEIGHT
 * group, one output per work-item, body-apart regions. LIMITS: the device's (NULL: the
 * defaults); simd_width 0: CLS_FALLBACK_SIMD_WIDTH. */
cls_status cls_kernel_config_init(cls_kernel_config *config, const cls_spec *spec, unsigned simd_width,
                                  const cls_generation_limits *limits);
/* The defaults: CLS_UNROLL_LIMIT and CLS_REGISTER_CAP. */
cls_generation_limits cls_generation_limits_default(void);
/* The spec's coefficients as one array, every mask one after another (from the row and column
 * vectors where it gives those), -0 as +0 (they give the same kernel); NULL when out of memory. */
float *cls_spec_mask_values(const cls_spec *spec, unsigned masks);
/* The mask's depth: mask_depth, or 1 for a 2-D mask. */
unsigned cls_mask_depth(const cls_spec *spec);
/* Whether the spec is a volume's (mask_depth 1 or more): its kernel walks columns down z. */
int cls_spec_is_volume(const cls_spec *spec);
/* Whether a volume's walk takes this many output columns per work-item: 1, or 4 or 8 read from
 * the slice's tile in local memory (emit_volume_tile.c). */
int cls_volume_cols_per_item_valid(unsigned cols);
/* The border mode along an axis: border_y's or border_z's where they name one, else `border`. */
cls_border cls_spec_border_on(const cls_spec *spec, cls_axis axis);
/* Whether the axes a kernel of the spec reads along (x and y; z too for a volume's mask) differ
 * in border mode: its code then borders each axis by its own functions. */
int cls_spec_borders_differ(const cls_spec *spec);
/* The spec of a pass along one axis: that axis's mode on every axis. */
cls_spec cls_spec_along(const cls_spec *spec, cls_axis axis);
/* Whether any axis a kernel of the spec reads along has the mode. */
int cls_spec_border_any(const cls_spec *spec, cls_border border);
/* Whether the spec's kernel computes in double: f64 pixels on either side. */
int cls_spec_in_double(const cls_spec *spec);
/* The OpenCL C source of a volume's weighted sum (emit_volume.c; cls_emit_source gives it for a
 * configuration whose mask has depth). Its arguments are its own: input, input_offset,
 * input_pitch, input_slice_pitch, output, output_offset, output_pitch, output_slice_pitch, width,
 * height, depth, roi (x0, y0, x1, y1), roi_z (z0, z1), mask, border_value (offsets and pitches in
 * elements); a 2-D grid of work-items over the region's columns and rows, a third dimension over
 * its blocks of rows_per_item slices. */
char *cls_emit_volume_source(const cls_kernel_config *config);
void cls_kernel_config_free(cls_kernel_config *config);

/* The canonical key: the same for every spec that yields the same kernel (malloc'd, NULL on OOM). */
char *cls_kernel_key(const cls_kernel_config *config);

/* The OpenCL C source (malloc'd, NULL on OOM). The kernel is named CLS_KERNEL_NAME; its
 * arguments are those of cls_kernel_argument, in that order. */
#define CLS_KERNEL_NAME "clstencil_filter"
char *cls_emit_source(const cls_kernel_config *config);

/* The arguments of the generated kernel, in their order: emit.c writes the signature from this
 * table (kernel_arguments.c) and host/filter.c sets each by its index. Offsets and pitches are
 * in elements; roi is (x0, y0, x1, y1) of the outputs computed; mask the __constant buffer of the
 * coefficients (every mask one after another, or a separable pass's row then column; unused by
 * literals); group_bounds (BH_L, BH_R, BH_T, BH_B) and body_columns ([hx, width - hx)) the ISP
 * regions' bounds. After the fixed ones come outputs 1 to 3 of a kernel that writes several
 * (cls_kernel_output_argument), then the coefficients as a by-value struct where
 * CLS_COEFFICIENTS_ARGUMENT (cls_kernel_coefficients_argument). */
typedef enum cls_kernel_argument {
    CLS_ARGUMENT_INPUT,
    CLS_ARGUMENT_INPUT_OFFSET,
    CLS_ARGUMENT_INPUT_PITCH,
    CLS_ARGUMENT_OUTPUT,
    CLS_ARGUMENT_OUTPUT_OFFSET,
    CLS_ARGUMENT_OUTPUT_PITCH,
    CLS_ARGUMENT_WIDTH,
    CLS_ARGUMENT_HEIGHT,
    CLS_ARGUMENT_ROI,
    CLS_ARGUMENT_MASK,
    CLS_ARGUMENT_BORDER_VALUE,
    CLS_ARGUMENT_GROUP_BOUNDS,
    CLS_ARGUMENT_BODY_COLUMNS,
    CLS_ARGUMENT_FIXED_COUNT
} cls_kernel_argument;
/* The OpenCL C declaration of a fixed argument ("const int4 roi"). */
const char *cls_kernel_argument_declaration(const cls_kernel_config *config, cls_kernel_argument argument);
/* The index of the argument of output k (0: CLS_ARGUMENT_OUTPUT). */
unsigned cls_kernel_output_argument(const cls_kernel_config *config, unsigned k);
/* The index of the coefficients' argument (CLS_COEFFICIENTS_ARGUMENT). */
unsigned cls_kernel_coefficients_argument(const cls_kernel_config *config);

/* ---- iteration-space partitioning (the one place of the region math) */

typedef enum cls_region {
    CLS_REGION_TL, CLS_REGION_T, CLS_REGION_TR,
    CLS_REGION_L, CLS_REGION_BODY, CLS_REGION_R,
    CLS_REGION_BL, CLS_REGION_B, CLS_REGION_BR,
    CLS_REGION_FALLBACK, /* every side checked: a group needs both checks on an axis */
    CLS_REGION_COUNT
} cls_region;

/* One launch: the image, the output region computed, the mask and the work-group. */
typedef struct cls_launch_geometry {
    unsigned width, height;                       /* the image (borders are its edges) */
    unsigned roi_x, roi_y, roi_width, roi_height; /* the output pixels computed */
    unsigned mask_width, mask_height;
    unsigned group_width, group_height;
} cls_launch_geometry;

typedef struct cls_region_bounds {
    int left, right, top, bottom; /* BH_L, BH_R, BH_T, BH_B in group indices */
    int groups_x, groups_y;       /* the launch grid in groups, over the region of interest */
    int body_x0, body_x1;         /* image columns whose whole window is inside: [body_x0, body_x1) */
} cls_region_bounds;

/* Group column b covers columns roi_x + b*tx ... roi_x + (b+1)*tx - 1. It is free of the left
 * check iff b >= ceil((hx - roi_x)/tx) (= left), and free of the right check iff its reads stay
 * left of the image's edge and the group is whole inside the region of interest:
 * b < min(floor((width - hx - roi_x)/tx), floor(roi_width/tx)) (= right). Rows alike. */
void cls_region_bounds_compute(const cls_launch_geometry *geometry, cls_region_bounds *bounds);
/* The region of group (gx, gy) under block-grained partitioning. */
cls_region cls_region_of_group(const cls_region_bounds *bounds, int gx, int gy);
/* How many groups run each region. */
void cls_region_group_counts(const cls_region_bounds *bounds, unsigned long counts[CLS_REGION_COUNT]);
const char *cls_region_name(cls_region region);

/* ---- embedded OpenCL C templates (cl-templates/, compiled in) */
const char *cls_template(const char *name);

#endif
