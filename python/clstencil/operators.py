"""Operators: the C library's operator strings (cls_operator_parse) and user-written bodies."""
from __future__ import annotations

import threading
import weakref
from typing import Any, Sequence, Union

import numpy as np

from ._library import ffi, library, text
from .errors import check


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
        pointer = ffi.new("cls_operator **")
        check(library().cls_operator_parse(text_form.encode(), pointer),
              f"operator '{text_form}'")
        self._adopt(pointer[0])
        # The text as given: the canonical name leaves convolve's coefficients out.
        self.key: tuple = ("parsed", text_form)

    @classmethod
    def user(cls, body: str, width: int = 3, height: int = 3,
             mask: Sequence[float] | np.ndarray | None = None) -> "Operator":
        """A user-written operator: OpenCL C statements over a width x height window that read
        IN(dx, dy), MASK(dx, dy), may loop FOR_WINDOW(dx, dy) { ... } and assign OUT. mask
        (height x width values, row by row) defaults to all ones. A compile error raises
        ClstencilError with the build log, lines numbered from the body's first line."""
        if not isinstance(body, str):
            raise TypeError(f"an operator body is a string of OpenCL C, not {type(body).__name__}")
        for name, size in (("width", width), ("height", height)):
            if not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"window {name} must be a positive odd whole number, not {size!r}")
        mask_values = None
        mask_pointer = ffi.NULL
        if mask is not None:
            mask_values = np.ascontiguousarray(mask, dtype=np.float32).ravel()
            if mask_values.size != width * height:
                raise ValueError(f"mask has {mask_values.size} values; a {width}x{height} window "
                                 f"needs {width * height}")
            mask_pointer = ffi.cast("const float *", mask_values.ctypes.data)
        pointer = ffi.new("cls_operator **")
        check(library().cls_operator_user(body.encode(), int(width), int(height), mask_pointer,
                                          pointer), "user operator")
        operator = cls.__new__(cls)
        operator._adopt(pointer[0])
        mask_bytes = b"" if mask_values is None else mask_values.tobytes()
        operator.key = ("user", body, int(width), int(height), mask_bytes)
        return operator

    def _adopt(self, handle: Any) -> None:
        self._handle = handle
        weakref.finalize(self, library().cls_operator_release, handle)

    @property
    def name(self) -> str:
        """The canonical name, e.g. "gaussian:5,1.1" or "convolve:5x3" (without the
        coefficients), "user" for a user-written body."""
        return text(library().cls_operator_name(self._handle))

    @property
    def window(self) -> tuple[int, int]:
        """The window's (height, width): rows and columns, numpy's axis order."""
        spec = library().cls_operator_spec(self._handle)
        return int(spec.mask_height), int(spec.mask_width)

    @property
    def radius(self) -> tuple[int, int]:
        """How far the window reaches from its centre: (rows, columns)."""
        height, width = self.window
        return height // 2, width // 2

    @property
    def mask(self) -> np.ndarray | None:
        """The weights as a (height, width) float32 array, for operators that are one weighted
        sum (convolve, gaussian, box, laplace, sobel:x, ...); None for the others (sobel:mag,
        bilateral, tonemap, user-written bodies). clstencil computes
        out[y, x] = sum of mask[j, i] * in[y + j - ry, x + i - rx], as scipy.ndimage.correlate."""
        spec = library().cls_operator_spec(self._handle)
        if spec.body != ffi.NULL or spec.mask_count > 1 or spec.epilogue != ffi.NULL:
            return None
        height, width = self.window
        if spec.coefficients != ffi.NULL:
            values = ffi.unpack(spec.coefficients, width * height)
            return np.array(values, dtype=np.float32).reshape(height, width)
        if spec.row_coefficients != ffi.NULL and spec.column_coefficients != ffi.NULL:
            row = np.array(ffi.unpack(spec.row_coefficients, width), dtype=np.float32)
            column = np.array(ffi.unpack(spec.column_coefficients, height), dtype=np.float32)
            return np.outer(column, row)
        return None

    def spec_copy(self) -> Any:
        """A new cls_spec holding the operator's; its pointers point into this operator, which
        must stay alive until the spec has been used (filters copy what they need)."""
        spec = ffi.new("cls_spec *")
        spec[0] = library().cls_operator_spec(self._handle)[0]
        return spec

    def __reduce__(self):
        # Pickled as what rebuilds it (dask sends operators to worker processes).
        if self.key[0] == "parsed":
            return Operator, (self.key[1],)
        _, body, width, height, mask_bytes = self.key
        mask = np.frombuffer(mask_bytes, dtype=np.float32) if mask_bytes else None
        return Operator.user, (body, width, height, mask)

    def __repr__(self) -> str:
        return f"Operator({self.name!r})"


OperatorLike = Union[str, Operator]

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
