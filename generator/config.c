/* config.c — a validated spec applied as a kernel configuration (the planner has decided its
 * `auto` knobs: plan/policy.h), the questions the emitter asks of it, and its canonical key. */
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

/* The row and column vectors of a separated mask (validation, or the planner, has proven it
 * separable), or a low-rank mask's terms. */
static cls_status separate(cls_kernel_config *config, const cls_spec *spec)
{
    if (cls_spec_is_volume(spec)) return CLS_OK; /* a pass an axis: the host separates (volume_passes.c) */
    if (config->separable == CLS_SEPARABLE_LOW_RANK)
        return low_rank_terms(config, spec) >= 2 ? CLS_OK : CLS_ERR_INVALID_ARGUMENT;
    if (config->separable != CLS_SEPARABLE_SINGLE_PASS && config->separable != CLS_SEPARABLE_TWO_PASS) return CLS_OK;
    config->rank = 1;
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

unsigned cls_kernel_outputs(const cls_kernel_config *config)
{
    return config->epilogue ? 1 : config->masks;
}

int cls_kernel_hardware_border(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    return config->input_path == CLS_INPUT_IMAGE && !cls_spec_borders_differ(s) &&
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
    const size_t all = (size_t)config->masks * s->mask_width * s->mask_height * cls_mask_depth(s);
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
    return computed_taps(config) * rows * config->cols > config->limits.unroll_limit;
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

/* Whether a volume's separable single pass from the slice's tile keeps a window of at most
 * CLS_VOLUME_CAPPED_SUMS partial sums down z. */
static int volume_pass_capped(const cls_kernel_config *config)
{
    return config->separable == CLS_SEPARABLE_SINGLE_PASS && config->input_path == CLS_INPUT_LOCAL &&
           config->spec.mask_depth * config->cols <= CLS_VOLUME_CAPPED_SUMS;
}

unsigned cls_kernel_register_cap(const cls_kernel_config *config)
{
    if (config->method == CLS_METHOD_FFT) return config->limits.register_cap; /* the tile kernel's */
    if (cls_spec_is_volume(&config->spec))
        return volume_pass_capped(config)                                          ? config->limits.register_cap
               : config->spec.reduction == CLS_REDUCTION_RANK && config->cols == 2 ? config->limits.rank_register_cap
                                                                                    : 0;
    const int capped = !config->spec.body && config->partition != CLS_PARTITION_NAIVE && !cls_kernel_streams(config) &&
                       config->masks * config->rows * config->cols <= CLS_CAPPED_SUMS &&
                       multiply_adds(config) >= CLS_COMPUTE_BOUND_TAPS;
    return capped ? config->limits.register_cap : 0;
}

int cls_kernel_cap_only_lowers(const cls_kernel_config *config)
{
    return cls_spec_is_volume(&config->spec) || config->method == CLS_METHOD_FFT;
}

int cls_kernel_streams(const cls_kernel_config *config)
{
    return config->rows >= CLS_STREAM_MIN_ROWS;
}

int cls_kernel_body_lanes(const cls_kernel_config *config)
{
    return (config->body_in_lanes == 2 || (config->body_in_lanes == 1 && config->rows == 1) ||
            (config->body_in_lanes == 1 && config->body_row_lanes == (int)config->cols)) && config->cols > 1 &&
           config->input_path == CLS_INPUT_GLOBAL && config->masks == 1 && !config->epilogue;
}

int cls_kernel_stages_row_sums(const cls_kernel_config *config)
{
    return config->separable == CLS_SEPARABLE_SINGLE_PASS && !cls_kernel_streams(config);
}

int cls_kernel_stages_input_rows(const cls_kernel_config *config)
{
    return config->separable == CLS_SEPARABLE_SINGLE_PASS && config->input_path == CLS_INPUT_LOCAL &&
           !cls_spec_is_volume(&config->spec);
}

unsigned cls_staged_rows_pad(const cls_kernel_config *config)
{
    return (config->spec.mask_width / 2 + 3) / 4 * 4;
}

unsigned cls_single_pass_ahead(unsigned ahead, unsigned mask_width, unsigned cols)
{
    return ahead > 1 && ahead * (mask_width + cols - 1) <= CLS_AHEAD_PIXELS ? ahead : 1;
}

unsigned cls_kernel_ahead_rows(const cls_kernel_config *config)
{
    if (config->separable != CLS_SEPARABLE_SINGLE_PASS || !cls_kernel_streams(config) ||
        config->input_path != CLS_INPUT_GLOBAL)
        return 1;
    return cls_single_pass_ahead(config->limits.single_pass_ahead, config->spec.mask_width, config->cols);
}

unsigned cls_kernel_aligned_loads(const cls_kernel_config *config)
{
    if (cls_kernel_stages_input_rows(config)) return config->unaligned_input ? 1 : 4;
    if (config->input_path != CLS_INPUT_GLOBAL || config->cols < 2 || config->unaligned_input) return 1;
    const unsigned half = config->spec.mask_width / 2;
    const int padded = config->separable == CLS_SEPARABLE_SINGLE_PASS && cls_kernel_streams(config);
    for (unsigned width = 4; width > 1; width /= 2)
        if (config->cols % width == 0 && (half % width == 0 || padded)) return width;
    return 1;
}

int cls_kernel_chunk_origin(const cls_kernel_config *config)
{
    const unsigned width = cls_kernel_aligned_loads(config), half = config->spec.mask_width / 2;
    return width > 1 && half % width ? (int)(half % width) - (int)width : 0;
}

unsigned cls_volume_tile_buffers(const cls_kernel_config *config)
{
    return config->tile_buffers == 2 ? 2 : 1;
}

int cls_volume_lanes(const cls_kernel_config *config)
{
    return cls_spec_is_volume(&config->spec) && config->separable == CLS_SEPARABLE_SINGLE_PASS &&
           config->input_path == CLS_INPUT_GLOBAL;
}

unsigned cls_volume_block_rows(const cls_kernel_config *config)
{
    if (cls_volume_lanes(config)) return config->limits.volume_lane_rows ? config->limits.volume_lane_rows : CLS_VOLUME_LANE_ROWS;
    const cls_spec *s = &config->spec;
    const unsigned most = CLS_VOLUME_BLOCK_MAX_SIDE;
    const int tile_sum = cls_spec_is_volume(s) && config->input_path == CLS_INPUT_LOCAL && config->cols > 1 &&
                         s->reduction == CLS_REDUCTION_SUM && !s->body && config->separable == CLS_SEPARABLE_NONE &&
                         s->mask_width <= most && s->mask_height <= most && s->mask_depth <= most;
    return tile_sum && config->limits.volume_block_rows > 1 ? config->limits.volume_block_rows : 1;
}

int cls_volume_y_first(const cls_kernel_config *config)
{
    const unsigned height = config->spec.mask_height, cols = config->cols;
    return config->limits.volume_y_first && cls_spec_is_volume(&config->spec) &&
           config->separable == CLS_SEPARABLE_SINGLE_PASS && config->input_path == CLS_INPUT_LOCAL && cols > 1 &&
           height >= 9 && height >= 2 * cols + 1 && config->group_height % cols == 0;
}

size_t cls_kernel_local_bytes(const cls_kernel_config *config)
{
    const cls_spec *s = &config->spec;
    if (cls_volume_lanes(config)) /* the lanes' values, where they pass through local memory (no inline PTX) */
        return config->limits.inline_ptx ? 0
                                         : (size_t)(cls_volume_block_rows(config) + s->mask_height - 1) * config->group_height *
                                               config->group_width * config->cols * sizeof(float);
    if (cls_spec_is_volume(s)) { /* the slices' tiles (emit_volume_tile.c), and a single pass's sums along x or y */
        if (config->input_path != CLS_INPUT_LOCAL) return 0;
        const size_t tile_h = (size_t)config->group_height * cls_volume_block_rows(config) + 2 * (s->mask_height / 2);
        const size_t tile_float4s = ((size_t)config->group_width * config->cols + 2 * (s->mask_width / 2) + 3) / 4 + 1;
        size_t sums_float4s = 0; /* the tile's rows summed along x, or (y first) its columns along y */
        if (cls_volume_y_first(config))
            sums_float4s = config->group_height * tile_float4s;
        else if (config->separable == CLS_SEPARABLE_SINGLE_PASS)
            sums_float4s = tile_h * (config->group_width * config->cols / 4 + 1);
        return (tile_h * cls_volume_tile_buffers(config) * tile_float4s + sums_float4s) * 4 * sizeof(float);
    }
    if (cls_kernel_stages_input_rows(config)) { /* two tiles of CHUNK rows, and the folded rows and columns */
        const size_t tile_w = (size_t)config->group_width * config->cols + 2 * cls_staged_rows_pad(config);
        const size_t strip_rows = (config->rows + s->mask_height - 1 + CLS_STAGED_ROWS_CHUNK - 1) /
                                  CLS_STAGED_ROWS_CHUNK * CLS_STAGED_ROWS_CHUNK;
        return 2 * CLS_STAGED_ROWS_CHUNK * tile_w * sizeof(float) + (strip_rows + tile_w) * sizeof(int);
    }
    const size_t tile_h = (size_t)config->group_height * config->rows + 2 * (s->mask_height / 2);
    if (cls_kernel_stages_row_sums(config)) return tile_h * (config->group_width + 1) * sizeof(float);
    if (config->input_path != CLS_INPUT_LOCAL) return 0;
    const size_t tile_w = (size_t)config->group_width * config->cols + 2 * (s->mask_width / 2);
    return tile_h * (tile_w + 1) * sizeof(float);
}

cls_generation_limits cls_generation_limits_default(void)
{
    return (cls_generation_limits){.unroll_limit = CLS_UNROLL_LIMIT, .register_cap = CLS_REGISTER_CAP};
}

float *cls_spec_mask_values(const cls_spec *spec, unsigned masks)
{
    const size_t taps = (size_t)spec->mask_width * spec->mask_height * cls_mask_depth(spec) * masks;
    float *values = malloc(taps * sizeof *values);
    for (size_t k = 0; values && k < taps; ++k) {
        const float value = spec->coefficients ? spec->coefficients[k]
                            : spec->column_coefficients[k / spec->mask_width] * spec->row_coefficients[k % spec->mask_width];
        values[k] = value == 0.0f ? 0.0f : value; /* -0 and +0 give the same kernel */
    }
    return values;
}

cls_status cls_kernel_config_init(cls_kernel_config *config, const cls_spec *spec, unsigned simd_width,
                                  const cls_generation_limits *limits)
{
    memset(config, 0, sizeof *config);
    config->limits = limits ? *limits : cls_generation_limits_default();
    cls_status status = cls_spec_validate(spec);
    if (status != CLS_OK) return status;
    if (spec->body && cls_body_is_staged(spec->body))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the operator body runs in stages, a kernel each: create it as a filter or a pipeline "
                        "stage (cls_generate_source gives every stage's source), not as one kernel");
    config->body_writes_rows = spec->body && cls_body_writes_rows(spec->body);
    config->body_in_lanes = spec->body && !cls_spec_is_volume(spec) ? cls_body_in_lanes(spec->body) : 0;
    config->body_row_lanes = config->body_in_lanes && config->body_writes_rows ? cls_body_row_lanes(spec->body) : 0;
    config->masks = spec->mask_count ? spec->mask_count : 1;
    if (!(config->coefficients = cls_spec_mask_values(spec, config->masks)))
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the mask");
    config->spec = *spec;
    config->spec.coefficients = config->coefficients;
    config->spec.row_coefficients = config->spec.column_coefficients = NULL;
    config->separable = spec->separable == CLS_SEPARABLE_AUTO ? CLS_SEPARABLE_NONE : spec->separable;
    config->method = spec->method == CLS_METHOD_AUTO ? CLS_METHOD_DIRECT : spec->method;
    if (copy_text(&config->body, spec->body) != CLS_OK || copy_text(&config->epilogue, spec->epilogue) != CLS_OK ||
        separate(config, spec) != CLS_OK) {
        cls_kernel_config_free(config);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the spec");
    }
    config->spec.body = config->body;
    config->spec.epilogue = config->epilogue;
    config->spec.mask_count = config->masks;
    /* a volume's columns read from the slice's tile are its local input path: a single pass's, and
     * 4 or 8 columns' where the spec leaves the path to auto (else explicit vectors, global) */
    const int volume_tile = cls_spec_is_volume(spec) && (spec->separable == CLS_SEPARABLE_SINGLE_PASS ||
                                                         (spec->cols_per_item > 1 && spec->reduction != CLS_REDUCTION_RANK));
    config->input_path = spec->input_path != CLS_INPUT_AUTO ? spec->input_path : volume_tile ? CLS_INPUT_LOCAL : CLS_INPUT_GLOBAL;
    config->spec.input_path = config->input_path;
    config->spec.separable = config->separable;
    config->spec.method = config->method;
    if (!cls_spec_border_any(spec, CLS_BORDER_CONSTANT)) config->spec.border_value = 0.0f;
    if (!cls_spec_borders_differ(spec)) config->spec.border_y = config->spec.border_z = CLS_BORDER_SAME;
    /* a rank's footprint is the kernel's code: baked, whatever the storage asked for */
    if (spec->reduction == CLS_REDUCTION_RANK) config->spec.bake_coefficients = CLS_COEFFICIENTS_LITERALS;
    else config->spec.rank = 0;
    config->partition = spec->partition == CLS_PARTITION_AUTO ? CLS_PARTITION_ISP_BLOCK : spec->partition;
    config->group_width = spec->group_width ? spec->group_width : CLS_FALLBACK_GROUP_WIDTH;
    config->group_height = spec->group_height ? spec->group_height : CLS_FALLBACK_GROUP_HEIGHT;
    config->simd_width = simd_width ? simd_width : CLS_FALLBACK_SIMD_WIDTH;
    /* a single pass that stages its input rows streams 4 columns a work-item in groups of one row */
    const int staged_rows = cls_kernel_stages_input_rows(config);
    if (staged_rows && !spec->group_height) config->group_height = 1;
    config->rows = spec->rows_per_item ? spec->rows_per_item : staged_rows ? CLS_STAGED_ROWS_DEFAULT_ROWS : 1;
    /* a volume's single pass reads the slice's tile, 4 columns a work-item in its plain form */
    const int volume_single_pass = cls_spec_is_volume(spec) && config->separable == CLS_SEPARABLE_SINGLE_PASS;
    config->cols = spec->cols_per_item ? spec->cols_per_item : volume_single_pass || staged_rows ? 4 : 1;
    /* a single pass alternates two slice tiles: H200, 512^3 f32, clamp, gaussian3d:5,1 412 -> 350 us,
     * gaussian3d:13,2 752 -> 735, box3d:3 and max3d:9 unchanged; the walk of any mask gained
     * nothing from them (a random 3x3x3 mask 328 -> 331, a random 5x5x5 713 -> 770: 8
     * registers more) */
    config->tile_buffers = volume_single_pass ? 2 : 1;
    /* a rank's pair of columns: a box's sorted slices only (emit_volume_rank.c) */
    if (cls_spec_is_volume(spec) && spec->reduction == CLS_REDUCTION_RANK && config->cols == 2 &&
        !cls_volume_rank_pairs(spec, config->coefficients, config->limits.rank_network_taps)) {
        const unsigned network_taps = config->limits.rank_network_taps;
        cls_kernel_config_free(config);
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "2 columns per work-item: a volume's rank takes them by sorted slices only (a box of at most %u "
                        "taps here, not in the naive partition, whose two rings of slices hold at most %u floats)",
                        network_taps, CLS_RANK_PAIR_RING_MAX);
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
    char borders[64];
    cls_border_axes_name(spec, borders, sizeof borders);
    strbuf_printf(&key, "clstencil-kernel-v1;mask=%ux%u;border=%s;partition=%s;group=%ux%u;in=%s;out=%s",
                  spec->mask_width, spec->mask_height, borders,
                  cls_partition_name(config->partition), config->group_width,
                  config->group_height, cls_pixel_type_name(spec->input_type),
                  cls_pixel_type_name(spec->output_type));
    if (cls_spec_is_volume(spec)) strbuf_printf(&key, ";depth=%u", spec->mask_depth);
    static const char *const reductions[] = {"sum", "min", "max", "rank"};
    if (spec->reduction != CLS_REDUCTION_SUM) strbuf_printf(&key, ";reduction=%s", reductions[spec->reduction]);
    if (spec->reduction == CLS_REDUCTION_RANK) strbuf_printf(&key, ";rank=%u", spec->rank);
    if (config->partition == CLS_PARTITION_ISP_WARP) strbuf_printf(&key, ";simd=%u", config->simd_width);
    if (config->rows > 1) strbuf_printf(&key, ";rows=%u", config->rows);
    if (config->cols > 1) strbuf_printf(&key, ";cols=%u", config->cols);
    if (cls_volume_block_rows(config) > 1) strbuf_printf(&key, ";block-rows=%u", cls_volume_block_rows(config));
    if (cls_kernel_ahead_rows(config) > 1) strbuf_printf(&key, ";ahead=%u", cls_kernel_ahead_rows(config));
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
        for (unsigned k = 0; k < spec->mask_width * spec->mask_height * cls_mask_depth(spec) * config->masks; ++k)
            strbuf_printf(&key, "%08x", (unsigned)float_bits(config->coefficients[k]));
    } else {
        strbuf_append(&key, spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT ? ";mask-argument" : ";mask-runtime");
    }
    return strbuf_take(&key);
}
