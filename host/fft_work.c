/* fft_work.c — the work of a filter that computes its weighted sum by FFT (cls_work_ops, host.h):
 * the region's outputs (of an image or a volume) in tiles (one tile where the region and the
 * mask's reach fit the largest transform side; overlap-save tiles otherwise), each tile's input
 * gathered through the border mode, transformed, multiplied by the mask's spectrum, transformed
 * back and its valid part written out. Tiles run in chunks that fit the memory budget; the
 * transform plan and the mask's spectrum are made on the first launch of each layout and kept
 * for the next launches. */
#include "host.h"

#include "error.h"
#include "fft_kernels.h"
#include "fft_transform.h"
#include "generator.h"
#include "build.h"
#include "byte_size.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest transform side where the device's record names none, and the bytes of tiles one
 * chunk may take (CLSTENCIL_FFT_CHUNK_MAX sets fewer or more). */
#define FFT_MAX_TILE 1024u
/* The largest side of a volume's transform where CLSTENCIL_FFT_MAX_TILE names none: 256^3 values
 * take 64 MiB, a few a chunk. */
#define FFT_MAX_VOLUME_TILE 256u
#define FFT_CHUNK_BYTES ((cl_ulong)256 << 20)
/* The plans a filter keeps: a region's layout and the last strip's, say, without planning again. */
#define FFT_PLANS 2
/* The work-items of a group along x in the three kernels (global sizes are rounded up to it). */
#define FFT_GROUP 128u

/* How the region is cut: tiles of step outputs, transforms of width x height x depth (an image's:
 * one slice, step_z and tiles_z 1), in chunks of `batches` tiles. */
typedef struct fft_layout {
    unsigned step_x, step_y, step_z, tiles_x, tiles_y, tiles_z;
    unsigned width, height, depth; /* the transform's */
    unsigned batches;              /* tiles a chunk transforms */
} fft_layout;

/* One layout's plan: its transforms, the tiles they work in and the mask's spectrum. */
typedef struct fft_plan {
    fft_layout layout;
    cls_fft_transform *transform; /* NULL: an empty slot */
    cl_mem tiles, mask_spectrum;
    unsigned long last_use;
} fft_plan;

typedef struct cls_fft_work {
    cls_context *context;
    const cls_kernel_config *config; /* the filter's, which outlives the work */
    unsigned max_tile, max_volume_tile; /* the largest transform side of an image's, a volume's */
    cl_ulong chunk_bytes; /* the most bytes of tiles one chunk takes */
    cl_program program;
    cl_kernel gather, multiply, scatter;
    fft_plan plans[FFT_PLANS];
    fft_plan *plan; /* the launch's */
    unsigned long launches;
} cls_fft_work;

static void release_plan(fft_plan *plan)
{
    cls_fft_transform_release(plan->transform);
    if (plan->tiles) clReleaseMemObject(plan->tiles);
    if (plan->mask_spectrum) clReleaseMemObject(plan->mask_spectrum);
    memset(plan, 0, sizeof *plan);
}

static void release_work(void *opaque)
{
    cls_fft_work *work = opaque;
    if (!work) return;
    for (unsigned k = 0; k < FFT_PLANS; ++k) release_plan(&work->plans[k]);
    if (work->gather) clReleaseKernel(work->gather);
    if (work->multiply) clReleaseKernel(work->multiply);
    if (work->scatter) clReleaseKernel(work->scatter);
    if (work->program) clReleaseProgram(work->program);
    free(work);
}

/* The largest transform side: CLSTENCIL_FFT_MAX_TILE (64 to 16384), else the record's
 * fft_max_tile, else FFT_MAX_TILE; a volume's at most FFT_MAX_VOLUME_TILE unless the variable
 * says otherwise. */
static cls_status max_tile_for(const cls_context *context, unsigned *max_tile, unsigned *max_volume_tile)
{
    *max_tile = context->record.fft_max_tile ? context->record.fft_max_tile : FFT_MAX_TILE;
    *max_volume_tile = *max_tile < FFT_MAX_VOLUME_TILE ? *max_tile : FFT_MAX_VOLUME_TILE;
    const char *text = getenv("CLSTENCIL_FFT_MAX_TILE");
    if (!text || !*text) return CLS_OK;
    char *end = NULL;
    errno = 0;
    const unsigned long value = strtoul(text, &end, 10);
    if (errno || *end || value < 64 || value > 16384)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "CLSTENCIL_FFT_MAX_TILE must be a whole number from 64 to 16384, not '%.40s'",
                        text);
    *max_tile = *max_volume_tile = (unsigned)value;
    return CLS_OK;
}

/* The bytes of tiles a chunk may take: CLSTENCIL_FFT_CHUNK_MAX (a size: bytes, or a number with
 * K, M or G; below one tile's bytes a chunk is one tile), else FFT_CHUNK_BYTES; at most the
 * device's largest buffer. */
static cls_status chunk_bytes_for(const cls_context *context, cl_ulong *chunk_bytes)
{
    uint64_t bytes = FFT_CHUNK_BYTES;
    const char *text = getenv("CLSTENCIL_FFT_CHUNK_MAX");
    if (text && *text && (!cls_byte_size_parse(text, &bytes) || bytes == 0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "CLSTENCIL_FFT_CHUNK_MAX must be a size above 0 (bytes, or a number with K, M or G), not '%.40s'",
                        text);
    cl_ulong max_alloc = 0;
    if (clGetDeviceInfo(context->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL) == CL_SUCCESS &&
        max_alloc && max_alloc < bytes)
        bytes = max_alloc;
    *chunk_bytes = bytes;
    return CLS_OK;
}

static cls_status create_kernel(cl_program program, const char *name, cl_kernel *kernel)
{
    cl_int error;
    *kernel = clCreateKernel(program, name, &error);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "clCreateKernel(%s) failed: %s", name, cls_cl_error_name(error));
}

cls_status cls_fft_work_create(cls_context *context, const cls_kernel_config *config, const char *source,
                               cls_fft_work **out, cls_build_info *info)
{
    *out = NULL;
    cls_fft_work *work = calloc(1, sizeof *work);
    if (!work) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    work->context = context;
    work->config = config;
    cls_status status = max_tile_for(context, &work->max_tile, &work->max_volume_tile);
    if (status == CLS_OK) status = chunk_bytes_for(context, &work->chunk_bytes);
    /* VkFFT's kernels follow each other on the queue with no events between them */
    if (status == CLS_OK && !cls_queue_in_order(context))
        status = cls_fail(CLS_ERR_UNSUPPORTED, "the fft method needs an in-order queue; the context's runs out of order");
    const cls_kernel_source kernels = {source, CLS_FFT_GATHER_KERNEL, 0, 0};
    if (status == CLS_OK) status = cls_program_get(context, &kernels, &work->program, info);
    if (status == CLS_OK) status = create_kernel(work->program, CLS_FFT_GATHER_KERNEL, &work->gather);
    if (status == CLS_OK) status = create_kernel(work->program, CLS_FFT_MULTIPLY_KERNEL, &work->multiply);
    if (status == CLS_OK) status = create_kernel(work->program, CLS_FFT_SCATTER_KERNEL, &work->scatter);
    if (status != CLS_OK) {
        release_work(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

/* One axis: outputs of the region, the mask's side, the largest transform: tiles, their step and
 * the transform's side (at least step + side - 1, a fast one: cls_fft_size_fast). */
static void cut_axis(unsigned outputs, unsigned side, unsigned max_tile, unsigned *tiles, unsigned *step,
                     unsigned *transform)
{
    const unsigned limit = cls_fft_size_at_most(max_tile), reach = side - 1;
    const unsigned most = limit > reach ? limit - reach : 1;
    *tiles = (outputs + most - 1) / most;
    *step = (outputs + *tiles - 1) / *tiles;
    *transform = cls_fft_size_at_least(*step + reach);
}

/* The layout of a region of ROI[0] x ROI[1] x ROI[2] outputs (ROI[2] 1 for an image). */
static fft_layout layout_for(const cls_fft_work *work, const unsigned roi[3], cl_ulong budget)
{
    const cls_spec *spec = &work->config->spec;
    const int volume = cls_spec_is_volume(spec);
    const unsigned side = volume ? work->max_volume_tile : work->max_tile;
    fft_layout l = {.step_z = 1, .tiles_z = 1, .depth = 1};
    cut_axis(roi[0], spec->mask_width, side, &l.tiles_x, &l.step_x, &l.width);
    cut_axis(roi[1], spec->mask_height, side, &l.tiles_y, &l.step_y, &l.height);
    if (volume) cut_axis(roi[2], spec->mask_depth, side, &l.tiles_z, &l.step_z, &l.depth);
    const cl_ulong tile_bytes = (cl_ulong)l.depth * l.height * cls_fft_row_floats(l.width) * sizeof(float);
    const cl_ulong fit = budget / tile_bytes;
    const unsigned tiles = l.tiles_x * l.tiles_y * l.tiles_z;
    l.batches = fit < 1 ? 1 : fit < tiles ? (unsigned)fit : tiles;
    return l;
}

static cls_status create_buffer(cls_context *context, size_t bytes, const char *what, cl_mem *buffer)
{
    cl_int error;
    *buffer = clCreateBuffer(context->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "cannot allocate %zu bytes for the FFT's %s: %s", bytes, what,
                                          cls_cl_error_name(error));
}

/* The mask's spectrum for the plan: the mask (a volume's slice by slice) at the origin of tile 0
 * (zeros elsewhere), transformed with the others, tile 0's spectrum copied aside. The mask
 * reaches the device in a buffer made from it (no blocking write on the queue). */
static cls_status make_mask_spectrum(cls_fft_work *work, fft_plan *plan, size_t tile_bytes)
{
    const cls_spec *spec = &work->config->spec;
    const size_t row_floats = cls_fft_row_floats(plan->layout.width), slice_floats = row_floats * plan->layout.height;
    float *tile = calloc(tile_bytes, 1);
    if (!tile) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    const float *coefficients = work->config->coefficients;
    for (unsigned k = 0; k < cls_mask_depth(spec); ++k)
        for (unsigned j = 0; j < spec->mask_height; ++j)
            for (unsigned i = 0; i < spec->mask_width; ++i)
                tile[k * slice_floats + j * row_floats + i] = *coefficients++;
    cl_int error;
    cl_mem mask = clCreateBuffer(work->context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, tile_bytes, tile, &error);
    free(tile);
    cl_command_queue queue = work->context->queue;
    const float zero = 0.0f;
    if (error == CL_SUCCESS)
        error = clEnqueueFillBuffer(queue, plan->tiles, &zero, sizeof zero, 0, tile_bytes * plan->layout.batches, 0,
                                    NULL, NULL);
    if (error == CL_SUCCESS) error = clEnqueueCopyBuffer(queue, mask, plan->tiles, 0, 0, tile_bytes, 0, NULL, NULL);
    if (mask) clReleaseMemObject(mask); /* freed once the copy is done */
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "cannot write the mask for its FFT: %s", cls_cl_error_name(error));
    cls_status status = cls_fft_transform_enqueue(plan->transform, queue, 0);
    if (status != CLS_OK) return status;
    error = clEnqueueCopyBuffer(queue, plan->tiles, plan->mask_spectrum, 0, 0, tile_bytes, 0, NULL, NULL);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "cannot keep the mask's spectrum: %s", cls_cl_error_name(error));
}

/* The plan of a region's layout into work->plan: one kept from earlier launches, else made in
 * the slot used least recently. */
static cls_status plan_for(cls_fft_work *work, const unsigned roi[3])
{
    const fft_layout layout = layout_for(work, roi, work->chunk_bytes);
    fft_plan *plan = &work->plans[0];
    for (unsigned k = 0; k < FFT_PLANS; ++k) {
        fft_plan *slot = &work->plans[k];
        if (slot->transform && memcmp(&layout, &slot->layout, sizeof layout) == 0) {
            slot->last_use = ++work->launches;
            work->plan = slot;
            return CLS_OK;
        }
        if (!slot->transform || slot->last_use < plan->last_use) plan = slot;
    }
    release_plan(plan);
    plan->layout = layout;
    plan->last_use = ++work->launches;
    const size_t tile_bytes = (size_t)layout.depth * layout.height * cls_fft_row_floats(layout.width) * sizeof(float);
    cls_status status = create_buffer(work->context, tile_bytes * layout.batches, "tiles", &plan->tiles);
    if (status == CLS_OK) status = create_buffer(work->context, tile_bytes, "mask spectrum", &plan->mask_spectrum);
    if (status == CLS_OK)
        status = cls_fft_transform_create(work->context->context, work->context->device, plan->tiles, layout.width,
                                          layout.height, layout.depth, layout.batches, &plan->transform);
    if (status == CLS_OK) status = make_mask_spectrum(work, plan, tile_bytes);
    if (status != CLS_OK) release_plan(plan);
    work->plan = status == CLS_OK ? plan : NULL;
    return status;
}

static size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

/* The gather of chunk FIRST (COUNT tiles) after wait_list. */
static cl_int enqueue_gather(cls_fft_work *work, cl_mem input, const cls_resolved_image *r, cl_int first,
                             unsigned count, cl_uint wait_count, const cl_event *wait_list)
{
    const cls_spec *spec = &work->config->spec;
    const fft_layout *l = &work->plan->layout;
    const cls_launch_geometry *g = &r->geometry;
    const size_t pixel = cls_pixel_size(spec->input_type);
    const cl_int offset = (cl_int)(r->offset[0] / pixel), pitch = (cl_int)(r->pitch[0] / pixel);
    const cl_int2 size = {{(cl_int)g->width, (cl_int)g->height}}, origin = {{(cl_int)g->roi_x, (cl_int)g->roi_y}};
    const cl_int2 step = {{(cl_int)l->step_x, (cl_int)l->step_y}}, tile_size = {{(cl_int)l->width, (cl_int)l->height}};
    const cl_int tiles_x = (cl_int)l->tiles_x, row_floats = (cl_int)cls_fft_row_floats(l->width);
    cl_kernel k = work->gather;
    cl_int error = clSetKernelArg(k, CLS_FFT_GATHER_INPUT, sizeof input, &input);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_INPUT_OFFSET, sizeof offset, &offset);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_INPUT_PITCH, sizeof pitch, &pitch);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_SIZE, sizeof size, &size);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_ORIGIN, sizeof origin, &origin);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_STEP, sizeof step, &step);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_TILES_X, sizeof tiles_x, &tiles_x);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_FIRST, sizeof first, &first);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_TILES, sizeof work->plan->tiles, &work->plan->tiles);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_ROW_FLOATS, sizeof row_floats, &row_floats);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_TILE_SIZE, sizeof tile_size, &tile_size);
    error |= clSetKernelArg(k, CLS_FFT_GATHER_BORDER_VALUE, sizeof spec->border_value, &spec->border_value);
    if (cls_spec_is_volume(spec)) {
        const cl_long slice_pitch = (cl_long)(r->slice_pitch[0] / pixel);
        const cl_int depth = (cl_int)r->depth, origin_z = (cl_int)r->roi_z, step_z = (cl_int)l->step_z;
        const cl_int tiles_y = (cl_int)l->tiles_y, tile_depth = (cl_int)l->depth;
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_SLICE_PITCH, sizeof slice_pitch, &slice_pitch);
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_DEPTH, sizeof depth, &depth);
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_ORIGIN_Z, sizeof origin_z, &origin_z);
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_STEP_Z, sizeof step_z, &step_z);
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_TILES_Y, sizeof tiles_y, &tiles_y);
        error |= clSetKernelArg(k, CLS_FFT_GATHER_VOLUME_TILE_DEPTH, sizeof tile_depth, &tile_depth);
    }
    if (error != CL_SUCCESS) return CL_INVALID_KERNEL_ARGS;
    const size_t global[3] = {round_up(l->width, FFT_GROUP), (l->height + CLS_FFT_ROWS - 1) / CLS_FFT_ROWS,
                              (size_t)count * l->depth};
    const size_t local[3] = {FFT_GROUP, 1, 1};
    return clEnqueueNDRangeKernel(work->context->queue, k, 3, NULL, global, local, wait_count, wait_list, NULL);
}

/* The chunk's spectra times the mask's. */
static cl_int enqueue_multiply(cls_fft_work *work, unsigned count)
{
    const cl_int tiles = (cl_int)count;
    const fft_layout *l = &work->plan->layout;
    const cl_int values = (cl_int)(cls_fft_row_floats(l->width) / 2 * l->height * l->depth);
    cl_kernel k = work->multiply;
    cl_int error = clSetKernelArg(k, CLS_FFT_MULTIPLY_SPECTRA, sizeof work->plan->tiles, &work->plan->tiles);
    error |= clSetKernelArg(k, CLS_FFT_MULTIPLY_MASK, sizeof work->plan->mask_spectrum, &work->plan->mask_spectrum);
    error |= clSetKernelArg(k, CLS_FFT_MULTIPLY_VALUES, sizeof values, &values);
    error |= clSetKernelArg(k, CLS_FFT_MULTIPLY_TILES, sizeof tiles, &tiles);
    if (error != CL_SUCCESS) return CL_INVALID_KERNEL_ARGS;
    const size_t global = round_up((size_t)values, FFT_GROUP), local = FFT_GROUP;
    return clEnqueueNDRangeKernel(work->context->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
}

/* The chunk's valid outputs into the output; *event (may be NULL) is the scatter's. */
static cl_int enqueue_scatter(cls_fft_work *work, cl_mem output, const cls_resolved_image *r, cl_int first,
                              unsigned count, cl_event *event)
{
    const cls_spec *spec = &work->config->spec;
    const fft_layout *l = &work->plan->layout;
    const cls_launch_geometry *g = &r->geometry;
    const size_t pixel = cls_pixel_size(spec->output_type);
    const cl_int offset = (cl_int)(r->offset[1] / pixel), pitch = (cl_int)(r->pitch[1] / pixel);
    const cl_int row_floats = (cl_int)cls_fft_row_floats(l->width), tile_height = (cl_int)l->height;
    const cl_int2 size = {{(cl_int)g->width, (cl_int)g->height}}, step = {{(cl_int)l->step_x, (cl_int)l->step_y}};
    const cl_int4 region = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                             (cl_int)(g->roi_y + g->roi_height)}};
    const cl_int tiles_x = (cl_int)l->tiles_x;
    cl_kernel k = work->scatter;
    cl_int error = clSetKernelArg(k, CLS_FFT_SCATTER_TILES, sizeof work->plan->tiles, &work->plan->tiles);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_ROW_FLOATS, sizeof row_floats, &row_floats);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_TILE_HEIGHT, sizeof tile_height, &tile_height);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_OUTPUT, sizeof output, &output);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_OUTPUT_OFFSET, sizeof offset, &offset);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_OUTPUT_PITCH, sizeof pitch, &pitch);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_SIZE, sizeof size, &size);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_REGION, sizeof region, &region);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_STEP, sizeof step, &step);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_TILES_X, sizeof tiles_x, &tiles_x);
    error |= clSetKernelArg(k, CLS_FFT_SCATTER_FIRST, sizeof first, &first);
    if (cls_spec_is_volume(spec)) {
        const cl_long slice_pitch = (cl_long)(r->slice_pitch[1] / pixel);
        const cl_int depth = (cl_int)r->depth, step_z = (cl_int)l->step_z;
        const cl_int2 region_z = {{(cl_int)r->roi_z, (cl_int)(r->roi_z + r->roi_depth)}};
        const cl_int tiles_y = (cl_int)l->tiles_y, tile_depth = (cl_int)l->depth;
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_SLICE_PITCH, sizeof slice_pitch, &slice_pitch);
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_DEPTH, sizeof depth, &depth);
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_REGION_Z, sizeof region_z, &region_z);
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_STEP_Z, sizeof step_z, &step_z);
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_TILES_Y, sizeof tiles_y, &tiles_y);
        error |= clSetKernelArg(k, CLS_FFT_SCATTER_VOLUME_TILE_DEPTH, sizeof tile_depth, &tile_depth);
    }
    if (error != CL_SUCCESS) return CL_INVALID_KERNEL_ARGS;
    const size_t global[3] = {round_up(l->step_x, FFT_GROUP), (l->step_y + CLS_FFT_ROWS - 1) / CLS_FFT_ROWS,
                              (size_t)count * l->step_z};
    const size_t local[3] = {FFT_GROUP, 1, 1};
    return clEnqueueNDRangeKernel(work->context->queue, k, 3, NULL, global, local, 0, NULL, event);
}

/* One launch (cls_work_ops): every chunk of tiles, the first gather after wait_list, *event (may
 * be NULL) the last scatter's. The filter serializes launches (the tiles are shared). */
static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *r, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    (void)image;
    cls_fft_work *work = opaque;
    const unsigned roi[3] = {r->geometry.roi_width, r->geometry.roi_height, r->roi_depth};
    cls_status status = plan_for(work, roi);
    if (status != CLS_OK) return status;
    const fft_layout *l = &work->plan->layout;
    const unsigned tiles = l->tiles_x * l->tiles_y * l->tiles_z;
    cl_int error = CL_SUCCESS;
    for (unsigned first = 0; first < tiles && status == CLS_OK && error == CL_SUCCESS; first += l->batches) {
        const unsigned count = tiles - first < l->batches ? tiles - first : l->batches;
        const int last = first + count == tiles;
        error = enqueue_gather(work, input, r, (cl_int)first, count, first ? 0 : wait_count, first ? NULL : wait_list);
        if (error == CL_SUCCESS) status = cls_fft_transform_enqueue(work->plan->transform, work->context->queue, 0);
        if (error == CL_SUCCESS && status == CLS_OK) error = enqueue_multiply(work, count);
        if (error == CL_SUCCESS && status == CLS_OK) status = cls_fft_transform_enqueue(work->plan->transform, work->context->queue, 1);
        if (error == CL_SUCCESS && status == CLS_OK)
            error = enqueue_scatter(work, outputs[0], r, (cl_int)first, count, last ? event : NULL);
    }
    if (status == CLS_OK && error != CL_SUCCESS)
        status = cls_fail(CLS_ERR_OPENCL, "launching the FFT's kernels failed: %s", cls_cl_error_name(error));
    return status;
}

/* gather, the two transforms, multiply and scatter (a transform counted as one kernel). */
static unsigned fft_kernels(const void *work)
{
    (void)work;
    return 5;
}

/* The tiles of a chunk and the mask's spectrum at the region's layout, for each of the plans the
 * work keeps (the other is a smaller region's, the last strip or slab, whose chunk takes about as
 * much: both are bounded by the chunk's bytes); VkFFT's own buffers not counted (none for these
 * transforms' sides). */
static size_t device_bytes(const void *opaque, size_t width, size_t height, size_t depth)
{
    const cls_fft_work *work = opaque;
    const unsigned roi[3] = {(unsigned)width, (unsigned)height, (unsigned)(depth ? depth : 1)};
    const fft_layout layout = layout_for(work, roi, work->chunk_bytes);
    const size_t tile_bytes = (size_t)layout.depth * layout.height * cls_fft_row_floats(layout.width) * sizeof(float);
    return FFT_PLANS * tile_bytes * (layout.batches + 1);
}

const cls_work_ops cls_fft_work_ops = {enqueue_work, fft_kernels, NULL, NULL, release_work, 1, device_bytes};
