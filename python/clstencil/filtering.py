"""clstencil.filter: one operator over a 2-D numpy array on an OpenCL device."""
from __future__ import annotations

import ctypes

import numpy as np

from ._library import library
from .devices import names_several, select_devices
from .errors import check
from .filters import border_modes, build_goal, cached_filter, compute_method
from .images import check_image, describe, has_pitched_rows, pointer
from .operators import OperatorLike, as_operator
from .pinned import pooled_empty
from .pixel_types import pixel_type

UNDEFINED_BORDER = 0


def interior(shape: tuple[int, ...], radius: tuple[int, ...]) -> tuple[int, ...] | None:
    """The region whose windows lie inside the image: its start along each axis, then its size
    ((y, x, height, width), or (z, y, x, depth, height, width)); None when empty."""
    if any(side <= 2 * reach for side, reach in zip(shape, radius)):
        return None
    return tuple(radius) + tuple(side - 2 * reach for side, reach in zip(shape, radius))


def prepare_output(shape: tuple[int, ...], out: np.ndarray | None, dtype, input_dtype: np.dtype,
                   zeroed: bool, device) -> np.ndarray:
    """The array the result goes to: `out` (checked) or a new one of `dtype` (default: the
    input's), in pinned memory of the device's (pooled_empty) unless it must start zeroed."""
    if out is None:
        chosen = input_dtype if dtype is None else np.dtype(dtype)
        pixel_type(chosen, "dtype")
        return np.zeros(shape, dtype=chosen) if zeroed else pooled_empty(shape, chosen, device)
    out = check_image(out, "out", len(shape) == 3)
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, the input {shape}")
    if dtype is not None and np.dtype(dtype) != out.dtype:
        raise ValueError(f"dtype {np.dtype(dtype).name} differs from out's {out.dtype.name}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    pixel_type(out.dtype, "out")
    return out


def filter(array: np.ndarray, op: OperatorLike, border: str = "clamp", value: float = 0.0, *,
           device: str | list[str] | None = None, out: np.ndarray | None = None, dtype=None,
           build: str | None = None, method: str | None = None) -> np.ndarray:
    """Applies a local operator to a 2-D image, or a volume's operator to a 3-D array, on an
    OpenCL device and returns the result.

    array: float32, uint8, uint16, int16, float16 or float64 (float64: weighted sums in double;
        other dtypes raise TypeError; convert them yourself); any row pitch (and slice pitch),
        other layouts are copied first. 3-D (slices, rows, columns) with a volume's operator.
    op: an operator string ("gaussian:5,1.2", "sobel:mag", "convolve:3x3,..."; for volumes
        "gaussian3d:5,1", "box3d:3", "correlate:3x3x3,...") or an Operator.
    border: clamp, mirror, mirror101, repeat, constant (with `value`) or undefined, where only
        pixels whose whole window lies inside the image are computed and the others keep their
        value in `out` (zero in a new array); or a sequence of modes, one per axis in numpy's
        order (("mirror", "clamp"): rows mirrored, columns clamped), undefined on all or none.
    device: a selector ("gpu", "cpu", "P:D", a name); None: CLSTENCIL_DEVICE or the default.
        Several devices ("1:0,1:1", ["1:0", "1:1"] or "gpus": every GPU): the image is split
        into bands of rows, one a device, filtered at once (cls_filter_run_host_spread), with
        the same result as one device.
    out: the array to write (same shape; any supported dtype; may be `array` itself).
    A pyopencl.array.Array input goes to clstencil.opencl.filter: the result stays on the
    device, enqueued in the array's queue without waiting.
    dtype: the result's dtype when `out` is not given (default: the input's); u8 and u16
        results are rounded to nearest even and saturated.
    build: "tiered" (a quick kernel at once, the fastest one from a background build),
        "first-result", "fastest-kernel" or "auto" (the fastest kernel at once where the device
        record expects it to pay for the array, else tiered); None: CLSTENCIL_BUILD_GOAL, else
        tiered. The results are the same bits whichever of a goal's kernels computes them
        (fastest-kernel may separate a mask of rank 1 on a GPU, whose sums then round in other
        places).
    method: how a weighted sum is computed: "direct" (the window's multiply-adds), "fft"
        (tiles transformed by VkFFT: the cost no longer grows with the mask; f32 results
        within 1e-5 x sum|mask| x max|input| of direct's, and they may differ at that level
        between image sizes) or None/"auto": the device's choice (fft for large masks where
        its record says so).

    Filters are built once per process and parameters and shared by threads (the GIL is
    released while the device works). Errors raise ClstencilError (InvalidArgumentError,
    DeviceError) carrying the library's message.
    """
    if type(array).__module__.startswith("pyopencl"):
        from . import opencl  # a device array: stays on the device, in the array's queue
        if device is not None:
            raise ValueError("device= selects a device for numpy arrays; a pyopencl array "
                             "runs in its own queue's context")
        return opencl.filter(array, op, border, value, out=out, dtype=dtype, build=build,
                             method=method)
    operator = as_operator(op)
    volume = len(operator.window) == 3
    array = check_image(array, "array", volume)
    input_type = pixel_type(array.dtype, "array")
    modes = border_modes(border, array.ndim)
    undefined = modes[0] == UNDEFINED_BORDER
    goal = build_goal(build)
    chosen_method = compute_method(method)
    value = float(value)
    pooled_device = device if not names_several(device) else None
    result = prepare_output(array.shape, out, dtype, array.dtype, undefined, pooled_device)
    output_type = pixel_type(result.dtype, "out")
    if array.size == 0:
        return result
    region = None
    if undefined:
        region = interior(array.shape, operator.radius)
        if region is None:
            return result
    selectors = select_devices(device) if names_several(device) else [device]
    if volume and len(selectors) > 1:
        raise ValueError("a volume runs on one device: give one device, not several")
    handles = [cached_filter(selector, operator, modes, value, input_type, output_type, goal,
                             chosen_method, array.shape if volume else None)
               for selector in selectors]
    if library().cls_filter_output_count(handles[0]) != 1:
        raise ValueError(f"{operator.name} writes several images; filter() returns one")
    source = array if has_pitched_rows(array) else np.ascontiguousarray(array)
    target = result if has_pitched_rows(result) else np.empty(result.shape, result.dtype)
    if target is not result:
        target[...] = result  # pixels the filter does not write keep their values
    geometry = describe(source, target, region)
    if len(handles) == 1:
        status = library().cls_filter_run_host(handles[0], pointer(source),
                                               pointer(target, const=False), geometry)
    else:  # bands of rows, a device each, at once
        status = library().cls_filter_run_host_spread((ctypes.c_void_p * len(handles))(*handles),
                                                      len(handles), pointer(source),
                                                      pointer(target, const=False), geometry)
    check(status, f"filtering with {operator.name}")
    if target is not result:
        result[...] = target
    return result
