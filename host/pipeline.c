/* pipeline.c — filters chained on the device. Stages alternate between two intermediate
 * buffers that the pipeline owns and grows with the image; each launch waits for the one
 * before it, so the host never sees the images in between. A stage with the undefined border
 * can only be the last: it leaves its border pixels unwritten, and a stage after it would read
 * them. */
#include "host.h"

#include "error.h"
#include "generator.h"

#include <stdlib.h>
#include <string.h>

struct cls_pipeline {
    cls_context *context;
    size_t count, capacity;
    cls_filter **stages;
    cl_mem temporary[2];
    size_t temporary_bytes;
};

cls_status cls_pipeline_create(cls_context *context, cls_pipeline **out)
{
    if (!context || !out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context or output pointer is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    (*out)->context = context;
    return CLS_OK;
}

void cls_pipeline_release(cls_pipeline *pipeline)
{
    if (!pipeline) return;
    for (size_t i = 0; i < pipeline->count; ++i) cls_filter_release(pipeline->stages[i]);
    for (int k = 0; k < 2; ++k)
        if (pipeline->temporary[k]) clReleaseMemObject(pipeline->temporary[k]);
    free(pipeline->stages);
    free(pipeline);
}

cls_status cls_pipeline_add(cls_pipeline *pipeline, const cls_spec *caller_spec)
{
    if (!pipeline || !caller_spec) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline or spec is NULL");
    cls_spec copy;
    cls_status status = cls_spec_read(caller_spec, &copy);
    if (status != CLS_OK) return status;
    const cls_spec *spec = &copy;
    if (pipeline->count) {
        const cls_spec *last = cls_filter_spec(pipeline->stages[pipeline->count - 1]);
        if (last->border == CLS_BORDER_UNDEFINED)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                            "stage %zu has the undefined border, which leaves its border pixels unwritten, and "
                            "stage %zu would read them: only the last stage may use the undefined border",
                            pipeline->count, pipeline->count + 1);
        if (last->output_type != spec->input_type)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "stage %zu reads %s but the stage before writes %s",
                            pipeline->count + 1, cls_pixel_type_name(spec->input_type),
                            cls_pixel_type_name(last->output_type));
    }
    if (pipeline->count == pipeline->capacity) {
        const size_t capacity = pipeline->capacity ? 2 * pipeline->capacity : 4;
        cls_filter **stages = realloc(pipeline->stages, capacity * sizeof *stages);
        if (!stages) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
        pipeline->stages = stages;
        pipeline->capacity = capacity;
    }
    cls_filter *filter = NULL;
    status = cls_filter_create(pipeline->context, spec, &filter);
    if (status != CLS_OK) return status;
    /* A stage hands one image to the next: several outputs have nowhere to go. */
    if (cls_filter_output_count(filter) > 1) {
        status = cls_fail(CLS_ERR_INVALID_ARGUMENT,
                          "stage %zu writes %u outputs (one per mask, no epilogue); a pipeline stage writes "
                          "one: add an epilogue that combines them, or run the filter alone",
                          pipeline->count + 1, cls_filter_output_count(filter));
        cls_filter_release(filter);
        return status;
    }
    pipeline->stages[pipeline->count++] = filter;
    return CLS_OK;
}

cls_status cls_pipeline_add_night(cls_pipeline *pipeline, cls_border border, cls_pixel_type input_type,
                                  cls_pixel_type output_type)
{
    const int integer = input_type == output_type && input_type != CLS_PIXEL_F32 && input_type != CLS_PIXEL_F16;
    const char *const stages[] = {"atrous:1", "atrous:2", "atrous:4", "atrous:8",
                                  !integer ? "tonemap" : input_type == CLS_PIXEL_U8 ? "tonemap:255" : "tonemap:65535"};
    const size_t count = sizeof stages / sizeof stages[0];
    cls_status status = CLS_OK;
    for (size_t i = 0; status == CLS_OK && i < count; ++i) {
        cls_operator *op = NULL;
        status = cls_operator_parse(stages[i], &op);
        if (status != CLS_OK) break;
        cls_spec spec = *cls_operator_spec(op);
        spec.border = border;
        spec.input_type = i == 0 ? input_type : CLS_PIXEL_F32;
        spec.output_type = i + 1 == count ? output_type : CLS_PIXEL_F32;
        status = cls_pipeline_add(pipeline, &spec);
        cls_operator_release(op);
    }
    return status;
}

size_t cls_pipeline_stage_count(const cls_pipeline *pipeline) { return pipeline ? pipeline->count : 0; }

cls_filter *cls_pipeline_stage(const cls_pipeline *pipeline, size_t index)
{
    return pipeline && index < pipeline->count ? pipeline->stages[index] : NULL;
}

void cls_pipeline_reach(const cls_pipeline *pipeline, unsigned *x, unsigned *y)
{
    unsigned reach_x = 0, reach_y = 0;
    for (size_t i = 0; pipeline && i < pipeline->count; ++i) {
        const cls_spec *spec = cls_filter_spec(pipeline->stages[i]);
        reach_x += spec->mask_width / 2;
        reach_y += spec->mask_height / 2;
    }
    if (x) *x = reach_x;
    if (y) *y = reach_y;
}

/* Grows the two intermediate buffers to hold a whole f32 (or narrower) image. */
static cls_status reserve_temporaries(cls_pipeline *pipeline, size_t bytes)
{
    if (bytes <= pipeline->temporary_bytes) return CLS_OK;
    for (int k = 0; k < 2; ++k) {
        if (pipeline->temporary[k]) clReleaseMemObject(pipeline->temporary[k]);
        cl_int error;
        pipeline->temporary[k] = clCreateBuffer(pipeline->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS) {
            pipeline->temporary[k] = NULL;
            pipeline->temporary_bytes = 0;
            return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for a pipeline's intermediate image: %s",
                            bytes, cls_cl_error_name(error));
        }
    }
    pipeline->temporary_bytes = bytes;
    return CLS_OK;
}

cls_status cls_pipeline_enqueue(cls_pipeline *pipeline, cl_mem input, cl_mem output, const cls_image_desc *described,
                                cl_uint wait_count, const cl_event *wait_list, cl_event *event,
                                cl_event *stage_events)
{
    if (!pipeline || !described) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline or image description is NULL");
    if (pipeline->count == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the pipeline has no stage");
    cls_image_desc copy;
    cls_status status = cls_image_desc_read(described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    if (pipeline->count > 1) status = reserve_temporaries(pipeline, image->width * image->height * 4);
    cl_event previous = NULL;
    for (size_t i = 0; status == CLS_OK && i < pipeline->count; ++i) {
        const int first = i == 0, last = i + 1 == pipeline->count;
        /* Stages in between read and write whole, packed images. */
        cls_image_desc stage = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height};
        if (first) stage.input_row_pitch = image->input_row_pitch, stage.input_offset = image->input_offset;
        if (last) {
            stage.output_row_pitch = image->output_row_pitch;
            stage.output_offset = image->output_offset;
            stage.roi_x = image->roi_x, stage.roi_y = image->roi_y;
            stage.roi_width = image->roi_width, stage.roi_height = image->roi_height;
        }
        cl_mem from = first ? input : pipeline->temporary[(i - 1) % 2];
        cl_mem to = last ? output : pipeline->temporary[i % 2];
        cl_event done = NULL;
        status = cls_filter_enqueue(pipeline->stages[i], from, to, &stage, first ? wait_count : 1,
                                    first ? wait_list : &previous, &done);
        if (previous) clReleaseEvent(previous);
        previous = done;
        if (status == CLS_OK && stage_events) {
            clRetainEvent(done);
            stage_events[i] = done;
        }
    }
    if (status == CLS_OK && event) *event = previous;
    else if (previous) clReleaseEvent(previous);
    return status;
}

cls_status cls_pipeline_run_host(cls_pipeline *pipeline, const void *input, void *output,
                                 const cls_image_desc *described)
{
    if (!pipeline || !input || !output || !described || pipeline->count == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "pipeline, images or description missing, or no stage");
    cls_image_desc copy;
    cls_status status = cls_image_desc_read(described, &copy);
    if (status != CLS_OK) return status;
    const cls_image_desc *image = &copy;
    const cls_spec *first = cls_filter_spec(pipeline->stages[0]);
    const cls_spec *last = cls_filter_spec(pipeline->stages[pipeline->count - 1]);
    const size_t in_pixel = cls_pixel_size(first->input_type), out_pixel = cls_pixel_size(last->output_type);
    if (image->width == 0 || image->height == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "image size %zux%zu is empty", image->width, image->height);
    const size_t in_bytes = image->input_offset + (image->input_row_pitch ? image->input_row_pitch : image->width * in_pixel) *
                                                      (image->height - 1) + image->width * in_pixel;
    const size_t out_bytes = image->output_offset + (image->output_row_pitch ? image->output_row_pitch : image->width * out_pixel) *
                                                        (image->height - 1) + image->width * out_pixel;
    cl_mem in = NULL, out = NULL;
    status = cls_host_run_begin(pipeline->context, in_bytes, 1, out_bytes, &in, &out);
    if (status != CLS_OK) return status;
    cl_command_queue queue = pipeline->context->queue;
    /* the output too: pixels and padding the last stage does not write keep the caller's values */
    cl_int error = clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, in_bytes, input, 0, NULL, NULL);
    if (error == CL_SUCCESS) error = clEnqueueWriteBuffer(queue, out, CL_TRUE, 0, out_bytes, output, 0, NULL, NULL);
    if (error != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "copying the images to the device failed: %s", cls_cl_error_name(error));
    cl_event done = NULL;
    if (status == CLS_OK) status = cls_pipeline_enqueue(pipeline, in, out, image, 0, NULL, &done, NULL);
    if (status == CLS_OK) {
        error = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, out_bytes, output, 1, &done, NULL);
        if (error != CL_SUCCESS) status = cls_fail(CLS_ERR_OPENCL, "reading the result failed: %s", cls_cl_error_name(error));
    }
    if (done) clReleaseEvent(done);
    if (status != CLS_OK) clFinish(queue); /* nothing may still use the buffers */
    cls_host_run_end(pipeline->context);
    return status;
}
