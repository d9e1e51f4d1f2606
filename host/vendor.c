/* vendor.c — vendor normalization from what OpenCL reports, and the database architecture key. */
#include "host.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int contains(const char *text, const char *word)
{
    const size_t length = strlen(word);
    for (; *text; ++text)
        if (strncasecmp(text, word, length) == 0) return 1;
    return 0;
}

cls_vendor cls_vendor_detect(cl_uint vendor_id, const char *platform_name, const char *vendor_name,
                             const char *device_name)
{
    /* Runtimes first: PoCL and Oclgrind report the host CPU's vendor id. */
    if (contains(platform_name, "Portable Computing Language") || contains(platform_name, "pocl"))
        return CLS_VENDOR_POCL;
    if (contains(platform_name, "oclgrind") || contains(device_name, "oclgrind")) return CLS_VENDOR_OCLGRIND;
    switch (vendor_id) {
    case 0x10DE: return CLS_VENDOR_NVIDIA;
    case 0x1002: return CLS_VENDOR_AMD;
    case 0x8086: return CLS_VENDOR_INTEL;
    case 0x1027F00: return CLS_VENDOR_APPLE;
    case 0x13B5: return CLS_VENDOR_ARM;
    case 0x5143: return CLS_VENDOR_QUALCOMM;
    default: break;
    }
    static const struct { const char *word; cls_vendor vendor; } words[] = {
        {"nvidia", CLS_VENDOR_NVIDIA}, {"advanced micro devices", CLS_VENDOR_AMD},
        {"amd", CLS_VENDOR_AMD},       {"intel", CLS_VENDOR_INTEL},
        {"apple", CLS_VENDOR_APPLE},   {"arm", CLS_VENDOR_ARM},
        {"qualcomm", CLS_VENDOR_QUALCOMM},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
        if (contains(vendor_name, words[i].word)) return words[i].vendor;
    return CLS_VENDOR_UNKNOWN;
}

void cls_arch_key(cls_device_caps *caps)
{
    caps->arch[0] = '\0';
    if (caps->has_nv_attributes && caps->nv_compute_capability_major)
        snprintf(caps->arch, sizeof caps->arch, "sm_%u%u", caps->nv_compute_capability_major,
                 caps->nv_compute_capability_minor);
    else if (caps->amd_gfx_target[0])
        snprintf(caps->arch, sizeof caps->arch, "%s", caps->amd_gfx_target);
    else if (caps->has_intel_ip_version && caps->intel_ip_version)
        snprintf(caps->arch, sizeof caps->arch, "intel-ip-%u.%u.%u", caps->intel_ip_version >> 22,
                 (caps->intel_ip_version >> 14) & 0xFF, caps->intel_ip_version & 0x3FFF);
}
