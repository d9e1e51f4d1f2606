/* config.c — a validated spec with `auto` resolved, and its canonical key. */
#include "generator.h"

#include "error.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cls_status cls_kernel_config_init(cls_kernel_config *config, const cls_spec *spec,
                                  unsigned simd_width, unsigned default_group_width,
                                  unsigned default_group_height)
{
    memset(config, 0, sizeof *config);
    cls_status status = cls_spec_validate(spec);
    if (status != CLS_OK) return status;
    const size_t taps = (size_t)spec->mask_width * spec->mask_height;
    config->coefficients = malloc(taps * sizeof(float));
    if (!config->coefficients) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the mask");
    for (size_t k = 0; k < taps; ++k) /* -0 and +0 give the same kernel */
        config->coefficients[k] = spec->coefficients[k] == 0.0f ? 0.0f : spec->coefficients[k];
    if (spec->body && !(config->body = strdup(spec->body))) {
        cls_kernel_config_free(config);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the operator body");
    }
    config->spec = *spec;
    config->spec.coefficients = config->coefficients;
    config->spec.body = config->body;
    if (spec->border != CLS_BORDER_CONSTANT) config->spec.border_value = 0.0f;
    config->partition =
        spec->partition == CLS_PARTITION_AUTO ? CLS_PARTITION_ISP_BLOCK : spec->partition;
    config->group_width = spec->group_width ? spec->group_width
                          : default_group_width ? default_group_width : CLS_FALLBACK_GROUP_WIDTH;
    config->group_height = spec->group_height ? spec->group_height
                           : default_group_height ? default_group_height : CLS_FALLBACK_GROUP_HEIGHT;
    config->simd_width = simd_width ? simd_width : CLS_FALLBACK_SIMD_WIDTH;
    config->rows = spec->rows_per_item ? spec->rows_per_item : 1;
    config->spec.rows_per_item = config->rows;
    config->spec.partition = config->partition;
    config->spec.group_width = config->group_width;
    config->spec.group_height = config->group_height;
    return CLS_OK;
}

void cls_kernel_config_free(cls_kernel_config *config)
{
    free(config->coefficients);
    free(config->body);
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
    if (spec->body) strbuf_printf(&key, ";body=%zu:%s", strlen(spec->body), spec->body);
    if (spec->bake_coefficients) {
        strbuf_append(&key, ";mask-baked=");
        for (unsigned k = 0; k < spec->mask_width * spec->mask_height; ++k)
            strbuf_printf(&key, "%08x", (unsigned)float_bits(config->coefficients[k]));
    } else {
        strbuf_append(&key, ";mask-runtime");
    }
    return strbuf_take(&key);
}
