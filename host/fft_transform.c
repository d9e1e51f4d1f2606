/* fft_transform.c — the FFT method's transforms: VkFFT plans (OpenCL backend) for batches of real
 * 2-D or 3-D transforms in place. VkFFT generates and builds its own kernels when a plan is made. */
#include "fft_transform.h"

#include "error.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define VKFFT_BACKEND 3 /* OpenCL */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <vkFFT.h>
#pragma GCC diagnostic pop

struct cls_fft_transform {
    VkFFTApplication application;
    cl_context context;
    cl_device_id device;
    cl_mem buffer;
    uint64_t buffer_bytes;
};

size_t cls_fft_row_floats(unsigned width) { return 2 * ((size_t)width / 2 + 1); }

int cls_fft_size_fast(unsigned n)
{
    if (n == 0 || n % 16) return 0;
    static const unsigned primes[] = {2, 3, 5};
    for (size_t k = 0; k < sizeof primes / sizeof primes[0]; ++k)
        while (n % primes[k] == 0) n /= primes[k];
    return n == 1;
}

unsigned cls_fft_size_at_least(unsigned n)
{
    while (!cls_fft_size_fast(n)) ++n;
    return n;
}

unsigned cls_fft_size_at_most(unsigned n)
{
    while (n > 16 && !cls_fft_size_fast(n)) --n;
    return n;
}

/* VkFFT's code generation switches the process's locale to "C" and back, keeping the old one by
 * the pointer setlocale returned, which the switch may free (AddressSanitizer saw the use after
 * free under Python, whose locale is not "C"). So the plan is made with the locale already "C"
 * (whose name is static) and the caller's restored from a copy afterwards, one plan at a time. */
static pthread_mutex_t locale_lock = PTHREAD_MUTEX_INITIALIZER;

static VkFFTResult initialize_in_c_locale(VkFFTApplication *application, VkFFTConfiguration configuration)
{
    pthread_mutex_lock(&locale_lock);
    const char *current = setlocale(LC_ALL, NULL);
    char *saved = current ? strdup(current) : NULL;
    setlocale(LC_ALL, "C");
    const VkFFTResult result = initializeVkFFT(application, configuration);
    if (saved) setlocale(LC_ALL, saved);
    free(saved);
    pthread_mutex_unlock(&locale_lock);
    return result;
}

cls_status cls_fft_transform_create(cl_context context, cl_device_id device, cl_mem buffer, unsigned width,
                                    unsigned height, unsigned depth, unsigned batches, cls_fft_transform **out)
{
    *out = NULL;
    cls_fft_transform *t = calloc(1, sizeof *t);
    if (!t) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    t->context = context;
    t->device = device;
    t->buffer = buffer;
    t->buffer_bytes = (uint64_t)batches * depth * height * cls_fft_row_floats(width) * sizeof(float);
    VkFFTConfiguration configuration = {0};
    configuration.FFTdim = depth > 1 ? 3 : 2;
    configuration.size[0] = width;
    configuration.size[1] = height;
    if (depth > 1) configuration.size[2] = depth;
    configuration.numberBatches = batches;
    configuration.performR2C = 1;
    configuration.normalize = 1;
    configuration.device = &t->device;
    configuration.context = &t->context;
    configuration.buffer = &t->buffer;
    configuration.bufferSize = &t->buffer_bytes;
    const VkFFTResult result = initialize_in_c_locale(&t->application, configuration);
    if (result != VKFFT_SUCCESS) {
        free(t);
        return cls_fail(CLS_ERR_BUILD, "VkFFT could not plan %u real %ux%ux%u transforms (VkFFT error %d)", batches,
                        width, height, depth, (int)result);
    }
    *out = t;
    return CLS_OK;
}

cls_status cls_fft_transform_enqueue(cls_fft_transform *transform, cl_command_queue queue, int inverse)
{
    VkFFTLaunchParams launch = {0};
    launch.commandQueue = &queue;
    launch.buffer = &transform->buffer;
    const VkFFTResult result = VkFFTAppend(&transform->application, inverse ? 1 : -1, &launch);
    if (result != VKFFT_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "VkFFT could not enqueue the %s transform (VkFFT error %d)",
                        inverse ? "inverse" : "forward", (int)result);
    return CLS_OK;
}

void cls_fft_transform_release(cls_fft_transform *transform)
{
    if (!transform) return;
    deleteVkFFT(&transform->application);
    free(transform);
}
