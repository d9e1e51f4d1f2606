"""The device's part of clstencil.ndimage: a weighted sum of any weights (float32 values summed
in float, float64 values in double) and a rank or extremum over any footprint, on 1-D, 2-D and
3-D arrays, through clstencil.filter. Every function of the drop-in ends in one of these two."""
from __future__ import annotations

import numpy as np

from ..errors import ClstencilError
from ..filtering import filter as run
from ..operators import Operator
from ._support import Unserved

ENGINE_TYPES = (np.float32, np.uint8, np.uint16, np.int16)
# The widest window the device takes at once along one axis (CLS_MAX_MASK): a wider line of
# weights runs in pieces; wider windows of several axes, and footprints, are not served.
MAX_SIDE = 63
MAX_DEPTH = 31  # along a volume's z (CLS_MAX_MASK_DEPTH)
# clstencil's borders as numpy.pad's modes, for lines wider than MAX_SIDE.
PAD_MODES = {"mirror": "symmetric", "mirror101": "reflect", "clamp": "edge", "repeat": "wrap",
             "constant": "constant"}


def target(out: np.ndarray | None, values: np.ndarray) -> np.ndarray | None:
    """`out` where the device can write the result into it directly (an array of the values'
    dtype that is not the input), else None (a new array, which the caller stores)."""
    if out is None or out.dtype != values.dtype or np.may_share_memory(out, values):
        return None
    return out


def as_row(border):
    """The border of a 1-D array's values run as the one row of a 2-D image."""
    return border if isinstance(border, str) else [border[0], *border]


def correlate(values: np.ndarray, weights: np.ndarray, origins: list[int], border,
              cval: float, out: np.ndarray | None = None) -> np.ndarray:
    """scipy's correlate of float32 or float64 values (1-D to 3-D) with weights of the same rank,
    in the values' precision (into `out` where target() allows), by the window's sum: scipy's
    semantics, where the FFT method would leave round-off where the window does not reach.
    border: one clstencil border, or one per axis (numpy's order)."""
    out = target(out, values)
    if values.ndim == 1:  # a row
        row = None if out is None else out[np.newaxis]
        return correlate(values[np.newaxis], weights[np.newaxis], [0, *origins], as_row(border), cval, row)[0]
    constant = "constant" in ([border] if isinstance(border, str) else border)
    if constant and not np.isfinite(cval):
        raise Unserved(f"a weighted sum with the border value {cval}: clstencil's border values are finite")
    if constant and not border_value_exact(values, cval):
        # outside the image the values are cval: the sum with a border of 0, plus cval times the
        # weights that fall outside (the sum of a zero image with a border of 1)
        outside = correlate(np.zeros_like(values), weights, origins, border, 1.0)
        inside = correlate(values, weights, origins, border, 0.0)
        with np.errstate(over="ignore"):  # float32 sums with a border past its range: inf, as scipy's
            return (inside + cval * outside.astype(np.float64)).astype(values.dtype)
    if values.ndim == 3 and (values.dtype == np.float64 or weights.shape[0] > MAX_DEPTH):
        return _volume_line(values, weights, origins, border, cval)
    operator = Operator.correlate(weights, origins)
    try:
        return run(values, operator, border, cval, out=out, method="direct")
    except ClstencilError as error:
        if error.status_name == "CLS_ERR_UNSUPPORTED":  # float64 on a device without doubles
            raise Unserved(str(error)) from error
        raise


def border_value_exact(values: np.ndarray, cval: float) -> bool:
    """Whether the device's border value, a float32, is cval for these values' sums: in float32
    any finite float32 (cval rounded to it, as the sums are), in double cval itself."""
    with np.errstate(over="ignore"):
        border_value = np.float32(cval)
    return bool(np.isfinite(border_value)) and (values.dtype != np.float64 or float(border_value) == cval)


def _volume_line(values: np.ndarray, weights: np.ndarray, origins: list[int], border, cval: float) -> np.ndarray:
    """Weights along one axis of a volume as the rows of a 2-D image (each line of the volume a
    row), for what a volume's mask does not take: sums in double, more than MAX_DEPTH taps along
    z. Weights along several axes are not served so."""
    long_axes = [axis for axis, side in enumerate(weights.shape) if side > 1]
    if len(long_axes) > 1:
        why = ("in double (float64 or 32- and 64-bit integer values)" if values.dtype == np.float64
               else f"{weights.shape[0]} deep: volumes stop at {MAX_DEPTH}")
        raise Unserved(f"a volume's weights of shape {weights.shape} {why}")
    axis = long_axes[0] if long_axes else values.ndim - 1
    moved = np.moveaxis(values, axis, -1)
    rows = np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
    along = border if isinstance(border, str) else border[axis]
    result = correlate(rows, weights.reshape(1, -1), [0, origins[axis]], along, cval)
    return np.moveaxis(result.reshape(moved.shape), -1, axis)


def correlate_along(values: np.ndarray, weights: np.ndarray, axis: int, origin: int, border: str,
                    cval: float) -> np.ndarray:
    """A 1-D correlation along one axis of float32 values."""
    if weights.size > MAX_SIDE:
        return _wide_correlate_along(values, weights, axis, origin, border, cval)
    shape = [1] * values.ndim
    shape[axis] = weights.size
    origins = [0] * values.ndim
    origins[axis] = origin
    return correlate(values, weights.reshape(shape), origins, border, cval)


def _wide_correlate_along(values: np.ndarray, weights: np.ndarray, axis: int, origin: int, border: str,
                          cval: float) -> np.ndarray:
    """A line wider than the device's windows: the values extended along the axis on the host
    as the border extends them, then pieces of at most MAX_SIDE weights, each a window whose
    taps all lie inside the extended values, summed (in float64, rounded once)."""
    if values.size == 0:
        return values.copy()
    centre = weights.size // 2 + origin
    reach = [(0, 0)] * values.ndim
    reach[axis] = (centre, weights.size - 1 - centre)
    pad = {"constant_values": cval} if border == "constant" else {}
    extended = np.pad(values, reach, mode=PAD_MODES[border], **pad)
    length = values.shape[axis]
    total = np.zeros(values.shape, np.float64)
    for start in range(0, weights.size, MAX_SIDE):
        piece = weights[start:start + MAX_SIDE]
        if not piece.any():
            continue
        span = np.take(extended, range(start, start + length + piece.size - 1), axis=axis)
        result = correlate_along(np.ascontiguousarray(span), piece, axis, 0, "clamp", 0.0)
        total += np.take(result, range(piece.size // 2, piece.size // 2 + length), axis=axis)
    return total.astype(values.dtype)


def footprint_filter(values: np.ndarray, name: str, footprint: np.ndarray, origins: list[int],
                     border, cval: float, percent: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    """The rank or extremum NAME (median, percentile, min, max) over a boolean footprint of the
    values' rank, in their dtype (into `out` where it has that dtype and is not the input). 3-D:
    any footprint (a volume's reduction: the minimum, maximum, median or percentile).
    border: one clstencil border, or one per axis (numpy's order)."""
    if out is not None and (out.dtype != values.dtype or np.may_share_memory(out, values)):
        out = None
    if values.ndim == 1:
        return _filter_2d(values[np.newaxis], name, footprint[np.newaxis], [0, *origins], as_row(border), cval,
                          percent, None if out is None else out[np.newaxis])[0]
    if values.ndim == 2:
        return _filter_2d(values, name, footprint, origins, border, cval, percent, out)
    long_axes = [axis for axis, side in enumerate(footprint.shape) if side > 1]
    if len(long_axes) > 1:
        if footprint.shape[0] > MAX_DEPTH:
            raise Unserved(f"a 3-D footprint {footprint.shape[0]} deep: clstencil's volumes stop at {MAX_DEPTH}")
        return run(values, Operator.footprint(name, footprint, origins, percent), border, cval, out=out)
    axis = long_axes[0] if long_axes else values.ndim - 1
    moved = np.moveaxis(values, axis, -1)
    rows = np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
    line = footprint.reshape(1, -1)
    result = _filter_2d(rows, name, line, [0, origins[axis]], as_row(border if isinstance(border, str)
                                                                     else [border[axis]]), cval, percent)
    return np.moveaxis(result.reshape(moved.shape), -1, axis)


def _filter_2d(values: np.ndarray, name: str, footprint: np.ndarray, origins: list[int], border,
               cval: float, percent: float, out: np.ndarray | None = None) -> np.ndarray:
    operator = Operator.footprint(name, footprint, origins, percent)
    return run(values, operator, border, cval, out=out)


def engine_values(array: np.ndarray) -> bool:
    """Whether the device reads the array's dtype as it is (a rank keeps its values exactly)."""
    return array.dtype in ENGINE_TYPES
