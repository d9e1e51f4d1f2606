"""clstencil.ndimage: scipy.ndimage's filters, computed on an OpenCL device.

    from clstencil import ndimage
    smooth = ndimage.gaussian_filter(image, 2)            # as scipy.ndimage.gaussian_filter
    median = ndimage.median_filter(image, size=3, mode="nearest")

The same names, arguments, defaults, output rules (an array, a dtype, or the input's dtype) and
exceptions for bad arguments as scipy.ndimage's. Served on the device: real arrays of 1 to 3
dimensions; windows of any sides up to 63 (31 along a volume's z; lines of weights of any
length, along any axis) and any origin; every mode
(reflect, mirror, nearest, wrap, constant and the grid- names). Sums of float64 and of 32- and
64-bit integers are computed in double on the device (as scipy's), the others in float32, with
float32 weights, and stored into the output as scipy stores them (truncated toward zero for
integer outputs); ranks select exactly (other dtypes than float32, uint8, uint16 and int16 in
float32 where it holds them, else as indices among the distinct values).

Not served (raises Unserved, a NotImplementedError, naming what): complex values, more than
three dimensions, ranks over more than 2**24 distinct values, double sums on a device without doubles,
a volume's weights of several axes summed in double, weights or a sum's cval that are not finite,
grey morphology with a non-flat
structure, windows of several axes wider than 63 (minima and maxima: of any axis), median and percentile footprints of more than
1,024 pixels, pyopencl arrays (clstencil.filter takes those). With `fallback_to_scipy = True`
such calls go to scipy.ndimage instead; `counts` tells how many calls each answered.
"""
from __future__ import annotations

import functools
from collections import Counter

from . import _filters, _morphology, _ranks
from ._support import Unserved

fallback_to_scipy = False
"""When true, a call that clstencil does not serve is answered by scipy.ndimage (off by default)."""

counts: Counter = Counter()
"""Calls answered so far: counts["device"] by clstencil, counts["scipy"] by the fallback."""

fallback_reasons: Counter = Counter()
"""Why the fallback answered: the Unserved messages, counted."""


def _scipy_function(name: str):
    """scipy's own function NAME, found in its modules (scipy.ndimage's names may be replaced by
    these, as the test of scipy's suite does)."""
    from scipy import ndimage as scipy_ndimage
    for module in ("_filters", "_morphology"):
        found = getattr(getattr(scipy_ndimage, module, None), name, None)
        if found is not None:
            return found
    return getattr(scipy_ndimage, name)


def _served(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            result = function(*args, **kwargs)
        except Unserved as why:
            if not fallback_to_scipy:
                raise
            counts["scipy"] += 1
            fallback_reasons[str(why)] += 1
            return _scipy_function(function.__name__)(*args, **kwargs)
        counts["device"] += 1
        return result
    return call


_FUNCTIONS = {
    _filters: ["correlate", "convolve", "correlate1d", "convolve1d", "uniform_filter", "uniform_filter1d",
               "gaussian_filter", "gaussian_filter1d", "gaussian_laplace", "gaussian_gradient_magnitude",
               "prewitt", "sobel", "laplace"],
    _ranks: ["median_filter", "rank_filter", "percentile_filter", "minimum_filter", "minimum_filter1d",
             "maximum_filter", "maximum_filter1d"],
    _morphology: ["grey_erosion", "grey_dilation", "grey_opening", "grey_closing", "morphological_gradient",
                  "white_tophat", "black_tophat"],
}

for _module, _names in _FUNCTIONS.items():
    for _name in _names:
        globals()[_name] = _served(getattr(_module, _name))

__all__ = ["Unserved", "counts", "fallback_reasons", "fallback_to_scipy"] + [n for names in _FUNCTIONS.values() for n in names]
