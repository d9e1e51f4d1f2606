"""The 1-D weights of clstencil.ndimage's named filters: the sampled Gaussian and its
derivatives as scipy.ndimage defines them (normalized over the window, truncated at `truncate`
standard deviations unless a radius is given)."""
from __future__ import annotations

import numbers

import numpy as np
from numpy.polynomial import polynomial


def gaussian_radius(sigma: float, truncate: float, radius) -> int:
    """The window's half-width: `radius` when given, else int(truncate * sigma + 0.5)."""
    if radius is None:
        radius = int(truncate * float(sigma) + 0.5)
    if not isinstance(radius, numbers.Integral) or radius < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    return int(radius)


def gaussian_weights(sigma: float, order: int, radius: int) -> np.ndarray:
    """The correlation weights (float64) of the Gaussian of `sigma`, differentiated `order`
    times: g(x) = exp(-x^2 / 2 sigma^2) / sum, times the polynomial q_n with q_0 = 1 and
    q_{n+1} = q_n' - x q_n / sigma^2; reversed, since the filter convolves with them."""
    if order < 0:
        raise ValueError("order must be non-negative")
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    variance = float(sigma) * float(sigma)
    bell = np.exp(-0.5 / variance * x * x)
    bell /= bell.sum()
    q = np.array([1.0])
    for _ in range(order):
        q = polynomial.polysub(polynomial.polyder(q) if q.size > 1 else np.zeros(1),
                               polynomial.polymulx(q) / variance)
    return (polynomial.polyval(x, q) * bell)[::-1]
