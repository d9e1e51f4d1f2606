/* filter.c — a built local operator: a handle over the work it launches (cls_work_ops, host.h):
 * its own generated kernel (kernel_work.c), a separable pair (two_pass.c) or an operator body in
 * stages (staged_filter.c). The filter checks the spec against the device, chooses and creates
 * the work, resolves and checks every launch's geometry and buffers, forwards the launch and
 * answers for the work (runs on host images: filter_run_host.c); build_goals.c chooses between
 * this specialized creation and a quick kernel, tiered.c swaps one for the other. */
#include "build.h"
#include "fft_kernels.h"
#include "filter_internal.h"
#include "staged_filter.h"

#include "error.h"
#include "generator.h"
#include "struct_size.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const cls_filter *cls_filter_serving(const cls_filter *filter)
{
    const cls_filter *ready = filter ? cls_tier_ready(filter->tier) : NULL;
    return ready ? ready : filter;
}

/* The filter functions the works and the tiered builds are handed (host.h). */
static const cls_filter_calls filter_calls = {cls_filter_create, cls_filter_create_fastest, cls_filter_enqueue,
                                              cls_filter_wait,   cls_filter_source,         cls_filter_release};

const cls_filter_calls *cls_filter_calls_table(void) { return &filter_calls; }

static cls_status check_group_shape(const cls_device_caps *caps, unsigned width, unsigned height)
{
    if ((size_t)width * height > caps->max_work_group_size || width > caps->max_work_item_sizes[0] ||
        height > caps->max_work_item_sizes[1])
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "work-group shape %ux%u exceeds the limits of %s: at most %zu work-items, "
                        "%zu wide and %zu high",
                        width, height, caps->name, caps->max_work_group_size,
                        caps->max_work_item_sizes[0], caps->max_work_item_sizes[1]);
    return CLS_OK;
}

/* A local-memory tile that the device cannot hold is refused before the build (some compilers
 * accept it and fail only at launch). */
static cls_status check_local_memory(const cls_device_caps *caps, const cls_kernel_config *config)
{
    const size_t bytes = cls_kernel_local_bytes(config);
    if (bytes > caps->local_mem_size)
        return cls_fail(CLS_ERR_UNSUPPORTED,
                        "the %ux%u group's local-memory tile needs %zu bytes; %s has %llu: use a smaller "
                        "group, fewer outputs per work-item or the global input path",
                        config->group_width, config->group_height, bytes, caps->name,
                        (unsigned long long)caps->local_mem_size);
    return CLS_OK;
}

/* Bytes the kernel's other arguments may take, at most: pointers, offsets, sizes and vectors. */
enum { OTHER_ARGUMENT_BYTES = 256 };

int cls_argument_fits(const cls_device_caps *caps, size_t coefficient_bytes)
{
    return !caps->max_parameter_size || coefficient_bytes + OTHER_ARGUMENT_BYTES <= caps->max_parameter_size;
}

/* The coefficients as a kernel argument fit the device's argument space. */
static cls_status check_parameter_size(const cls_device_caps *caps, const cls_kernel_config *config)
{
    if (config->spec.bake_coefficients != CLS_COEFFICIENTS_ARGUMENT) return CLS_OK;
    const size_t bytes = cls_kernel_argument_bytes(config);
    if (!cls_argument_fits(caps, bytes))
        return cls_fail(CLS_ERR_UNSUPPORTED,
                        "the %ux%u mask%s as a kernel argument take%s %zu bytes; %s takes %zu bytes of kernel "
                        "arguments in all (the others need up to %d): keep the coefficients as literals or in "
                        "the buffer",
                        config->spec.mask_width, config->spec.mask_height, config->masks > 1 ? "s" : "",
                        config->masks > 1 ? "" : "s", bytes, caps->name, caps->max_parameter_size,
                        OTHER_ARGUMENT_BYTES);
    return CLS_OK;
}

/* The spec of a separable filter's passes (two-pass, low-rank): the resolved one with the caller's
 * rows, columns and group, so that a pass's block of outputs and its group are planned for its own
 * mask where the caller left them to auto: a row and a column want different ones (PoCL, 2048^2:
 * a 13-tap row 2.3 ms at one output a work-item, a 13-tap column 3.1 ms in blocks of 8 rows x 4
 * columns, 15.6 at one output; `log:2` as low-rank pairs 40.0 ms with the resolved spec's one
 * output a work-item, 12.2 so). */
static cls_spec passes_spec(const cls_filter *filter, const cls_spec *caller)
{
    cls_spec passes = filter->config.spec;
    passes.rows_per_item = caller->rows_per_item;
    passes.cols_per_item = caller->cols_per_item;
    passes.group_width = caller->group_width;
    passes.group_height = caller->group_height;
    return passes;
}

/* Separable two-pass: the two filters; the source shown is both of theirs. */
static cls_status create_two_pass(cls_filter *filter, const cls_spec *caller)
{
    const cls_kernel_config *config = &filter->config;
    const cls_spec passes = passes_spec(filter, caller);
    cls_two_pass *two_pass = NULL;
    cls_status status = cls_two_pass_create(filter->context, &filter_calls, &passes, config->row, config->column, &two_pass);
    if (status != CLS_OK) return status;
    filter->work_ops = &cls_two_pass_ops;
    filter->work = two_pass;
    filter->source = strdup(cls_two_pass_source(two_pass));
    if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    /* The build info is the column pass's, the one whose event a launch returns. */
    filter->build_info = (cls_build_info){CLS_BUILD_INFO_INIT};
    cls_filter_build_info(cls_two_pass_filter(two_pass, 1), &filter->build_info);
    return CLS_OK;
}

/* A weighted sum by FFT: its one kernel with the tiles on chip, or its gather, multiply and
 * scatter kernels (the transforms come with the first launch). */
static cls_status create_fft(cls_filter *filter)
{
    int on_chip = 0;
    const cls_status chosen = cls_fft_tile_choice(filter->context, &filter->config.spec, &on_chip);
    if (chosen != CLS_OK) return chosen;
    if (on_chip) {
        filter->source = cls_fft_tile_source(&filter->config);
        if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
        cls_fft_tile_work *work = NULL;
        const cls_status status =
            cls_fft_tile_work_create(filter->context, &filter->config, filter->source, &work, &filter->build_info);
        if (status == CLS_OK) filter->work_ops = &cls_fft_tile_ops, filter->work = work;
        return status;
    }
    filter->source = cls_fft_kernels_source(&filter->config.spec);
    if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    cls_fft_work *work = NULL;
    const cls_status status =
        cls_fft_work_create(filter->context, &filter->config, filter->source, &work, &filter->build_info);
    if (status == CLS_OK) filter->work_ops = &cls_fft_work_ops, filter->work = work;
    return status;
}

/* A low-rank mask: its separable pairs and their sum. */
static cls_status create_low_rank(cls_filter *filter, const cls_spec *caller)
{
    const cls_kernel_config *config = &filter->config;
    const cls_spec passes = passes_spec(filter, caller);
    cls_low_rank *work = NULL;
    const cls_status status = cls_low_rank_create(filter->context, &filter_calls, &passes, config->row, config->column,
                                                  config->rank, &work, &filter->build_info);
    if (status != CLS_OK) return status;
    filter->work_ops = &cls_low_rank_ops;
    filter->work = work;
    filter->source = strdup(cls_low_rank_source(work));
    return filter->source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* A volume's weighted sum: its kernel walking down z. */
static cls_status create_volume(cls_filter *filter)
{
    filter->source = cls_emit_volume_source(&filter->config);
    if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    cls_volume_work *work = NULL;
    const cls_status status =
        cls_volume_work_create(filter->context, &filter->config, filter->source, &work, &filter->build_info);
    if (status == CLS_OK) filter->work_ops = &cls_volume_work_ops, filter->work = work;
    return status;
}

/* A separable volume mask: a pass an axis, each in the group and input path ASKED says, else in
 * its own (the whole mask's kept a tall window's pass from its tile: H200, 512^3 f32, clamp,
 * gaussian3d:21,3.5 3,675 us in the whole mask's 32x4 groups, 1,564 in the passes' own). */
static cls_status create_volume_passes(cls_filter *filter, const cls_spec *asked)
{
    cls_spec passes = filter->config.spec;
    passes.group_width = asked->group_width, passes.group_height = asked->group_height;
    passes.input_path = asked->input_path;
    cls_volume_passes *work = NULL;
    const cls_status status =
        cls_volume_passes_create(filter->context, &filter_calls, &passes, filter->config.coefficients, &work);
    if (status != CLS_OK) return status;
    filter->work_ops = &cls_volume_passes_ops;
    filter->work = work;
    filter->source = strdup(cls_volume_passes_source(work));
    return filter->source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
}

/* Every other variant: one generated kernel. */
static cls_status create_one_kernel(cls_filter *filter)
{
    filter->source = cls_emit_source(&filter->config);
    if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    cls_kernel_work *work = NULL;
    const cls_status status =
        cls_kernel_work_create(filter->context, &filter->config, filter->source, &work, &filter->build_info);
    if (status == CLS_OK) filter->work_ops = &cls_kernel_work_ops, filter->work = work;
    return status;
}

cls_status cls_filter_create_by_policy(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    cls_filter *filter = calloc(1, sizeof *filter);
    if (!filter) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    filter->context = context;
    pthread_mutex_init(&filter->launch_lock, NULL);
    const cls_planner planner = cls_context_planner(context);
    cls_status status = cls_plan_policy(&planner, spec, &filter->config);
    /* auto's FFT needs an in-order queue (VkFFT's kernels follow each other); else direct */
    if (status == CLS_OK && filter->config.method == CLS_METHOD_FFT && spec->method == CLS_METHOD_AUTO &&
        !cls_queue_in_order(context))
        filter->config.method = filter->config.spec.method = CLS_METHOD_DIRECT;
    const int direct = filter->config.method != CLS_METHOD_FFT; /* an FFT has no direct kernel to check */
    if (status == CLS_OK && direct)
        status = check_group_shape(&context->caps, filter->config.group_width, filter->config.group_height);
    if (status == CLS_OK && direct) status = check_local_memory(&context->caps, &filter->config);
    if (status == CLS_OK && direct) status = check_parameter_size(&context->caps, &filter->config);
    if (status == CLS_OK && filter->config.method == CLS_METHOD_FFT)
        status = create_fft(filter);
    else if (status == CLS_OK && filter->config.separable == CLS_SEPARABLE_TWO_PASS && cls_spec_is_volume(&filter->config.spec))
        status = create_volume_passes(filter, spec);
    else if (status == CLS_OK && filter->config.separable == CLS_SEPARABLE_TWO_PASS)
        status = create_two_pass(filter, spec);
    else if (status == CLS_OK && filter->config.separable == CLS_SEPARABLE_LOW_RANK)
        status = create_low_rank(filter, spec);
    else if (status == CLS_OK && cls_spec_is_volume(&filter->config.spec))
        status = create_volume(filter);
    else if (status == CLS_OK)
        status = create_one_kernel(filter);
    if (status != CLS_OK) {
        cls_filter_release(filter);
        return status;
    }
    *out = filter;
    return CLS_OK;
}

cls_status cls_filter_create_fastest(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    /* A tuned or modelled choice that the spec's own fields make impossible (a local tile grown
     * too large, say) or that the cached-only scope refuses gives way to the policy's. */
    const cls_planner planner = cls_context_planner(context);
    cls_spec candidates[2];
    unsigned count = 0;
    cls_status status = cls_plan_candidates(&planner, spec, candidates, &count);
    for (unsigned k = 0; k < count; ++k) {
        status = cls_filter_create_by_policy(context, &candidates[k], out);
        if (status != CLS_ERR_INVALID_ARGUMENT && status != CLS_ERR_UNSUPPORTED) break;
    }
    return status;
}

/* A tiered filter's background build, owned by the filter from now on. */
void cls_filter_attach_tier(cls_filter *filter, cls_tier *tier, unsigned images)
{
    filter->tier = tier;
    filter->tier_images = images;
}

void cls_filter_set_decision(cls_filter *filter, const char *decision)
{
    snprintf(filter->decision, sizeof filter->decision, "%s", decision);
}

const char *cls_filter_build_decision(const cls_filter *filter)
{
    return filter && filter->decision[0] ? filter->decision : NULL;
}

cls_status cls_filter_wait(cls_filter *filter)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    if (filter->work_ops && filter->work_ops->wait) return filter->work_ops->wait(filter->work);
    return cls_tier_wait(filter->tier);
}

cls_status cls_filter_create_staged(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    *out = NULL;
    cls_status status = cls_spec_validate(spec);
    if (status != CLS_OK) return status;
    cls_filter *filter = calloc(1, sizeof *filter);
    if (!filter) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    filter->context = context;
    pthread_mutex_init(&filter->launch_lock, NULL);
    cls_staged_run *run = NULL;
    status = cls_staged_run_create(context, &filter_calls, spec, &run);
    if (status == CLS_OK) filter->work_ops = &cls_staged_run_ops, filter->work = run;
    if (status == CLS_OK && !(filter->source = strdup(cls_staged_run_source(run))))
        status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status != CLS_OK) {
        cls_filter_release(filter);
        return status;
    }
    /* The spec's types and border (what pipelines check), without what its pointers hold; the
     * accessors report the first stage's configuration, the build info the last stage's. */
    const cls_filter *first = cls_staged_run_stage(run, 0);
    filter->config.spec = *spec;
    filter->config.spec.coefficients = filter->config.spec.row_coefficients = NULL;
    filter->config.spec.column_coefficients = NULL;
    filter->config.spec.body = filter->config.spec.epilogue = NULL;
    filter->config.partition = cls_filter_partition(first);
    cls_filter_group_shape(first, &filter->config.group_width, &filter->config.group_height);
    filter->config.rows = filter->config.cols = filter->config.masks = 1;
    filter->config.input_path = CLS_INPUT_GLOBAL;
    filter->config.separable = CLS_SEPARABLE_NONE;
    filter->build_info = (cls_build_info){CLS_BUILD_INFO_INIT};
    cls_filter_build_info(cls_staged_run_stage(run, cls_staged_run_count(run) - 1), &filter->build_info);
    *out = filter;
    return CLS_OK;
}

void cls_filter_release(cls_filter *filter)
{
    if (!filter) return;
    cls_tier_release(filter->tier);
    if (filter->work_ops) filter->work_ops->release(filter->work);
    free(filter->source);
    cls_kernel_config_free(&filter->config);
    pthread_mutex_destroy(&filter->launch_lock);
    free(filter);
}

cls_status cls_filter_build_info(const cls_filter *filter, cls_build_info *info)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    return cls_struct_write(&cls_build_info_layout, info, &cls_filter_serving(filter)->build_info);
}

const cls_spec *cls_filter_spec(const cls_filter *filter) { return &filter->config.spec; }

const char *cls_filter_source(const cls_filter *filter) { return filter ? cls_filter_serving(filter)->source : NULL; }

unsigned cls_filter_output_count(const cls_filter *filter)
{
    return filter ? cls_kernel_outputs(&filter->config) : 0;
}

/* The filter whose configuration the accessors report: the serving one, or what its work names
 * (a separable pair's row pass). */
static const cls_filter *describing(const cls_filter *filter)
{
    filter = cls_filter_serving(filter);
    const cls_filter *named = filter && filter->work_ops && filter->work_ops->describing
                                  ? filter->work_ops->describing(filter->work)
                                  : NULL;
    return named ? named : filter;
}

void cls_filter_outputs_per_item(const cls_filter *filter, unsigned *rows, unsigned *cols)
{
    filter = describing(filter);
    if (rows) *rows = filter ? filter->config.rows : 0;
    if (cols) *cols = filter ? filter->config.cols : 0;
}

cls_partition cls_filter_partition(const cls_filter *filter)
{
    filter = describing(filter);
    return filter ? filter->config.partition : CLS_PARTITION_AUTO;
}

cls_input_path cls_filter_input_path(const cls_filter *filter)
{
    filter = describing(filter);
    return filter ? filter->config.input_path : CLS_INPUT_AUTO;
}

unsigned cls_filter_kernel_count(const cls_filter *filter)
{
    filter = cls_filter_serving(filter);
    if (!filter) return 0;
    return filter->work_ops->kernel_count(filter->work);
}

/* The serving kernel's, and while a tier builds, what its kernel will keep when it takes over. */
size_t cls_filter_device_bytes(const cls_filter *filter, size_t width, size_t height, size_t depth)
{
    depth = depth ? depth : 1;
    const size_t pending = filter ? filter->tier_images * width * height * depth * sizeof(float) : 0;
    filter = cls_filter_serving(filter);
    const size_t serving_bytes = filter && filter->work_ops && filter->work_ops->device_bytes
                                     ? filter->work_ops->device_bytes(filter->work, width, height, depth)
                                     : 0;
    return serving_bytes > pending ? serving_bytes : pending;
}

cls_method cls_filter_method(const cls_filter *filter)
{
    return filter ? filter->config.method : CLS_METHOD_AUTO;
}

/* A separable pair's configuration says CLS_SEPARABLE_TWO_PASS: it was made for that. */
cls_separable cls_filter_separable(const cls_filter *filter)
{
    filter = cls_filter_serving(filter);
    return filter ? filter->config.separable : CLS_SEPARABLE_AUTO;
}

void cls_filter_group_shape(const cls_filter *filter, unsigned *width, unsigned *height)
{
    filter = describing(filter);
    if (width) *width = filter ? filter->config.group_width : 0;
    if (height) *height = filter ? filter->config.group_height : 0;
}

static cls_status check_buffer(cl_mem buffer, const char *name, size_t needed)
{
    if (!buffer) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s buffer is NULL", name);
    size_t size = 0;
    cl_int error = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s is not a valid buffer: %s", name, cls_cl_error_name(error));
    if (size < needed)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s buffer holds %zu bytes; the image needs %zu", name,
                        size, needed);
    return CLS_OK;
}

const char *cls_filter_output_name(unsigned count, unsigned k, char text[24])
{
    if (count == 1) return "output";
    snprintf(text, 24, "output %u", k);
    return text;
}

cls_status cls_filter_check_output_count(const cls_filter *filter, unsigned count, const void *outputs)
{
    const unsigned expected = cls_kernel_outputs(&filter->config);
    if (count != expected)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the filter writes %u output%s (mask count %u%s); %u given",
                        expected, expected == 1 ? "" : "s", filter->config.masks,
                        filter->config.epilogue ? " with an epilogue" : "", count);
    if (!outputs) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the list of outputs is NULL");
    return CLS_OK;
}

static cls_status check_outputs(const cls_filter *filter, cl_uint count, const cl_mem *outputs, size_t needed)
{
    cls_status status = cls_filter_check_output_count(filter, count, outputs);
    for (cl_uint k = 0; status == CLS_OK && k < count; ++k) {
        char text[24];
        status = check_buffer(outputs[k], cls_filter_output_name(count, k, text), needed);
    }
    return status;
}

cls_status cls_filter_enqueue_outputs(cls_filter *filter, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                                      const cls_image_desc *described, cl_uint wait_count, const cl_event *wait_list,
                                      cl_event *event)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    cls_image_desc copy;
    cls_status status = cls_image_desc_read(described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    cls_filter *ready = cls_tier_ready(filter->tier);
    if (ready) return cls_filter_enqueue_outputs(ready, input, output_count, outputs, image, wait_count, wait_list, event);
    cls_resolved_image r;
    status = cls_resolve_image(&filter->config, image, &r);
    if (status == CLS_OK) status = check_buffer(input, "input", r.bytes[0]);
    if (status == CLS_OK) status = check_outputs(filter, output_count, outputs, r.bytes[1]);
    if (status == CLS_OK && filter->config.input_path == CLS_INPUT_IMAGE)
        status = cls_image_input_check_size(filter->context, r.geometry.width, r.geometry.height);
    if (status != CLS_OK) return status;
    const cls_work_ops *ops = filter->work_ops;
    cl_event launch = NULL; /* a deferred tiered build follows the first launch */
    const int followed = cls_tier_awaits_launch(filter->tier);
    if (followed && !event) event = &launch;
    if (ops->serialized) pthread_mutex_lock(&filter->launch_lock); /* the work's temporary images */
    status = ops->enqueue(filter->work, input, output_count, outputs, image, &r, wait_count, wait_list, event);
    if (ops->serialized) pthread_mutex_unlock(&filter->launch_lock);
    if (followed && status == CLS_OK) cls_tier_follow(filter->tier, *event);
    if (launch) clReleaseEvent(launch);
    return status;
}

cls_status cls_filter_enqueue(cls_filter *filter, cl_mem input, cl_mem output, const cls_image_desc *image,
                              cl_uint wait_count, const cl_event *wait_list, cl_event *event)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    const unsigned count = cls_kernel_outputs(&filter->config);
    if (count != 1)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the filter writes %u outputs (mask count %u): use cls_filter_enqueue_outputs",
                        count, filter->config.masks);
    return cls_filter_enqueue_outputs(filter, input, 1, &output, image, wait_count, wait_list, event);
}
