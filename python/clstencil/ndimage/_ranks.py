"""The rank filters of clstencil.ndimage with scipy.ndimage's signatures and semantics: median,
rank and percentile filters, minimum and maximum filters and their 1-D forms. A rank selects
one of the window's values, so every result is exact: the device reads float32, uint8, uint16
and int16 as they are, other values in float32 where that holds them exactly, else the index
of each among the array's distinct values (sorted on the host), which float32 holds exactly for
up to 2**24 of them, mapped back to the values afterwards."""
from __future__ import annotations

import operator
import warnings
from collections.abc import Iterable

import numpy as np

from . import _device
from ._device import MAX_DEPTH, MAX_SIDE
from ._filters import axis_index
from ._support import FLOAT32_EXACT, Unserved, border, check_origin, one_mode, output_array, per_axis, \
    real_input, store

# The most pixels a median or percentile footprint holds in the library (CLS_RANK_MAX_PIXELS).
MAX_RANK_PIXELS = 1024


def rank_values(array: np.ndarray, cval: float):
    """What a rank reads for the array and the constant border's value: (values, cval, decode),
    decode None where the device's results are the values themselves (the array in a dtype the
    device reads, or in float32 where float32 holds every value), else the function that maps
    the results, indices among the distinct values, back to them."""
    finite = bool(np.isfinite(cval))  # the device's border values are (a peak finder's -inf is not)
    if _device.engine_values(array) and finite:
        return array, cval, None
    values = array.astype(np.float32)
    if finite and np.array_equal(values, array, equal_nan=array.dtype.kind == "f") and \
            float(np.float32(cval)) == float(cval):
        return values, cval, None
    domain = array.dtype if finite else np.float64  # an integer array's border of inf: compared as scipy's doubles
    distinct = np.unique(np.append(array.ravel().astype(domain), np.asarray(cval, domain)))
    if distinct.size > FLOAT32_EXACT:
        raise Unserved(f"a rank over {distinct.size} distinct {array.dtype} values: float32 indexes 2**24")
    codes = np.searchsorted(distinct, array).astype(np.float32)
    return codes, float(np.searchsorted(distinct, cval)), lambda result: distinct[result.astype(np.int64)]


def footprint_rank(array: np.ndarray, name: str, footprint: np.ndarray, origins: list, clstencil_border, cval,
                   percent: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    """_device.footprint_filter of the array's values as rank_values reads them, in the values."""
    values, code_cval, decode = rank_values(array, cval)
    result = _device.footprint_filter(values, name, footprint, origins, clstencil_border, code_cval, percent,
                                      None if decode else out)
    return decode(result) if decode else result


def _check_footprint(footprint: np.ndarray, ndim: int, origins: list, message: str) -> None:
    if len([side for side in footprint.shape if side > 0]) != ndim:
        raise RuntimeError(message)
    for o, side in zip(origins, footprint.shape):
        check_origin(o, side)
    if any(side > MAX_SIDE for side in footprint.shape):
        raise Unserved(f"a footprint of shape {footprint.shape}: clstencil's windows stop at {MAX_SIDE}")


def _footprint(array: np.ndarray, name: str, footprint: np.ndarray, origins: list, mode, cval,
               percent: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    """mode: one scipy mode, or one per axis."""
    per_axis_modes = not isinstance(mode, str) and isinstance(mode, Iterable)
    clstencil_border = [border(m) for m in mode] if per_axis_modes else border(mode)
    return footprint_rank(array, name, footprint, origins, clstencil_border, cval, percent, out)


def _extremum_along(array, size, axis, output, mode, cval, origin, name):
    array = real_input(array)
    axis = axis_index(axis, array.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    result = output_array(output, array)
    check_origin(origin, size)
    mode = one_mode(mode)
    if size > MAX_SIDE:
        raise Unserved(f"a window of {size}: clstencil's footprints stop at {MAX_SIDE} a side")
    shape = [1] * array.ndim
    shape[axis] = size
    origins = [origin if a == axis else 0 for a in range(array.ndim)]
    return store(result, _footprint(array, name, np.ones(shape, bool), origins, mode, cval, out=result))


def minimum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.minimum_filter1d on the device."""
    return _extremum_along(input, size, axis, output, mode, cval, origin, "min")


def maximum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.maximum_filter1d on the device."""
    return _extremum_along(input, size, axis, output, mode, cval, origin, "max")


def _box_or_footprint(size, footprint):
    """(sizes, None) for a whole box, (None, footprint) otherwise, as scipy decides."""
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=4)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint provided")
        return size, None
    cells = np.asarray(footprint, dtype=bool)
    if not cells.any():
        raise ValueError("All-zero footprint is not supported.")
    return (cells.shape, None) if cells.all() else (None, cells)


def extremum_filter(input, size, footprint, output, mode, cval, origin, name: str):
    """The minimum or maximum filter over a box (in one device run, each axis bordered by its own
    mode, where the box fits the device's windows, else as scipy's 1-D passes through the
    output) or over any other footprint."""
    sizes, cells = _box_or_footprint(size, footprint)
    array = real_input(input)
    result = output_array(output, array)
    origins = per_axis(origin, array.ndim)
    if cells is None:
        sizes = per_axis(sizes, array.ndim)
        modes = per_axis(mode, array.ndim)
        passes = [axis for axis in range(array.ndim) if sizes[axis] > 1]
        if not passes:
            return store(result, array)
        for axis in passes:
            check_origin(origins[axis], int(sizes[axis]))
        # an axis of size 0 or 1 is left as it is, its origin unread, as scipy's passes skip it
        sides = [int(sizes[axis]) if axis in passes else 1 for axis in range(array.ndim)]
        origins = [origins[axis] if axis in passes else 0 for axis in range(array.ndim)]
        fits = max(sides) <= MAX_SIDE and (array.ndim < 3 or sides[0] <= MAX_DEPTH)
        if fits:  # the library's rectangle passes on the device give the same values
            box = np.ones(sides, bool)
            return store(result, _footprint(array, name, box, origins, modes, cval, out=result))
        source = array
        for axis in passes:  # each pass through the output, as scipy
            _extremum_along(source, int(sizes[axis]), axis, result, modes[axis], cval, origins[axis], name)
            source = result
        return result
    _check_footprint(cells, array.ndim, origins, "footprint array has incorrect shape.")
    if not isinstance(mode, str):
        raise RuntimeError("A sequence of modes is not supported for non-separable footprints")
    return store(result, _footprint(array, name, cells, origins, mode, cval, out=result))


def minimum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.minimum_filter on the device."""
    return extremum_filter(input, size, footprint, output, mode, cval, origin, "min")


def maximum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.maximum_filter on the device."""
    return extremum_filter(input, size, footprint, output, mode, cval, origin, "max")


def _rank(input, rank, size, footprint, output, mode, cval, origin, kind: str):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    array = real_input(input)
    origins = per_axis(origin, array.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        cells = np.ones(per_axis(size, array.ndim), dtype=bool)
    else:
        cells = np.asarray(footprint, dtype=bool)
    _check_footprint(cells, array.ndim, origins, "filter footprint array has incorrect shape.")
    count = int(cells.sum())
    if kind == "median":
        rank = count // 2
    elif kind == "percentile":
        percent = rank + 100.0 if rank < 0.0 else rank
        if not 0 <= percent <= 100:
            raise RuntimeError("invalid percentile")
        rank = count - 1 if percent == 100.0 else int(float(count) * percent / 100.0)
    if rank < 0:
        rank += count
    if not 0 <= rank < count:
        raise RuntimeError("rank not within filter footprint size")
    if rank == 0:
        return extremum_filter(array, None, cells, output, mode, cval, origins, "min")
    if rank == count - 1:
        return extremum_filter(array, None, cells, output, mode, cval, origins, "max")
    result = output_array(output, array)
    one_mode(mode)
    if count > MAX_RANK_PIXELS:
        raise Unserved(f"a footprint of {count} pixels: clstencil's rank filters take {MAX_RANK_PIXELS}")
    if kind == "median":
        return store(result, _footprint(array, "median", cells, origins, mode, cval, out=result))
    # rank r of N is percentile 100 (r + 1/2) / N: the library's floor(N * P / 100) gives r back
    percent = 100.0 * (rank + 0.5) / count
    return store(result, _footprint(array, "percentile", cells, origins, mode, cval, percent, out=result))


def rank_filter(input, rank, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.rank_filter on the device."""
    return _rank(input, operator.index(rank), size, footprint, output, mode, cval, origin, "rank")


def median_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.median_filter on the device."""
    return _rank(input, 0, size, footprint, output, mode, cval, origin, "median")


def percentile_filter(input, percentile, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                      origin=0):
    """scipy.ndimage.percentile_filter on the device."""
    return _rank(input, percentile, size, footprint, output, mode, cval, origin, "percentile")
