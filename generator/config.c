/* config.c — a validated spec with `auto` resolved, and its canonical key. */
#include "generator.h"
#include "body_check.h"
#include "staged_body.h"

#include "error.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* *copy = a copy of text (NULL stays NULL). */
static cls_status copy_text(char **copy, const char *text)
{
    *copy = text ? strdup(text) : NULL;
    return text && !*copy ? CLS_ERR_OUT_OF_MEMORY : CLS_OK;
}

/* The low-rank terms of the mask into config->row and config->column (CLS_LOW_RANK_MAX vectors
 * each) and their number into config->rank; 0 when the mask is not of rank CLS_LOW_RANK_MAX or
 * less (nothing left allocated then). */
static unsigned low_rank_terms(cls_kernel_config *config, const cls_spec *spec)
{
    config->row = malloc(sizeof(float) * spec->mask_width * CLS_LOW_RANK_MAX);
    config->column = malloc(sizeof(float) * spec->mask_height * CLS_LOW_RANK_MAX);
    double residual;
    config->rank = config->row && config->column ? cls_mask_low_rank(config->coefficients, spec->mask_width,
                                                                      spec->mask_height, config->row, config->column,
                                                                      &residual)
                                                 : 0;
    if (!config->rank) {
        free(config->row);
        free(config->column);
        config->row = config->column = NULL;
    }
    return config->rank;
}

/* The row and column vectors of a separated mask (validation, or the policy's check, has proven
 * it separable; the policy's check leaves them computed), or a low-rank mask's terms. */
static cls_status separate(cls_kernel_config *config, const cls_spec *spec)
{
    if (config->separable == CLS_SEPARABLE_LOW_RANK)
        return config->row || low_rank_terms(config, spec) >= 2 ? CLS_OK : CLS_ERR_INVALID_ARGUMENT;
    if (config->separable != CLS_SEPARABLE_SINGLE_PASS && config->separable != CLS_SEPARABLE_TWO_PASS) return CLS_OK;
    config->rank = 1;
    if (config->row) return CLS_OK;
    config->row = malloc(sizeof(float) * spec->mask_width);
    config->column = malloc(sizeof(float) * spec->mask_height);
    if (!config->row || !config->column) return CLS_ERR_OUT_OF_MEMORY;
    if (spec->row_coefficients) {
        memcpy(config->row, spec->row_coefficients, sizeof(float) * spec->mask_width);
        memcpy(config->column, spec->column_coefficients, sizeof(float) * spec->mask_height);
        return CLS_OK;
    }
    return cls_mask_separate(config->coefficients, spec->mask_width, spec->mask_height, config->row, config->column);
}

/* Whether the policy runs SPEC's weighted sum, its method left to auto, by FFT: one mask of at
 * least fft_min_taps taps that does not run as separable passes (those cost W + H a pixel, less
 * than the FFT's few transforms for the sizes CLS_MAX_MASK allows), and whose spec asks nothing
 * of a direct kernel (a partition, work-group shape, outputs per work-item, input path or folded
 * taps: the spec's own choices win). */
static int runs_by_fft_by_policy(const cls_kernel_config *config, const cls_spec *spec)
{
    const unsigned taps = spec->mask_width * spec->mask_height;
    const int direct_asked = spec->partition != CLS_PARTITION_AUTO || spec->group_width || spec->group_height ||
                             spec->rows_per_item || spec->cols_per_item || spec->input_path != CLS_INPUT_AUTO ||
                             spec->fold_equal_taps;
    return config->policy.fft_min_taps && taps >= config->policy.fft_min_taps && !spec->body &&
           config->masks == 1 && !spec->epilogue && config->separable == CLS_SEPARABLE_NONE && !direct_asked;
}

/* How the policy separates SPEC's mask, left to auto: as two passes, one rank-1 weighted sum of
 * at least separate_min_taps taps, in a border mode the passes take, reading global memory (on
 * PoCL, 2 cores, 2048x2048: Gaussian 9x9 12.6 -> 8.8 ms, box 15x15 31.7 -> 21.1, Gaussian 25x25
 * 379 -> 67; 3x3 and 5x5 masks no faster); as low-rank pairs under the same conditions where the
 * mask, of at least low_rank_min_taps taps, has a rank r (2 to CLS_LOW_RANK_MAX) that makes
 * r (W + H) taps less than W H (a 17x17 difference of Gaussians ran slower so on PoCL, 118 ms
 * against 97 direct at 2048x2048, and on an H200, 321 µs against 294 at 4096x4096: no record
 * sets it); else not. The quick
 * kernel of the first-result goal separates as well, so its sums stay those of the specialized
 * kernel. Where it separates, the rows and columns are left in the config. */
static cls_separable separates_by_policy(cls_kernel_config *config, const cls_spec *spec)
{
    const unsigned taps = spec->mask_width * spec->mask_height;
    if (!config->policy.separate_min_taps || taps < config->policy.separate_min_taps || spec->body ||
        config->masks > 1 || spec->epilogue || spec->border == CLS_BORDER_UNDEFINED || spec->fold_equal_taps ||
        spec->rows_per_item > 1 || spec->cols_per_item > 1 ||
        (spec->input_path != CLS_INPUT_AUTO && spec->input_path != CLS_INPUT_GLOBAL))
        return CLS_SEPARABLE_NONE;
    config->row = malloc(sizeof(float) * spec->mask_width);
    config->column = malloc(sizeof(float) * spec->mask_height);
    /* a mask that does not separate is no error here (the message it leaves is never read) */
    if (config->row && config->column &&
        cls_mask_separate(config->coefficients, spec->mask_width, spec->mask_height, config->row, config->column) ==
            CLS_OK) {
        config->rank = 1;
        return CLS_SEPARABLE_TWO_PASS;
    }
    free(config->row);
    free(config->column);
    config->row = config->column = NULL;
    const unsigned rank = config->policy.low_rank_min_taps && taps >= config->policy.low_rank_min_taps
                              ? low_rank_terms(config, spec)
                              : 0;
    if (rank >= 2 && rank * (spec->mask_width + spec->mask_height) < taps) return CLS_SEPARABLE_LOW_RANK;
    free(config->row);
    free(config->column);
    config->row = config->column = NULL;
    config->rank = 0;
    return CLS_SEPARABLE_NONE;
}

unsigned cls_kernel_outputs(const cls_kernel_config *config)
{
    return config->epilogue ? 1 : config->masks;
}

int cls_kernel_hardware_border(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    return config->input_path == CLS_INPUT_IMAGE &&
           (s->border == CLS_BORDER_CLAMP || (s->border == CLS_BORDER_CONSTANT && s->border_value == 0.0f));
}

int cls_kernel_literal_coefficients(const cls_kernel_config *config)
{
    return config->spec.bake_coefficients == CLS_COEFFICIENTS_LITERALS;
}

/* The taps of every mask that one output pixel computes: literals skip the zero taps, the other
 * storages compute every tap. */
static size_t computed_taps(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    const size_t all = (size_t)config->masks * s->mask_width * s->mask_height;
    if (!cls_kernel_literal_coefficients(config)) return all;
    size_t taps = 0;
    for (size_t k = 0; k < all; ++k) taps += config->coefficients[k] != 0.0f;
    return taps;
}

/* Whether the kernel is an unrolled built-in weighted sum whose regions may be arranged by
 * cls_spec.region_code: literals or argument, not folded, on the global path, not streaming, with
 * a border mode other than undefined. */
static int region_code_applies(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    return s->bake_coefficients && !s->fold_equal_taps && !s->body && config->partition != CLS_PARTITION_NAIVE &&
           config->input_path == CLS_INPUT_GLOBAL && config->separable == CLS_SEPARABLE_NONE &&
           s->border != CLS_BORDER_UNDEFINED && !cls_kernel_streams(config);
}

int cls_kernel_shares_rows(const cls_kernel_config *config)
{
    return region_code_applies(config) && config->spec.region_code == CLS_REGION_CODE_SHARED;
}

/* Whether a work-item's unrolled multiply-adds exceed CLS_UNROLL_LIMIT (a streaming kernel's: one
 * input row's). */
static int past_unroll_limit(const cls_kernel_config *config)
{
    const size_t rows = cls_kernel_streams(config) ? 1 : config->rows;
    return computed_taps(config) * rows * config->cols > config->policy.unroll_limit;
}

int cls_kernel_body_apart(const cls_kernel_config *config)
{
    return region_code_applies(config) && config->spec.region_code == CLS_REGION_CODE_BODY_APART &&
           !past_unroll_limit(config);
}

int cls_kernel_rolls_borders(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    if (!s->bake_coefficients || cls_kernel_shares_rows(config) || cls_kernel_body_apart(config) || s->body ||
        config->partition == CLS_PARTITION_NAIVE || config->input_path == CLS_INPUT_LOCAL ||
        config->separable != CLS_SEPARABLE_NONE || cls_kernel_hardware_border(config))
        return 0;
    return past_unroll_limit(config);
}

/* The multiply-adds of one output pixel of a weighted sum: a separated mask's row and column, else
 * the computed taps. */
static size_t multiply_adds(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    if (config->separable != CLS_SEPARABLE_NONE) return (size_t)config->masks * (s->mask_width + s->mask_height);
    return computed_taps(config);
}

unsigned cls_kernel_register_cap(const cls_kernel_config *config)
{
    const int capped = !config->spec.body && config->partition != CLS_PARTITION_NAIVE && !cls_kernel_streams(config) &&
                       config->masks * config->rows * config->cols <= CLS_CAPPED_SUMS &&
                       multiply_adds(config) >= CLS_COMPUTE_BOUND_TAPS;
    return capped ? config->policy.register_cap : 0;
}

int cls_kernel_streams(const cls_kernel_config *config)
{
    return config->rows >= CLS_STREAM_MIN_ROWS;
}

unsigned cls_kernel_aligned_loads(const cls_kernel_config *config)
{
    if (config->input_path != CLS_INPUT_GLOBAL || config->cols < 2 || config->unaligned_input) return 1;
    const unsigned half = config->spec.mask_width / 2;
    for (unsigned width = 4; width > 1; width /= 2)
        if (config->cols % width == 0 && half % width == 0) return width;
    return 1;
}

size_t cls_kernel_local_bytes(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    const size_t tile_h = (size_t)config->group_height * config->rows + 2 * (s->mask_height / 2);
    if (config->separable == CLS_SEPARABLE_SINGLE_PASS) return tile_h * (config->group_width + 1) * sizeof(float);
    if (config->input_path != CLS_INPUT_LOCAL) return 0;
    const size_t tile_w = (size_t)config->group_width * config->cols + 2 * (s->mask_width / 2);
    return tile_h * (tile_w + 1) * sizeof(float);
}

cls_generation_policy cls_generation_policy_default(void)
{
    return (cls_generation_policy){.unroll_limit = CLS_UNROLL_LIMIT, .block_budget = CLS_BLOCK_BUDGET,
                                   .register_cap = CLS_REGISTER_CAP, .stream_rows = CLS_STREAM_POLICY_ROWS,
                                   .stream_cols = CLS_STREAM_POLICY_COLS, .stream_below_rows = CLS_STREAM_BELOW_ROWS};
}

cls_status cls_kernel_config_init(cls_kernel_config *config, const cls_spec *spec,
                                  unsigned simd_width, unsigned default_rows, unsigned default_group_width,
                                  unsigned default_group_height)
{
    return cls_kernel_config_init_policy(config, spec, simd_width, default_rows, default_group_width,
                                         default_group_height, NULL);
}

cls_status cls_kernel_config_init_policy(cls_kernel_config *config, const cls_spec *spec, unsigned simd_width,
                                         unsigned default_rows, unsigned default_group_width,
                                         unsigned default_group_height, const cls_generation_policy *policy)
{
    memset(config, 0, sizeof *config);
    config->policy = policy ? *policy : cls_generation_policy_default();
    cls_status status = cls_spec_validate(spec);
    if (status != CLS_OK) return status;
    if (spec->body && cls_body_is_staged(spec->body))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the operator body runs in stages, a kernel each: create it as a filter or a pipeline "
                        "stage (cls_generate_source gives every stage's source), not as one kernel");
    config->body_writes_rows = spec->body && cls_body_writes_rows(spec->body);
    config->masks = spec->mask_count ? spec->mask_count : 1;
    const size_t taps = (size_t)spec->mask_width * spec->mask_height * config->masks;
    config->coefficients = malloc(taps * sizeof(float));
    if (!config->coefficients) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the mask");
    for (size_t k = 0; k < taps; ++k) {
        const float value = spec->coefficients ? spec->coefficients[k]
                            : spec->column_coefficients[k / spec->mask_width] * spec->row_coefficients[k % spec->mask_width];
        config->coefficients[k] = value == 0.0f ? 0.0f : value; /* -0 and +0 give the same kernel */
    }
    config->spec = *spec;
    config->spec.coefficients = config->coefficients;
    config->spec.row_coefficients = config->spec.column_coefficients = NULL;
    config->separable = spec->separable != CLS_SEPARABLE_AUTO ? spec->separable
                        : spec->method == CLS_METHOD_FFT     ? CLS_SEPARABLE_NONE
                                                             : separates_by_policy(config, spec);
    config->method = spec->method != CLS_METHOD_AUTO ? spec->method
                     : runs_by_fft_by_policy(config, spec) ? CLS_METHOD_FFT
                                                           : CLS_METHOD_DIRECT;
    if (copy_text(&config->body, spec->body) != CLS_OK || copy_text(&config->epilogue, spec->epilogue) != CLS_OK ||
        separate(config, spec) != CLS_OK) {
        cls_kernel_config_free(config);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the spec");
    }
    config->spec.body = config->body;
    config->spec.epilogue = config->epilogue;
    config->spec.mask_count = config->masks;
    config->input_path = spec->input_path == CLS_INPUT_AUTO ? CLS_INPUT_GLOBAL : spec->input_path;
    config->spec.input_path = config->input_path;
    config->spec.separable = config->separable;
    config->spec.method = config->method;
    if (spec->border != CLS_BORDER_CONSTANT) config->spec.border_value = 0.0f;
    config->partition =
        spec->partition == CLS_PARTITION_AUTO ? CLS_PARTITION_ISP_BLOCK : spec->partition;
    config->group_width = spec->group_width ? spec->group_width
                          : default_group_width ? default_group_width : CLS_FALLBACK_GROUP_WIDTH;
    config->group_height = spec->group_height ? spec->group_height
                           : default_group_height ? default_group_height : CLS_FALLBACK_GROUP_HEIGHT;
    config->simd_width = simd_width ? simd_width : CLS_FALLBACK_SIMD_WIDTH;
    /* auto coarsens where coarsening is possible: a built-in weighted sum in one kernel. */
    /* A streaming policy leaves small masks at one output per work-item: on PoCL (2 cores, f32
     * 2048x2048, 128x1 groups) a Gaussian 3x3 took 1.5-1.8 ms against 4.9 streaming 64 rows x 4
     * columns, 5x5 3.2 against 6.9; a random 7x7 9.9 against 8.9, 9x9 19-21 against 11.7. */
    const int small_for_streaming =
        default_rows >= CLS_STREAM_MIN_ROWS && computed_taps(config) < config->policy.stream_min_taps;
    const int can_coarsen = !spec->body && spec->border != CLS_BORDER_UNDEFINED &&
                            config->separable != CLS_SEPARABLE_TWO_PASS &&
                            config->separable != CLS_SEPARABLE_LOW_RANK && !small_for_streaming;
    config->rows = spec->rows_per_item ? spec->rows_per_item : can_coarsen && default_rows ? default_rows : 1;
    /* An operator body over at most 25 pixels takes the device's rows too, where it coarsens
     * without streaming (NVIDIA): one call of the body per output, the calls sharing their loads;
     * as long as the unrolled calls stay within CLS_BODY_BLOCK_BYTES of body text. H200, f32
     * 4096x4096: median 3x3 129 -> 65 µs at 8 rows (its fastest kernel built in 2.2 s, not
     * 0.4), minimum 3x3 81 -> 45, 5x5 110 -> 61. A body that writes a column of outputs itself
     * (OUT_AT) is called once per column, so only its own length counts (it is assumed to walk
     * its rows rather than repeat its text per row): the 3x3 median and the 5x5 rectangle's
     * ranks, by sorted rows whose sorts (and merges) the column shares; the 3x3 median so took
     * 53 us instead of 65. The 25-pixel bound holds for those too. The 13x13 bilateral filter
     * gains nothing and stays at one row (its body is too long), as PoCL does (no rows there). */
    if (!spec->rows_per_item && spec->body && spec->border != CLS_BORDER_UNDEFINED && default_rows > 1 &&
        default_rows < CLS_STREAM_MIN_ROWS && spec->mask_width * spec->mask_height <= 25 &&
        (config->body_writes_rows ? 1 : default_rows) * strlen(spec->body) <= CLS_BODY_BLOCK_BYTES)
        config->rows = default_rows;
    /* A streaming policy (default_rows of 16 or more) streams where streaming applies, else keeps
     * one row. */
    const int can_stream = config->input_path == CLS_INPUT_GLOBAL && config->separable == CLS_SEPARABLE_NONE &&
                           !spec->fold_equal_taps;
    if (!spec->rows_per_item && config->rows >= CLS_STREAM_MIN_ROWS && !can_stream) config->rows = 1;
    /* Where the device coarsens, a baked sum read from global memory also takes two columns (aligned
     * vector loads when the half width is even), and as many rows as keep the block's unrolled
     * multiply-adds within CLS_BLOCK_BUDGET; where it streams, CLS_STREAM_POLICY_COLS columns. */
    const int blocks = can_coarsen && default_rows > 1 && spec->bake_coefficients && !spec->body &&
                       config->input_path == CLS_INPUT_GLOBAL && config->separable == CLS_SEPARABLE_NONE;
    config->cols = spec->cols_per_item ? spec->cols_per_item
                   : blocks ? (cls_kernel_streams(config) ? config->policy.stream_cols : 2)
                            : 1;
    if (blocks && !spec->rows_per_item && !cls_kernel_streams(config))
        while (config->rows > 1 && computed_taps(config) * config->rows * config->cols > config->policy.block_budget)
            --config->rows;
    /* Blocks that the budget cuts to CLS_STREAM_BELOW_ROWS rows or fewer stream instead, where one
     * input row's multiply-adds still unroll in every region. */
    const cls_generation_policy *p = &config->policy;
    if (blocks && can_stream && !spec->rows_per_item && !spec->cols_per_item && config->rows <= p->stream_below_rows &&
        computed_taps(config) * p->stream_cols <= p->unroll_limit) {
        config->rows = p->stream_rows;
        config->cols = p->stream_cols;
    }
    /* Under a streaming policy, a kernel left at one output per work-item takes a one-row group of
     * the default's size: what PoCL's work-group vectorizer turns into SIMD loads along the row
     * (Gaussian 3x3, 2048x2048: 1.5-1.8 ms in 128x1 groups, 2.2-2.5 in 64x2; streaming kernels
     * keep 64x2: random 25x25 364 ms against 436 in 128x1). */
    if (default_rows >= CLS_STREAM_MIN_ROWS && config->rows == 1 && config->cols == 1 && !spec->group_width &&
        !spec->group_height) {
        config->group_width *= config->group_height;
        config->group_height = 1;
    }
    if (config->spec.region_code == CLS_REGION_CODE_AUTO) config->spec.region_code = CLS_REGION_CODE_BODY_APART;
    config->spec.rows_per_item = config->rows;
    config->spec.cols_per_item = config->cols;
    config->spec.partition = config->partition;
    config->spec.group_width = config->group_width;
    config->spec.group_height = config->group_height;
    return CLS_OK;
}

void cls_kernel_config_free(cls_kernel_config *config)
{
    free(config->coefficients);
    free(config->body);
    free(config->epilogue);
    free(config->row);
    free(config->column);
    memset(config, 0, sizeof *config);
}

static uint32_t float_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

char *cls_kernel_key(const cls_kernel_config *config)
{
    const cls_spec *spec = &config->spec;
    strbuf key;
    strbuf_init(&key);
    strbuf_printf(&key, "clstencil-kernel-v1;mask=%ux%u;border=%s;partition=%s;group=%ux%u;in=%s;out=%s",
                  spec->mask_width, spec->mask_height, cls_border_name(spec->border),
                  cls_partition_name(config->partition), config->group_width,
                  config->group_height, cls_pixel_type_name(spec->input_type),
                  cls_pixel_type_name(spec->output_type));
    if (config->partition == CLS_PARTITION_ISP_WARP) strbuf_printf(&key, ";simd=%u", config->simd_width);
    if (config->rows > 1) strbuf_printf(&key, ";rows=%u", config->rows);
    if (config->cols > 1) strbuf_printf(&key, ";cols=%u", config->cols);
    if (config->masks > 1) strbuf_printf(&key, ";masks=%u", config->masks);
    if (config->input_path != CLS_INPUT_GLOBAL) strbuf_printf(&key, ";input=%s", cls_input_path_name(config->input_path));
    if (cls_kernel_hardware_border(config)) strbuf_append(&key, ";hardware-border");
    if (cls_kernel_shares_rows(config)) strbuf_append(&key, ";regions-shared");
    if (cls_kernel_body_apart(config)) strbuf_append(&key, ";regions-body-apart");
    if (config->separable != CLS_SEPARABLE_NONE) strbuf_printf(&key, ";separable=%s", cls_separable_name(config->separable));
    if (spec->body) strbuf_printf(&key, ";body=%zu:%s", strlen(spec->body), spec->body);
    if (spec->epilogue) strbuf_printf(&key, ";epilogue=%zu:%s", strlen(spec->epilogue), spec->epilogue);
    if (spec->bake_coefficients == CLS_COEFFICIENTS_LITERALS) {
        strbuf_append(&key, spec->fold_equal_taps ? ";mask-baked-folded=" : ";mask-baked=");
        for (unsigned k = 0; k < spec->mask_width * spec->mask_height * config->masks; ++k)
            strbuf_printf(&key, "%08x", (unsigned)float_bits(config->coefficients[k]));
    } else {
        strbuf_append(&key, spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT ? ";mask-argument" : ";mask-runtime");
    }
    return strbuf_take(&key);
}
