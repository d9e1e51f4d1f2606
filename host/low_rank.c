/* low_rank.c — the low-rank separable variant (cls_work_ops, host.h): a mask of rank r, 2 to
 * CLS_LOW_RANK_MAX, as r separable pairs (two_pass.c), each into an f32 image of its own, then
 * one element-wise kernel that adds them into the output's type. */
#include "build.h"

#include "elementwise_kernel.h"
#include "error.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

struct cls_low_rank {
    cls_context *context;
    unsigned rank;
    cls_pixel_type output_type;
    cls_two_pass *pairs[CLS_LOW_RANK_MAX];
    cl_program program;
    cl_kernel sum;
    cl_mem terms[CLS_LOW_RANK_MAX]; /* width x height f32 each, packed; grown with the image */
    size_t term_bytes;
    char *source;
};

static void release_work(void *opaque)
{
    cls_low_rank *work = opaque;
    if (!work) return;
    for (unsigned k = 0; k < work->rank; ++k) {
        cls_two_pass_release(work->pairs[k]);
        if (work->terms[k]) clReleaseMemObject(work->terms[k]);
    }
    if (work->sum) clReleaseKernel(work->sum);
    if (work->program) clReleaseProgram(work->program);
    free(work->source);
    free(work);
}

/* The kernel that adds the terms: "t0 + t1 + ...", f32 operands, the output's type. */
static cls_status create_sum(cls_low_rank *work, cls_pixel_type output_type, cls_build_info *info)
{
    static const char *const names[CLS_LOW_RANK_MAX] = {"t0", "t1", "t2", "t3"};
    static const cls_pixel_type types[CLS_LOW_RANK_MAX] = {CLS_PIXEL_F32, CLS_PIXEL_F32, CLS_PIXEL_F32,
                                                           CLS_PIXEL_F32};
    char expression[32] = "t0";
    for (unsigned k = 1; k < work->rank; ++k) strcat(expression, k == 1 ? " + t1" : k == 2 ? " + t2" : " + t3");
    char *source = NULL;
    cls_status status = cls_elementwise_build(work->context, expression, names, types, work->rank, output_type,
                                              &work->program, &work->sum, &source, info);
    if (!source) return status;
    /* every pair's sources, then the sum's */
    strbuf text;
    strbuf_init(&text);
    for (unsigned k = 0; k < work->rank; ++k)
        strbuf_printf(&text, "/* ---- separable low-rank: term %u of %u, a row and a column pass ---- */\n\n%s\n", k + 1,
                      work->rank, cls_two_pass_source(work->pairs[k]));
    strbuf_printf(&text, "/* ---- separable low-rank: the terms' sum ---- */\n\n%s", source);
    free(source);
    work->source = strbuf_take(&text);
    if (status == CLS_OK && !work->source) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory joining the sources");
    return status;
}

cls_status cls_low_rank_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                               const float *rows, const float *columns, unsigned rank, cls_low_rank **out,
                               cls_build_info *info)
{
    *out = NULL;
    cls_low_rank *work = calloc(1, sizeof *work);
    if (!work) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    work->context = context;
    work->rank = rank;
    work->output_type = spec->output_type;
    cls_spec term = *spec; /* each term: a separable pair into an f32 image */
    term.separable = CLS_SEPARABLE_TWO_PASS;
    term.output_type = CLS_PIXEL_F32;
    cls_status status = CLS_OK;
    for (unsigned k = 0; k < rank && status == CLS_OK; ++k)
        status = cls_two_pass_create(context, calls, &term, rows + (size_t)k * spec->mask_width,
                                     columns + (size_t)k * spec->mask_height, &work->pairs[k]);
    if (status == CLS_OK) status = create_sum(work, spec->output_type, info);
    if (status != CLS_OK) {
        release_work(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

const char *cls_low_rank_source(const cls_low_rank *low_rank) { return low_rank->source; }

/* Grows the terms' images to `bytes` each. */
static cls_status reserve_terms(cls_low_rank *work, size_t bytes)
{
    if (bytes <= work->term_bytes) return CLS_OK;
    for (unsigned k = 0; k < work->rank; ++k) {
        if (work->terms[k]) clReleaseMemObject(work->terms[k]); /* freed once launches using it are done */
        cl_int error;
        work->terms[k] = clCreateBuffer(work->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS) {
            work->terms[k] = NULL;
            work->term_bytes = 0;
            return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for a low-rank term: %s", bytes,
                            cls_cl_error_name(error));
        }
    }
    work->term_bytes = bytes;
    return CLS_OK;
}

/* The sum of the terms over the region into the output, after the pairs' events. */
static cls_status enqueue_sum(cls_low_rank *work, cl_mem output, const cls_resolved_image *r, cl_uint wait_count,
                              const cl_event *wait_list, cl_event *event)
{
    const cls_launch_geometry *g = &r->geometry;
    cls_elementwise_image terms[CLS_LOW_RANK_MAX];
    for (unsigned t = 0; t < work->rank; ++t) terms[t] = (cls_elementwise_image){work->terms[t], 0, 0, CLS_PIXEL_F32};
    const cls_elementwise_image to = {output, r->offset[1], r->pitch[1], work->output_type};
    const cl_int region[4] = {(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                              (cl_int)(g->roi_y + g->roi_height)};
    return cls_elementwise_enqueue(work->context, work->sum, terms, work->rank, &to, g->width, region, wait_count,
                                   wait_list, event, "the low-rank sum");
}

/* The work's launch (cls_work_ops): every pair after wait_list into its term, then the sum;
 * *event (may be NULL) is the sum's. The filter serializes launches (the terms are shared). */
static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *resolved, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    cls_low_rank *work = opaque;
    cls_status status = reserve_terms(work, image->width * image->height * sizeof(float));
    /* each term: the caller's input and region, into a packed f32 image of the image's size */
    const cls_image_desc term_image = {CLS_IMAGE_DESC_INIT, .width = image->width, .height = image->height,
                                       .input_row_pitch = image->input_row_pitch, .input_offset = image->input_offset,
                                       .roi_x = image->roi_x, .roi_y = image->roi_y, .roi_width = image->roi_width,
                                       .roi_height = image->roi_height};
    cl_event done[CLS_LOW_RANK_MAX] = {NULL};
    for (unsigned k = 0; k < work->rank && status == CLS_OK; ++k)
        status = cls_two_pass_ops.enqueue(work->pairs[k], input, 1, &work->terms[k], &term_image, resolved, wait_count,
                                          wait_list, &done[k]);
    if (status == CLS_OK)
        status = enqueue_sum(work, outputs[0], resolved, work->rank, done, event);
    for (unsigned k = 0; k < work->rank; ++k)
        if (done[k]) clReleaseEvent(done[k]);
    return status;
}

/* Two kernels a term, then the sum. */
static unsigned low_rank_kernels(const void *opaque)
{
    const cls_low_rank *work = opaque;
    return 2 * work->rank + 1;
}

/* The terms' images, one a pair. */
static size_t device_bytes(const void *work, size_t width, size_t height, size_t depth)
{
    (void)depth;
    return ((const cls_low_rank *)work)->rank * width * height * sizeof(float);
}

const cls_work_ops cls_low_rank_ops = {enqueue_work, low_rank_kernels, NULL, NULL, release_work, 1, device_bytes};
