/* cross_device.c — the caps an OpenCL runtime reports for the GPU of a device record, for
 * planning without the device. The limits are the vendor runtime's for every such GPU: ROCm's
 * OpenCL reports 64 KiB of local memory and at most 256 work-items a group (its default
 * GPU_MAX_WORKGROUP_SIZE) and the wavefront width (cl_amd_device_attribute_query); NVIDIA's, 48 KiB
 * and 1,024 and the warp width (cl_nv_device_attribute_query). */
#include "cross_check.h"

#include <stdio.h>
#include <string.h>

void cls_cross_device_caps(const cls_arch_record *record, cls_device_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    caps->struct_size = sizeof *caps;
    snprintf(caps->name, sizeof caps->name, "%s", record->arch[0] ? record->arch : record->id);
    caps->vendor = record->vendor;
    caps->type = record->type;
    snprintf(caps->arch, sizeof caps->arch, "%s", record->arch);
    caps->address_bits = 64;
    caps->compute_units = 64;
    caps->simd_width = record->simd_width;
    caps->preferred_work_group_multiple = record->simd_width;
    caps->image_support = 1;
    caps->image2d_max_width = caps->image2d_max_height = 16384;
    caps->max_parameter_size = 1024;
    caps->global_mem_size = 16ull << 30;
    const int amd = record->vendor == CLS_VENDOR_AMD;
    caps->local_mem_size = amd ? 65536 : 49152;
    caps->max_constant_buffer_size = 65536;
    caps->max_work_group_size = amd ? 256 : 1024;
    caps->max_work_item_sizes[0] = caps->max_work_item_sizes[1] = caps->max_work_item_sizes[2] = 1024;
    if (amd) {
        caps->has_amd_attributes = 1;
        caps->amd_wavefront_width = record->simd_width;
        caps->amd_simds_per_cu = 4;
        snprintf(caps->amd_gfx_target, sizeof caps->amd_gfx_target, "%s", record->arch);
    } else if (record->vendor == CLS_VENDOR_NVIDIA) {
        caps->has_nv_attributes = 1;
        caps->nv_warp_size = record->simd_width;
    }
}
