/* volume_passes.c — a separable volume mask as a pass an axis: three volume filters, along x
 * (mask width x 1 x 1, the input type -> a temporary f32 volume), along y (1 x height x 1, f32 ->
 * f32) and along z (1 x 1 x depth, f32 -> the output type), each waiting for the one before. The
 * first two compute the whole volume (the next pass may read any voxel under the border modes),
 * the last the caller's region. */
#include "host.h"

#include "error.h"
#include "strbuf.h"

#include <stdlib.h>

struct cls_volume_passes {
    cls_context *context;
    const cls_filter_calls *calls;
    cls_filter *pass[3];  /* along x, y, z */
    char *source;
    cl_mem temporary[2];  /* packed f32 volumes, grown with the volume */
    size_t temporary_bytes;
};

/* The pass along one axis: the axis's border mode, the spec's storage and types, a mask of `length` values along
 * the axis and 1 along the others. */
static cls_spec pass_spec(const cls_spec *spec, int axis, const float *vector, unsigned length)
{
    cls_spec pass = cls_spec_along(spec, (cls_axis)axis);
    pass.separable = CLS_SEPARABLE_NONE;
    pass.mask_width = axis == 0 ? length : 1;
    pass.mask_height = axis == 1 ? length : 1;
    pass.mask_depth = axis == 2 ? length : 1;
    pass.coefficients = vector;
    pass.rows_per_item = 0; /* each pass's block planned for its own mask */
    pass.cols_per_item = 0;
    if (axis > 0) pass.input_type = CLS_PIXEL_F32;
    if (axis < 2) pass.output_type = CLS_PIXEL_F32;
    return pass;
}

static double sum_of(const float *values, unsigned count)
{
    double sum = 0.0;
    for (unsigned k = 0; k < count; ++k) sum += values[k];
    return sum;
}

static cls_status create_passes(cls_volume_passes *work, const cls_spec *spec, const float *x, const float *y,
                                const float *z)
{
    const float *vectors[3] = {x, y, z};
    const unsigned lengths[3] = {spec->mask_width, spec->mask_height, spec->mask_depth};
    /* Constant mode: a row (slice) outside the volume is all border value k, so each pass's sums
     * of it are k times the vectors' sums so far: the next pass's border value (a minimum or
     * maximum of it is k itself). */
    const int sums = spec->reduction == CLS_REDUCTION_SUM;
    double scale = 1.0;
    cls_status status = CLS_OK;
    for (int axis = 0; status == CLS_OK && axis < 3; ++axis) {
        cls_spec pass = pass_spec(spec, axis, vectors[axis], lengths[axis]);
        pass.border_value = (float)(spec->border_value * scale);
        if (sums) scale *= sum_of(vectors[axis], lengths[axis]);
        status = work->calls->create(work->context, &pass, &work->pass[axis]);
    }
    return status;
}

static cls_status join_sources(cls_volume_passes *work)
{
    static const char *const names[3] = {"x", "y", "z"};
    strbuf text;
    strbuf_init(&text);
    for (int axis = 0; axis < 3; ++axis) {
        if (axis) strbuf_printf(&text, "\n/* ---- separable volume: the pass along %s, after the one above ---- */\n\n",
                                names[axis]);
        strbuf_append(&text, work->calls->source(work->pass[axis]));
    }
    work->source = strbuf_take(&text);
    return work->source ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory joining the sources");
}

cls_status cls_volume_passes_create(cls_context *context, const cls_filter_calls *calls, const cls_spec *spec,
                                    const float *coefficients, cls_volume_passes **out)
{
    *out = NULL;
    cls_volume_passes *work = calloc(1, sizeof *work);
    float *x = malloc(sizeof(float) * spec->mask_width), *y = malloc(sizeof(float) * spec->mask_height),
          *z = malloc(sizeof(float) * spec->mask_depth);
    cls_status status = work && x && y && z ? CLS_OK : cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK) {
        work->context = context;
        work->calls = calls;
        status = cls_mask_separate3d(coefficients, spec->mask_width, spec->mask_height, spec->mask_depth, x, y, z);
    }
    if (status == CLS_OK) status = create_passes(work, spec, x, y, z);
    if (status == CLS_OK) status = join_sources(work);
    free(x), free(y), free(z);
    if (status != CLS_OK) {
        cls_volume_passes_release(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

void cls_volume_passes_release(cls_volume_passes *work)
{
    if (!work) return;
    for (int axis = 0; axis < 3; ++axis) work->calls->release(work->pass[axis]);
    for (int k = 0; k < 2; ++k)
        if (work->temporary[k]) clReleaseMemObject(work->temporary[k]);
    free(work->source);
    free(work);
}

const char *cls_volume_passes_source(const cls_volume_passes *work) { return work->source; }

/* Grows the two temporary volumes to `bytes` each. */
static cls_status reserve_temporaries(cls_volume_passes *work, size_t bytes)
{
    if (bytes <= work->temporary_bytes) return CLS_OK;
    work->temporary_bytes = 0;
    for (int k = 0; k < 2; ++k) {
        if (work->temporary[k]) clReleaseMemObject(work->temporary[k]); /* freed once launches using it are done */
        cl_int error;
        work->temporary[k] = clCreateBuffer(work->context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
        if (error != CL_SUCCESS) {
            work->temporary[k] = NULL;
            return cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for a temporary volume: %s", bytes,
                            cls_cl_error_name(error));
        }
    }
    work->temporary_bytes = bytes;
    return CLS_OK;
}

/* The launch (cls_work_ops): x after wait_list, y after x, z after y; *event is z's. The filter
 * serializes calls (the temporaries are shared). */
static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *r, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    cls_volume_passes *work = opaque;
    const size_t width = r->geometry.width, height = r->geometry.height, depth = r->depth;
    cls_status status = reserve_temporaries(work, width * height * depth * sizeof(float));
    if (status != CLS_OK) return status;
    /* x reads the caller's input; x and y write whole packed temporaries; z writes the caller's
     * output and region */
    const cls_image_desc along_x = {CLS_IMAGE_DESC_INIT, .width = width, .height = height, .depth = depth,
                                    .input_row_pitch = r->pitch[0], .input_slice_pitch = r->slice_pitch[0],
                                    .input_offset = image->input_offset};
    const cls_image_desc along_y = {CLS_IMAGE_DESC_INIT, .width = width, .height = height, .depth = depth};
    cls_image_desc along_z = *image;
    along_z.input_row_pitch = along_z.input_slice_pitch = along_z.input_offset = 0;
    cl_event done[2] = {NULL, NULL};
    status = work->calls->enqueue(work->pass[0], input, work->temporary[0], &along_x, wait_count, wait_list, &done[0]);
    if (status == CLS_OK)
        status = work->calls->enqueue(work->pass[1], work->temporary[0], work->temporary[1], &along_y, 1, &done[0],
                                      &done[1]);
    if (status == CLS_OK)
        status = work->calls->enqueue(work->pass[2], work->temporary[1], outputs[0], &along_z, 1, &done[1], event);
    for (int k = 0; k < 2; ++k)
        if (done[k]) clReleaseEvent(done[k]);
    return status;
}

static unsigned three_kernels(const void *work)
{
    (void)work;
    return 3;
}

/* The pass along x describes the three. */
static const cls_filter *first_pass(const void *work) { return ((const cls_volume_passes *)work)->pass[0]; }

static void release_work(void *work) { cls_volume_passes_release(work); }

/* The two temporary volumes between the passes. */
static size_t device_bytes(const void *work, size_t width, size_t height, size_t depth)
{
    (void)work;
    return 2 * width * height * depth * sizeof(float);
}

const cls_work_ops cls_volume_passes_ops = {enqueue_work, three_kernels, first_pass, NULL, release_work, 1,
                                            device_bytes};
