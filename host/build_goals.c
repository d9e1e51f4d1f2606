/* build_goals.c — cls_filter_create: what a filter's creation optimizes for (cls_build_goal). The
 * fastest kernel is filter.c's specialized creation; the first result tries the specialized
 * kernels already built (on GPUs also with the coefficients as a kernel argument) in a
 * cached-only scope and falls back to a quick kernel with the same arithmetic; tiered adds the
 * background build of tiered.c, of the argument form on GPUs (a mask of rank 1 that the policy
 * separates: the single pass, whose quick kernel is the single pass too). A weighted sum by FFT
 * is built the same way for every goal. */
#include "build.h"
#include "staged_body.h"
#include "staged_filter.h"

#include "error.h"

/* The planner's callback (plan/planner.h): the runtime's answer to "what does this spec's kernel
 * take" is the filter of spec under the policy (cached like any build), and what its build
 * reported. */
static cls_status build_facts(void *runtime, const cls_spec *spec, cls_build_facts *facts)
{
    cls_filter *filter = NULL;
    const cls_status status = cls_filter_create_by_policy(runtime, spec, &filter);
    if (status != CLS_OK) return status;
    cls_build_info info = {CLS_BUILD_INFO_INIT};
    cls_filter_build_info(filter, &info);
    *facts = (cls_build_facts){.registers = info.registers, .local_bytes = (unsigned)info.local_mem_size,
                               .input_path = cls_filter_spec(filter)->input_path};
    cls_filter_outputs_per_item(filter, &facts->rows, &facts->cols);
    cls_filter_group_shape(filter, &facts->group_width, &facts->group_height);
    cls_filter_release(filter);
    return CLS_OK;
}

cls_planner cls_context_planner(const cls_context *context)
{
    cls_planner planner = cls_context_lookup_planner(context);
    planner.build_facts = build_facts;
    planner.runtime = (void *)context;
    return planner;
}

/* The quick kernel of CLS_BUILD_FIRST_RESULT: the same sums in the same order (row by row over
 * the window, each tap's coefficient times its pixel), with the least code to compile: the mask
 * read from its buffer, one output per work-item, the naive partition (one copy of the sum,
 * every tap checking the borders), the global input, and no model probes. A separable single
 * pass reads its row and column from the argument instead: unrolled, its row sums are one
 * expression as in every single pass, where the buffer's loop would add them in another order
 * (PoCL, a 7x7 mask: 67 of 1,961 pixels differed after a tiered swap). A body that runs in
 * lanes keeps them on a record that has them: its vectors give the specialized kernel's bits (a
 * scalar exp2 differs from a vector one in the last place), for little more compile (PoCL,
 * 2048^2, the 13x13 bilateral filter: built in 161 ms instead of 105, run in 142 ms, not 2.24 s). */
static cls_spec quick_spec(const cls_planner *planner, const cls_spec *spec)
{
    cls_spec quick = *spec;
    quick.bake_coefficients =
        spec->separable == CLS_SEPARABLE_SINGLE_PASS ? CLS_COEFFICIENTS_ARGUMENT : CLS_COEFFICIENTS_BUFFER;
    quick.partition = CLS_PARTITION_NAIVE;
    quick.rows_per_item = 1;
    quick.cols_per_item = cls_plan_body_lanes(planner, spec);
    quick.input_path = CLS_INPUT_GLOBAL;
    quick.expected_width = quick.expected_height = 0;
    quick.build_goal = CLS_BUILD_FASTEST_KERNEL;
    return quick;
}

/* Whether the first result and the tiered build take the coefficients as a kernel argument (one
 * build serves every mask of the size, shape and border mode): on GPUs, where the unrolled code
 * reads them as operands at 3-7% over literals (H100, random 9x9 and 13x13, separate regions), for
 * a literal, unfolded weighted sum whose masks fit the argument space. On CPUs (PoCL) the argument
 * ran at half the literals' speed: there the literals are built. */
static int argument_preferred(const cls_context *context, const cls_spec *spec)
{
    const size_t bytes = sizeof(float) * spec->mask_width * spec->mask_height * cls_mask_depth(spec) *
                         (spec->mask_count ? spec->mask_count : 1);
    return context->caps.type == CLS_DEVICE_GPU && spec->bake_coefficients == CLS_COEFFICIENTS_LITERALS &&
           !spec->fold_equal_taps && !spec->body && spec->coefficients &&
           (spec->separable == CLS_SEPARABLE_AUTO || spec->separable == CLS_SEPARABLE_NONE) &&
           cls_argument_fits(&context->caps, bytes);
}

/* Whether spec, its coefficients as an argument, runs as the separable single pass under the
 * policy (on GPUs a mask of rank 1 from the record's single_pass_min_taps). Not a volume's: its
 * coefficients come from the buffer, and its single pass only from the slice's tile, which has no
 * quick form. */
static int argument_separates(const cls_context *context, const cls_spec *spec)
{
    if (cls_spec_is_volume(spec)) return 0;
    cls_spec argument = *spec;
    argument.bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    const cls_planner planner = cls_context_planner(context);
    cls_kernel_config config;
    if (cls_plan_policy(&planner, &argument, &config) != CLS_OK) return 0;
    const int single_pass = config.separable == CLS_SEPARABLE_SINGLE_PASS && config.method == CLS_METHOD_DIRECT;
    cls_kernel_config_free(&config);
    return single_pass;
}

/* spec with the coefficients as an argument, separated so. */
static cls_spec with_argument(const cls_spec *spec, cls_separable separable)
{
    cls_spec argument = *spec;
    argument.bake_coefficients = CLS_COEFFICIENTS_ARGUMENT;
    argument.separable = separable;
    return argument;
}

/* The f32 images of a launch's size that spec's specialized kernel will keep (the policy's form):
 * a separable pair's temporary (a volume's passes two), a low-rank mask's terms. */
static unsigned tier_images(const cls_context *context, const cls_spec *spec)
{
    const cls_planner planner = cls_context_planner(context);
    cls_kernel_config config;
    if (cls_plan_policy(&planner, spec, &config) != CLS_OK) return 0;
    const unsigned images = config.separable == CLS_SEPARABLE_TWO_PASS ? (cls_spec_is_volume(spec) ? 2 : 1)
                            : config.separable == CLS_SEPARABLE_LOW_RANK ? config.rank
                                                                         : 0;
    cls_kernel_config_free(&config);
    return images;
}

/* Starts the tiered build of spec for filter; on failure releases the filter. */
static cls_status start_tier(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    cls_tier *tier = NULL;
    /* On a CPU the build waits for the quick kernel's first launch: PoCL ran them one after the
     * other anyway (2 cores, unsharp 17x17 at 2048^2: the quick kernel 3.1 s beside the build,
     * 0.72 alone, 1.06 beside a build in another process). */
    const int deferred = cls_context_planner(context).caps->type == CLS_DEVICE_CPU;
    const cls_status status = cls_tier_start(context, cls_filter_calls_table(), spec, deferred, &tier);
    if (status == CLS_OK) {
        cls_filter_attach_tier(*out, tier, tier_images(context, spec));
    } else {
        cls_filter_release(*out);
        *out = NULL;
    }
    return status;
}

/* Whether spec runs by FFT on the context's device (its own method, else the record's policy):
 * such a filter builds only its small gather, multiply and scatter kernels (the transforms are
 * planned on the first launch), so every goal takes it at once, and a quick direct kernel would
 * not compute the same sums. */
static int runs_by_fft(cls_context *context, const cls_spec *spec)
{
    if (spec->method != CLS_METHOD_AUTO) return spec->method == CLS_METHOD_FFT;
    if (!cls_queue_in_order(context)) return 0; /* auto stays direct there (filter.c) */
    const cls_planner planner = cls_context_planner(context);
    cls_kernel_config config;
    if (cls_plan_policy(&planner, spec, &config) != CLS_OK) return 0;
    const int fft = config.method == CLS_METHOD_FFT;
    cls_kernel_config_free(&config);
    return fft;
}

cls_status cls_filter_create(cls_context *context, const cls_spec *caller_spec, cls_filter **out)
{
    if (!context || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context or output pointer is NULL");
    *out = NULL;
    cls_spec copy;
    cls_status status = cls_spec_read(caller_spec, &copy);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &copy;
    cl_device_fp_config doubles = 0;
    if (cls_spec_in_double(spec) &&
        (clGetDeviceInfo(context->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof doubles, &doubles, NULL) != CL_SUCCESS ||
         !doubles))
        return cls_fail(CLS_ERR_UNSUPPORTED, "f64 pixels: %s computes no double precision (no cl_khr_fp64)",
                        context->caps.name);
    /* A body in stages is a filter per stage, each created here with the spec's goal. */
    if (spec->body && cls_body_is_staged(spec->body)) return cls_filter_create_staged(context, spec, out);
    /* By FFT: the policy's configuration, not a tuned or modelled direct kernel's. */
    if (runs_by_fft(context, spec)) return cls_filter_create_by_policy(context, spec, out);
    if (spec->build_goal == CLS_BUILD_FASTEST_KERNEL || (spec->bake_coefficients && spec->fold_equal_taps))
        return cls_filter_create_fastest(context, spec, out);
    /* A specialized kernel whose programs are all built already: the spec's own, then on GPUs
     * with the coefficients as an argument (built for another mask of the size). Else the quick
     * kernel. A cached kernel of the policy's configuration (the models' probes missing) serves
     * as well. On GPUs these kernels separate alike, so that their sums round alike: the single
     * pass where the argument form takes it (a mask of rank 1; the spec's own is not taken then,
     * its literal single pass summing a box's row otherwise: emit_staged_rows.c), else the whole
     * window (H200, gaussian:5 summed as a whole window and as row and column sums: 781 of 1,230
     * pixels differed in their last bits). The quick single pass (its row sums through local
     * memory) and the tier's (its input rows staged) give the same bits (H200 and PoCL,
     * test_fast_builds); their times: docs/performance.md, "Builds and the first result". */
    const int argument = argument_preferred(context, spec);
    const cls_separable separable =
        argument && argument_separates(context, spec) ? CLS_SEPARABLE_SINGLE_PASS : CLS_SEPARABLE_NONE;
    cls_spec own = *spec;
    if (argument) own.separable = separable;
    const cls_spec specialized = argument ? with_argument(spec, separable) : *spec;
    const cls_spec candidates[2] = {own, specialized};
    cls_programs_cached_only_begin();
    status = CLS_ERR_UNSUPPORTED;
    for (int k = separable == CLS_SEPARABLE_SINGLE_PASS; k < 2 && status != CLS_OK; ++k)
        status = cls_filter_create_fastest(context, &candidates[k], out);
    if (!cls_programs_cached_only_end() || status == CLS_OK) {
        if (status == CLS_OK) cls_filter_set_decision(*out, "the specialized kernel, built before");
        return status;
    }
    /* AUTO: the specialized kernel now where that is expected to pay (plan/build_goal.c), else
     * as TIERED. */
    char decision[320] = "";
    const cls_planner planner = cls_context_planner(context);
    if (spec->build_goal == CLS_BUILD_AUTO && cls_plan_build_now(&planner, spec, decision, sizeof decision)) {
        status = cls_filter_create_fastest(context, spec, out);
        if (status == CLS_OK) cls_filter_set_decision(*out, decision);
        return status;
    }
    const cls_spec quick = quick_spec(&planner, &own);
    status = cls_filter_create_fastest(context, &quick, out);
    if (status != CLS_OK || spec->build_goal == CLS_BUILD_FIRST_RESULT) return status;
    cls_filter_set_decision(*out, decision[0] ? decision
                                              : "the quick kernel, the specialized one built in the background");
    return start_tier(context, &specialized, out);
}
