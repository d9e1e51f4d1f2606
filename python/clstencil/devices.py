"""The OpenCL devices the C library sees (cls_devices_query), as plain records."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

from ._library import library, text
from .errors import check


@dataclass(frozen=True)
class Device:
    """One OpenCL device. `selector` ("P:D") picks it in filter(..., device=...)."""

    selector: str
    name: str
    platform: str
    vendor: str
    type: str
    driver_version: str
    compute_units: int
    global_memory_bytes: int
    local_memory_bytes: int
    max_work_group_size: int
    architecture: str
    default: bool


def _record(lib, caps, default: bool) -> Device:
    return Device(
        selector=f"{caps.platform_index}:{caps.device_index}",
        name=text(caps.name),
        platform=text(caps.platform_name),
        vendor=text(lib.cls_vendor_name(caps.vendor)),
        type=text(lib.cls_device_type_name(caps.type)),
        driver_version=text(caps.driver_version),
        compute_units=int(caps.compute_units),
        global_memory_bytes=int(caps.global_mem_size),
        local_memory_bytes=int(caps.local_mem_size),
        max_work_group_size=int(caps.max_work_group_size),
        architecture=text(caps.arch),
        default=default)


def devices() -> list[Device]:
    """Every device of every OpenCL platform; `default` marks the one device=None selects
    (CLSTENCIL_DEVICE, else a GPU, an accelerator or a CPU). Raises DeviceError when no OpenCL
    platform is installed."""
    lib = library()
    queried = ctypes.c_void_p()
    check(lib.cls_devices_query(ctypes.byref(queried)), "listing the OpenCL devices")
    device_list = queried.value
    try:
        chosen = ctypes.c_size_t()
        default_index = -1
        if lib.cls_device_select(device_list, None, ctypes.byref(chosen)) == 0:
            default_index = chosen.value
        return [_record(lib, lib.cls_device_list_get(device_list, index).contents,
                        index == default_index)
                for index in range(lib.cls_device_list_count(device_list))]
    finally:
        lib.cls_device_list_release(device_list)
