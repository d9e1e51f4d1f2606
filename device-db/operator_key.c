/* operator_key.c — what names an operator in the tuning database: an explicit description of
 * everything the tuner does not choose (mask, coefficients, border, pixel types, body), written
 * field by field and prefixed by its format, and the hash of that text, which names the
 * operator's sections in tuning files. The description does not follow the generator's kernel
 * key, so a change of the generated code leaves tuning results found; a change of the
 * description's fields raises CLS_TUNING_KEY_FORMAT, and results of another format are reported
 * as stale instead of silently missed. */
#include "tuning.h"

#include "error.h"
#include "generator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static unsigned float_bits(float value)
{
    unsigned bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static const char *coefficients_name(int bake)
{
    return bake == CLS_COEFFICIENTS_LITERALS ? "literals" : bake == CLS_COEFFICIENTS_ARGUMENT ? "argument" : "runtime";
}

/* The fields that make the operator (VALUES: every mask's coefficients, -0 as +0). */
static void describe(strbuf *out, const cls_spec *s, unsigned masks, const float *values)
{
    const cls_separable separable = s->separable == CLS_SEPARABLE_AUTO ? CLS_SEPARABLE_NONE : s->separable;
    strbuf_printf(out, "operator-v%d;mask=%ux%u;masks=%u;border=%s", CLS_TUNING_KEY_FORMAT, s->mask_width,
                  s->mask_height, masks, cls_border_name(s->border));
    if (cls_spec_is_volume(s)) strbuf_printf(out, ";depth=%u", s->mask_depth);
    if (s->reduction != CLS_REDUCTION_SUM) strbuf_printf(out, ";reduction=%d", (int)s->reduction);
    if (s->border == CLS_BORDER_CONSTANT) strbuf_printf(out, ";value=%08x", float_bits(s->border_value));
    strbuf_printf(out, ";in=%s;out=%s;separable=%s;coefficients=%s", cls_pixel_type_name(s->input_type),
                  cls_pixel_type_name(s->output_type), cls_separable_name(separable),
                  coefficients_name(s->bake_coefficients));
    if (s->bake_coefficients == CLS_COEFFICIENTS_LITERALS) {
        strbuf_append(out, s->fold_equal_taps ? ";folded;values=" : ";values=");
        for (unsigned k = 0; k < s->mask_width * s->mask_height * cls_mask_depth(s) * masks; ++k)
            strbuf_printf(out, "%08x", float_bits(values[k]));
    }
    if (s->region_code != CLS_REGION_CODE_AUTO) strbuf_printf(out, ";region-code=%d", (int)s->region_code);
    if (s->body) strbuf_printf(out, ";body=%zu:%s", strlen(s->body), s->body);
    if (s->epilogue) strbuf_printf(out, ";epilogue=%zu:%s", strlen(s->epilogue), s->epilogue);
}

cls_status cls_operator_description(const cls_spec *spec, char **out)
{
    *out = NULL;
    cls_status status = cls_spec_validate(spec);
    if (status != CLS_OK) return status;
    const unsigned masks = spec->mask_count ? spec->mask_count : 1;
    float *values = cls_spec_mask_values(spec, masks);
    if (!values) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    strbuf text;
    strbuf_init(&text);
    describe(&text, spec, masks, values);
    free(values);
    if (!(*out = strbuf_take(&text))) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    return CLS_OK;
}

/* HASH of a description (freed here; NULL: out of memory). */
static cls_status hash_description(char *description, char hash[17])
{
    if (!description) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(hash, 17, "%016llx", (unsigned long long)XXH3_64bits(description, strlen(description)));
    free(description);
    return CLS_OK;
}

cls_status cls_operator_hash(const cls_spec *spec, char hash[17])
{
    char *description = NULL;
    const cls_status status = cls_operator_description(spec, &description);
    return status == CLS_OK ? hash_description(description, hash) : status;
}

cls_status cls_operator_hash_of(const cls_spec *valid, unsigned masks, const float *values, char hash[17])
{
    strbuf text;
    strbuf_init(&text);
    describe(&text, valid, masks, values);
    return hash_description(strbuf_take(&text), hash);
}

void cls_isp_calibration_hash(cls_border border, char hash[17])
{
    char key[64];
    snprintf(key, sizeof key, "isp-calibration %s", cls_border_name(border));
    snprintf(hash, 17, "%016llx", (unsigned long long)XXH3_64bits(key, strlen(key)));
}
