"""pyopencl interop: filtering pyopencl.array.Array images in the caller's context and queue,
so the data stays on the device; each launch is ordered after the arrays' events and adds its
own event to the result (pyopencl's convention), so later pyopencl work waits for it."""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pyopencl
import pyopencl.array

from ._library import library
from ._structs import ImageDesc
from .contexts import wrapped_context
from .errors import check
from .filtering import UNDEFINED_BORDER, interior
from .filters import border_modes, build_goal, cached_filter, compute_method
from .operators import OperatorLike, as_operator
from .pixel_types import pixel_type


def _check_device_image(array: Any, role: str) -> pyopencl.array.Array:
    if not isinstance(array, pyopencl.array.Array):
        raise TypeError(f"{role} must be a pyopencl.array.Array, not {type(array).__name__}")
    if array.ndim != 2:
        raise ValueError(f"{role} must be 2-D (rows, columns), not of shape {array.shape}")
    pixel_type(array.dtype, role)
    rows, columns = array.shape
    item = array.dtype.itemsize
    if (columns > 1 and array.strides[1] != item) or \
            (rows > 1 and (array.strides[0] < columns * item or array.strides[0] % item)):
        raise ValueError(f"{role} needs rows of contiguous pixels (strides {array.strides}); "
                         f"copy it first")
    return array


def _handle(ocl_object: Any) -> int:
    """The address of a pyopencl object's OpenCL handle (cl_mem, cl_event, ...)."""
    return ocl_object.int_ptr


def _event_list(events: list[pyopencl.Event]) -> Any:
    """A C array of the events' cl_event handles, or NULL (None) for none."""
    if not events:
        return None
    return (ctypes.c_void_p * len(events))(*[_handle(event) for event in events])


def filter(array: pyopencl.array.Array, op: OperatorLike, border: str = "clamp",
           value: float = 0.0, *, out: pyopencl.array.Array | None = None, dtype=None,
           queue: pyopencl.CommandQueue | None = None,
           wait_for: list[pyopencl.Event] | None = None,
           build: str | None = None, method: str | None = None) -> pyopencl.array.Array:
    """clstencil.filter for a pyopencl array: enqueues the filter on `queue` (default: the
    array's) in that queue's context and returns the result array without waiting; its
    `events[-1]` is the launch. The launch waits for `array.events`, `out.events` and
    `wait_for`. Arguments otherwise as for clstencil.filter (results equal bit for bit)."""
    array = _check_device_image(array, "array")
    queue = queue or array.queue
    if queue is None:
        raise ValueError("the array has no queue: pass queue=")
    operator = as_operator(op)
    if len(operator.window) == 3:
        raise ValueError(f"{operator.name} is a volume's operator: pyopencl arrays take 2-D "
                         f"operators (clstencil.filter takes volumes as numpy arrays)")
    modes = border_modes(border, 2)
    undefined = modes[0] == UNDEFINED_BORDER
    goal = build_goal(build)
    chosen_method = compute_method(method)
    if out is None:
        chosen = array.dtype if dtype is None else np.dtype(dtype)
        pixel_type(chosen, "dtype")
        allocate = pyopencl.array.zeros if undefined else pyopencl.array.empty
        out = allocate(queue, array.shape, chosen)
    out = _check_device_image(out, "out")
    if out.shape != array.shape:
        raise ValueError(f"out has shape {out.shape}, the input {array.shape}")
    if dtype is not None and np.dtype(dtype) != out.dtype:
        raise ValueError(f"dtype {np.dtype(dtype).name} differs from out's {out.dtype.name}")
    if array.size == 0:
        return out
    region = interior(array.shape, operator.radius) if undefined else None
    if undefined and region is None:
        return out
    key = wrapped_context(queue.context.int_ptr, queue.device.int_ptr, queue.int_ptr)
    handle = cached_filter(key, operator, modes, float(value), pixel_type(array.dtype),
                           pixel_type(out.dtype), goal, chosen_method)
    image = ImageDesc()
    image.height, image.width = array.shape
    image.input_row_pitch = array.strides[0] if array.shape[0] > 1 else 0
    image.output_row_pitch = out.strides[0] if out.shape[0] > 1 else 0
    image.input_offset, image.output_offset = array.offset, out.offset
    if region is not None:
        image.roi_y, image.roi_x, image.roi_height, image.roi_width = region
    waits = list(array.events) + list(out.events) + list(wait_for or [])
    event = ctypes.c_void_p()
    check(library().cls_filter_enqueue(handle, _handle(array.base_data), _handle(out.base_data),
                                       image, len(waits), _event_list(waits),
                                       ctypes.byref(event)),
          f"enqueueing {operator.name}")
    launch = pyopencl.Event.from_int_ptr(event.value, retain=False)
    out.add_event(launch)
    return out
