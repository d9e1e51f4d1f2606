/* generate.c — the public, device-free entry to the generator (cls_generate_source). */
#include "generator.h"

#include "error.h"
#include "fft_kernels.h"
#include "staged_body.h"
#include "strbuf.h"

#include <stdlib.h>

/* The source of one ordinary spec. */
static char *emit_spec(const cls_spec *spec, unsigned simd_width)
{
    cls_kernel_config config;
    if (cls_kernel_config_init(&config, spec, simd_width, NULL) != CLS_OK) return NULL;
    char *source = cls_emit_source(&config);
    cls_kernel_config_free(&config);
    return source;
}

/* A two-pass separable spec: both kernels, the row pass first. */
static char *emit_two_pass(const cls_kernel_config *config, unsigned simd_width)
{
    cls_spec row_pass, column_pass;
    cls_two_pass_specs(config, &row_pass, &column_pass);
    char *first = emit_spec(&row_pass, simd_width), *second = emit_spec(&column_pass, simd_width);
    strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "/* ---- Separable two-pass, pass 1 of 2: the row pass into a temporary f32 image. */\n");
    strbuf_append(&out, first ? first : "");
    strbuf_append(&out, "\n/* ---- Separable two-pass, pass 2 of 2: the column pass into the output. */\n");
    strbuf_append(&out, second ? second : "");
    if (!first || !second) out.failed = 1;
    free(first);
    free(second);
    return strbuf_take(&out);
}

cls_status cls_generate_source(const cls_spec *caller_spec, unsigned simd_width, char **source)
{
    if (!source) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "source pointer is NULL");
    *source = NULL;
    cls_spec copy;
    cls_status status = cls_spec_read(caller_spec, &copy);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &copy;
    if (spec->body && cls_body_is_staged(spec->body)) return cls_staged_source(spec, simd_width, source);
    cls_kernel_config config;
    status = cls_kernel_config_init(&config, spec, simd_width, NULL);
    if (status != CLS_OK) return status;
    if (config.separable == CLS_SEPARABLE_LOW_RANK) {
        cls_kernel_config_free(&config);
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "separable low-rank runs as several two-pass filters and their sum: "
                                                  "create it as a filter (cls_filter_source gives every kernel)");
    }
    *source = config.method == CLS_METHOD_FFT            ? cls_fft_kernels_source(&config.spec)
              : config.separable == CLS_SEPARABLE_TWO_PASS ? emit_two_pass(&config, simd_width)
                                                           : cls_emit_source(&config);
    cls_kernel_config_free(&config);
    return *source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
}
