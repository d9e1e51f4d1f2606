"""The weighted sums of clstencil.ndimage with scipy.ndimage's signatures and semantics:
correlate, convolve, their 1-D forms, uniform, Gaussian (and its Laplacian and gradient
magnitude), Prewitt, Sobel and Laplace.

scipy runs its N-D filters as 1-D passes, one axis after another, each stored in the output's
dtype. Where the output is floating point and every axis has the same mode, the passes are fused
into one N-D window here (the same values up to float32 rounding, one device run); an integer
output keeps scipy's passes, so that each pass is truncated as scipy's is."""
from __future__ import annotations

import numpy as np

from . import _device
from ._device import MAX_SIDE
from ._kernels import gaussian_radius, gaussian_weights
from ._support import (Unserved, border, check_origin, one_mode, output_array, per_axis, real_input, store,
                       sum_values, sums_in_double)

ORIGIN_RULE = ("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= origin[k] <= "
               "(weights.shape[k]-1) // 2")


AxisError = getattr(np, "exceptions", np).AxisError  # numpy 2 moved it to numpy.exceptions


def axis_index(axis: int, ndim: int) -> int:
    """numpy's axis rule: -ndim <= axis < ndim."""
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def real_weights(weights) -> np.ndarray:
    values = np.asarray(weights)
    if values.dtype.kind == "c":
        raise Unserved("complex weights are not computed by clstencil")
    values = values.astype(np.float64)
    if not np.isfinite(values).all():
        raise Unserved("weights that are not finite (NaN or infinite) are not computed by clstencil")
    return values


def window_fits(values: np.ndarray) -> np.ndarray:
    """Weights of several axes must fit the device's window (a line may be longer)."""
    if any(side > MAX_SIDE for side in values.shape):
        raise Unserved(f"weights of shape {values.shape}: clstencil's windows stop at {MAX_SIDE} a side")
    return values


def fused(array: np.ndarray, output: np.ndarray, modes: list, lines: list, cval: float = 0.0) -> bool:
    """Whether the 1-D passes may run as one window (each axis bordered by its own mode): a
    floating-point output, every line within the device's window; for sums in double, one mode
    (scipy's own tests expect a filter with a mode per axis to equal its passes to the last bit,
    which only the passes' order of rounding gives) and not a volume (whose masks sum in float);
    and where a constant border is not 0, every pass but the last summing to 1 (scipy borders
    each pass's result with cval, the window only the input: a pass's weights summing to s give
    s * cval where the next pass reaches outside)."""
    if output.dtype.kind != "f" or any(line.size > MAX_SIDE for line in lines):
        return False
    if sums_in_double(array.dtype) and (array.ndim == 3 or any(mode != modes[0] for mode in modes)):
        return False
    constant = any(mode in ("constant", "grid-constant") for mode in modes)
    return not constant or cval == 0 or all(abs(line.sum() - 1.0) < 1e-12 for line in lines[:-1])


def borders(modes: list) -> list:
    """clstencil's border of each axis's scipy mode."""
    return [border(mode) for mode in modes]


def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.correlate1d on the device."""
    array = real_input(input)
    values = real_weights(weights)
    result = output_array(output, array)
    if values.ndim != 1 or values.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    axis = axis_index(axis, array.ndim)
    check_origin(origin, len(values), "Invalid origin; origin must satisfy -(len(weights) // 2) <= "
                                      "origin <= (len(weights)-1) // 2")
    return store(result, _device.correlate_along(sum_values(array), values, axis, origin, border(mode),
                                                 cval))


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.convolve1d: the weights reversed and the origin mirrored (minus one for an
    even length), then correlated."""
    values = real_weights(weights)[::-1]
    return correlate1d(input, values, axis, output, mode, cval, -origin - (1 - len(values) % 2))


def _correlate_nd(input, weights, output, mode, cval, origin, convolution):
    array = real_input(input)
    values = real_weights(weights)
    origins = per_axis(origin, array.ndim)
    if len([side for side in values.shape if side > 0]) != array.ndim:
        raise RuntimeError("filter weights array has incorrect shape.")
    if convolution:
        values = values[(slice(None, None, -1),) * values.ndim]
        origins = [-o - (1 - side % 2) for o, side in zip(origins, values.shape)]
    for o, side in zip(origins, values.shape):
        check_origin(o, side, ORIGIN_RULE)
    window_fits(values)
    result = output_array(output, array)
    b = border(one_mode(mode))
    return store(result, _device.correlate(sum_values(array), values, origins, b, cval, result))


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.correlate on the device (1-D to 3-D)."""
    return _correlate_nd(input, weights, output, mode, cval, origin, False)


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.convolve on the device (1-D to 3-D)."""
    return _correlate_nd(input, weights, output, mode, cval, origin, True)


def _separable(array: np.ndarray, result: np.ndarray, lines: list, modes: list, cval: float,
               origins: list | None = None, after_pass=None, first: int = 0) -> np.ndarray:
    """Runs 1-D weights (None: that axis untouched) along each axis, fused into one window where
    `fused` allows, else pass after pass through the output as scipy does: axis `first`, then
    the others in order. after_pass(values, weights) may change a pass's float32 result before
    it is stored (uniform's division)."""
    origins = origins or [0] * array.ndim
    order = [first] + [axis for axis in range(array.ndim) if axis != first]
    used = [axis for axis in order if lines[axis] is not None]
    if not used:
        return store(result, array)
    if fused(array, result, [modes[axis] for axis in used], [lines[axis] for axis in used], cval) and after_pass is None:
        window = np.ones([1] * array.ndim)
        for axis in used:
            shape = [1] * array.ndim
            shape[axis] = lines[axis].size
            window = window * lines[axis].reshape(shape)
        shifts = [origins[axis] if lines[axis] is not None else 0 for axis in range(array.ndim)]
        values = _device.correlate(sum_values(array), window, shifts, borders(modes), cval, result)
        return store(result, values)
    source = array
    for axis in used:
        values = _device.correlate_along(sum_values(source), lines[axis], axis, origins[axis],
                                         border(modes[axis]), cval)
        store(result, after_pass(values, lines[axis]) if after_pass else values)
        source = result
    return result


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.uniform_filter1d on the device."""
    array = real_input(input)
    axis = axis_index(axis, array.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    result = output_array(output, array)
    check_origin(origin, size)
    return uniform_filter(array, [size if a == axis else 1 for a in range(array.ndim)], result,
                          [mode] * array.ndim, cval, [origin if a == axis else 0 for a in range(array.ndim)])


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0):
    """scipy.ndimage.uniform_filter on the device: the mean over the box. An integer output gets
    scipy's sums divided in double and truncated, pass after pass."""
    array = real_input(input)
    result = output_array(output, array)
    sizes = [int(s) for s in per_axis(size, array.ndim)]
    origins = per_axis(origin, array.ndim)
    modes = per_axis(mode, array.ndim)
    for s, o in zip(sizes, origins):
        if s > 1:
            check_origin(o, s)
    if result.dtype.kind == "f":
        lines = [np.full(s, 1.0 / s) if s > 1 else None for s in sizes]
        return _separable(array, result, lines, modes, cval, origins)
    lines = [np.ones(s) if s > 1 else None for s in sizes]
    return _separable(array, result, lines, modes, cval, origins,
                      after_pass=lambda values, line: values.astype(np.float64) / line.size)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    """scipy.ndimage.gaussian_filter1d on the device."""
    array = real_input(input)
    axis = axis_index(axis, array.ndim)
    lines = [None] * array.ndim
    lines[axis] = gaussian_weights(sigma, order, gaussian_radius(sigma, truncate, radius))
    return _separable(array, output_array(output, array), lines, [mode] * array.ndim, cval)


def _gaussian_lines(ndim: int, sigma, order, truncate, radius) -> list:
    sigmas, orders = per_axis(sigma, ndim), per_axis(order, ndim)
    radii = per_axis(radius, ndim)
    return [gaussian_weights(s, o, gaussian_radius(s, truncate, r)) if s > 1e-15 else None
            for s, o, r in zip(sigmas, orders, radii)]


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *,
                    radius=None):
    """scipy.ndimage.gaussian_filter on the device (one separable window for floating outputs)."""
    array = real_input(input)
    result = output_array(output, array)
    lines = _gaussian_lines(array.ndim, sigma, order, truncate, radius)
    return _separable(array, result, lines, per_axis(mode, array.ndim), cval)


def _derivative_filter(input, axis, output, mode, cval, smoothing):
    """Prewitt's and Sobel's: [-1, 0, 1] along `axis`, `smoothing` along the others."""
    array = real_input(input)
    axis = axis_index(axis, array.ndim)
    result = output_array(output, array)
    lines = [np.array([-1.0, 0.0, 1.0]) if a == axis else np.array(smoothing) for a in range(array.ndim)]
    return _separable(array, result, lines, per_axis(mode, array.ndim), cval, first=axis)


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """scipy.ndimage.prewitt on the device."""
    return _derivative_filter(input, axis, output, mode, cval, [1.0, 1.0, 1.0])


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """scipy.ndimage.sobel on the device."""
    return _derivative_filter(input, axis, output, mode, cval, [1.0, 2.0, 1.0])


def _sum_over_axes(array: np.ndarray, result: np.ndarray, modes: list, derivative, combine) -> np.ndarray:
    """scipy's generic Laplace and gradient magnitude: derivative(axis, into) along each axis,
    the first into the output, the others into arrays of its dtype, combined with combine(total,
    term) (None for the first term)."""
    if array.ndim == 0:
        return store(result, array)
    derivative(0, result, modes[0])
    combine(result, None)
    for axis in range(1, array.ndim):
        combine(result, derivative(axis, result.dtype, modes[axis]))
    return result


def _add(total: np.ndarray, term: np.ndarray | None) -> None:
    """Adds a later axis's term to the output (the first term is already in it)."""
    if term is not None:
        np.add(total, term, out=total, casting="unsafe")


def laplace(input, output=None, mode="reflect", cval=0.0):
    """scipy.ndimage.laplace on the device: one 3-tap window an axis, summed (one window for a
    floating output)."""
    array = real_input(input)
    result = output_array(output, array)
    modes = per_axis(mode, array.ndim)
    if fused(array, result, modes, []):
        window = np.zeros((3,) * array.ndim)
        centre = (1,) * array.ndim
        for axis in range(array.ndim):
            for step in (-1, 1):
                window[tuple(1 + step if a == axis else 1 for a in range(array.ndim))] += 1
            window[centre] -= 2
        return store(result, _device.correlate(sum_values(array), window, [0] * array.ndim,
                                               borders(modes), cval))

    def second(axis, into, axis_mode):
        return correlate1d(array, [1, -2, 1], axis, into, axis_mode, cval, 0)
    return _sum_over_axes(array, result, modes, second, _add)


def _gaussian_derivatives(input, sigma, order: int, output, mode, cval, kwargs, combine) -> np.ndarray:
    """The Gaussian derivative of ORDER along each axis in turn (order 0 along the others),
    combined as _sum_over_axes does."""
    array = real_input(input)
    result = output_array(output, array)

    def derivative(axis, into, axis_mode):
        orders = [order if a == axis else 0 for a in range(array.ndim)]
        return gaussian_filter(array, sigma, orders, into, axis_mode, cval, **kwargs)
    return _sum_over_axes(array, result, per_axis(mode, array.ndim), derivative, combine)


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_laplace on the device: the second Gaussian derivatives summed."""
    return _gaussian_derivatives(input, sigma, 2, output, mode, cval, kwargs, _add)


def _add_square(total: np.ndarray, term: np.ndarray | None) -> None:
    """Squares the first term in the output, adds the square of each later one."""
    if term is None:
        np.multiply(total, total, out=total)
    else:
        np.multiply(term, term, out=term)
        np.add(total, term, out=total, casting="unsafe")


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, **kwargs):
    """scipy.ndimage.gaussian_gradient_magnitude on the device: the root of the first Gaussian
    derivatives' squares."""
    result = _gaussian_derivatives(input, sigma, 1, output, mode, cval, kwargs, _add_square)
    np.sqrt(result, out=result, casting="unsafe")
    return result
