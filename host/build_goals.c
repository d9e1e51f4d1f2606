/* build_goals.c — cls_filter_create: what a filter's creation optimizes for (cls_build_goal). The
 * fastest kernel is filter.c's specialized creation; the first result tries it (and, on GPUs, its
 * form with the coefficients as a kernel argument) with the program cache in a cached-only scope
 * and falls back to a quick kernel with the same arithmetic; tiered adds the background build of
 * tiered.c, of the argument form on GPUs. */
#include "build.h"

#include "error.h"

/* The quick kernel of CLS_BUILD_FIRST_RESULT: the same sums in the same order (row by row over
 * the window, each tap's coefficient times its pixel), with the least code to compile: the mask
 * read from its buffer, one output per work-item, the naive partition (one copy of the sum,
 * every tap checking the borders), the global input, and no model probes. */
static cls_spec quick_spec(const cls_spec *spec)
{
    cls_spec quick = *spec;
    quick.bake_coefficients = 0;
    quick.partition = CLS_PARTITION_NAIVE;
    quick.rows_per_item = quick.cols_per_item = 1;
    quick.input_path = CLS_INPUT_GLOBAL;
    quick.expected_width = quick.expected_height = 0;
    quick.build_goal = CLS_BUILD_FASTEST_KERNEL;
    return quick;
}

/* Whether the first result and the tiered build take the coefficients as a kernel argument (one
 * build serves every mask of the size, shape and border mode): on GPUs, where the unrolled code
 * reads them as operands at 1-4% over literals (H100, random 9x9 and 13x13), for a literal,
 * unfolded weighted sum whose masks fit the argument space. On CPUs (PoCL) the argument ran at
 * half the literals' speed: there the literals are built. */
static int argument_preferred(const cls_context *context, const cls_spec *spec)
{
    const size_t bytes = sizeof(float) * spec->mask_width * spec->mask_height * (spec->mask_count ? spec->mask_count : 1);
    return context->caps.type == CLS_DEVICE_GPU && spec->bake_coefficients == CLS_COEFFICIENTS_LITERALS &&
           !spec->fold_equal_taps && !spec->body && spec->coefficients &&
           (spec->separable == CLS_SEPARABLE_AUTO || spec->separable == CLS_SEPARABLE_NONE) &&
           cls_argument_fits(&context->caps, bytes);
}

/* The specialized kernel of a first result or a tiered build: the coefficients as an argument
 * where preferred, and the regions sharing one copy of the sums unless the spec says otherwise
 * (a build in seconds rather than minutes on NVIDIA, for a kernel 9-23% slower). */
static cls_spec for_first_result(const cls_spec *spec, int argument)
{
    cls_spec specialized = *spec;
    if (argument) {
        specialized.bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
        specialized.separable = CLS_SEPARABLE_NONE;
    }
    if (specialized.region_code == CLS_REGION_CODE_AUTO) specialized.region_code = CLS_REGION_CODE_SHARED;
    return specialized;
}

cls_status cls_filter_create(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    if (!context || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context or output pointer is NULL");
    *out = NULL;
    if (!spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "spec is NULL");
    if (spec->build_goal == CLS_BUILD_FASTEST_KERNEL || (spec->bake_coefficients && spec->fold_equal_taps))
        return cls_filter_create_fastest(context, spec, out);
    /* The specialized kernel when every program it needs is built already: the fastest kernel's,
     * else the one a first result builds (on GPUs with the coefficients as an argument: built for
     * another mask of the size). Else the quick kernel. A cached kernel of the policy's
     * configuration (the models' probes missing) serves as well. */
    const cls_spec specialized = for_first_result(spec, argument_preferred(context, spec));
    cls_programs_cached_only_begin();
    cls_status status = cls_filter_create_fastest(context, spec, out);
    if (status != CLS_OK) status = cls_filter_create_fastest(context, &specialized, out);
    if (!cls_programs_cached_only_end() || status == CLS_OK) return status;
    const cls_spec quick = quick_spec(spec);
    status = cls_filter_create_fastest(context, &quick, out);
    if (status != CLS_OK || spec->build_goal != CLS_BUILD_TIERED) return status;
    cls_tier *tier = NULL;
    status = cls_tier_start(context, &specialized, &tier);
    if (status == CLS_OK) {
        cls_filter_attach_tier(*out, tier);
    } else {
        cls_filter_release(*out);
        *out = NULL;
    }
    return status;
}
