"""Built filters (cls_filter), cached per process: one per device, operator, border, border
value, pixel types and build goal, shared by every call and thread, released at exit."""
from __future__ import annotations

import ctypes
import math
import os
import struct
import threading
from typing import Any

from ._library import library, text
from ._structs import Spec
from .contexts import context, normalize_selector, on_release
from .errors import CLS_ERR_INVALID_ARGUMENT, InvalidArgumentError, check
from .operators import Operator

# Build goals (cls_build_goal) by name. "tiered" serves the first calls with a quick kernel and
# swaps in the specialized one once a background thread has built it; every goal computes the
# same sums in the same order, so results do not depend on it. "auto" builds the specialized
# kernel at once where the device record expects that to pay for the array at hand, else it is
# "tiered".
BUILD_GOALS = {"fastest-kernel": 0, "first-result": 1, "tiered": 2, "auto": 3}
# build=None means the CLSTENCIL_BUILD_GOAL environment variable, else tiered.
BUILD_GOAL_ENVIRONMENT_VARIABLE = "CLSTENCIL_BUILD_GOAL"
DEFAULT_BUILD_GOAL = "tiered"

CONSTANT_BORDER = 5

_filters: dict[tuple, Any] = {}
_creation_locks: dict[tuple, threading.Lock] = {}
_lock = threading.Lock()


def border_mode(border: str) -> int:
    """The cls_border of a name or alias (clamp, mirror, mirror101, repeat, constant,
    undefined; "replicate", ...), case-insensitively; InvalidArgumentError otherwise."""
    if not isinstance(border, str):
        raise TypeError(f"border must be a name such as 'mirror', not {type(border).__name__}")
    mode = ctypes.c_int()
    check(library().cls_border_parse(border.encode(), ctypes.byref(mode)), "border")
    return mode.value


def border_modes(border, ndim: int) -> tuple[int, int, int]:
    """The (x, y, z) cls_border values of a name, or of a sequence of names, one per array axis
    in numpy's order (rows, columns; slices, rows, columns), as scipy.ndimage takes modes."""
    if isinstance(border, str):
        mode = border_mode(border)
        return (mode, mode, mode)
    try:
        names = list(border)
    except TypeError:
        raise TypeError(f"border must be a name such as 'mirror', or one per axis, not "
                        f"{type(border).__name__}") from None
    if len(names) != ndim:
        raise ValueError(f"border names {len(names)} modes for an array of {ndim} axes: give one "
                         f"name, or one per axis")
    modes = [border_mode(name) for name in reversed(names)]  # x first
    return (modes[0], modes[1], modes[2] if ndim == 3 else modes[0])


def build_goal(build: str | None) -> int:
    """The cls_build_goal of a name: fastest-kernel, first-result, tiered or auto; None: the
    CLSTENCIL_BUILD_GOAL environment variable, else tiered."""
    source = "build"
    if build is None:
        build = os.environ.get(BUILD_GOAL_ENVIRONMENT_VARIABLE) or DEFAULT_BUILD_GOAL
        source = BUILD_GOAL_ENVIRONMENT_VARIABLE
    if build not in BUILD_GOALS:  # refused as the library refuses the other bad names
        message = f"{source} must be one of {', '.join(BUILD_GOALS)}, not {build!r}"
        raise InvalidArgumentError(message, CLS_ERR_INVALID_ARGUMENT, "CLS_ERR_INVALID_ARGUMENT")
    return BUILD_GOALS[build]


def compute_method(method: str | None) -> int:
    """The cls_method of a name: "direct", "fft" or "auto" (None: auto, the device's choice)."""
    if method is None:
        return 0
    if not isinstance(method, str):
        raise TypeError(f"method must be 'auto', 'direct' or 'fft', not {type(method).__name__}")
    value = ctypes.c_int()
    check(library().cls_method_parse(method.encode(), ctypes.byref(value)), "method")
    return value.value


def stage_spec(operator: Operator, border, value: float, input_type: int, output_type: int,
               goal: int, method: int = 0, volume_shape: tuple[int, int, int] | None = None) -> Spec:
    """The operator's spec with a border (a cls_border, or one for each of x, y and z), its
    value, pixel types, a build goal and a method set; volume_shape (depth, height, width): the
    volume a volume's operator is built for (the spec's expected size)."""
    spec = operator.spec_copy()
    spec.method = method
    spec.border, spec.border_y, spec.border_z = (border,) * 3 if isinstance(border, int) else border
    spec.border_value = value
    spec.input_type = input_type
    spec.output_type = output_type
    spec.build_goal = goal
    if volume_shape:
        spec.expected_depth, spec.expected_height, spec.expected_width = volume_shape
    return spec


def volume_size_class(shape: tuple[int, ...]) -> int:
    """A volume's size class as the library files tuning results under it: log2 of the geometric
    mean of its three sides, rounded."""
    return max(1, round(math.log2(math.prod(shape)) / 3))


def cached_filter(device: str | None, operator: Operator, border, value: float,
                  input_type: int, output_type: int, goal: int, method: int = 0,
                  volume_shape: tuple[int, int, int] | None = None) -> Any:
    """The process's cls_filter for these parameters, built on first use (thread-safe: a second
    thread asking for the same filter waits for the first one's build). border: a cls_border,
    or one for each of x, y and z. volume_shape (depth, height, width): the volume a volume's
    filter is built for, so that `auto` chooses its walk for that size; volumes of one size class
    share a filter."""
    selector = normalize_selector(device)
    border = (border,) * 3 if isinstance(border, int) else tuple(border)
    if CONSTANT_BORDER not in border:
        value = 0.0  # read by the constant border only: one filter serves every value
    try:
        value_bits = struct.pack("=f", value)  # the float the kernel sees, NaN included
    except OverflowError:
        raise InvalidArgumentError(f"border value {value}: beyond float32's range", CLS_ERR_INVALID_ARGUMENT,
                                   "CLS_ERR_INVALID_ARGUMENT") from None
    size_class = volume_size_class(volume_shape) if volume_shape and min(volume_shape) > 0 else 0
    key = (selector, operator.key, border, value_bits, input_type, output_type, goal, method, size_class)
    found = _filters.get(key)
    if found is not None:
        return found
    with _lock:
        creation_lock = _creation_locks.setdefault(key, threading.Lock())
    with creation_lock:
        found = _filters.get(key)
        if found is None:
            spec = stage_spec(operator, border, value, input_type, output_type, goal, method,
                              volume_shape if size_class else None)
            created = ctypes.c_void_p()
            check(library().cls_filter_create(context(selector), spec, ctypes.byref(created)),
                  f"building {operator.name} ({border_names(border)} border)")
            found = created.value
            _filters[key] = found
    return found


def library_border_name(border: int) -> str:
    """The canonical name of a cls_border."""
    return text(library().cls_border_name(border))


def border_names(modes: tuple[int, int, int]) -> str:
    """"mirror" where every axis has it, else the modes along x, y and z ("mirror,clamp,mirror")."""
    names = [library_border_name(mode) for mode in modes]
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _release_filters() -> None:
    lib = library()
    with _lock:
        for handle in _filters.values():
            lib.cls_filter_release(handle)
        _filters.clear()


def _forget_after_fork() -> None:
    global _lock
    _filters.clear()
    _creation_locks.clear()
    _lock = threading.Lock()


on_release(_release_filters)
os.register_at_fork(after_in_child=_forget_after_fork)
