/* policy.c — `auto`'s policy for one kernel (policy.h): from a device record's policy, the spec
 * with its method, separability, blocks, streaming and group shape decided. Each rule carries the
 * measurements behind it. */
#include "policy.h"

#include <stdlib.h>
#include <string.h>

cls_kernel_policy cls_kernel_policy_default(void)
{
    return (cls_kernel_policy){.rows = 1, .volume_slices = CLS_VOLUME_SLICES, .block_budget = CLS_BLOCK_BUDGET, .stream_rows = CLS_STREAM_POLICY_ROWS,
                               .stream_cols = CLS_STREAM_POLICY_COLS, .stream_below_rows = CLS_STREAM_BELOW_ROWS,
                               .limits = cls_generation_limits_default()};
}

/* What the rules read as they decide: the request and what is decided so far. */
typedef struct kernel {
    const cls_request *request;
    const cls_spec *spec; /* the request's */
    cls_separable separable;
    cls_input_path input_path;
} kernel;

/* Whether the spec lets a single pass stage its group's input rows in local memory
 * (emit_staged_rows.c): its blocks and group leave room for it (16 rows or more, 4 columns,
 * one-row groups). */
static int spec_allows_staged_rows(const cls_spec *s)
{
    return (!s->rows_per_item || s->rows_per_item >= CLS_STREAM_MIN_ROWS) && (!s->cols_per_item || s->cols_per_item == 4) &&
           s->group_height <= 1;
}

/* Whether a single pass, its input path left to auto, stages its rows: where the record says so
 * (single_pass_stages_rows) and the spec allows it. */
static int stages_rows(const cls_kernel_policy *p, const kernel *k)
{
    return k->separable == CLS_SEPARABLE_SINGLE_PASS && p->single_pass_stages_rows && spec_allows_staged_rows(k->spec);
}

/* The work-groups a single pass that stages its rows keeps busy at least, per compute unit: a
 * group walks its strip alone, and with fewer the device waits on a few long walks. H200
 * (132 SMs), f32, clamp, 4 columns a work-item in 128 x 1 groups: box 5x5 at 2048^2 in 64 / 32 /
 * 16 rows (128 / 256 / 512 groups) 24.2 / 17.2 / 14.3 us, at 4096^2 43.7 / 53.8 / 46.9; a Gaussian
 * 13x13 at 2048^2 31.4 / 23.8 / 21.6, at 4096^2 49.2 / 56.1 / 65.5. */
#define STAGED_ROWS_GROUPS_PER_UNIT 2u

/* The groups of such a single pass over the spec's expected image at ROWS rows (0: size unknown). */
static unsigned long staged_groups(const cls_kernel_policy *p, const cls_spec *s, unsigned rows)
{
    const unsigned width = s->group_width                     ? s->group_width
                           : p->group_width && p->group_height ? p->group_width * p->group_height
                                                                : CLS_FALLBACK_GROUP_WIDTH * CLS_FALLBACK_GROUP_HEIGHT;
    const unsigned long columns = ((unsigned long)s->expected_width + 4ul * width - 1) / (4ul * width);
    return columns * (((unsigned long)s->expected_height + rows - 1) / rows);
}

/* Whether the expected image keeps `per_unit` groups a compute unit busy at `rows` rows (or its
 * size is unknown). */
static int staged_rows_fill(const cls_kernel_policy *p, const cls_spec *s, unsigned rows, unsigned per_unit)
{
    return !p->compute_units || !s->expected_width || !s->expected_height ||
           staged_groups(p, s, rows) >= (unsigned long)per_unit * p->compute_units;
}

/* The block of such a single pass where the spec leaves it to auto: the record's single_pass_rows
 * where they stream (else CLS_STAGED_ROWS_DEFAULT_ROWS), halved down to CLS_STREAM_MIN_ROWS while
 * the expected image leaves too few groups, and 4 columns. A mask at least single_pass_tall_mask
 * tall needs a group a compute unit only (its registers hold two or three a unit), and walks twice
 * the rows where the image keeps that many busy at that length: the strip's MASK_H - 1 halo rows,
 * whose row sums feed no output of their own, weigh half as much. H200, f32, literals, clamp: at
 * 4096^2, 64 rows against 128, Gaussian 13x13 48.3 / 61.1 us, 21x21 67.1 / 79.2 (128 registers,
 * four groups a unit), box 25x25 83.8 / 70.4 (163 registers), box 31x31 112.7 / 91.8; at 2048^2,
 * 16 rows against 32 (512 and 256 groups), Gaussian 23x23 46.4 / 30.0, 31x31 52.1 / 36.6, box
 * 31x31 61.4 / 38.3, and Gaussian 21x21 30.7 / 30.3 (not tall); at 1024^2 16 rows (128 groups)
 * against 32, Gaussian 31x31 22.1 / 27.6. */
static void staged_rows_block(const cls_kernel_policy *p, const cls_spec *s, unsigned *rows, unsigned *cols)
{
    *rows = s->rows_per_item                                ? s->rows_per_item
            : p->single_pass_rows >= CLS_STREAM_MIN_ROWS ? p->single_pass_rows
                                                           : CLS_STAGED_ROWS_DEFAULT_ROWS;
    const int tall = p->single_pass_tall_mask && s->mask_height >= p->single_pass_tall_mask;
    const unsigned per_unit = tall ? 1 : STAGED_ROWS_GROUPS_PER_UNIT;
    if (!s->rows_per_item && tall && cls_rows_per_item_valid(*rows * 2) && staged_rows_fill(p, s, *rows * 2, per_unit))
        *rows *= 2;
    else
        while (!s->rows_per_item && *rows > CLS_STREAM_MIN_ROWS && !staged_rows_fill(p, s, *rows, per_unit)) *rows /= 2;
    *cols = s->cols_per_item ? s->cols_per_item : 4;
}

/* How the policy separates the mask, left to auto, a rank-1 weighted sum in a border mode the
 * separable kernels take, its input path left to auto or global: as one kernel of a row pass and a
 * column pass where the mask has at least single_pass_min_taps taps (its rows staged in local
 * memory where the record says so: stages_rows above; measured first in blocks of rows like a 2-D
 * mask, on an H200, f32 4096x4096, clamp, against the 2-D mask: Gaussian 13x13
 * 99.4 us against 125.2, box 15x15 109.7 against 188.4, Gaussian 31x31 263.6 against 400.9 by FFT;
 * 7x7 69.5 against 57.8, 5x5 56.1 against 47.5); else as two passes, of at least
 * separate_min_taps taps, one output a work-item (on PoCL, 2 cores, 2048x2048: Gaussian 9x9 12.6
 * -> 8.8 ms, box 15x15 31.7 -> 21.1, Gaussian 25x25 379 -> 67; 3x3 and 5x5 masks no faster); as
 * low-rank pairs under the two passes' conditions where the mask, of at least low_rank_min_taps
 * taps, has a rank r (2 to CLS_LOW_RANK_MAX) that makes r (W + H) taps less than W H (a 17x17
 * difference of Gaussians ran slower so on PoCL, 118 ms against 97 direct at 2048x2048, and on an
 * H200, 321 µs against 294 at 4096x4096: no record sets it); else not. Coefficients as a kernel
 * argument separate into the single pass only. The quick kernel of the first-result goal
 * separates as well, so its sums stay those of the specialized kernel. */
static cls_separable separates(const cls_kernel_policy *p, const kernel *k)
{
    const cls_spec *s = k->spec;
    const unsigned w = s->mask_width, h = s->mask_height, taps = w * h;
    /* A memory-bound mask (below CLS_COMPUTE_BOUND_TAPS) whose single pass would stage its rows on
     * an image too small to keep the device's groups busy even at 16 rows stays a 2-D mask: H200,
     * f32, clamp, box 5x5 at 512^2 6.7 us as a 2-D mask against 10.2 staged in 16 rows, at 1024^2
     * 8.2 against 10.6, a Gaussian 7x7 7.2 against 11.4 and 10.6 against 11.4 (a 13x13: 39.4 and
     * 39.6 as the streaming single pass, 14.1 and 14.4 staged). */
    const int too_small = p->single_pass_stages_rows && taps < CLS_COMPUTE_BOUND_TAPS && spec_allows_staged_rows(s) &&
                          !staged_rows_fill(p, s, CLS_STREAM_MIN_ROWS, STAGED_ROWS_GROUPS_PER_UNIT);
    const int single_pass = p->single_pass_min_taps && taps >= p->single_pass_min_taps && !too_small;
    const int passes = p->separate_min_taps && taps >= p->separate_min_taps && s->rows_per_item <= 1;
    /* columns per work-item only where the single pass streams (the models hand its block back) */
    const int columns_fit = s->cols_per_item <= 1 || (single_pass && s->rows_per_item >= CLS_STREAM_MIN_ROWS);
    if ((!single_pass && !passes) || (!single_pass && s->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT) || s->body ||
        k->request->masks > 1 || s->epilogue ||
        s->border == CLS_BORDER_UNDEFINED || s->fold_equal_taps || !columns_fit ||
        (s->input_path != CLS_INPUT_AUTO && s->input_path != CLS_INPUT_GLOBAL))
        return CLS_SEPARABLE_NONE;
    float *row = malloc(sizeof(float) * w * CLS_LOW_RANK_MAX), *column = malloc(sizeof(float) * h * CLS_LOW_RANK_MAX);
    cls_separable separable = CLS_SEPARABLE_NONE;
    /* a mask that does not separate is no error here (the message it leaves is never read) */
    if (row && column && cls_mask_separate(k->request->values, w, h, row, column) == CLS_OK) {
        separable = single_pass ? CLS_SEPARABLE_SINGLE_PASS : CLS_SEPARABLE_TWO_PASS;
    } else if (row && column && passes && p->low_rank_min_taps && taps >= p->low_rank_min_taps) {
        double residual;
        const unsigned rank = cls_mask_low_rank(k->request->values, w, h, row, column, &residual);
        if (rank >= 2 && rank * (w + h) < taps) separable = CLS_SEPARABLE_LOW_RANK;
    }
    free(row);
    free(column);
    return separable;
}

/* Whether the policy runs the weighted sum, its method left to auto, by FFT: one mask of at least
 * fft_min_taps taps that does not run as separable passes (those cost W + H a pixel, less than
 * the FFT's few transforms for the sizes CLS_MAX_MASK allows), and whose spec asks nothing of a
 * direct kernel (a partition, work-group shape, outputs per work-item, input path or folded taps:
 * the spec's own choices win). */
static int runs_by_fft(const cls_kernel_policy *p, const kernel *k)
{
    const cls_spec *s = k->spec;
    const unsigned taps = s->mask_width * s->mask_height;
    const int direct_asked = s->partition != CLS_PARTITION_AUTO || s->group_width || s->group_height ||
                             s->rows_per_item || s->cols_per_item || s->input_path != CLS_INPUT_AUTO ||
                             s->fold_equal_taps;
    return p->fft_min_taps && taps >= p->fft_min_taps && !s->body && k->request->masks == 1 && !s->epilogue &&
           k->separable == CLS_SEPARABLE_NONE && !direct_asked;
}

/* The rows of a streaming policy's block for a mask of one column (block_of). */
#define COLUMN_BLOCK_ROWS 8
/* The partial sums a streaming work-item of several masks keeps at most (block_of). */
#define STREAM_MAX_MASKS_SUMS 104u

/* The rows of a column of lanes whose body writes OUT_AT (block_of). */
#define LANES_COLUMN_ROWS 4

unsigned cls_policy_body_lanes(const cls_kernel_policy *p, const cls_request *request)
{
    const cls_spec *s = &request->spec;
    if (!request->body_in_lanes || s->border == CLS_BORDER_UNDEFINED || request->masks != 1 || s->epilogue) return 1;
    if (p->body_lanes > 1) return p->body_lanes;
    if (request->body_row_lanes > 1 && p->rows > 1 && p->rows < CLS_STREAM_MIN_ROWS) return request->body_row_lanes;
    return request->body_writes_rows && request->body_in_lanes == 2 && p->row_body_lanes > 1 ? p->row_body_lanes : 1;
}

/* Rows and columns per work-item (*rows, *cols) where the spec leaves them to auto. */
static void block_of(const cls_kernel_policy *p, const kernel *k, unsigned *rows, unsigned *cols)
{
    const cls_spec *s = k->spec;
    const size_t taps = k->request->computed_taps;
    /* A streaming policy leaves small masks at one output per work-item: on PoCL (2 cores, f32
     * 2048x2048, 128x1 groups) a Gaussian 3x3 took 1.5-1.8 ms against 4.9 streaming 64 rows x 4
     * columns, 5x5 3.2 against 6.9; a random 7x7 9.9 against 8.9, 9x9 19-21 against 11.7. */
    const int small_for_streaming = p->rows >= CLS_STREAM_MIN_ROWS && taps < p->stream_min_taps;
    /* auto coarsens where coarsening is possible: a built-in weighted sum in one kernel. */
    const int can_coarsen = !s->body && s->border != CLS_BORDER_UNDEFINED && k->separable != CLS_SEPARABLE_TWO_PASS &&
                            k->separable != CLS_SEPARABLE_LOW_RANK && !small_for_streaming;
    *rows = s->rows_per_item ? s->rows_per_item : can_coarsen && p->rows ? p->rows : 1;
    /* An operator body over at most 25 pixels takes the device's rows too, where it coarsens
     * without streaming (NVIDIA): one call of the body per output, the calls sharing their loads;
     * as long as the unrolled calls stay within CLS_BODY_BLOCK_BYTES of body text. H200, f32
     * 4096x4096: median 3x3 129 -> 65 µs at 8 rows (its fastest kernel built in 2.2 s, not
     * 0.4), minimum 3x3 81 -> 45, 5x5 110 -> 61. A body that writes a column of outputs itself
     * (OUT_AT) is called once per column, so only its own length counts (it is assumed to walk
     * its rows rather than repeat its text per row): the 3x3 median and the 5x5 rectangle's
     * ranks, by sorted rows whose sorts (and merges) the column shares; the 3x3 median so took
     * 53 us instead of 65. The 25-pixel bound holds for other bodies; one that writes its column
     * may cover 49 (the 7x7 rectangle's ranks), and takes three quarters of the rows there: its
     * walk keeps six sorted rows and three pairs of rows in registers (H200, median 7x7, 4096^2:
     * 8 rows 216-240 registers, 288-299 us in groups of 32x2 to 128x1; 6 rows 168, 258-262 us).
     * The 13x13 bilateral filter gains nothing and stays at one row (its body is too long), as
     * PoCL does (no rows there). */
    const unsigned window = s->mask_width * s->mask_height;
    if (!s->rows_per_item && s->body && s->border != CLS_BORDER_UNDEFINED && p->rows > 1 &&
        p->rows < CLS_STREAM_MIN_ROWS && window <= (k->request->body_writes_rows ? 49u : 25u) &&
        (k->request->body_writes_rows ? 1 : p->rows) * strlen(s->body) <= CLS_BODY_BLOCK_BYTES)
        *rows = window > 25 ? (p->rows * 3 + 3) / 4 : p->rows;
    /* A streaming policy streams where streaming applies, else keeps one row. */
    const int can_stream = k->input_path == CLS_INPUT_GLOBAL && k->separable == CLS_SEPARABLE_NONE && !s->fold_equal_taps;
    if (!s->rows_per_item && *rows >= CLS_STREAM_MIN_ROWS && !can_stream) *rows = 1;
    /* Where the device coarsens, a baked sum read from global memory also takes two columns (aligned
     * vector loads when the half width is even), and as many rows as keep the block's unrolled
     * multiply-adds within the block budget; where it streams, stream_cols columns. A mask of at
     * most wide_block_max_taps takes four columns and half the rows instead, the same outputs a
     * work-item, each row of them one float4 store (H200, f32 4096^2, clamp, 64x2 groups, 8 x 2
     * against 4 x 4: Gaussian 3x3 40.4-41.4 against 38.8-39.0 us, box 3x3 41.5-42.6 against 39.5,
     * a random 5x5 47.4-48.6 against 41.8; a random 7x7 56.3-58.3 against 63.0-75.2, a random 9x9
     * in 32x4 groups 4 x 2 75 against 4 x 4 65.5, 8 x 2 70-72). */
    const int blocks = can_coarsen && p->rows > 1 && s->bake_coefficients && !s->body &&
                       k->input_path == CLS_INPUT_GLOBAL && k->separable == CLS_SEPARABLE_NONE;
    const int wide = blocks && !s->rows_per_item && !s->cols_per_item && p->rows < CLS_STREAM_MIN_ROWS &&
                     *rows == p->rows && taps <= p->wide_block_max_taps;
    if (wide) *rows = p->rows / 2; /* blocks: p->rows > 1 */
    *cols = s->cols_per_item ? s->cols_per_item : wide ? 4 : blocks ? (*rows >= CLS_STREAM_MIN_ROWS ? p->stream_cols : 2) : 1;
    if (blocks && !s->rows_per_item && *rows < CLS_STREAM_MIN_ROWS)
        while (*rows > 1 && taps * *rows * *cols > p->block_budget) --*rows;
    /* Blocks that the budget cuts to stream_below_rows rows or fewer stream instead, where one
     * input row's multiply-adds still unroll in every region. */
    if (blocks && can_stream && !s->rows_per_item && !s->cols_per_item && *rows <= p->stream_below_rows &&
        taps * p->stream_cols <= p->limits.unroll_limit) {
        *rows = p->stream_rows;
        *cols = p->stream_cols;
    }
    /* Several masks streamed: a work-item keeps masks x MASK_H x cols partial sums, and past
     * STREAM_MAX_MASKS_SUMS of them the columns halve (PoCL, 2 cores, f32 2048^2, two masks of
     * 15x15: 550 ms at 4 columns, 52 at 2, 61 at 1; of 13x13 35 / 33 / 49; one mask of 9x31, 124
     * sums: 17.8 ms at 4, 30.5 at 2). */
    if (k->request->masks > 1 && *rows >= CLS_STREAM_MIN_ROWS && !s->cols_per_item)
        while (*cols > 1 && k->request->masks * s->mask_height * *cols > STREAM_MAX_MASKS_SUMS) *cols /= 2;
    /* A streaming policy's masks of one row or one column, a separable mask's passes: a row shares
     * no input rows, so it keeps one output per work-item (PoCL, 2 cores, f32 2048^2: 31x1 5.5 ms
     * against 21.1 streaming, 13x1 2.2 against 6.8); a column of 9 rows or more takes a block of
     * COLUMN_BLOCK_ROWS rows and stream_cols columns, which share their rows' loads (1x9 2.3 ms
     * against 5.6 at one output per work-item, 1x13 3.1 against 15.6 and 5.6 streaming, 1x25 7.5
     * against 66.9 and 31.4; 1x7 1.9 against 1.3, hence the 9 rows; baked coefficients only: with
     * the buffer's a 1x31 column in blocks took 3x longer than streaming). */
    const int leaves_block = !s->rows_per_item && !s->cols_per_item && p->rows >= CLS_STREAM_MIN_ROWS && !s->body &&
                             k->input_path == CLS_INPUT_GLOBAL && k->separable == CLS_SEPARABLE_NONE;
    if (leaves_block && s->mask_height == 1 && s->mask_width > 1) *rows = *cols = 1;
    if (leaves_block && s->mask_width == 1 && s->mask_height >= 9 && s->bake_coefficients &&
        s->border != CLS_BORDER_UNDEFINED) {
        *rows = COLUMN_BLOCK_ROWS;
        *cols = p->stream_cols;
    }
    /* A single pass takes the record's block where it names one: streaming, the row sums go to the
     * column sums in registers, single_pass_ahead input rows loaded together; columns only where
     * it streams. On an H200, f32 4096^2, clamp, 64 rows x 2 columns four rows ahead against the
     * row sums through local memory (8 rows, 32x4): Gaussian 13x13 63.4 against 99.3 us, box
     * 15x15 69.6 against 109.6. A mask whose rows ahead do not fit in CLS_AHEAD_PIXELS keeps the
     * local memory: Gaussian 31x31 streamed one row ahead took 239 / 245 us in clamp / mirror101
     * against 263 / 220 (255 registers). */
    if (k->separable == CLS_SEPARABLE_SINGLE_PASS && p->single_pass_rows && !s->rows_per_item && !s->cols_per_item &&
        s->border != CLS_BORDER_UNDEFINED) {
        const unsigned block_rows = p->single_pass_rows;
        const unsigned block_cols = block_rows >= CLS_STREAM_MIN_ROWS && p->single_pass_cols ? p->single_pass_cols : 1;
        const unsigned ahead = p->limits.single_pass_ahead;
        if (block_rows < CLS_STREAM_MIN_ROWS || ahead < 2 || cls_single_pass_ahead(ahead, s->mask_width, block_cols) > 1)
            *rows = block_rows, *cols = block_cols;
    }
    /* An operator body that runs in lanes, on a record that names them (CPU runtimes): body_lanes
     * adjacent outputs a work-item as one vector, a column of LANES_COLUMN_ROWS where the body
     * writes OUT_AT and runs in lanes at any rows (the rows share their sorts). PoCL, 2 cores, f32
     * 2048^2, clamp: median 3x3 23.2 ms one output a work-item (1-8 rows: 23.2-28.6), 8 lanes x 1,
     * 2, 4, 8 rows 2.83, 2.49, 2.32, 2.59 ms, 4 lanes x 8 rows 4.78 (OpenCV's medianBlur on both
     * cores: 2.8-3.2 ms); median 5x5 (its network at one row) 156 ms, 8 lanes 11.1 (2 rows 11.8;
     * medianBlur 19-20.5). GPU records name lanes only for a body that writes a column of rows
     * (row_body_lanes): H200, 4096^2, clamp / mirror101, median 3x3 in 8 rows 54.0 / 53.1 us, in 4
     * lanes x 4 rows 46.8 / 49.1 (8 lanes 66.2 / 66.9); every other body ran slower in lanes
     * (median 5x5 117.5 -> 276.1, max 5x5 62.2 -> 108.6, the bilateral 13x13 1,321 -> 1,342).
     * A body with a form of its own for a column of rows in N lanes (the 5x5 rectangle's ranks in
     * 2: two columns sharing the middle of their rows) takes it where the device coarsens rows,
     * keeping those rows. */
    const unsigned lanes = cls_policy_body_lanes(p, k->request);
    if (!s->rows_per_item && !s->cols_per_item && k->input_path == CLS_INPUT_GLOBAL && lanes > 1) {
        *cols = lanes;
        if ((int)lanes != k->request->body_row_lanes) /* a body's own lanes keep the device's rows */
            *rows = k->request->body_writes_rows && k->request->body_in_lanes == 2 ? LANES_COLUMN_ROWS : 1;
    }
}

/* Whether a volume's mask, its separation left to auto, is of rank 1 (x[i] y[j] z[k]): a sum,
 * minimum or maximum, not a user-written body's (which only MASK reads). */
static int volume_rank1(const cls_request *r)
{
    const cls_spec *spec = &r->spec;
    /* a mask that does not separate is no error here (the message it leaves is never read) */
    return spec->separable == CLS_SEPARABLE_AUTO && !spec->body && spec->reduction != CLS_REDUCTION_RANK &&
           cls_mask_is_separable3d(r->values, spec->mask_width, spec->mask_height, r->depth) == CLS_OK;
}

/* Whether such a mask runs as a pass an axis (where it does not run in one pass from the slice's
 * tile): of CLS_VOLUME_PASSES_MIN_TAPS taps or more, in a border mode the passes take (constant
 * included: its value is carried through the sums), in the policy's slices. */
static int volume_passes(const cls_request *r)
{
    const cls_spec *spec = &r->spec;
    return (size_t)spec->mask_width * spec->mask_height * r->depth >= CLS_VOLUME_PASSES_MIN_TAPS &&
           spec->border != CLS_BORDER_UNDEFINED && spec->rows_per_item <= 1;
}

/* Whether a volume's weighted sum runs by FFT where its method is left to auto: at least the
 * record's volume_fft_min_taps taps, one mask, no body, not separated, and no direct kernel's
 * form asked for (a partition, group, slices, columns or input path: the spec's choices win). */
static int volume_by_fft(const cls_kernel_policy *p, const cls_request *r, const cls_spec *resolved)
{
    const cls_spec *s = &r->spec;
    const size_t taps = (size_t)s->mask_width * s->mask_height * r->depth;
    const int direct_asked = s->partition != CLS_PARTITION_AUTO || s->group_width || s->group_height ||
                             s->rows_per_item || s->cols_per_item || s->input_path != CLS_INPUT_AUTO;
    return p->volume_fft_min_taps && taps >= p->volume_fft_min_taps && !s->body && s->reduction == CLS_REDUCTION_SUM &&
           r->masks == 1 && resolved->separable == CLS_SEPARABLE_NONE && !direct_asked;
}

/* Whether a record's volume_columns are explicit vectors on the global path (CPU runtimes, whose
 * vectorizer packs work-items: the records that fold their border groups fully) rather than the
 * slice's tile in local memory (GPUs). PoCL, 2 cores, 128^3 f32, a 1x13x1 pass: 8 columns a
 * work-item in float8 values 1.3 ms by hand against 10.2 one column each. */
static int volume_vectors(const cls_kernel_policy *p)
{
    return p->limits.border_groups_fold_fully;
}

/* Whether the slice's tile of the resolved group, COLS columns a work-item, fits: the pixels a
 * work-item loads (at most LOADS) and the partial sums it keeps (at most SUMS). */
static int volume_tile_fits(const cls_request *r, const cls_spec *resolved, unsigned cols, unsigned loads, unsigned sums)
{
    const cls_spec *spec = &r->spec;
    const size_t items = (size_t)resolved->group_width * resolved->group_height;
    const size_t tile = ((size_t)resolved->group_width * cols + spec->mask_width - 1) *
                        (resolved->group_height + spec->mask_height - 1);
    return (tile + items - 1) / items <= loads && (size_t)r->depth * cols <= sums;
}

/* Whether a separable sum's single pass, its input path and columns left to auto, runs as the
 * lanes walk (CLS_VOLUME_LANES_MAX_SIDE). */
static int lanes_walk(const cls_kernel_policy *p, const cls_spec *spec, const cls_spec *resolved)
{
    return p->limits.volume_lane_rows && spec->input_path == CLS_INPUT_AUTO && !spec->cols_per_item &&
           resolved->separable == CLS_SEPARABLE_SINGLE_PASS && resolved->cols_per_item == 4 &&
           spec->reduction == CLS_REDUCTION_SUM && !spec->body && !cls_spec_border_any(spec, CLS_BORDER_CONSTANT) &&
           spec->mask_width <= CLS_VOLUME_LANES_MAX_WIDTH && spec->mask_height <= CLS_VOLUME_LANES_MAX_SIDE &&
           spec->mask_depth <= CLS_VOLUME_LANES_MAX_SIDE && spec->group_width % CLS_VOLUME_LANES == 0;
}

/* Output columns a work-item of a volume's walk computes: the record's volume_columns, read from
 * the slice's tile in local memory, for a sum, minimum or maximum walked in one kernel whose tile
 * fits; else one. On an H200, 512^3 f32, clamp, the tile with 4 columns a work-item in 32x4
 * groups: a random 3x3x3 mask 335 us against 594 walking a column each (1.32x a copy of the
 * volume against 2.33x), 5x5x5 762 against 1,588; 8 columns 456-695 for the 3x3x3 (more
 * registers, fewer groups). */
static unsigned volume_columns(const cls_kernel_policy *p, const cls_request *r, const cls_spec *resolved)
{
    const cls_spec *spec = &r->spec;
    const unsigned cols = p->volume_columns;
    if (cols <= 1 || spec->body || spec->reduction == CLS_REDUCTION_RANK || resolved->separable == CLS_SEPARABLE_TWO_PASS)
        return 1;
    return volume_vectors(p) || volume_tile_fits(r, resolved, cols, CLS_VOLUME_TILE_LOADS, CLS_VOLUME_TILE_SUMS) ? cols : 1;
}

/* Output columns a work-item of a volume's rank computes: two where the record says so
 * (rank_columns) and the rank goes by sorted slices in pairs (a box's, within the record's network
 * taps and the pairs' rings), else one. */
static unsigned rank_columns(const cls_kernel_policy *p, const cls_request *r)
{
    const cls_spec *s = &r->spec;
    return p->rank_columns >= 2 && cls_volume_rank_pairs(s, r->values, p->limits.rank_network_taps) ? 2 : 1;
}

/* The group rows of a large separable mask's single pass: CLS_VOLUME_TALL_PASS_ROWS where a wide
 * and tall mask's z window fits the registers of that taller group, else
 * CLS_VOLUME_SINGLE_PASS_ROWS. */
static unsigned single_pass_rows(const cls_kernel_policy *p, const cls_request *r)
{
    const size_t sums = (size_t)r->depth * p->volume_columns;
    const int wide = r->spec.mask_width >= CLS_VOLUME_TALL_PASS_MIN_MASK && r->spec.mask_height >= CLS_VOLUME_TALL_PASS_MIN_MASK;
    return wide && sums >= CLS_VOLUME_TALL_PASS_MIN_SUMS && sums <= CLS_VOLUME_TALL_PASS_MAX_SUMS ? CLS_VOLUME_TALL_PASS_ROWS
                                                                                                  : CLS_VOLUME_SINGLE_PASS_ROWS;
}

/* The work-items of a walk of `slices` over the spec's expected volume in the resolved shape. */
static unsigned long walk_items(const cls_spec *s, const cls_spec *resolved, unsigned slices)
{
    const unsigned long group = resolved->group_width ? resolved->group_width : 1,
                        rows = resolved->group_height ? resolved->group_height : 1,
                        cols = resolved->cols_per_item ? resolved->cols_per_item : 1,
                        columns = (s->expected_width + cols - 1) / cols;
    return (columns + group - 1) / group * group * ((s->expected_height + rows - 1) / rows * rows) *
           ((s->expected_depth + slices - 1) / slices);
}

/* The walk's slices where auto chose them: halved while the expected volume's launch leaves a GPU
 * short of work-items (CLS_VOLUME_FILL_SHARE); unchanged where the volume is not known. */
static unsigned filling_slices(const cls_kernel_policy *p, const cls_spec *s, const cls_spec *resolved)
{
    unsigned slices = resolved->rows_per_item;
    if (!p->resident_items || !s->expected_width || !s->expected_height || !s->expected_depth) return slices;
    const unsigned long enough = p->resident_items / CLS_VOLUME_FILL_SHARE;
    while (slices / 2 >= CLS_VOLUME_MIN_SLICES && walk_items(s, resolved, slices) < enough) slices /= 2;
    return slices;
}

/* A volume's mask: by FFT from the record's volume_fft_min_taps where it does not separate; where
 * it separates, one pass along x, y and z from the slice's tile where the record reads tiles
 * (volume_columns) and the tile fits, whatever its taps (H200, 512^3 f32, in the record's 32x4
 * groups: min3d:3 343 us in one pass against 378 by the tiled walk, box3d:3 341 against 335; in
 * 32x8 groups 370 and 360), in groups of more rows from 64 taps (single_pass_rows), a mask deeper
 * than 19 where deep_pass allows it and its walk is as long as its halo; else a pass an axis
 * from 64 taps (volume_passes); else one weighted sum, its work-items walking volume_slices
 * output slices down z each, in the record's group (one row of it where the
 * record streams: PoCL vectorizes along x), several columns a work-item where the record says
 * so: from the slice's tile on GPUs, in explicit vectors on CPU runtimes. Every walk takes
 * fewer slices where a small expected volume would leave a GPU short of work (filling_slices).
 * Coefficients asked for as a kernel argument come from the buffer (a volume's mask outgrows the
 * argument space). */
static void resolve_volume(const cls_kernel_policy *p, const cls_request *r, cls_spec *resolved, int deep_pass)
{
    const cls_spec *spec = &r->spec;
    *resolved = *spec;
    const int rank1 = volume_rank1(r);
    /* a mask deeper than a single pass keeps otherwise, that auto would run by passes */
    const int deeper =
        deep_pass && rank1 && volume_passes(r) && (size_t)r->depth * p->volume_columns > CLS_VOLUME_SINGLE_PASS_SUMS;
    resolved->separable = spec->separable != CLS_SEPARABLE_AUTO ? spec->separable
                          : rank1 && volume_passes(r)         ? CLS_SEPARABLE_TWO_PASS
                                                              : CLS_SEPARABLE_NONE;
    resolved->method = spec->method == CLS_METHOD_FFT || (spec->method == CLS_METHOD_AUTO && volume_by_fft(p, r, resolved))
                           ? CLS_METHOD_FFT
                           : CLS_METHOD_DIRECT;
    if (spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT) resolved->bake_coefficients = CLS_COEFFICIENTS_BUFFER;
    if (spec->partition == CLS_PARTITION_AUTO) resolved->partition = CLS_PARTITION_ISP_BLOCK;
    resolved->rows_per_item = spec->rows_per_item ? spec->rows_per_item : p->volume_slices;
    if (!spec->group_width) {
        resolved->group_width = p->group_width ? p->group_width : CLS_FALLBACK_GROUP_WIDTH;
        resolved->group_height = p->group_height ? p->group_height : CLS_FALLBACK_GROUP_HEIGHT;
        if (p->rows >= CLS_STREAM_MIN_ROWS) resolved->group_width *= resolved->group_height, resolved->group_height = 1;
    }
    if (rank1 && p->volume_columns > 1 && !volume_vectors(p) && !spec->cols_per_item && spec->input_path == CLS_INPUT_AUTO) {
        /* one pass from the tile (large masks in more rows), where it fits */
        cls_spec single = *resolved;
        if (!spec->group_width && !spec->group_height && volume_passes(r)) single.group_height = single_pass_rows(p, r);
        if (volume_tile_fits(r, &single, p->volume_columns, deeper ? CLS_VOLUME_DEEP_PASS_LOADS : CLS_VOLUME_TILE_LOADS,
                             deeper ? CLS_VOLUME_DEEP_PASS_SUMS : CLS_VOLUME_SINGLE_PASS_SUMS))
            *resolved = single, resolved->separable = CLS_SEPARABLE_SINGLE_PASS;
    }
    resolved->cols_per_item = spec->cols_per_item                               ? spec->cols_per_item
                              : spec->reduction == CLS_REDUCTION_RANK            ? rank_columns(p, r)
                              : resolved->separable != CLS_SEPARABLE_SINGLE_PASS ? volume_columns(p, r, resolved)
                              : p->volume_columns > 1                            ? p->volume_columns
                                                                                 : 4;
    /* a window too tall for the tile of the record's group: the tile of CLS_VOLUME_SINGLE_PASS_ROWS
     * rows, else of CLS_VOLUME_TALL_PASS_ROWS, where it fits (H200, 512^3 f32, clamp / mirror101: a
     * 1x21x1 mask, the y pass of a deep separable one, 847 us a column a work-item in 32x4 groups,
     * 543 from the tile in 32x8; 1x31x1 1,202 / 1,432 a column a work-item, 828 / 807 in 32x16;
     * 1x23x1 733 / 629 in 32x8, 553 / 645 in 32x16) */
    if (resolved->cols_per_item == 1 && !spec->cols_per_item && !spec->group_width && !spec->group_height &&
        spec->input_path == CLS_INPUT_AUTO && resolved->separable == CLS_SEPARABLE_NONE && !volume_vectors(p)) {
        cls_spec taller = *resolved;
        taller.group_height = CLS_VOLUME_SINGLE_PASS_ROWS;
        if (volume_columns(p, r, &taller) <= 1) taller.group_height = CLS_VOLUME_TALL_PASS_ROWS;
        if (volume_columns(p, r, &taller) > 1) *resolved = taller, resolved->cols_per_item = p->volume_columns;
    }
    /* several columns: the slice's tile (local) on GPUs and in a single pass, vectors elsewhere */
    const int rank = spec->reduction == CLS_REDUCTION_RANK; /* a rank's pair of columns reads global memory */
    const int tile = resolved->separable == CLS_SEPARABLE_SINGLE_PASS || (resolved->cols_per_item > 1 && !volume_vectors(p) && !rank);
    resolved->input_path = spec->input_path != CLS_INPUT_AUTO ? spec->input_path : tile ? CLS_INPUT_LOCAL : CLS_INPUT_GLOBAL;
    if (lanes_walk(p, spec, resolved)) resolved->input_path = CLS_INPUT_GLOBAL;
    /* the lanes walk, asked or chosen: 4 columns a work-item (one vector a row), groups a warp wide */
    const int lanes = resolved->separable == CLS_SEPARABLE_SINGLE_PASS && resolved->input_path == CLS_INPUT_GLOBAL;
    if (lanes && !spec->cols_per_item) resolved->cols_per_item = 4;
    if (lanes && !spec->group_width && !spec->group_height)
        resolved->group_width = CLS_VOLUME_LANES, resolved->group_height = CLS_VOLUME_LANES_GROUP_HEIGHT;
    /* a deep mask's walk re-reads its halo of slices once a walk: longer walks, from the tile, and
     * a sum's, minimum's or maximum's walk of a column a work-item on GPUs (H200, 512^3 f32, clamp:
     * a 1x1x21 mask, the z pass of a deep separable one, 576 us walking 16 slices, 361 walking 128);
     * a deep and tall single pass, whose slices cost more than a walk's, longer still where the
     * record says so (CLS_VOLUME_PASS_SLICES_MIN_MASK) */
    const int plain_deep = !volume_vectors(p) && !spec->body && spec->reduction != CLS_REDUCTION_RANK;
    if (!spec->rows_per_item && p->volume_deep_slices && spec->mask_depth > 3 &&
        (resolved->input_path == CLS_INPUT_LOCAL || plain_deep))
        resolved->rows_per_item = p->volume_deep_slices;
    if (!spec->rows_per_item && p->volume_pass_slices && spec->mask_depth >= CLS_VOLUME_PASS_SLICES_MIN_MASK &&
        spec->mask_height >= CLS_VOLUME_PASS_SLICES_MIN_MASK && resolved->separable == CLS_SEPARABLE_SINGLE_PASS)
        resolved->rows_per_item = p->volume_pass_slices;
    if (resolved->cols_per_item > 1 && !rank && !lanes && resolved->input_path == CLS_INPUT_GLOBAL && !spec->group_width &&
        !spec->group_height)
        resolved->group_width = CLS_VOLUME_VECTOR_GROUP_WIDTH, resolved->group_height = CLS_VOLUME_VECTOR_GROUP_HEIGHT;
    if (!spec->rows_per_item) resolved->rows_per_item = filling_slices(p, spec, resolved);
    if (resolved->method == CLS_METHOD_FFT) resolved->separable = CLS_SEPARABLE_NONE; /* the transforms take the mask whole */
    if (deeper && resolved->separable == CLS_SEPARABLE_SINGLE_PASS && resolved->rows_per_item < r->depth - 1)
        resolve_volume(p, r, resolved, 0); /* a walk shorter than the halo it re-reads: passes */
}

void cls_policy_resolve(const cls_kernel_policy *p, const cls_request *request, cls_spec *resolved)
{
    if (request->volume) {
        resolve_volume(p, request, resolved, 1);
        return;
    }
    const cls_spec *spec = &request->spec;
    kernel k = {.request = request, .spec = spec};
    const int in_double = request->in_double; /* the plain form only (spec_validate.c) */
    k.separable = spec->separable != CLS_SEPARABLE_AUTO                  ? spec->separable
                  : spec->method == CLS_METHOD_FFT || in_double ? CLS_SEPARABLE_NONE
                                                                 : separates(p, &k);
    k.input_path = spec->input_path != CLS_INPUT_AUTO ? spec->input_path
                   : stages_rows(p, &k)               ? CLS_INPUT_LOCAL
                                                      : CLS_INPUT_GLOBAL;
    *resolved = *spec;
    resolved->separable = k.separable;
    resolved->method = spec->method != CLS_METHOD_AUTO ? spec->method
                       : !in_double && runs_by_fft(p, &k) ? CLS_METHOD_FFT
                                                          : CLS_METHOD_DIRECT;
    resolved->input_path = k.input_path;
    if (spec->partition == CLS_PARTITION_AUTO) resolved->partition = CLS_PARTITION_ISP_BLOCK;
    unsigned rows = 1, cols = 1;
    const int staged_rows = k.separable == CLS_SEPARABLE_SINGLE_PASS && k.input_path == CLS_INPUT_LOCAL;
    if (staged_rows) staged_rows_block(p, spec, &rows, &cols);
    else if (!in_double) block_of(p, &k, &rows, &cols);
    resolved->rows_per_item = rows;
    resolved->cols_per_item = cols;
    unsigned width = spec->group_width ? spec->group_width : p->group_width ? p->group_width : CLS_FALLBACK_GROUP_WIDTH;
    unsigned height =
        spec->group_height ? spec->group_height : p->group_height ? p->group_height : CLS_FALLBACK_GROUP_HEIGHT;
    /* a single pass that stages its input rows walks in one-row groups of the default's size */
    if (staged_rows && !spec->group_height) {
        width = spec->group_width ? width : width * height;
        height = 1;
    }
    /* Under a streaming policy, a kernel that does not stream (one output per work-item, or a
     * column's block) takes a one-row group of the default's size: what PoCL's work-group
     * vectorizer turns into SIMD loads along the row (Gaussian 3x3, 2048x2048: 1.5-1.8 ms in 128x1
     * groups, 2.2-2.5 in 64x2; 1x11 in blocks 2.5 against 2.7; streaming kernels keep 64x2:
     * random 25x25 364 ms against 436 in 128x1). */
    if (p->rows >= CLS_STREAM_MIN_ROWS && rows < CLS_STREAM_MIN_ROWS && !spec->group_width && !spec->group_height) {
        width *= height;
        height = 1;
    }
    resolved->group_width = width;
    resolved->group_height = height;
}

cls_status cls_policy_configure(const cls_kernel_policy *policy, const cls_request *request, cls_kernel_config *config)
{
    cls_spec resolved;
    cls_policy_resolve(policy, request, &resolved);
    return cls_kernel_config_init(config, &resolved, policy->simd_width, &policy->limits);
}
