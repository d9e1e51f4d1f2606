/* two_pass.c — the separable two-pass variant: not one kernel but two ordinary filters, a row
 * pass (mask width x 1, input type -> a temporary f32 image) and a column pass (1 x mask height,
 * temporary -> output type), the second waiting for the first. */
#include "host.h"

#include "error.h"
#include "strbuf.h"

#include <stdlib.h>

struct cls_two_pass {
    cls_context *context;
    const cls_filter_calls *calls;
    cls_filter *pass[2]; /* row pass, column pass */
    char *source;
    cl_mem temporary;    /* width x height f32, packed; grown with the image */
    size_t temporary_bytes;
};

/* What the two passes share with the two-pass spec: partition, work-group shape, coarsening,
 * input path, mask storage; each borders by its axis's mode. */
static cls_spec pass_spec(const cls_spec *spec)
{
    cls_spec pass = *spec;
    pass.separable = CLS_SEPARABLE_NONE;
    pass.row_coefficients = pass.column_coefficients = NULL;
    pass.mask_count = 1;
    pass.epilogue = NULL;
    pass.body = NULL;
    return pass;
}

static cls_status create_passes(cls_two_pass *two_pass, const cls_spec *spec, const float *row,
                                const float *column)
{
    const cls_spec common = pass_spec(spec);
    cls_spec row_spec = cls_spec_along(&common, CLS_AXIS_X);
    row_spec.mask_height = 1;
    row_spec.coefficients = row;
    row_spec.output_type = CLS_PIXEL_F32;
    cls_status status = two_pass->calls->create(two_pass->context, &row_spec, &two_pass->pass[0]);
    if (status != CLS_OK) return status;

    cls_spec column_spec = cls_spec_along(&common, CLS_AXIS_Y);
    column_spec.mask_width = 1;
    column_spec.coefficients = column;
    column_spec.input_type = CLS_PIXEL_F32;
    /* Constant mode: in the 2-D definition a row outside the image is all border value k, so
     * its row sum is k * sum(row) for every tap of the column; the row pass never produces
     * such rows, so the column pass must supply them as its border value. (Pixels outside on
     * the left or right of an inside row are the row pass's business: it uses k itself.) */
    if (cls_spec_border_on(spec, CLS_AXIS_Y) == CLS_BORDER_CONSTANT) {
        double row_sum = 0.0;
        for (unsigned i = 0; i < spec->mask_width; ++i) row_sum += row[i];
        column_spec.border_value = (float)(spec->border_value * row_sum);
    }
    return two_pass->calls->create(two_pass->context, &column_spec, &two_pass->pass[1]);
}

/* The two sources, the row pass first, with a comment line between. */
static cls_status join_sources(cls_two_pass *two_pass)
{
    strbuf text;
    strbuf_init(&text);
    strbuf_append(&text, two_pass->calls->source(two_pass->pass[0]));
    strbuf_append(&text, "\n/* ---- separable two-pass: the column pass, run after the row pass above ---- */\n\n");
    strbuf_append(&text, two_pass->calls->source(two_pass->pass[1]));
    two_pass->source = strbuf_take(&text);
    return two_pass->source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory joining the sources");
}

cls_status cls_two_pass_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                               const float *row, const float *column, cls_two_pass **out)
{
    *out = NULL;
    cls_two_pass *two_pass = calloc(1, sizeof *two_pass);
    if (!two_pass) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    two_pass->context = context;
    two_pass->calls = calls;
    cls_status status = create_passes(two_pass, spec, row, column);
    if (status == CLS_OK) status = join_sources(two_pass);
    if (status != CLS_OK) {
        cls_two_pass_release(two_pass);
        return status;
    }
    *out = two_pass;
    return CLS_OK;
}

void cls_two_pass_release(cls_two_pass *two_pass)
{
    if (!two_pass) return;
    two_pass->calls->release(two_pass->pass[0]);
    two_pass->calls->release(two_pass->pass[1]);
    if (two_pass->temporary) clReleaseMemObject(two_pass->temporary);
    free(two_pass->source);
    free(two_pass);
}

const char *cls_two_pass_source(const cls_two_pass *two_pass) { return two_pass->source; }

cls_filter *cls_two_pass_filter(const cls_two_pass *two_pass, int pass) { return two_pass->pass[pass ? 1 : 0]; }

/* Grows the temporary image to `bytes`. */
static cls_status reserve_temporary(cls_two_pass *two_pass, size_t bytes)
{
    if (bytes <= two_pass->temporary_bytes) return CLS_OK;
    if (two_pass->temporary) clReleaseMemObject(two_pass->temporary); /* freed once launches using it are done */
    cl_int error;
    two_pass->temporary = clCreateBuffer(two_pass->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
    two_pass->temporary_bytes = error == CL_SUCCESS ? bytes : 0;
    if (error != CL_SUCCESS) {
        two_pass->temporary = NULL;
        return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for the two-pass temporary image: %s", bytes,
                        cls_cl_error_name(error));
    }
    return CLS_OK;
}

/* The work's launch (cls_work_ops): the row pass after wait_list and the column pass after it;
 * *event (may be NULL) is the column pass's. The filter serializes calls (the temporary image is
 * shared). */
static cls_status enqueue_work(void *work, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *resolved, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    (void)resolved;
    cls_two_pass *two_pass = work;
    const cl_mem output = outputs[0];
    cls_status status = reserve_temporary(two_pass, image->width * image->height * sizeof(float));
    if (status != CLS_OK) return status;
    const int whole = image->roi_width == 0 && image->roi_height == 0;
    const size_t roi_x = whole ? 0 : image->roi_x, roi_width = whole ? image->width : image->roi_width;
    /* The row pass computes the region's columns of every row: under repeat or mirror the
     * column pass may read any row. It reads the caller's input and writes the packed temporary. */
    const cls_image_desc row_image = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height,
                                      .input_row_pitch = image->input_row_pitch, .input_offset = image->input_offset,
                                      .roi_x = roi_x, .roi_y = 0, .roi_width = roi_width, .roi_height = image->height};
    /* The column pass reads the packed temporary and writes the caller's output and region. */
    const cls_image_desc column_image = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height,
                                         .output_row_pitch = image->output_row_pitch,
                                         .output_offset = image->output_offset, .roi_x = image->roi_x,
                                         .roi_y = image->roi_y, .roi_width = image->roi_width,
                                         .roi_height = image->roi_height};
    cl_event rows_done = NULL;
    status = two_pass->calls->enqueue(two_pass->pass[0], input, two_pass->temporary, &row_image, wait_count, wait_list,
                                &rows_done);
    if (status == CLS_OK)
        status = two_pass->calls->enqueue(two_pass->pass[1], two_pass->temporary, output, &column_image, 1, &rows_done,
                                    event);
    if (rows_done) clReleaseEvent(rows_done);
    return status;
}

static unsigned two_kernels(const void *work)
{
    (void)work;
    return 2;
}

/* The row pass describes the pair. */
static const cls_filter *row_pass(const void *work) { return cls_two_pass_filter(work, 0); }

static void release_work(void *work) { cls_two_pass_release(work); }

/* The temporary image between the passes. */
static size_t device_bytes(const void *work, size_t width, size_t height, size_t depth)
{
    (void)work;
    (void)depth;
    return width * height * sizeof(float);
}

const cls_work_ops cls_two_pass_ops = {enqueue_work, two_kernels, row_pass, NULL, release_work, 1, device_bytes};
