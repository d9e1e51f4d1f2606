"""The structs of include/clstencil.h that the Python package uses, restated as ctypes structures.

ctypes lays fields out by the platform's C rules, so each _fields_ list must match the header
field for field: enums are C ints, char arrays and size_t arrays keep their lengths, pointers
stay pointers. python/tests/test_abi_layout.py compiles a probe against the real header and
compares every struct's size, field names, offsets and field sizes, so a header change that is
not made here fails the tests instead of corrupting memory.

Every struct here starts with struct_size, the size of the caller's copy (docs/abi.md): a
structure built in Python gets its ctypes size there, as the header's CLS_..._INIT macros give
C callers.
"""
from __future__ import annotations

import ctypes
from ctypes import c_char, c_char_p, c_float, c_int, c_size_t, c_uint, c_uint32, c_uint64, c_ulong
from typing import Any

# OpenCL's scalar types, as <CL/cl.h> defines them on every platform.
cl_uint = c_uint32
cl_ulong = c_uint64
# Handles (cl_context, cl_mem, cls_filter *, ...) are opaque pointers: ctypes.c_void_p.


class SizedStructure(ctypes.Structure):
    """A struct whose first field, struct_size, is its size: set on construction."""

    def __init__(self, *args: Any, **fields: Any) -> None:
        super().__init__(*args, **fields)
        if not self.struct_size:
            self.struct_size = ctypes.sizeof(self)


class DeviceCaps(SizedStructure):
    """cls_device_caps: the capability record of one OpenCL device."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("platform_index", c_uint), ("device_index", c_uint),
        ("platform_name", c_char * 128),
        ("platform_version", c_char * 128),
        ("name", c_char * 128),
        ("vendor_name", c_char * 128),
        ("vendor", c_int),  # cls_vendor
        ("type", c_int),  # cls_device_type
        ("vendor_id", cl_uint),
        ("driver_version", c_char * 64),
        ("device_version", c_char * 128),
        ("opencl_c_version", c_char * 64),
        ("address_bits", cl_uint),
        ("compute_units", cl_uint),
        ("max_clock_mhz", cl_uint),
        ("global_mem_size", cl_ulong),
        ("local_mem_size", cl_ulong),
        ("max_constant_buffer_size", cl_ulong),
        ("max_parameter_size", c_size_t),
        ("max_work_group_size", c_size_t),
        ("max_work_item_sizes", c_size_t * 3),
        ("preferred_work_group_multiple", c_size_t),
        ("simd_width", cl_uint),
        ("image_support", c_int),
        ("image2d_max_width", c_size_t), ("image2d_max_height", c_size_t),
        ("has_nv_attributes", c_int),
        ("nv_compute_capability_major", cl_uint), ("nv_compute_capability_minor", cl_uint),
        ("nv_registers_per_block", cl_uint),
        ("nv_warp_size", cl_uint),
        ("has_amd_attributes", c_int),
        ("amd_wavefront_width", cl_uint),
        ("amd_simds_per_cu", cl_uint),
        ("amd_board_name", c_char * 128),
        ("amd_gfx_target", c_char * 32),
        ("has_intel_ip_version", c_int),
        ("intel_ip_version", cl_uint),
        ("arch", c_char * 32),
    ]


class Spec(SizedStructure):
    """cls_spec: a local operator and how its kernel is generated."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("mask_width", c_uint), ("mask_height", c_uint),
        ("coefficients", ctypes.POINTER(c_float)),
        ("bake_coefficients", c_int),
        ("border", c_int),  # cls_border
        ("border_value", c_float),
        ("partition", c_int),  # cls_partition
        ("group_width", c_uint), ("group_height", c_uint),
        ("rows_per_item", c_uint),
        ("cols_per_item", c_uint),
        ("fold_equal_taps", c_int),
        ("input_path", c_int),  # cls_input_path
        ("separable", c_int),  # cls_separable
        ("row_coefficients", ctypes.POINTER(c_float)),
        ("column_coefficients", ctypes.POINTER(c_float)),
        ("mask_count", c_uint),
        ("epilogue", c_char_p),
        ("input_type", c_int), ("output_type", c_int),  # cls_pixel_type
        ("body", c_char_p),
        ("expected_width", c_uint), ("expected_height", c_uint),
        ("build_goal", c_int),  # cls_build_goal
        ("region_code", c_int),  # cls_region_code
        ("method", c_int),  # cls_method
        ("mask_depth", c_uint),
        ("reduction", c_int),  # cls_reduction
        ("border_y", c_int), ("border_z", c_int),  # cls_border: a mode per axis (-1: border's)
        ("rank", c_uint),  # CLS_REDUCTION_RANK's
        ("expected_depth", c_uint),  # a volume's slices, with expected_width x expected_height
    ]


class ImageDesc(SizedStructure):
    """cls_image_desc: the geometry of one launch (zero fields: whole image, packed rows)."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("width", c_size_t), ("height", c_size_t),
        ("input_row_pitch", c_size_t), ("output_row_pitch", c_size_t),
        ("input_offset", c_size_t), ("output_offset", c_size_t),
        ("roi_x", c_size_t), ("roi_y", c_size_t), ("roi_width", c_size_t), ("roi_height", c_size_t),
        ("depth", c_size_t),
        ("input_slice_pitch", c_size_t), ("output_slice_pitch", c_size_t),
        ("roi_z", c_size_t), ("roi_depth", c_size_t),
    ]


class CacheStatus(SizedStructure):
    """cls_cache_status: the binary cache's folder, size and this process's hits and misses."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("enabled", c_int),
        ("directory", c_char * 4096),
        ("entries", c_size_t),
        ("bytes", c_uint64), ("max_bytes", c_uint64),
        ("hits", c_ulong), ("misses", c_ulong),
    ]


# The header's name of each structure (the layout test probes these).
HEADER_NAMES = {"cls_device_caps": DeviceCaps, "cls_spec": Spec, "cls_image_desc": ImageDesc,
                "cls_cache_status": CacheStatus}
