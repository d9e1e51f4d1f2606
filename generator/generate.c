/* generate.c — the public, device-free entry to the generator (cls_generate_source). */
#include "generator.h"

#include "error.h"

#include <stdlib.h>

cls_status cls_generate_source(const cls_spec *spec, unsigned simd_width, char **source)
{
    if (!source) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "source pointer is NULL");
    *source = NULL;
    cls_kernel_config config;
    cls_status status = cls_kernel_config_init(&config, spec, simd_width, 0, 0);
    if (status != CLS_OK) return status;
    *source = cls_emit_source(&config);
    cls_kernel_config_free(&config);
    return *source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
}
