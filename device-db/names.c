/* names.c — printable names of vendors and device types, as the device records and reports
 * spell them. */
#include <clstencil.h>

const char *cls_vendor_name(cls_vendor vendor)
{
    switch (vendor) {
    case CLS_VENDOR_NVIDIA: return "NVIDIA";
    case CLS_VENDOR_AMD: return "AMD";
    case CLS_VENDOR_INTEL: return "Intel";
    case CLS_VENDOR_APPLE: return "Apple";
    case CLS_VENDOR_ARM: return "ARM";
    case CLS_VENDOR_QUALCOMM: return "Qualcomm";
    case CLS_VENDOR_POCL: return "PoCL";
    case CLS_VENDOR_OCLGRIND: return "Oclgrind";
    case CLS_VENDOR_UNKNOWN: break;
    }
    return "unknown";
}

const char *cls_device_type_name(cls_device_type type)
{
    switch (type) {
    case CLS_DEVICE_GPU: return "gpu";
    case CLS_DEVICE_ACCELERATOR: return "accelerator";
    case CLS_DEVICE_CPU: return "cpu";
    case CLS_DEVICE_OTHER: break;
    }
    return "other";
}
