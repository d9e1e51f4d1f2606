/* devices.c — enumerates every OpenCL platform and device and fills its capability record,
 * vendor queries included. */
#include "host.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

/* Vendor query tokens (cl_ext.h names them too, but not in every header version). */
#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001
#define NV_REGISTERS_PER_BLOCK 0x4002
#define NV_WARP_SIZE 0x4003
#define AMD_BOARD_NAME 0x4038
#define AMD_SIMD_PER_COMPUTE_UNIT 0x4040
#define AMD_WAVEFRONT_WIDTH 0x4043
#define INTEL_SUB_GROUP_SIZES 0x4108
#define INTEL_IP_VERSION 0x4250
#define DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 0x1067 /* OpenCL 3.0's; the headers' at target 300 */

static void device_string(cl_device_id device, cl_device_info what, char *out, size_t size)
{
    out[0] = '\0';
    if (clGetDeviceInfo(device, what, size, out, NULL) != CL_SUCCESS) out[0] = '\0';
    out[size - 1] = '\0';
}

static void platform_string(cl_platform_id platform, cl_platform_info what, char *out, size_t size)
{
    out[0] = '\0';
    if (clGetPlatformInfo(platform, what, size, out, NULL) != CL_SUCCESS) out[0] = '\0';
    out[size - 1] = '\0';
}

static cl_uint device_uint(cl_device_id device, cl_device_info what)
{
    cl_uint value = 0;
    return clGetDeviceInfo(device, what, sizeof value, &value, NULL) == CL_SUCCESS ? value : 0;
}

static cl_ulong device_ulong(cl_device_id device, cl_device_info what)
{
    cl_ulong value = 0;
    return clGetDeviceInfo(device, what, sizeof value, &value, NULL) == CL_SUCCESS ? value : 0;
}

static size_t device_size(cl_device_id device, cl_device_info what)
{
    size_t value = 0;
    return clGetDeviceInfo(device, what, sizeof value, &value, NULL) == CL_SUCCESS ? value : 0;
}

static int has_extension(cl_device_id device, const char *name)
{
    size_t size = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || !size) return 0;
    char *extensions = malloc(size + 1);
    if (!extensions) return 0;
    int found = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions, NULL) == CL_SUCCESS) {
        extensions[size] = '\0';
        const size_t length = strlen(name);
        for (const char *p = strstr(extensions, name); p && !found; p = strstr(p + 1, name))
            found = (p == extensions || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0');
    }
    free(extensions);
    return found;
}

size_t cls_probe_kernel_multiple(cl_device_id device)
{
    const char *source = CLS_PROBE_SOURCE;
    size_t multiple = 0;
    cl_int error;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
    if (error != CL_SUCCESS) return 0;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &error);
    if (error == CL_SUCCESS && clBuildProgram(program, 1, &device, "", NULL, NULL) == CL_SUCCESS) {
        cl_kernel kernel = clCreateKernel(program, CLS_PROBE_KERNEL, &error);
        if (error == CL_SUCCESS) {
            clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                     sizeof multiple, &multiple, NULL);
            clReleaseKernel(kernel);
        }
    }
    if (program) clReleaseProgram(program);
    clReleaseContext(context);
    return multiple;
}

static void query_vendor_attributes(cl_device_id device, cls_device_caps *caps)
{
    if (has_extension(device, "cl_nv_device_attribute_query")) {
        caps->has_nv_attributes = 1;
        caps->nv_compute_capability_major = device_uint(device, NV_COMPUTE_CAPABILITY_MAJOR);
        caps->nv_compute_capability_minor = device_uint(device, NV_COMPUTE_CAPABILITY_MINOR);
        caps->nv_registers_per_block = device_uint(device, NV_REGISTERS_PER_BLOCK);
        caps->nv_warp_size = device_uint(device, NV_WARP_SIZE);
    }
    if (has_extension(device, "cl_amd_device_attribute_query")) {
        caps->has_amd_attributes = 1;
        caps->amd_wavefront_width = device_uint(device, AMD_WAVEFRONT_WIDTH);
        caps->amd_simds_per_cu = device_uint(device, AMD_SIMD_PER_COMPUTE_UNIT);
        device_string(device, AMD_BOARD_NAME, caps->amd_board_name, sizeof caps->amd_board_name);
        if (strncmp(caps->name, "gfx", 3) == 0) { /* ROCm names devices by target: gfx90a:sramecc+:xnack- */
            size_t length = strcspn(caps->name, ": ");
            if (length >= sizeof caps->amd_gfx_target) length = sizeof caps->amd_gfx_target - 1;
            memcpy(caps->amd_gfx_target, caps->name, length);
            caps->amd_gfx_target[length] = '\0';
        }
    }
    /* PoCL answers OpenCL 3.0's device query from the field its kernels' query reads: no probe */
    if (caps->vendor == CLS_VENDOR_POCL)
        caps->preferred_work_group_multiple = device_size(device, DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    if (has_extension(device, "cl_intel_device_attribute_query")) {
        caps->has_intel_ip_version = 1;
        caps->intel_ip_version = device_uint(device, INTEL_IP_VERSION);
    }
}

/* The SIMD width: the vendor's warp or wavefront width, else Intel's largest sub-group size,
 * else the preferred work-group multiple. */
static cl_uint simd_width(cl_device_id device, const cls_device_caps *caps)
{
    if (caps->nv_warp_size) return caps->nv_warp_size;
    if (caps->amd_wavefront_width) return caps->amd_wavefront_width;
    if (has_extension(device, "cl_intel_subgroups")) {
        size_t sizes[8] = {0}, bytes = 0;
        if (clGetDeviceInfo(device, INTEL_SUB_GROUP_SIZES, sizeof sizes, sizes, &bytes) == CL_SUCCESS) {
            size_t widest = 0;
            for (size_t i = 0; i < bytes / sizeof(size_t) && i < 8; ++i)
                if (sizes[i] > widest) widest = sizes[i];
            if (widest) return (cl_uint)widest;
        }
    }
    return (cl_uint)caps->preferred_work_group_multiple;
}

static cls_device_type device_type(cl_device_id device)
{
    cl_device_type type = 0;
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (type & CL_DEVICE_TYPE_GPU) return CLS_DEVICE_GPU;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return CLS_DEVICE_ACCELERATOR;
    if (type & CL_DEVICE_TYPE_CPU) return CLS_DEVICE_CPU;
    return CLS_DEVICE_OTHER;
}

/* Everything but the work-group multiple and the SIMD width (cls_device_caps_finish). */
static void query_caps(cl_platform_id platform, cl_device_id device, unsigned platform_index, unsigned device_index,
                       cls_device_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    caps->struct_size = sizeof *caps;
    caps->platform_index = platform_index;
    caps->device_index = device_index;
    platform_string(platform, CL_PLATFORM_NAME, caps->platform_name, sizeof caps->platform_name);
    platform_string(platform, CL_PLATFORM_VERSION, caps->platform_version, sizeof caps->platform_version);
    device_string(device, CL_DEVICE_NAME, caps->name, sizeof caps->name);
    device_string(device, CL_DEVICE_VENDOR, caps->vendor_name, sizeof caps->vendor_name);
    device_string(device, CL_DRIVER_VERSION, caps->driver_version, sizeof caps->driver_version);
    device_string(device, CL_DEVICE_VERSION, caps->device_version, sizeof caps->device_version);
    device_string(device, CL_DEVICE_OPENCL_C_VERSION, caps->opencl_c_version, sizeof caps->opencl_c_version);
    caps->type = device_type(device);
    caps->vendor_id = device_uint(device, CL_DEVICE_VENDOR_ID);
    caps->address_bits = device_uint(device, CL_DEVICE_ADDRESS_BITS);
    caps->compute_units = device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    caps->max_clock_mhz = device_uint(device, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    caps->global_mem_size = device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE);
    caps->local_mem_size = device_ulong(device, CL_DEVICE_LOCAL_MEM_SIZE);
    caps->max_constant_buffer_size = device_ulong(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    caps->max_parameter_size = device_size(device, CL_DEVICE_MAX_PARAMETER_SIZE);
    caps->max_work_group_size = device_size(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof caps->max_work_item_sizes,
                    caps->max_work_item_sizes, NULL);
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    caps->image_support = images == CL_TRUE;
    if (caps->image_support) {
        caps->image2d_max_width = device_size(device, CL_DEVICE_IMAGE2D_MAX_WIDTH);
        caps->image2d_max_height = device_size(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT);
    }
    caps->vendor = cls_vendor_detect(caps->vendor_id, caps->platform_name, caps->vendor_name, caps->name);
    /* Oclgrind claims every device type at once; it is a simulator running on the CPU, and
     * must never win the default selection as a "GPU". */
    if (caps->vendor == CLS_VENDOR_OCLGRIND) caps->type = CLS_DEVICE_CPU;
    query_vendor_attributes(device, caps);
    cls_arch_key(caps);
}

int cls_device_caps_need_probe(const cls_device_caps *caps)
{
    return !caps->nv_warp_size && !caps->amd_wavefront_width && !caps->preferred_work_group_multiple;
}

void cls_device_caps_finish(cl_device_id device, cls_device_caps *caps, size_t probed_multiple)
{
    caps->preferred_work_group_multiple = caps->nv_warp_size          ? caps->nv_warp_size
                                          : caps->amd_wavefront_width ? caps->amd_wavefront_width
                                          : probed_multiple           ? probed_multiple
                                                                      : caps->preferred_work_group_multiple;
    caps->simd_width = simd_width(device, caps);
}

/* The finished record, the probe kernel built here where the device needs it. */
static void probe_caps(cl_device_id device, cls_device_caps *caps)
{
    cls_device_caps_finish(device, caps, cls_device_caps_need_probe(caps) ? cls_probe_kernel_multiple(device) : 0);
}

cls_status cls_query_device_caps(cl_platform_id platform, cl_device_id device, unsigned platform_index,
                                 unsigned device_index, cls_device_caps *caps)
{
    query_caps(platform, device, platform_index, device_index, caps);
    probe_caps(device, caps);
    return CLS_OK;
}

void cls_device_list_release(cls_device_list *list)
{
    if (!list) return;
    free(list->caps);
    free(list->ids);
    free(list);
}

static cls_status add_platform(cls_device_list *list, cl_platform_id platform, unsigned platform_index, int probe)
{
    cl_uint count = 0;
    cl_int error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count);
    if (error == CL_DEVICE_NOT_FOUND || count == 0) return CLS_OK;
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clGetDeviceIDs failed on platform %u: %s", platform_index,
                        cls_cl_error_name(error));
    cl_device_id *ids = calloc(count, sizeof *ids);
    cls_device_caps *caps = realloc(list->caps, (list->count + count) * sizeof *caps);
    if (caps) list->caps = caps;
    cl_device_id *all_ids = caps ? realloc(list->ids, (list->count + count) * sizeof *all_ids) : NULL;
    if (all_ids) list->ids = all_ids;
    if (!ids || !caps || !all_ids) {
        free(ids);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory listing devices");
    }
    error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids, NULL);
    for (cl_uint d = 0; error == CL_SUCCESS && d < count; ++d) {
        list->ids[list->count] = ids[d];
        cls_device_caps *c = &list->caps[list->count];
        query_caps(platform, ids[d], platform_index, d, c);
        if (probe) probe_caps(ids[d], c);
        ++list->count;
    }
    free(ids);
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clGetDeviceIDs failed on platform %u: %s", platform_index,
                        cls_cl_error_name(error));
    return CLS_OK;
}

static cls_status query_list(cls_device_list **out, int probe)
{
    if (!out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    cl_uint platform_count = 0;
    cl_int error = clGetPlatformIDs(0, NULL, &platform_count);
    if (error == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (error == CL_SUCCESS && platform_count == 0))
        return cls_fail(CLS_ERR_NO_PLATFORM,
                        "no OpenCL platform is installed (install an ICD: on Debian, "
                        "'apt-get install pocl-opencl-icd' for the CPU, or the GPU vendor's driver)");
    if (error != CL_SUCCESS)
        return cls_fail(CLS_ERR_OPENCL, "clGetPlatformIDs failed: %s", cls_cl_error_name(error));
    cl_platform_id *platforms = calloc(platform_count, sizeof *platforms);
    cls_device_list *list = calloc(1, sizeof *list);
    if (!platforms || !list) {
        free(platforms);
        free(list);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory listing platforms");
    }
    error = clGetPlatformIDs(platform_count, platforms, NULL);
    cls_status status = error == CL_SUCCESS ? CLS_OK
                        : cls_fail(CLS_ERR_OPENCL, "clGetPlatformIDs failed: %s", cls_cl_error_name(error));
    for (cl_uint p = 0; status == CLS_OK && p < platform_count; ++p)
        status = add_platform(list, platforms[p], p, probe);
    free(platforms);
    if (status == CLS_OK && list->count == 0)
        status = cls_fail(CLS_ERR_NO_DEVICE, "OpenCL platforms exist but none has a device");
    if (status != CLS_OK) {
        cls_device_list_release(list);
        return status;
    }
    *out = list;
    return CLS_OK;
}

cls_status cls_devices_query(cls_device_list **out) { return query_list(out, 1); }

cls_status cls_devices_query_unprobed(cls_device_list **out) { return query_list(out, 0); }

size_t cls_device_list_count(const cls_device_list *list) { return list ? list->count : 0; }

const cls_device_caps *cls_device_list_get(const cls_device_list *list, size_t index)
{
    return list && index < list->count ? &list->caps[index] : NULL;
}

cl_device_id cls_device_list_id(const cls_device_list *list, size_t index)
{
    return list && index < list->count ? list->ids[index] : NULL;
}

cls_status cls_device_select(const cls_device_list *list, const char *selector, size_t *index)
{
    if (!list || !index) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "device list or index is NULL");
    if (!selector) selector = getenv("CLSTENCIL_DEVICE");
    return cls_select_device(list->caps, list->count, selector, index);
}

cls_status cls_device_select_list(const cls_device_list *list, const char *selectors, size_t *indices,
                                  size_t capacity, size_t *count)
{
    if (!list || !indices || !count) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "device list, indices or count is NULL");
    if (!selectors) selectors = getenv("CLSTENCIL_DEVICE");
    return cls_select_devices(list->caps, list->count, selectors, indices, capacity, count);
}
