/* fft_tile_work.c — the work of a weighted sum by FFT in one kernel (cls_work_ops, host.h): the
 * mask's spectrum computed here once, in double precision, then one launch of the tile kernel
 * (generator/fft_tile_kernel.c) over the region's tiles, two 64x64 a work-group, or one 128 wide
 * for wide masks. */
#include "host.h"

#include "build.h"
#include "error.h"
#include "fft_kernels.h"
#include "generator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls_fft_tile_work {
    cls_context *context;
    const cls_kernel_config *config; /* the filter's, which outlives the work */
    cl_program program;
    cl_kernel kernel;
    cl_mem spectrum;
    int wide; /* one real tile 128 wide a group, not two 64x64 */
} cls_fft_tile_work;

static void release_work(void *opaque)
{
    cls_fft_tile_work *work = opaque;
    if (!work) return;
    if (work->spectrum) clReleaseMemObject(work->spectrum);
    if (work->kernel) clReleaseKernel(work->kernel);
    if (work->program) clReleaseProgram(work->program);
    free(work);
}

cls_status cls_fft_tile_choice(const cls_context *context, const cls_spec *spec, int *on_chip)
{
    *on_chip = 0;
    const char *choice = getenv("CLSTENCIL_FFT_TILES");
    unsigned max_side = context->record.fft_tile_max_mask;
    if (choice && *choice) {
        if (strcmp(choice, "on-chip") != 0 && strcmp(choice, "vkfft") != 0)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "CLSTENCIL_FFT_TILES must be on-chip or vkfft, not '%.40s'", choice);
        max_side = strcmp(choice, "on-chip") == 0 ? CLS_FFT_TILE_MAX_MASK : 0;
    }
    /* the tile, its rows and columns padded by 4 values, and a wide tile's packed column
     * (cl-templates/fft-tile*.cl) */
    const size_t local_bytes = ((CLS_FFT_TILE_SIDE + 4) * (CLS_FFT_TILE_SIDE + 4) + CLS_FFT_TILE_SIDE) * sizeof(cl_float2);
    *on_chip = max_side && context->caps.local_mem_size >= local_bytes && cls_fft_tile_fits(spec, max_side);
    return CLS_OK;
}

/* conj(DFT(mask)) / SIDE^2 of the mask at the origin of a SIDE-tall tile, COLUMNS wide (SIDE, or
 * twice SIDE for a real tile, whose spectrum keeps columns 0 .. SIDE): row ky by row, KEPT values a
 * row; the rows' transforms first (mask rows x KEPT), then the columns'. */
static float *mask_spectrum(const cls_spec *spec, const float *coefficients, unsigned columns, unsigned kept)
{
    enum { SIDE = CLS_FFT_TILE_SIDE };
    const unsigned w = spec->mask_width, h = spec->mask_height;
    double *rows = malloc(sizeof(double) * 2 * h * kept);
    float *spectrum = malloc(sizeof(float) * 2 * SIDE * kept);
    if (!rows || !spectrum) {
        free(rows);
        free(spectrum);
        return NULL;
    }
    for (unsigned j = 0; j < h; ++j)
        for (unsigned kx = 0; kx < kept; ++kx) {
            double re = 0, im = 0;
            for (unsigned i = 0; i < w; ++i) {
                const double angle = 2 * CL_M_PI * (double)(kx * i % columns) / columns;
                re += coefficients[j * w + i] * cos(angle);
                im -= coefficients[j * w + i] * sin(angle);
            }
            rows[2 * (j * kept + kx)] = re;
            rows[2 * (j * kept + kx) + 1] = im;
        }
    for (unsigned ky = 0; ky < SIDE; ++ky)
        for (unsigned kx = 0; kx < kept; ++kx) {
            double re = 0, im = 0;
            for (unsigned j = 0; j < h; ++j) {
                const double a = rows[2 * (j * kept + kx)], b = rows[2 * (j * kept + kx) + 1];
                const double angle = 2 * CL_M_PI * (double)(ky * j % SIDE) / SIDE, c = cos(angle), s = -sin(angle);
                re += a * c - b * s;
                im += a * s + b * c;
            }
            spectrum[2 * (ky * kept + kx)] = (float)(re / (SIDE * SIDE));
            spectrum[2 * (ky * kept + kx) + 1] = (float)(-im / (SIDE * SIDE));
        }
    free(rows);
    return spectrum;
}

cls_status cls_fft_tile_work_create(cls_context *context, const cls_kernel_config *config, const char *source,
                                    cls_fft_tile_work **out, cls_build_info *info)
{
    *out = NULL;
    cls_fft_tile_work *work = calloc(1, sizeof *work);
    if (!work) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    work->context = context;
    work->config = config;
    work->wide = cls_fft_tile_wide(&config->spec);
    const cls_kernel_source kernels = {source, CLS_FFT_TILE_KERNEL, cls_kernel_register_cap(config),
                                       cls_kernel_cap_only_lowers(config)};
    cls_status status = cls_program_get(context, &kernels, &work->program, info);
    cl_int error = CL_SUCCESS;
    if (status == CLS_OK) {
        work->kernel = clCreateKernel(work->program, CLS_FFT_TILE_KERNEL, &error);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "clCreateKernel(" CLS_FFT_TILE_KERNEL ") failed: %s", cls_cl_error_name(error));
    }
    const unsigned kept = work->wide ? CLS_FFT_TILE_SIDE + 1 : CLS_FFT_TILE_SIDE;
    float *spectrum = status == CLS_OK ? mask_spectrum(&config->spec, config->coefficients,
                                                       work->wide ? 2 * CLS_FFT_TILE_SIDE : CLS_FFT_TILE_SIDE, kept)
                                       : NULL;
    if (status == CLS_OK && !spectrum) status = cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    if (status == CLS_OK) {
        const size_t bytes = sizeof(float) * 2 * CLS_FFT_TILE_SIDE * kept;
        work->spectrum = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, spectrum, &error);
        if (error != CL_SUCCESS)
            status = cls_fail(CLS_ERR_OPENCL, "cannot allocate the mask's spectrum: %s", cls_cl_error_name(error));
    }
    free(spectrum);
    if (status != CLS_OK) {
        release_work(work);
        return status;
    }
    *out = work;
    return CLS_OK;
}

/* One launch (cls_work_ops): the region's tiles, two 64x64 or one wide a work-group, after wait_list. */
static cls_status enqueue_work(void *opaque, cl_mem input, cl_uint output_count, const cl_mem *outputs,
                               const cls_image_desc *image, const cls_resolved_image *r, cl_uint wait_count,
                               const cl_event *wait_list, cl_event *event)
{
    (void)output_count; /* one */
    (void)image;
    cls_fft_tile_work *work = opaque;
    const cls_spec *spec = &work->config->spec;
    const cls_launch_geometry *g = &r->geometry;
    const unsigned step_x = (work->wide ? 2 : 1) * CLS_FFT_TILE_SIDE - 2 * (spec->mask_width / 2);
    const unsigned step_y = CLS_FFT_TILE_SIDE - 2 * (spec->mask_height / 2);
    const cl_int tiles_x = (cl_int)((g->roi_width + step_x - 1) / step_x);
    const cl_int tiles = tiles_x * (cl_int)((g->roi_height + step_y - 1) / step_y);
    const size_t in_pixel = cls_pixel_size(spec->input_type), out_pixel = cls_pixel_size(spec->output_type);
    const cl_int in_offset = (cl_int)(r->offset[0] / in_pixel), in_pitch = (cl_int)(r->pitch[0] / in_pixel);
    const cl_int out_offset = (cl_int)(r->offset[1] / out_pixel), out_pitch = (cl_int)(r->pitch[1] / out_pixel);
    const cl_int2 size = {{(cl_int)g->width, (cl_int)g->height}};
    const cl_int4 region = {{(cl_int)g->roi_x, (cl_int)g->roi_y, (cl_int)(g->roi_x + g->roi_width),
                             (cl_int)(g->roi_y + g->roi_height)}};
    cl_kernel k = work->kernel;
    cl_int error = clSetKernelArg(k, CLS_FFT_TILE_INPUT, sizeof input, &input);
    error |= clSetKernelArg(k, CLS_FFT_TILE_INPUT_OFFSET, sizeof in_offset, &in_offset);
    error |= clSetKernelArg(k, CLS_FFT_TILE_INPUT_PITCH, sizeof in_pitch, &in_pitch);
    error |= clSetKernelArg(k, CLS_FFT_TILE_SIZE, sizeof size, &size);
    error |= clSetKernelArg(k, CLS_FFT_TILE_REGION, sizeof region, &region);
    error |= clSetKernelArg(k, CLS_FFT_TILE_TILES_X, sizeof tiles_x, &tiles_x);
    error |= clSetKernelArg(k, CLS_FFT_TILE_TILES, sizeof tiles, &tiles);
    error |= clSetKernelArg(k, CLS_FFT_TILE_SPECTRUM, sizeof work->spectrum, &work->spectrum);
    error |= clSetKernelArg(k, CLS_FFT_TILE_OUTPUT, sizeof outputs[0], &outputs[0]);
    error |= clSetKernelArg(k, CLS_FFT_TILE_OUTPUT_OFFSET, sizeof out_offset, &out_offset);
    error |= clSetKernelArg(k, CLS_FFT_TILE_OUTPUT_PITCH, sizeof out_pitch, &out_pitch);
    error |= clSetKernelArg(k, CLS_FFT_TILE_BORDER_VALUE, sizeof spec->border_value, &spec->border_value);
    if (error != CL_SUCCESS) return cls_fail(CLS_ERR_OPENCL, "setting the FFT tile kernel's arguments failed");
    const size_t local = CLS_FFT_TILE_GROUP, global = local * (size_t)(work->wide ? tiles : (tiles + 1) / 2);
    error = clEnqueueNDRangeKernel(work->context->queue, k, 1, NULL, &global, &local, wait_count, wait_list, event);
    return error == CL_SUCCESS ? CLS_OK
                               : cls_fail(CLS_ERR_OPENCL, "launching the FFT tile kernel failed: %s", cls_cl_error_name(error));
}

static unsigned tile_kernels(const void *work)
{
    (void)work;
    return 1;
}

const cls_work_ops cls_fft_tile_ops = {enqueue_work, tile_kernels, NULL, NULL, release_work, 1, NULL};
