"""numpy arrays as the C library's images: a pointer to pixel (0, 0), a row pitch in bytes and,
for volumes, a slice pitch.

The library takes rows of contiguous pixels at any pitch, so C-contiguous arrays and row or
column slices of them pass without a copy; other layouts (transposed, every other column,
negative strides) are copied into a contiguous array first (their values unchanged).
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ._structs import ImageDesc


def check_image(array: Any, role: str, volume: bool = False) -> np.ndarray:
    """The array as a 2-D numpy array (3-D: (slices, rows, columns) for a volume's operator);
    TypeError / ValueError with a clear message otherwise."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{role} must be a numpy array, not {type(array).__name__} "
                        f"(dask arrays: clstencil.dask.filter)")
    if volume and array.ndim != 3:
        raise ValueError(f"{role} must be 3-D (slices, rows, columns) for a volume's operator, not of "
                         f"shape {array.shape}")
    if not volume and array.ndim != 2:
        raise ValueError(f"{role} must be 2-D (rows, columns), not of shape {array.shape}; "
                         f"filter each plane of a stack on its own, or give a volume's operator "
                         f"(gaussian3d:, box3d:, correlate:WxHxD)")
    return array


def has_pitched_rows(array: np.ndarray) -> bool:
    """Whether the rows' pixels are contiguous, the rows a whole number of pixels apart, and a
    volume's slices a whole number of pixels apart past their rows."""
    item = array.itemsize
    rows, columns = array.shape[-2:]
    if columns > 1 and array.strides[-1] != item:
        return False
    if rows > 1 and (array.strides[-2] < columns * item or array.strides[-2] % item):
        return False
    if array.ndim == 3 and array.shape[0] > 1:
        rows_bytes = (array.strides[-2] if rows > 1 else columns * item) * rows
        if array.strides[0] < rows_bytes or array.strides[0] % item:
            return False
    return True


def row_pitch(array: np.ndarray) -> int:
    """The bytes from one row to the next (0: packed, what the library assumes by default)."""
    return int(array.strides[-2]) if array.shape[-2] > 1 else 0


def slice_pitch(array: np.ndarray) -> int:
    """The bytes from one slice of a volume to the next (0: its rows' bytes, the default)."""
    return int(array.strides[0]) if array.ndim == 3 and array.shape[0] > 1 else 0


def pointer(array: np.ndarray, const: bool = True) -> ctypes.c_void_p:
    """A C pointer to the array's first pixel (the array must outlive its use); `const` only
    documents the caller's intent, as ctypes has no const pointers."""
    return ctypes.c_void_p(array.ctypes.data)


def describe(input_array: np.ndarray, output_array: np.ndarray,
             region: tuple[int, ...] | None = None) -> ImageDesc:
    """A cls_image_desc for two arrays of the same shape; region (y, x, height, width), or for
    volumes (z, y, x, depth, height, width), limits what is computed (the border handling is
    still the whole image's)."""
    rows, columns = input_array.shape[-2:]
    image = ImageDesc()
    image.width, image.height = columns, rows
    image.input_row_pitch = row_pitch(input_array)
    image.output_row_pitch = row_pitch(output_array)
    if input_array.ndim == 3:
        image.depth = input_array.shape[0]
        image.input_slice_pitch = slice_pitch(input_array)
        image.output_slice_pitch = slice_pitch(output_array)
    if region is not None and len(region) == 6:
        image.roi_z, image.roi_y, image.roi_x, image.roi_depth, image.roi_height, image.roi_width = region
    elif region is not None:
        image.roi_y, image.roi_x, image.roi_height, image.roi_width = region
    return image
