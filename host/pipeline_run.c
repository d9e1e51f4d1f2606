/* pipeline_run.c — runs a pipeline's graph (pipeline_graph.h) on the device: every stage in the
 * order it was added, each launch after the one before, the intermediate images in buffers the
 * pipeline owns. An image keeps its buffer from the launch that writes it to the last launch that
 * reads it, then the buffer is free for a later stage (a chain needs two, as before). */
#include "pipeline_graph.h"

#include "elementwise_kernel.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks that every image but the last stage's is read (nothing computed is dropped) and gives
 * each stage but the last a temporary: SLOTS[node] (SIZE_MAX for none), their number in *COUNT. */
static cls_status plan_temporaries(const cls_pipeline *pipeline, size_t *slots, size_t *count)
{
    *count = 0;
    const size_t n = pipeline->count;
    if (n == pipeline->inputs) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline has no stage");
    size_t *last_read = malloc(n * sizeof *last_read);
    int *busy = calloc(n, sizeof *busy);
    if (!last_read || !busy) {
        free(last_read);
        free(busy);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < n; ++i) last_read[i] = SIZE_MAX, slots[i] = SIZE_MAX;
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < pipeline->nodes[i].operand_count; ++k) last_read[pipeline->nodes[i].operands[k]] = i;
    cls_status status = CLS_OK;
    for (size_t i = 0; i + 1 < n && status == CLS_OK; ++i)
        if (last_read[i] == SIZE_MAX)
            status = cls_fail(CLS_ERR_INVALID_ARGUMENT,
                              pipeline->nodes[i].kind == NODE_INPUT
                                  ? "input '%s' is read by no stage of the pipeline"
                                  : "stage '%s' is read by no later stage and is not the last one: its result "
                                    "would be lost",
                              pipeline->nodes[i].name);
    for (size_t i = pipeline->inputs; i + 1 < n && status == CLS_OK; ++i) {
        size_t slot = 0;
        while (busy[slot]) ++slot;
        busy[slot] = 1;
        slots[i] = slot;
        if (slot + 1 > *count) *count = slot + 1;
        /* Its operands' buffers are free once it has read them (launches run in order). */
        for (size_t k = 0; k < pipeline->nodes[i].operand_count; ++k) {
            const size_t read = pipeline->nodes[i].operands[k];
            if (last_read[read] == i && slots[read] != SIZE_MAX) busy[slots[read]] = 0;
        }
    }
    free(last_read);
    free(busy);
    return status;
}

cls_status cls_pipeline_check(const cls_pipeline *pipeline)
{
    if (!pipeline) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline is NULL");
    if (pipeline->count == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline has no stage");
    size_t *slots = malloc(pipeline->count * sizeof *slots), count;
    if (!slots) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    const cls_status status = plan_temporaries(pipeline, slots, &count);
    free(slots);
    return status;
}

size_t cls_pipeline_intermediate_count(const cls_pipeline *pipeline)
{
    if (!pipeline || pipeline->count == 0) return 0;
    size_t *slots = malloc(pipeline->count * sizeof *slots), count = 0;
    if (slots && plan_temporaries(pipeline, slots, &count) != CLS_OK) count = 0;
    free(slots);
    return count;
}

size_t cls_pipeline_device_bytes(const cls_pipeline *pipeline, size_t width, size_t height, size_t depth)
{
    if (!pipeline) return 0;
    depth = depth ? depth : 1;
    size_t bytes = cls_pipeline_intermediate_count(pipeline) * width * height * depth * 4;
    for (size_t k = pipeline->inputs; k < pipeline->count; ++k)
        bytes += cls_filter_device_bytes(pipeline->nodes[k].filter, width, height, depth);
    return bytes;
}

/* COUNT buffers of BYTES each, kept and grown with the images. */
static cls_status reserve_temporaries(cls_pipeline *pipeline, size_t count, size_t bytes)
{
    if (count <= pipeline->temporary_count && bytes <= pipeline->temporary_bytes) return CLS_OK;
    for (size_t k = 0; k < pipeline->temporary_count; ++k) clReleaseMemObject(pipeline->temporaries[k]);
    pipeline->temporary_count = pipeline->temporary_bytes = 0;
    free(pipeline->temporaries);
    pipeline->temporaries = calloc(count, sizeof *pipeline->temporaries);
    if (!pipeline->temporaries) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; k < count; ++k) {
        cl_int error;
        pipeline->temporaries[k] = clCreateBuffer(pipeline->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS) {
            for (size_t j = 0; j < k; ++j) clReleaseMemObject(pipeline->temporaries[j]);
            return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for a pipeline's intermediate image: %s",
                            bytes, cls_cl_error_name(error));
        }
        pipeline->temporary_count = k + 1;
    }
    pipeline->temporary_bytes = bytes;
    return CLS_OK;
}

/* Where a launch finds one image: its buffer, and offset, row and slice pitch in bytes (0:
 * packed). */
typedef struct placed {
    cl_mem buffer;
    size_t offset, pitch, slice_pitch;
} placed;

static placed place(const cls_pipeline *pipeline, size_t node, const size_t *slots, const cl_mem *inputs,
                    const cls_image_desc *image)
{
    if (node < pipeline->inputs)
        return (placed){inputs[node], image->input_offset, image->input_row_pitch, image->input_slice_pitch};
    return (placed){pipeline->temporaries[slots[node]], 0, 0, 0};
}

/* Whether the pipeline's stencil stages are volumes' operators. */
static int runs_volumes(const cls_pipeline *pipeline)
{
    for (size_t k = pipeline->inputs; k < pipeline->count; ++k)
        if (pipeline->nodes[k].kind == NODE_STENCIL) return pipeline->nodes[k].volume;
    return 0;
}

/* The slices of a launch: 1 for an image. */
static size_t slices_of(const cls_image_desc *image) { return image->depth > 1 ? image->depth : 1; }

/* An element-wise stage's launch over ROI (x0, y0, x1, y1) into TO. */
static cls_status enqueue_elementwise(const cls_pipeline *pipeline, const pipeline_node *node, const placed *from,
                                      placed to, const cls_image_desc *image, const cl_int roi[4],
                                      cl_uint wait_count, const cl_event *wait_list, cl_event *event)
{
    cls_elementwise_image operands[CLS_ELEMENTWISE_OPERANDS_MAX];
    for (size_t j = 0; j < node->operand_count; ++j)
        operands[j] = (cls_elementwise_image){from[j].buffer, from[j].offset, from[j].pitch,
                                              pipeline->nodes[node->operands[j]].type};
    const cls_elementwise_image output = {to.buffer, to.offset, to.pitch, node->type};
    char what[96];
    snprintf(what, sizeof what, "element-wise stage '%s'", node->name);
    return cls_elementwise_enqueue(pipeline->context, node->kernel, operands, node->operand_count, &output,
                                   image->width, roi, wait_count, wait_list, event, what);
}

/* Stage node I: reads its operands, writes its temporary or (the last) the output. */
static cls_status enqueue_stage(cls_pipeline *pipeline, size_t i, const size_t *slots, const cl_mem *inputs,
                                cl_mem output, const cls_image_desc *image, cl_uint wait_count,
                                const cl_event *wait_list, cl_event *event)
{
    const pipeline_node *node = &pipeline->nodes[i];
    const int last = i + 1 == pipeline->count;
    placed from[CLS_ELEMENTWISE_OPERANDS_MAX];
    for (size_t k = 0; k < node->operand_count; ++k) from[k] = place(pipeline, node->operands[k], slots, inputs, image);
    const placed to = last ? (placed){output, image->output_offset, image->output_row_pitch, image->output_slice_pitch}
                           : (placed){pipeline->temporaries[slots[i]], 0, 0, 0};
    if (node->kind == NODE_STENCIL) {
        cls_image_desc stage = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height,
                                .input_row_pitch = from[0].pitch, .input_offset = from[0].offset,
                                .output_row_pitch = to.pitch, .output_offset = to.offset,
                                .depth = image->depth, .input_slice_pitch = from[0].slice_pitch,
                                .output_slice_pitch = to.slice_pitch};
        if (last) {
            stage.roi_x = image->roi_x, stage.roi_y = image->roi_y;
            stage.roi_width = image->roi_width, stage.roi_height = image->roi_height;
            stage.roi_z = image->roi_z, stage.roi_depth = image->roi_depth;
        }
        return cls_filter_enqueue(node->filter, from[0].buffer, to.buffer, &stage, wait_count, wait_list, event);
    }
    /* A volume's voxels, element by element: its slices one after another as the rows of one tall
     * image, which needs them packed (a slice pitch of the rows' and no region of slices). */
    const size_t slices = slices_of(image);
    for (size_t k = 0; slices > 1 && k <= node->operand_count; ++k) {
        const placed *p = k < node->operand_count ? &from[k] : &to;
        const size_t row = p->pitch ? p->pitch : image->width * cls_pixel_size(k < node->operand_count
                                                                                   ? pipeline->nodes[node->operands[k]].type
                                                                                   : node->type);
        if (p->slice_pitch && p->slice_pitch != row * image->height)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "element-wise stage '%s' runs on a volume whose slices are packed: "
                            "a slice pitch of %zu bytes is not its %zu rows'", node->name, p->slice_pitch, image->height);
    }
    const int whole = !last || (image->roi_width == 0 && image->roi_height == 0);
    if (slices > 1 && (!whole || (last && (image->roi_depth || image->roi_z))))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "element-wise stage '%s' computes every voxel: no region of interest",
                        node->name);
    cl_int roi[4] = {0, 0, (cl_int)image->width, (cl_int)(image->height * slices)};
    if (!whole) {
        if (image->roi_x + image->roi_width > image->width || image->roi_y + image->roi_height > image->height ||
            !image->roi_width || !image->roi_height)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the region of interest %zux%zu at (%zu, %zu) is empty or "
                                                      "leaves the %zux%zu image", image->roi_width, image->roi_height,
                            image->roi_x, image->roi_y, image->width, image->height);
        roi[0] = (cl_int)image->roi_x, roi[1] = (cl_int)image->roi_y;
        roi[2] = (cl_int)(image->roi_x + image->roi_width), roi[3] = (cl_int)(image->roi_y + image->roi_height);
    }
    return enqueue_elementwise(pipeline, node, from, to, image, roi, wait_count, wait_list, event);
}

/* The launch's description into *copy, checked: the pipeline's number of inputs, an image. */
static cls_status read_launch(const cls_pipeline *pipeline, size_t input_count, const cls_image_desc *described,
                              cls_image_desc *copy)
{
    if (input_count != pipeline->inputs)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline reads %zu input image%s, %zu given", pipeline->inputs,
                        pipeline->inputs == 1 ? "" : "s", input_count);
    const cls_status status = cls_image_desc_read(described, copy);
    if (status != CLS_OK) return status;
    if (copy->width == 0 || copy->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", copy->width, copy->height);
    if (copy->depth > 1 && !runs_volumes(pipeline))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline's stages are 2-D operators: a volume of %zu slices goes "
                        "through volumes' operators (mask_depth)", copy->depth);
    return CLS_OK;
}

cls_status cls_pipeline_enqueue_inputs(cls_pipeline *pipeline, size_t input_count, const cl_mem *inputs,
                                       cl_mem output, const cls_image_desc *described, cl_uint wait_count,
                                       const cl_event *wait_list, cl_event *event, cl_event *stage_events)
{
    if (!pipeline || !described || (input_count && !inputs))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline, inputs or image description is NULL");
    cls_image_desc copy;
    cls_status status = read_launch(pipeline, input_count, described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    size_t *slots = malloc(pipeline->count * sizeof *slots), count = 0;
    if (!slots) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    status = plan_temporaries(pipeline, slots, &count);
    if (status == CLS_OK && count)
        status = reserve_temporaries(pipeline, count, image->width * image->height * slices_of(image) * 4);
    cl_event previous = NULL;
    for (size_t i = pipeline->inputs; status == CLS_OK && i < pipeline->count; ++i) {
        const int first = i == pipeline->inputs;
        cl_event done = NULL;
        status = enqueue_stage(pipeline, i, slots, inputs, output, image, first ? wait_count : 1,
                               first ? wait_list : &previous, &done);
        if (previous) clReleaseEvent(previous);
        previous = done;
        if (status == CLS_OK && stage_events) {
            clRetainEvent(done);
            stage_events[i - pipeline->inputs] = done;
        }
    }
    free(slots);
    if (status == CLS_OK && event) *event = previous;
    else if (previous) clReleaseEvent(previous);
    return status;
}

cls_status cls_pipeline_enqueue(cls_pipeline *pipeline, cl_mem input, cl_mem output, const cls_image_desc *image,
                                cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                                cl_event *stage_events)
{
    return cls_pipeline_enqueue_inputs(pipeline, 1, &input, output, image, wait_count, wait_list, event, stage_events);
}

/* The bytes a host image of TYPE spans under the description's pitches and offset (input or
 * output), every slice of a volume. */
static size_t span(const cls_image_desc *image, cls_pixel_type type, int input)
{
    const size_t pixel = cls_pixel_size(type), row = image->width * pixel;
    const size_t offset = input ? image->input_offset : image->output_offset;
    const size_t pitch = input ? image->input_row_pitch : image->output_row_pitch;
    const size_t slice_pitch = input ? image->input_slice_pitch : image->output_slice_pitch;
    const size_t slice = (pitch ? pitch : row) * (image->height - 1) + row;
    return offset + (slice_pitch ? slice_pitch : (pitch ? pitch : row) * image->height) * (slices_of(image) - 1) + slice;
}

cls_status cls_pipeline_run_host_inputs(cls_pipeline *pipeline, size_t input_count, const void *const *inputs,
                                        void *output, const cls_image_desc *described)
{
    if (!pipeline || !inputs || !output || !described || cls_pipeline_stage_count(pipeline) == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline, images or description missing, or no stage");
    cls_image_desc copy;
    cls_status status = read_launch(pipeline, input_count, described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    for (size_t k = 0; k < input_count; ++k)
        if (!inputs[k]) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "input image %zu is NULL", k);
    /* The context's buffers: the output, then the inputs as far as they go; the rest of the
     * inputs through buffers of this call. */
    const size_t kept = input_count + 1 < CLS_HOST_RUN_BUFFERS ? input_count + 1 : CLS_HOST_RUN_BUFFERS;
    size_t *bytes = malloc((input_count + 1) * sizeof *bytes);
    cl_mem *buffers = calloc(input_count + 1, sizeof *buffers); /* output, inputs */
    if (!bytes || !buffers) {
        free(bytes);
        free(buffers);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    bytes[0] = span(image, pipeline->nodes[pipeline->count - 1].type, 0);
    for (size_t k = 0; k < input_count; ++k) bytes[1 + k] = span(image, pipeline->nodes[k].type, 1);
    status = cls_host_run_reserve(pipeline->context, (unsigned)kept, bytes, buffers);
    if (status != CLS_OK) {
        free(bytes);
        free(buffers);
        return status;
    }
    cl_command_queue queue = pipeline->context->queue;
    cl_int error = CL_SUCCESS;
    for (size_t k = kept; error == CL_SUCCESS && k <= input_count; ++k)
        buffers[k] = clCreateBuffer(pipeline->context->context, CL_MEM_READ_ONLY, bytes[k], NULL, &error);
    /* the output too: pixels and padding the last stage does not write keep the caller's values */
    for (size_t k = 0; error == CL_SUCCESS && k <= input_count; ++k)
        error = clEnqueueWriteBuffer(queue, buffers[k], CL_TRUE, 0, bytes[k], k ? inputs[k - 1] : output, 0, NULL,
                                     NULL);
    if (error != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "copying the images to the device failed: %s", cls_cl_error_name(error));
    cl_event done = NULL;
    if (status == CLS_OK)
        status = cls_pipeline_enqueue_inputs(pipeline, input_count, buffers + 1, buffers[0], image, 0, NULL, &done,
                                             NULL);
    if (status == CLS_OK) {
        error = clEnqueueReadBuffer(queue, buffers[0], CL_TRUE, 0, bytes[0], output, 1, &done, NULL);
        if (error != CL_SUCCESS) status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
    }
    if (done) clReleaseEvent(done);
    if (status != CLS_OK) clFinish(queue); /* nothing may still use the buffers */
    for (size_t k = kept; k <= input_count; ++k)
        if (buffers[k]) clReleaseMemObject(buffers[k]);
    free(bytes);
    free(buffers);
    cls_host_run_end(pipeline->context);
    return status;
}

cls_status cls_pipeline_run_host(cls_pipeline *pipeline, const void *input, void *output, const cls_image_desc *image)
{
    return cls_pipeline_run_host_inputs(pipeline, 1, &input, output, image);
}
