"""What every function of clstencil.ndimage shares: scipy.ndimage's argument rules (modes,
per-axis sequences, origins, the output argument) and the line between what the device serves
and what it does not (Unserved)."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..pinned import pooled_empty

# scipy's boundary modes -> clstencil's border modes. For filters scipy extends lines alike for
# 'constant' and 'grid-constant', 'wrap' and 'grid-wrap', 'reflect' and 'grid-mirror'.
BORDERS = {"reflect": "mirror", "grid-mirror": "mirror", "mirror": "mirror101", "nearest": "clamp",
           "wrap": "repeat", "grid-wrap": "repeat", "constant": "constant", "grid-constant": "constant"}

# Integers up to this magnitude are exact in float32, the precision the device computes in.
FLOAT32_EXACT = 2 ** 24


class Unserved(NotImplementedError):
    """A call clstencil.ndimage does not compute on the device: the message says why. With
    clstencil.ndimage.fallback_to_scipy set, scipy.ndimage answers such calls instead."""


def border(mode) -> str:
    """The clstencil border of one scipy mode; RuntimeError for an unknown one, as scipy."""
    if not isinstance(mode, str) or mode not in BORDERS:
        raise RuntimeError("boundary mode not supported")
    return BORDERS[mode]


def per_axis(value, axes: int) -> list:
    """One value per axis: a scalar (or a string) repeated, or a sequence of exactly `axes`."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        return [value] * axes
    values = list(value)
    if len(values) != axes:
        raise RuntimeError("sequence argument must have length equal to input rank")
    return values


def one_mode(mode) -> str:
    """The mode of a non-separable filter, which takes one mode for every axis."""
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported")
    return mode


def check_origin(origin: int, side: int, message: str = "invalid origin") -> None:
    """scipy's rule: the output pixel, cell side // 2 + origin, is one of the window's cells."""
    if side // 2 + origin < 0 or side // 2 + origin >= side:
        raise ValueError(message)


def real_input(input) -> np.ndarray:
    """The input as an array the device can take: real, at most 3-D (Unserved otherwise)."""
    if type(input).__module__.startswith("pyopencl"):
        raise Unserved("clstencil.ndimage takes numpy arrays; clstencil.filter filters a pyopencl "
                       "array where it is, on its device")
    array = np.asarray(input)
    if array.dtype.kind == "c":
        raise Unserved("complex arrays are not computed by clstencil")
    if array.dtype.kind not in "biuf":
        raise Unserved(f"arrays of dtype {array.dtype} are not computed by clstencil")
    if array.dtype == np.float16:  # scipy.ndimage refuses half floats: so does its drop-in
        raise RuntimeError("array type not supported")
    if not 1 <= array.ndim <= 3:
        raise Unserved(f"{array.ndim}-D arrays are not computed by clstencil (1-D to 3-D are)")
    return array


def sums_in_double(dtype: np.dtype) -> bool:
    """Whether weighted sums of values of the dtype run in double: float64 and integers of 32
    or 64 bits."""
    return dtype == np.float64 or (dtype.kind in "iu" and dtype.itemsize > 2)


def sum_values(array: np.ndarray) -> np.ndarray:
    """The values a weighted sum reads: in float64 where sums_in_double (the device then sums in
    double, as scipy does, from the values scipy's own conversion gives), the others in float32
    (exact for them)."""
    if array.dtype == np.float64:
        return array
    if sums_in_double(array.dtype):
        return array.astype(np.float64)
    return array.astype(np.float32, copy=False)


def output_array(output, input: np.ndarray) -> np.ndarray:
    """scipy's output argument: None (an array of the input's dtype), a dtype (an array of it)
    or an array of the input's shape, which is returned filled (every element is written; a new
    one comes from the pool of pinned memory, which the device copies into fastest)."""
    if output is None:
        return pooled_empty(input.shape, np.dtype(input.dtype.name))  # native byte order, as scipy's
    if isinstance(output, (type, np.dtype, str)):
        return pooled_empty(input.shape, output_dtype(np.dtype(output)))
    if not isinstance(output, np.ndarray):
        raise TypeError(f"output must be None, a dtype or a numpy array, not {type(output).__name__}")
    if output.shape != input.shape:
        raise RuntimeError("output shape not correct")
    output_dtype(output.dtype)
    return output


def output_dtype(dtype: np.dtype) -> np.dtype:
    """An output's dtype as scipy takes it: half floats refused, complex ones not served."""
    if dtype.kind == "c":
        raise Unserved("complex outputs are not computed by clstencil")
    if dtype == np.float16:
        raise RuntimeError("array type not supported")
    return dtype


def store(output: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Writes values into output as scipy's C casts do on the machines it runs on: floating
    values into integers truncated toward zero, then wrapped modulo the integer type's range
    (-3 into uint8 is 253); into booleans as into uint8 (0.25 is False)."""
    if values is output:
        return output
    if output.dtype == np.bool_ and values.dtype.kind == "f":  # C's (npy_bool) 0.25 is 0: a uint8 cast
        with np.errstate(invalid="ignore"):
            values = values.astype(np.int64).astype(np.uint8)
    if output.dtype.kind in "iu" and values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):  # beyond int64: what the cast makes of it, as C's
            whole = values.astype(np.int64)
            if output.dtype == np.uint64:  # uint64's upper half is past int64: cast directly
                whole = np.where(values >= 2.0 ** 63, values.astype(np.uint64), whole.astype(np.uint64))
        values = whole
    np.copyto(output, values, casting="unsafe")
    return output
