"""The Gaussian-derived operators against scipy.ndimage in every border mode scipy shares, borders
included (each operator in two modes, rotating; all of them when exhaustive): gaussian_laplace,
gaussian_filter (difference of Gaussians, unsharp masking, Gaussians and boxes as separable
masks), correlate and convolve, the tone mapping's scale."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndimage

import clstencil
from conftest import BORDER_VALUE, SCIPY_MODES, rotated_borders, shapes

def gaussian(a: np.ndarray, sigma: float, size: int, mode: str, cval: float) -> np.ndarray:
    """scipy's Gaussian over the same radius: truncate = radius / sigma."""
    return ndimage.gaussian_filter(a, sigma, mode=mode, cval=cval, truncate=(size // 2) / sigma)


# The masks' operators: (text, reference(image, mode, cval), the cval scipy's definition matches).
# gaussian_laplace filters separably and pads its intermediate with cval: that equals the one
# 2-D mask's constant border only for cval 0.
MASK_CASES = [
    ("dog:1,2,9", lambda a, m, c: gaussian(a, 1, 9, m, c) - gaussian(a, 2, 9, m, c), BORDER_VALUE),
    # 17x17: past the GPUs' FFT threshold (289 taps), a 2-D mask streamed on PoCL
    ("dog:1,2", lambda a, m, c: gaussian(a, 1, 17, m, c) - gaussian(a, 2, 17, m, c), BORDER_VALUE),
    ("log:1.5", lambda a, m, c: ndimage.gaussian_laplace(a, 1.5, mode=m, cval=c, truncate=6 / 1.5), 0.0),
    ("log:1,5", lambda a, m, c: ndimage.gaussian_laplace(a, 1.0, mode=m, cval=c, truncate=2.0), 0.0),
    ("unsharp:1.2,0.7,7", lambda a, m, c: a + 0.7 * (a - gaussian(a, 1.2, 7, m, c)), BORDER_VALUE),
]


@pytest.mark.parametrize("case,border", rotated_borders(MASK_CASES),
                         ids=[f"{border}-{case[0]}" for case, border in rotated_borders(MASK_CASES)])
def test_gaussian_family_equals_scipy(case, border: str) -> None:
    text, reference, cval = case
    rng = np.random.default_rng(8)
    for shape in shapes(text.startswith(("dog", "log:1.5"))):
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, text, border, cval)
        expected = reference(image.astype(np.float64), SCIPY_MODES[border], cval)
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=2e-6, err_msg=f"{text}, {border}, {shape}")


# Rank-1 masks that the specialized kernel sums in one pass (on GPUs whose record says so, with its
# group's input rows staged in local memory): images narrower than a row of groups' tile, wider than
# one, and taller than a strip, borders included.
SEPARABLE_CASES = [
    ("gaussian:5,1.1", lambda a, m, c: gaussian(a, 1.1, 5, m, c)),
    ("gaussian:7,1.4", lambda a, m, c: gaussian(a, 1.4, 7, m, c)),
    ("gaussian:13,2", lambda a, m, c: gaussian(a, 2.0, 13, m, c)),
    ("box:15", lambda a, m, c: ndimage.uniform_filter(a, 15, mode=m, cval=c)),
]


@pytest.mark.parametrize("case,border", rotated_borders(SEPARABLE_CASES),
                         ids=[f"{border}-{case[0]}" for case, border in rotated_borders(SEPARABLE_CASES)])
def test_separable_masks_equal_scipy(case, border: str) -> None:
    text, reference = case
    rng = np.random.default_rng(11)
    for shape in [(1, 1), (5, 2), (13, 31), (150, 601)]:
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, text, border, BORDER_VALUE, build="fastest-kernel")
        expected = reference(image.astype(np.float64), SCIPY_MODES[border], BORDER_VALUE)
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=2e-6, err_msg=f"{text}, {border}, {shape}")


def test_default_windows_follow_scipys_truncate() -> None:
    assert clstencil.Operator("log:1.5").window == (13, 13)      # 2 * int(4 * 1.5 + 0.5) + 1
    assert clstencil.Operator("dog:1,2").window == (17, 17)      # of the larger sigma
    assert clstencil.Operator("unsharp:1,2").window == (9, 9)


def test_correlate_is_convolve_without_flip() -> None:
    coefficients = ",".join(str(c) for c in range(1, 16))
    image = np.random.default_rng(9).random((12, 14), dtype=np.float32)
    mask = np.arange(1, 16, dtype=np.float64).reshape(3, 5)
    correlated = clstencil.filter(image, "correlate:5x3," + coefficients, "mirror")
    flipped = ",".join(str(c) for c in range(15, 0, -1))
    np.testing.assert_array_equal(correlated, clstencil.filter(image, "convolve:5x3," + flipped, "mirror"))
    np.testing.assert_allclose(correlated, ndimage.correlate(image.astype(np.float64), mask, mode="reflect"),
                               rtol=1e-5)


def test_tonemap_scale_maps_to_one_and_back() -> None:
    image = np.arange(256, dtype=np.uint8).reshape(16, 16)
    v = image.astype(np.float64) / 255
    expected = 255 * v / (1 + v)
    np.testing.assert_allclose(clstencil.filter(image, "tonemap:255", dtype=np.float32), expected, rtol=1e-6)
    # u8 results round the same values: a tie may fall either way after float rounding.
    assert np.abs(clstencil.filter(image, "tonemap:255").astype(np.float64) - expected).max() <= 0.5 + 1e-4
