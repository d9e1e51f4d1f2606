/* folded_source.h — the source generated for a spec on a record that folds its border groups
 * fully (PoCL's) or not (GPUs'), for the tests of what the generator writes out. */
#ifndef CLS_TEST_FOLDED_SOURCE_H
#define CLS_TEST_FOLDED_SOURCE_H

#include "generator.h"

/* SPEC's source (32 columns a work-group) with border_groups_fold_fully = FOLD_FULLY; the caller
 * frees it. */
static char *folded_source(const cls_spec *spec, int fold_fully)
{
    cls_generation_limits limits = cls_generation_limits_default();
    limits.border_groups_fold_fully = (unsigned)fold_fully;
    cls_kernel_config config;
    assert_int_equal(cls_kernel_config_init(&config, spec, 32, &limits), CLS_OK);
    char *source = cls_emit_source(&config);
    cls_kernel_config_free(&config);
    assert_non_null(source);
    return source;
}

#endif
