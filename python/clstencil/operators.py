"""Operators: the C library's operator strings (cls_operator_parse) and user-written bodies."""
from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Sequence, Union

import numpy as np

from ._library import library, text
from ._structs import Spec
from .errors import CLS_ERR_INVALID_ARGUMENT, InvalidArgumentError, check


class Operator:
    """A local operator: Operator("gaussian:5,1.2"), or Operator.user(body, width, height).

    Strings are those of the command line's --op: convolve:WxH,c1,...  gaussian:SIZE[,SIGMA]
    box:SIZE  laplace[:3|5]  sobel:x|y|mag  scharr:x|y|mag[,SIZE]  bilateral:SD,SR[,SIZE]
    atrous:D  tonemap. A bad string raises InvalidArgumentError with the library's message.
    """

    def __init__(self, text_form: str) -> None:
        if not isinstance(text_form, str):
            raise TypeError(f"an operator is a string such as 'gaussian:5', not "
                            f"{type(text_form).__name__}")
        if "\0" in text_form:  # the library reads a C string: what follows would be lost
            raise InvalidArgumentError(f"operator {text_form!r}: a NUL character", CLS_ERR_INVALID_ARGUMENT,
                                       "CLS_ERR_INVALID_ARGUMENT")
        parsed = ctypes.c_void_p()
        check(library().cls_operator_parse(text_form.encode(), ctypes.byref(parsed)),
              f"operator '{text_form}'")
        self._adopt(parsed.value)
        # The text as given: the canonical name leaves convolve's coefficients out.
        self.key: tuple = ("parsed", text_form)

    @classmethod
    def correlate(cls, weights: Sequence | np.ndarray, origin: int | Sequence[int] = 0) -> "Operator":
        """The weighted sum of a 2-D (height, width) or 3-D (depth, height, width) array of weights,
        of any sides, as scipy.ndimage.correlate applies them: the output pixel at the weights'
        cell side // 2 + origin along each axis (origin: one number or one per axis, numpy's order;
        a volume's operator for 3-D weights). The weights are rounded to float32."""
        values = np.ascontiguousarray(weights, dtype=np.float32)
        if values.ndim not in (2, 3):
            raise ValueError(f"weights must be 2-D or 3-D, not of shape {values.shape}")
        shifts = axis_origins(origin, values.ndim)
        sides = values.shape[::-1] + (0,) * (3 - values.ndim)  # x, y, z (0: a 2-D mask)
        created = ctypes.c_void_p()
        origin_xyz = (ctypes.c_int * 3)(*(shifts[::-1] + (0,) * (3 - values.ndim)))
        check(library().cls_operator_weights(values.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                             *sides, origin_xyz, ctypes.byref(created)), "weights")
        return cls._made(created.value, ("weights", values.tobytes(), values.shape, shifts))

    @classmethod
    def footprint(cls, name: str, footprint: Sequence | np.ndarray, origin: int | Sequence[int] = 0,
                  percent: float = 0.0) -> "Operator":
        """The rank or morphology operator NAME (median, percentile of `percent`, min, max, dilate,
        morphgradient, opening, closing, tophat, blackhat) over a 2-D footprint of any sides
        (true or non-zero: a pixel of it), the output pixel at cell side // 2 + origin (scipy's
        origin; dilate and the compositions reflect the footprint as scipy's grey_dilation). A
        3-D footprint (depth, height, width) makes a volume's min, max, dilate, median or
        percentile (of at most 1,024 voxels)."""
        cells = np.ascontiguousarray(np.asarray(footprint) != 0, dtype=np.uint8)
        if cells.ndim not in (2, 3):
            raise ValueError(f"a footprint must be 2-D or 3-D, not of shape {cells.shape}")
        shifts = axis_origins(origin, cells.ndim)
        sides = cells.shape[::-1] + (0,) * (3 - cells.ndim)  # x, y, z (0: 2-D)
        origin_xyz = (ctypes.c_int * 3)(*(shifts[::-1] + (0,) * (3 - cells.ndim)))
        created = ctypes.c_void_p()
        check(library().cls_operator_footprint(name.encode(), float(percent),
                                               cells.ctypes.data_as(ctypes.POINTER(ctypes.c_ubyte)),
                                               *sides, origin_xyz, ctypes.byref(created)),
              f"{name} over a footprint")
        return cls._made(created.value, ("footprint", name, cells.tobytes(), cells.shape, shifts,
                                         float(percent)))

    @classmethod
    def _made(cls, handle: int, key: tuple) -> "Operator":
        operator = cls.__new__(cls)
        operator._adopt(handle)
        operator.key = key
        return operator

    @classmethod
    def user(cls, body: str, width: int = 3, height: int = 3,
             mask: Sequence[float] | np.ndarray | None = None, depth: int = 0) -> "Operator":
        """A user-written operator: OpenCL C statements over a width x height window that read
        IN(dx, dy), MASK(dx, dy), may loop FOR_WINDOW(dx, dy) { ... } and assign OUT (or, for a
        column of ROWS outputs at once, OUT_AT(k); docs/api.md). mask
        (height x width values, row by row) defaults to all ones. With a depth, a volume's
        operator over width x height x depth that reads IN(dx, dy, dz), MASK(dx, dy, dz) and
        FOR_WINDOW(dx, dy, dz) and assigns OUT (mask: depth x height x width). A compile error
        raises ClstencilError with the build log, lines numbered from the body's first line."""
        if not isinstance(body, str):
            raise TypeError(f"an operator body is a string of OpenCL C, not {type(body).__name__}")
        for name, size in (("width", width), ("height", height)):
            if not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"window {name} must be a positive odd whole number, not {size!r}")
        if not isinstance(depth, (int, np.integer)) or depth < 0:
            raise ValueError(f"window depth must be a positive odd whole number (0: 2-D), not {depth!r}")
        taps = width * height * (depth or 1)
        mask_values = None
        mask_pointer = None
        if mask is not None:
            mask_values = np.ascontiguousarray(mask, dtype=np.float32).ravel()
            if mask_values.size != taps:
                window = f"{width}x{height}" + (f"x{depth}" if depth else "")
                raise ValueError(f"mask has {mask_values.size} values; a {window} window needs {taps}")
            mask_pointer = mask_values.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        created = ctypes.c_void_p()
        if depth:
            check(library().cls_operator_user_volume(body.encode(), int(width), int(height), int(depth),
                                                     mask_pointer, ctypes.byref(created)), "user operator")
        else:
            check(library().cls_operator_user(body.encode(), int(width), int(height), mask_pointer,
                                              ctypes.byref(created)), "user operator")
        mask_bytes = b"" if mask_values is None else mask_values.tobytes()
        return cls._made(created.value, ("user", body, int(width), int(height), mask_bytes, int(depth)))

    def _spec(self) -> Spec:
        """The operator's own spec (owned by the operator, read-only)."""
        return library().cls_operator_spec(self._handle).contents

    def _adopt(self, handle: int) -> None:
        self._handle = handle
        weakref.finalize(self, library().cls_operator_release, handle)

    @property
    def name(self) -> str:
        """The canonical name, e.g. "gaussian:5,1.1" or "convolve:5x3" (without the
        coefficients), "user" for a user-written body."""
        return text(library().cls_operator_name(self._handle))

    @property
    def window(self) -> tuple[int, ...]:
        """The window in numpy's axis order: (height, width), or (depth, height, width) for a
        volume's operator (gaussian3d:, box3d:, correlate:WxHxD, ...)."""
        spec = self._spec()
        flat = (int(spec.mask_height), int(spec.mask_width))
        return (int(spec.mask_depth),) + flat if spec.mask_depth > 0 else flat

    @property
    def radius(self) -> tuple[int, ...]:
        """How far the window reaches from its centre along each axis of `window`."""
        return tuple(side // 2 for side in self.window)

    @property
    def mask(self) -> np.ndarray | None:
        """The weights as a float32 array of the window's shape, for operators that are one
        weighted sum (convolve, gaussian, box, laplace, sobel:x, gaussian3d, ...); None for the
        others (sobel:mag, bilateral, tonemap, user-written bodies). clstencil computes
        out[y, x] = sum of mask[j, i] * in[y + j - ry, x + i - rx], as scipy.ndimage.correlate
        (and alike along z for a volume's)."""
        spec = self._spec()
        if spec.body is not None or spec.mask_count > 1 or spec.epilogue is not None:
            return None
        height, width = self.window[-2:]
        if spec.coefficients:  # a NULL pointer is false
            values = spec.coefficients[:int(np.prod(self.window))]
            return np.array(values, dtype=np.float32).reshape(self.window)
        if spec.row_coefficients and spec.column_coefficients:
            row = np.array(spec.row_coefficients[:width], dtype=np.float32)
            column = np.array(spec.column_coefficients[:height], dtype=np.float32)
            return np.outer(column, row)
        return None

    def spec_copy(self) -> Spec:
        """A new cls_spec holding the operator's; its pointers point into this operator, which
        must stay alive until the spec has been used (filters copy what they need)."""
        spec = Spec.from_buffer_copy(self._spec())
        spec.struct_size = ctypes.sizeof(Spec)  # this copy's size, whatever the library's
        return spec

    def __reduce__(self):
        # Pickled as what rebuilds it (dask sends operators to worker processes).
        kind = self.key[0]
        if kind == "parsed":
            return Operator, (self.key[1],)
        if kind == "weights":
            _, values, shape, shifts = self.key
            return Operator.correlate, (np.frombuffer(values, np.float32).reshape(shape), shifts)
        if kind == "footprint":
            _, name, cells, shape, shifts, percent = self.key
            return Operator.footprint, (name, np.frombuffer(cells, np.uint8).reshape(shape), shifts,
                                        percent)
        _, body, width, height, mask_bytes, depth = self.key
        mask = np.frombuffer(mask_bytes, dtype=np.float32) if mask_bytes else None
        return Operator.user, (body, width, height, mask, depth)

    def __repr__(self) -> str:
        return f"Operator({self.name!r})"


OperatorLike = Union[str, Operator]


def axis_origins(origin: int | Sequence[int], axes: int) -> tuple[int, ...]:
    """scipy's origin: one whole number for every axis, or one per axis (numpy's order)."""
    values = (origin,) * axes if np.isscalar(origin) else tuple(origin)
    if len(values) != axes or not all(isinstance(v, (int, np.integer)) for v in values):
        raise ValueError(f"origin must be a whole number or {axes} of them, not {origin!r}")
    return tuple(int(v) for v in values)

_parsed: dict[str, Operator] = {}
_parsed_lock = threading.Lock()


def as_operator(op: OperatorLike) -> Operator:
    """An Operator from an Operator or a string (strings parsed once per process)."""
    if isinstance(op, Operator):
        return op
    if not isinstance(op, str):
        raise TypeError(f"op must be an operator string such as 'gaussian:5' or an Operator, "
                        f"not {type(op).__name__}")
    found = _parsed.get(op)
    if found is None:
        found = Operator(op)
        with _parsed_lock:
            found = _parsed.setdefault(op, found)
    return found
