/* filter.c — a built local operator: spec checked against the device, source generated and
 * built, and launches with the region bounds computed on the host for each image size. Work of
 * several kernels sits behind one interface (cls_work_ops, host.h) that the filter forwards its
 * launches and questions to: two_pass.c (separable two-pass, two filters in one) and
 * staged_filter.c (an operator body in stages, a filter per stage); image_input.c copies the
 * input into an image; build_goals.c chooses between this specialized creation and a quick
 * kernel, tiered.c swaps one for the other. */
#include "build.h"
#include "staged_filter.h"

#include "error.h"
#include "generator.h"
#include "struct_size.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cls_filter {
    cls_context *context;
    cls_kernel_config config;
    char *source;
    cl_program program;
    cl_kernel kernel;
    cl_mem mask;
    cls_build_info build_info;
    pthread_mutex_t launch_lock; /* clSetKernelArg + enqueue must not interleave; also guards
                                  * image_input and two_pass's temporary image */
    int image_path;              /* the input is read as an image: image_input holds it */
    cls_image_input image_input;
    const cls_work_ops *work_ops; /* work of several kernels (a separable pair, an operator in */
    void *work;                   /* stages) that launches go to, or NULL: the filter's kernel */
    cl_program unaligned_program; /* the kernel with vloadN for launches whose input rows do not */
    cl_kernel unaligned_kernel;   /* start on the aligned-load width; built on first use */
    cls_tier *tier;               /* CLS_BUILD_TIERED: the specialized kernel, building or built,
                                   * which takes over the launches once built */
};

/* The filter whose kernel serves launches: the tier's specialized one once built. */
static const cls_filter *serving(const cls_filter *filter)
{
    const cls_filter *ready = filter ? cls_tier_ready(filter->tier) : NULL;
    return ready ? ready : filter;
}

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

/* The bytes of the coefficients as a kernel argument: every mask. */
static size_t coefficient_bytes(const cls_kernel_config *config)
{
    return sizeof(float) * config->spec.mask_width * config->spec.mask_height * config->masks;
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
    const size_t bytes = coefficient_bytes(config);
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

/* The values of the mask buffer (argument 9): every mask one after another, or for
 * separable single-pass the row then the column. *values is malloc'd. */
static cls_status mask_values(const cls_kernel_config *config, float **values, size_t *count)
{
    const cls_spec *spec = &config->spec;
    const int split = config->separable == CLS_SEPARABLE_SINGLE_PASS;
    *count = split ? (size_t)spec->mask_width + spec->mask_height
                   : (size_t)spec->mask_width * spec->mask_height * config->masks;
    *values = malloc(*count * sizeof(float));
    if (!*values) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (split) {
        memcpy(*values, config->row, spec->mask_width * sizeof(float));
        memcpy(*values + spec->mask_width, config->column, spec->mask_height * sizeof(float));
    } else {
        memcpy(*values, config->coefficients, *count * sizeof(float));
    }
    return CLS_OK;
}

static cls_status create_kernel(cls_filter *filter)
{
    cls_context *context = filter->context;
    const cls_kernel_source kernel = {filter->source, CLS_KERNEL_NAME, cls_kernel_register_cap(&filter->config)};
    cls_status status = cls_program_get(context, &kernel, &filter->program, &filter->build_info);
    if (status != CLS_OK) return status;
    cl_int error;
    filter->kernel = clCreateKernel(filter->program, CLS_KERNEL_NAME, &error);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    float *values = NULL;
    size_t count = 0;
    status = mask_values(&filter->config, &values, &count);
    if (status != CLS_OK) return status;
    filter->mask = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * count,
                                  values, &error);
    free(values);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "cannot create the mask buffer: %s", cls_cl_error_name(error));
    return CLS_OK;
}

/* Separable two-pass: the two filters; the source shown is both of theirs. */
static cls_status create_two_pass(cls_filter *filter)
{
    const cls_kernel_config *config = &filter->config;
    cls_two_pass *two_pass = NULL;
    cls_status status = cls_two_pass_create(filter->context, &config->spec, config->row, config->column, &two_pass);
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

/* Every other variant: one generated kernel. */
static cls_status create_one_kernel(cls_filter *filter)
{
    filter->image_path = filter->config.input_path == CLS_INPUT_IMAGE;
    if (filter->image_path) {
        cls_status status = cls_image_input_check(filter->context, filter->config.spec.input_type);
        if (status != CLS_OK) return status;
    }
    filter->source = cls_emit_source(&filter->config);
    if (!filter->source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
    return create_kernel(filter);
}

cls_status cls_filter_create_by_policy(cls_context *context, const cls_spec *spec, cls_filter **out)
{
    cls_filter *filter = calloc(1, sizeof *filter);
    if (!filter) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    filter->context = context;
    pthread_mutex_init(&filter->launch_lock, NULL);
    const cls_planner planner = cls_context_planner(context);
    cls_status status = cls_plan_policy(&planner, spec, &filter->config);
    if (status == CLS_OK)
        status = check_group_shape(&context->caps, filter->config.group_width, filter->config.group_height);
    if (status == CLS_OK) status = check_local_memory(&context->caps, &filter->config);
    if (status == CLS_OK) status = check_parameter_size(&context->caps, &filter->config);
    if (status == CLS_OK && filter->config.separable == CLS_SEPARABLE_TWO_PASS)
        status = create_two_pass(filter);
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
    cls_tuning choice = {CLS_TUNING_INIT};
    const cls_planner planner = cls_context_planner(context);
    if (cls_plan_choice(&planner, spec, &choice)) {
        /* A tuned choice the spec's own fields make impossible (a local tile grown too large,
         * say) gives way to the policy. */
        const cls_spec chosen = cls_plan_apply(spec, &choice);
        const cls_status status = cls_filter_create_by_policy(context, &chosen, out);
        if (status != CLS_ERR_INVALID_ARGUMENT && status != CLS_ERR_UNSUPPORTED) return status;
    }
    return cls_filter_create_by_policy(context, spec, out);
}

/* A tiered filter's background build, owned by the filter from now on. */
void cls_filter_attach_tier(cls_filter *filter, cls_tier *tier) { filter->tier = tier; }

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
    status = cls_staged_run_create(context, spec, &run);
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
    cls_image_input_release(&filter->image_input);
    if (filter->mask) clReleaseMemObject(filter->mask);
    if (filter->kernel) clReleaseKernel(filter->kernel);
    if (filter->program) clReleaseProgram(filter->program);
    if (filter->unaligned_kernel) clReleaseKernel(filter->unaligned_kernel);
    if (filter->unaligned_program) clReleaseProgram(filter->unaligned_program);
    free(filter->source);
    cls_kernel_config_free(&filter->config);
    pthread_mutex_destroy(&filter->launch_lock);
    free(filter);
}

cls_status cls_filter_build_info(const cls_filter *filter, cls_build_info *info)
{
    if (!filter) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter is NULL");
    return cls_struct_write(&cls_build_info_layout, info, &serving(filter)->build_info);
}

const cls_spec *cls_filter_spec(const cls_filter *filter) { return &filter->config.spec; }

const char *cls_filter_source(const cls_filter *filter) { return filter ? serving(filter)->source : NULL; }

unsigned cls_filter_output_count(const cls_filter *filter)
{
    return filter ? cls_kernel_outputs(&filter->config) : 0;
}

/* The filter whose configuration the accessors report: the serving one, or what its work names
 * (a separable pair's row pass). */
static const cls_filter *describing(const cls_filter *filter)
{
    filter = serving(filter);
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

unsigned cls_filter_kernel_count(const cls_filter *filter)
{
    filter = serving(filter);
    if (!filter) return 0;
    return filter->work_ops ? filter->work_ops->kernel_count(filter->work) : 1;
}

/* A separable pair's configuration says CLS_SEPARABLE_TWO_PASS: it was made for that. */
cls_separable cls_filter_separable(const cls_filter *filter)
{
    filter = serving(filter);
    return filter ? filter->config.separable : CLS_SEPARABLE_AUTO;
}

void cls_filter_group_shape(const cls_filter *filter, unsigned *width, unsigned *height)
{
    filter = describing(filter);
    if (width) *width = filter ? filter->config.group_width : 0;
    if (height) *height = filter ? filter->config.group_height : 0;
}

/* An image description with defaults filled in and every size checked. */
typedef struct resolved_image {
    size_t pitch[2], offset[2]; /* input, output: bytes */
    size_t bytes[2];            /* the buffer bytes each needs */
    cls_launch_geometry geometry;
} resolved_image;

static int multiply_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b && a > (SIZE_MAX - c) / b) return 0;
    *out = a * b + c;
    return 1;
}

cls_status cls_image_desc_read(const cls_image_desc *image, cls_image_desc *copy)
{
    if (!image) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image description is NULL");
    *copy = (cls_image_desc){0};
    return cls_struct_read(&cls_image_desc_layout, image, copy);
}

static cls_status resolve_image(const cls_filter *filter, const cls_image_desc *image, resolved_image *r)
{
    if (image->width == 0 || image->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", image->width, image->height);
    if (image->width > INT_MAX / 2 || image->height > INT_MAX / 2)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is too large (at most %d per side)",
                        image->width, image->height, INT_MAX / 2);
    const cls_spec *spec = &filter->config.spec;
    const size_t sizes[2] = {cls_pixel_size(spec->input_type), cls_pixel_size(spec->output_type)};
    const size_t pitches[2] = {image->input_row_pitch, image->output_row_pitch};
    const size_t offsets[2] = {image->input_offset, image->output_offset};
    static const char *const names[2] = {"input", "output"};
    for (int k = 0; k < 2; ++k) {
        const size_t row = image->width * sizes[k];
        r->pitch[k] = pitches[k] ? pitches[k] : row;
        r->offset[k] = offsets[k];
        if (r->pitch[k] < row)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is smaller than a row (%zu pixels of %zu bytes)",
                            names[k], r->pitch[k], image->width, sizes[k]);
        if (r->pitch[k] % sizes[k] || r->pitch[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s row pitch %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->pitch[k], sizes[k]);
        if (r->offset[k] % sizes[k] || r->offset[k] / sizes[k] > INT_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "%s offset %zu bytes is not a whole number of %zu-byte pixels (or too large)",
                            names[k], r->offset[k], sizes[k]);
        size_t end;
        if (!multiply_add(r->pitch[k], image->height - 1, row, &end) || !multiply_add(1, end, r->offset[k], &r->bytes[k]))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image does not fit in memory addresses", names[k]);
    }
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    cls_launch_geometry *g = &r->geometry;
    g->width = (unsigned)image->width;
    g->height = (unsigned)image->height;
    g->roi_x = whole ? 0 : (unsigned)image->roi_x;
    g->roi_y = whole ? 0 : (unsigned)image->roi_y;
    g->roi_width = whole ? g->width : (unsigned)image->roi_width;
    g->roi_height = whole ? g->height : (unsigned)image->roi_height;
    if (!whole && (image->roi_width == 0 || image->roi_height == 0 || image->roi_x >= image->width ||
                   image->roi_y >= image->height || image->roi_width > image->width - image->roi_x ||
                   image->roi_height > image->height - image->roi_y))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "region of interest %zux%zu at (%zu, %zu) is empty or leaves the %zux%zu image",
                        image->roi_width, image->roi_height, image->roi_x, image->roi_y, image->width,
                        image->height);
    g->mask_width = spec->mask_width;
    g->mask_height = spec->mask_height;
    g->group_width = filter->config.group_width * filter->config.cols; /* the columns a group covers */
    g->group_height = filter->config.group_height * filter->config.rows; /* the rows a group covers */
    return CLS_OK;
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

/* The name of output k in messages: "output" when there is one, else "output k". */
static const char *output_name(unsigned count, unsigned k, char text[24])
{
    if (count == 1) return "output";
    snprintf(text, 24, "output %u", k);
    return text;
}

/* count matches the filter's outputs, and each output buffer holds the image. */
static cls_status check_output_count(const cls_filter *filter, unsigned count, const void *outputs)
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
    cls_status status = check_output_count(filter, count, outputs);
    for (cl_uint k = 0; status == CLS_OK && k < count; ++k) {
        char text[24];
        status = check_buffer(outputs[k], output_name(count, k, text), needed);
    }
    return status;
}

/* Sets every kernel argument of one launch; input is the buffer or the input image. */
static cl_int set_arguments(cls_filter *filter, cl_kernel k, cl_mem input, const cl_mem *outputs,
                            const resolved_image *r, const cls_region_bounds *bounds)
{
    const cls_spec *spec = &filter->config.spec;
    const size_t in_size = cls_pixel_size(spec->input_type), out_size = cls_pixel_size(spec->output_type);
    /* The image path reads the image, not the buffer: offset and pitch are passed but unused. */
    const cl_int in_offset = filter->image_path ? 0 : (cl_int)(r->offset[0] / in_size);
    const cl_int in_pitch = filter->image_path ? 0 : (cl_int)(r->pitch[0] / in_size);
    const cl_int out_offset = (cl_int)(r->offset[1] / out_size), out_pitch = (cl_int)(r->pitch[1] / out_size);
    const cls_launch_geometry *g = &r->geometry;
    const cl_int width = (cl_int)g->width, height = (cl_int)g->height;
    const cl_int4 roi = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                          (cl_int)(g->roi_y + g->roi_height)}};
    const cl_int4 group_bounds = {{bounds->left, bounds->right, bounds->top, bounds->bottom}};
    const cl_int2 body_columns = {{bounds->body_x0, bounds->body_x1}};
    cl_int error = clSetKernelArg(k, CLS_ARGUMENT_INPUT, sizeof input, &input);
    error |= clSetKernelArg(k, CLS_ARGUMENT_INPUT_OFFSET, sizeof in_offset, &in_offset);
    error |= clSetKernelArg(k, CLS_ARGUMENT_INPUT_PITCH, sizeof in_pitch, &in_pitch);
    error |= clSetKernelArg(k, CLS_ARGUMENT_OUTPUT_OFFSET, sizeof out_offset, &out_offset);
    error |= clSetKernelArg(k, CLS_ARGUMENT_OUTPUT_PITCH, sizeof out_pitch, &out_pitch);
    error |= clSetKernelArg(k, CLS_ARGUMENT_WIDTH, sizeof width, &width);
    error |= clSetKernelArg(k, CLS_ARGUMENT_HEIGHT, sizeof height, &height);
    error |= clSetKernelArg(k, CLS_ARGUMENT_ROI, sizeof roi, &roi);
    error |= clSetKernelArg(k, CLS_ARGUMENT_MASK, sizeof filter->mask, &filter->mask);
    error |= clSetKernelArg(k, CLS_ARGUMENT_BORDER_VALUE, sizeof spec->border_value, &spec->border_value);
    error |= clSetKernelArg(k, CLS_ARGUMENT_GROUP_BOUNDS, sizeof group_bounds, &group_bounds);
    error |= clSetKernelArg(k, CLS_ARGUMENT_BODY_COLUMNS, sizeof body_columns, &body_columns);
    for (unsigned m = 0; m < cls_kernel_outputs(&filter->config); ++m)
        error |= clSetKernelArg(k, cls_kernel_output_argument(&filter->config, m), sizeof outputs[m], &outputs[m]);
    if (spec->bake_coefficients == CLS_COEFFICIENTS_ARGUMENT)
        error |= clSetKernelArg(k, cls_kernel_coefficients_argument(&filter->config), coefficient_bytes(&filter->config),
                                filter->config.coefficients);
    return error;
}

/* The kernel of a launch: the filter's, unless it reads its window rows with aligned vector
 * loads and this image's rows do not start on that width (an odd pitch, offset or region of
 * interest); then the same configuration with vloadN, built on first use. Called under the
 * launch lock. */
static cls_status kernel_for(cls_filter *filter, const resolved_image *r, cl_kernel *kernel)
{
    *kernel = filter->kernel;
    const unsigned width = cls_kernel_aligned_loads(&filter->config);
    const size_t pixel = cls_pixel_size(filter->config.spec.input_type);
    const size_t first = r->offset[0] / pixel + r->geometry.roi_x, pitch = r->pitch[0] / pixel;
    if (width < 2 || (first % width == 0 && pitch % width == 0)) return CLS_OK;
    if (!filter->unaligned_kernel) {
        cls_kernel_config config = filter->config; /* shares the owned fields; read only */
        config.unaligned_input = 1;
        char *source = cls_emit_source(&config);
        if (!source) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory generating source");
        cls_build_info info;
        const cls_kernel_source unaligned = {source, CLS_KERNEL_NAME, cls_kernel_register_cap(&config)};
        cls_status status = cls_program_get(filter->context, &unaligned, &filter->unaligned_program, &info);
        free(source);
        if (status != CLS_OK) return status;
        cl_int error;
        filter->unaligned_kernel = clCreateKernel(filter->unaligned_program, CLS_KERNEL_NAME, &error);
        if (error != CL_SUCCESS)
            return cls_fail(CLS_ERR_OPENCL, "clCreateKernel failed: %s", cls_cl_error_name(error));
    }
    *kernel = filter->unaligned_kernel;
    return CLS_OK;
}

/* One kernel launch (after the copy into the input image on the image path). */
static cls_status launch_kernel(cls_filter *filter, cl_mem input, const cl_mem *outputs, const resolved_image *r,
                                cl_uint wait_count, const cl_event *wait_list, cl_event *event)
{
    cls_region_bounds bounds;
    cls_region_bounds_compute(&r->geometry, &bounds);
    const size_t local[2] = {filter->config.group_width, filter->config.group_height};
    const size_t global[2] = {(size_t)bounds.groups_x * local[0], (size_t)bounds.groups_y * local[1]};
    cls_status status = CLS_OK;
    cl_event copied = NULL;
    pthread_mutex_lock(&filter->launch_lock);
    if (filter->image_path) {
        /* The copy takes the caller's wait list; the kernel waits for the copy. */
        status = cls_image_input_load(&filter->image_input, filter->context, filter->config.spec.input_type, input,
                                      r->offset[0], r->pitch[0], r->geometry.width, r->geometry.height, wait_count,
                                      wait_list, &copied);
        input = filter->image_input.image;
        wait_count = 1;
        wait_list = &copied;
    }
    cl_int error = CL_SUCCESS;
    cl_kernel kernel = NULL;
    if (status == CLS_OK) status = kernel_for(filter, r, &kernel);
    if (status == CLS_OK) {
        error = set_arguments(filter, kernel, input, outputs, r, &bounds);
        if (error == CL_SUCCESS)
            error = clEnqueueNDRangeKernel(filter->context->queue, kernel, 2, NULL, global, local,
                                           wait_count, wait_list, event);
        else
            error = CL_INVALID_KERNEL_ARGS;
    }
    pthread_mutex_unlock(&filter->launch_lock);
    if (copied) clReleaseEvent(copied);
    if (status == CLS_OK && error != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "launching the filter failed: %s", cls_cl_error_name(error));
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
    resolved_image r;
    status = resolve_image(filter, image, &r);
    if (status == CLS_OK) status = check_buffer(input, "input", r.bytes[0]);
    if (status == CLS_OK) status = check_outputs(filter, output_count, outputs, r.bytes[1]);
    if (status == CLS_OK && filter->image_path)
        status = cls_image_input_check_size(filter->context, r.geometry.width, r.geometry.height);
    if (status != CLS_OK) return status;
    if (!filter->work_ops) return launch_kernel(filter, input, outputs, &r, wait_count, wait_list, event);
    /* Every kernel of the work under the lock: its temporary images are the filter's. */
    pthread_mutex_lock(&filter->launch_lock);
    status = filter->work_ops->enqueue(filter->work, input, outputs[0], image, wait_count, wait_list, event);
    pthread_mutex_unlock(&filter->launch_lock);
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

/* Whether a launch writes every byte of its output buffers: the whole image, packed rows from
 * the buffer's start, and a border mode that computes every pixel. */
static int writes_every_byte(const cls_filter *filter, const resolved_image *r)
{
    const cls_launch_geometry *g = &r->geometry;
    return filter->config.spec.border != CLS_BORDER_UNDEFINED && g->roi_x == 0 && g->roi_y == 0 &&
           g->roi_width == g->width && g->roi_height == g->height && r->offset[1] == 0 &&
           r->pitch[1] == (size_t)g->width * cls_pixel_size(filter->config.spec.output_type);
}

/* Copies a host run's images into the context's buffers: the input, and the outputs where the
 * launch does not write every byte (pixels and padding it leaves keep the caller's values). */
static cl_int write_host_images(cls_filter *filter, const void *input, unsigned count, void *const *outputs,
                                const resolved_image *r, cl_mem in, const cl_mem *out)
{
    cl_command_queue queue = filter->context->queue;
    cl_int error = clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, r->bytes[0], input, 0, NULL, NULL);
    const int copy_in = !writes_every_byte(serving(filter), r);
    for (unsigned k = 0; copy_in && error == CL_SUCCESS && k < count; ++k)
        error = clEnqueueWriteBuffer(queue, out[k], CL_TRUE, 0, r->bytes[1], outputs[k], 0, NULL, NULL);
    return error;
}

cls_status cls_filter_run_host_outputs(cls_filter *filter, const void *input, unsigned output_count,
                                       void *const *outputs, const cls_image_desc *described)
{
    if (!filter || !input) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter or image pointer is NULL");
    cls_image_desc copy;
    cls_status status = cls_image_desc_read(described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    status = check_output_count(filter, output_count, outputs);
    for (unsigned k = 0; status == CLS_OK && k < output_count; ++k) {
        char text[24];
        if (!outputs[k])
            status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "%s image pointer is NULL", output_name(output_count, k, text));
    }
    resolved_image r;
    if (status == CLS_OK) status = resolve_image(filter, image, &r);
    if (status != CLS_OK) return status;
    cl_mem in = NULL, out[CLS_MAX_MASKS] = {NULL};
    status = cls_host_run_begin(filter->context, r.bytes[0], output_count, r.bytes[1], &in, out);
    if (status != CLS_OK) return status;
    const cl_int written = write_host_images(filter, input, output_count, outputs, &r, in, out);
    if (written != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "copying the images to the device failed: %s", cls_cl_error_name(written));
    if (status == CLS_OK) status = cls_filter_enqueue_outputs(filter, in, output_count, out, image, 0, NULL, NULL);
    for (unsigned k = 0; status == CLS_OK && k < output_count; ++k) {
        cl_int error = clEnqueueReadBuffer(filter->context->queue, out[k], CL_TRUE, 0, r.bytes[1], outputs[k], 0,
                                           NULL, NULL);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
    }
    if (status != CLS_OK) clFinish(filter->context->queue); /* nothing may still use the buffers */
    cls_host_run_end(filter->context);
    return status;
}

cls_status cls_filter_run_host(cls_filter *filter, const void *input, void *output, const cls_image_desc *image)
{
    if (!filter || !input || !output) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "filter or image pointer is NULL");
    const unsigned count = cls_kernel_outputs(&filter->config);
    if (count != 1)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "the filter writes %u outputs (mask count %u): use cls_filter_run_host_outputs",
                        count, filter->config.masks);
    void *const outputs[1] = {output};
    return cls_filter_run_host_outputs(filter, input, 1, outputs, image);
}
