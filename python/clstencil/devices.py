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


def names_several(device) -> bool:
    """Whether a device= value names several devices: a list or tuple of selectors, or a
    string with commas ("1:0,1:1") or "gpus" (every GPU)."""
    if isinstance(device, (list, tuple)) and not (isinstance(device, tuple) and device
                                                  and device[0] in ("queue", "lane")):
        return True
    return isinstance(device, str) and ("," in device or device.strip().lower() == "gpus")


def select_devices(device) -> list[str]:
    """The "P:D" selectors of the devices a device= value names (names_several), in its order
    (cls_device_select_list). Raises DeviceError when an item matches nothing, ValueError for an
    empty list."""
    if isinstance(device, (list, tuple)):
        if not device or not all(isinstance(item, str) for item in device):
            raise ValueError(f"device= as a list wants selector strings, not {device!r}")
        device = ",".join(device)
    lib = library()
    queried = ctypes.c_void_p()
    check(lib.cls_devices_query(ctypes.byref(queried)), "listing the OpenCL devices")
    device_list = queried.value
    try:
        capacity = 64
        indices = (ctypes.c_size_t * capacity)()
        count = ctypes.c_size_t()
        check(lib.cls_device_select_list(device_list, device.encode(), indices, capacity,
                                         ctypes.byref(count)), f"choosing the devices {device!r}")
        selected = []
        for index in indices[:count.value]:
            caps = lib.cls_device_list_get(device_list, index).contents
            selected.append(f"{caps.platform_index}:{caps.device_index}")
        return selected
    finally:
        lib.cls_device_list_release(device_list)
