"""Grey-level morphology of clstencil.ndimage with scipy.ndimage's signatures and semantics:
erosion, dilation (the footprint reflected), opening, closing, the morphological gradient and
the top-hats, each stage a device run. Flat footprints only: a structuring element of non-zero
heights (scipy's `structure`) is not computed by clstencil."""
from __future__ import annotations

import warnings

import numpy as np

from ._ranks import extremum_filter, footprint_rank
from ._support import Unserved, border, output_array, per_axis, real_input, store

# The largest footprint side of the library's two-stage compositions (two stages reach 2W - 1).
COMPOSITION_MAX_SIDE = 31
# The compositions that subtract: the library's saturate an integer difference (and a rank of
# values read as indices among the distinct values has no difference to take), so only float32
# values take them in one run.
SUBTRACTING = ("tophat", "blackhat", "morphgradient")


def _flat(footprint, structure):
    """The footprint of a call: a structure is served only when it is flat (all zero)."""
    if structure is None:
        return footprint
    heights = np.asarray(structure)
    if heights.dtype.kind == "c" or np.any(heights != 0):
        raise Unserved("grey morphology with a non-flat structure is not computed by clstencil")
    cells = np.ones(heights.shape, bool)
    return cells if footprint is None else np.asarray(footprint, dtype=bool) & cells


def _needs_window(size, footprint, structure):
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")


def grey_erosion(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0):
    """scipy.ndimage.grey_erosion on the device."""
    _needs_window(size, footprint, structure)
    return extremum_filter(input, size, _flat(footprint, structure), output, mode, cval, origin, "min")


def grey_dilation(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                  origin=0):
    """scipy.ndimage.grey_dilation on the device: the maximum over the footprint reflected through
    the output pixel (its origin mirrored, minus one along an even side)."""
    _needs_window(size, footprint, structure)
    cells = _flat(footprint, structure)
    array = np.asarray(input)
    if cells is not None:
        cells = np.asarray(cells)[(slice(None, None, -1),) * np.ndim(cells)]
        sides = cells.shape
    else:
        sides = per_axis(size, array.ndim)
    origins = [-o - (1 - int(side) % 2) for o, side in zip(per_axis(origin, array.ndim), sides)]
    return extremum_filter(array, size, cells, output, mode, cval, origins, "max")


def _in_one_run(name: str, input, size, footprint, structure, output, mode, cval, origin):
    """The library's composition NAME (opening, closing, tophat, blackhat, morphgradient) in one
    device run, its intermediate on the device, where it gives scipy's values: a 1-D or 2-D
    array, one mode, a flat footprint of sides up to COMPOSITION_MAX_SIDE, an output of the
    input's dtype or float32. None where it does not apply (the stages then run one by one)."""
    array = np.asarray(input)
    if array.dtype.kind not in "biuf" or not 1 <= array.ndim <= 2 or not isinstance(mode, str):
        return None
    cells = _flat(footprint, structure)
    if cells is None:
        if size is None:
            return None
        cells = np.ones([int(side) for side in per_axis(size, array.ndim)], bool)
    cells = np.asarray(cells, dtype=bool)
    origins = per_axis(origin, array.ndim)
    if cells.ndim != array.ndim or not cells.any() or max(cells.shape) > COMPOSITION_MAX_SIDE:
        return None
    if any(not 0 <= side // 2 + o < side for o, side in zip(origins, cells.shape)):
        return None  # scipy's own stages raise its error
    result = output_array(output, real_input(array))
    if result.dtype not in (array.dtype, np.float32) or np.may_share_memory(result, array):
        return None
    if name in SUBTRACTING and array.dtype != np.float32:
        return None  # scipy subtracts in the output's dtype, wrapping integers: its stages do that
    return store(result, footprint_rank(array, name, cells, origins, border(mode), cval, out=result))


def _ignored_size(size, footprint):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)


def _stages(first, second, input, size, footprint, structure, output, mode, cval, origin):
    """SECOND of FIRST's result, into the output: scipy's two stages, a device run each."""
    staged = first(input, size, footprint, structure, None, mode, cval, origin)
    return second(staged, size, footprint, structure, output, mode, cval, origin)


def _composition(kind: str, first, second, *arguments):
    """The opening or closing KIND: the library's composition in one run where it applies, else
    scipy's two stages."""
    _ignored_size(arguments[1], arguments[2])
    one_run = _in_one_run(kind, *arguments)
    return one_run if one_run is not None else _stages(first, second, *arguments)


def grey_opening(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0):
    """scipy.ndimage.grey_opening on the device: erosion, then dilation of its result."""
    return _composition("opening", grey_erosion, grey_dilation, input, size, footprint, structure, output, mode,
                        cval, origin)


def grey_closing(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0):
    """scipy.ndimage.grey_closing on the device: dilation, then erosion of its result."""
    return _composition("closing", grey_dilation, grey_erosion, input, size, footprint, structure, output, mode,
                        cval, origin)


def morphological_gradient(input, size=None, footprint=None, structure=None, output=None, mode="reflect",
                           cval=0.0, origin=0):
    """scipy.ndimage.morphological_gradient on the device: dilation minus erosion."""
    one_run = _in_one_run("morphgradient", input, size, footprint, structure, output, mode, cval, origin)
    if one_run is not None:
        return one_run
    dilated = grey_dilation(input, size, footprint, structure, None, mode, cval, origin)
    if isinstance(output, np.ndarray):
        grey_erosion(input, size, footprint, structure, output, mode, cval, origin)
        return np.subtract(dilated, output, output)
    return dilated - grey_erosion(input, size, footprint, structure, None, mode, cval, origin)


def _tophat(kind: str, input, size, footprint, structure, output, mode, cval, origin):
    """The white top-hat ("tophat": the input minus its opening) or the black one ("blackhat":
    the closing minus the input); booleans by exclusive or, as scipy."""
    _ignored_size(size, footprint)
    one_run = _in_one_run(kind, input, size, footprint, structure, output, mode, cval, origin)
    if one_run is not None:
        return one_run
    array = np.asarray(input)
    white = kind == "tophat"
    first, second = (grey_erosion, grey_dilation) if white else (grey_dilation, grey_erosion)
    staged = _stages(first, second, array, size, footprint, structure, output, mode, cval, origin)
    minuend, subtrahend = (array, staged) if white else (staged, array)
    if minuend.dtype == np.bool_ and subtrahend.dtype == np.bool_ and staged.dtype == np.bool_:
        return np.bitwise_xor(minuend, subtrahend, out=staged)
    return np.subtract(minuend, subtrahend, out=staged)


def white_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0):
    """scipy.ndimage.white_tophat on the device: the input minus its opening."""
    return _tophat("tophat", input, size, footprint, structure, output, mode, cval, origin)


def black_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0):
    """scipy.ndimage.black_tophat on the device: the closing minus the input."""
    return _tophat("blackhat", input, size, footprint, structure, output, mode, cval, origin)
