"""The rank and morphology operators against scipy.ndimage in every border mode scipy shares,
borders included: median_filter, percentile_filter, grey_erosion/grey_dilation with rectangle,
cross and disk footprints, morphological_gradient. Representative image sizes and footprints by
default, each case in two border modes (rotating); every size from 1x1 to 97x64, footprints up to
31 and every case in every mode when exhaustive."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndimage

import clstencil
from conftest import BORDER_VALUE, SCIPY_MODES, exhaustive, rotated_borders, shapes
from footprints import footprint

def rank_reference(kind: str, width: int, height: int, shape: str, percent: float = 50.0):
    """scipy's filter of an operator of the rank family, as a function of (image, mode, cval)."""
    fp = footprint(width, height, shape)
    if kind == "median":
        return lambda a, mode, cval: ndimage.median_filter(a, footprint=fp, mode=mode, cval=cval)
    if kind == "percentile":
        return lambda a, mode, cval: ndimage.percentile_filter(a, percent, footprint=fp, mode=mode, cval=cval)
    if kind == "min":
        return lambda a, mode, cval: ndimage.grey_erosion(a, footprint=fp, mode=mode, cval=cval)
    if kind == "max":
        return lambda a, mode, cval: ndimage.grey_dilation(a, footprint=fp, mode=mode, cval=cval)
    assert kind == "morphgradient"
    return lambda a, mode, cval: ndimage.morphological_gradient(a, footprint=fp, mode=mode, cval=cval)


def rank_text(kind: str, width: int, height: int, shape: str, percent: float = 50.0) -> str:
    arguments = f"{width}x{height},{shape}"
    return f"percentile:{percent:g},{arguments}" if kind == "percentile" else f"{kind}:{arguments}"


# (kind, width, height, shape, percent): the unrolled networks (9, 15 and 25 pixels), the private
# array (81 and 341 pixels), every footprint shape for min/max and the gradient. Those in
# FULL_SWEEP run on every image size when exhaustive (one of each kind of code).
RANK_CASES = [("median", 3, 3, "rect", 50), ("median", 5, 3, "rect", 50), ("median", 5, 5, "rect", 50),
              ("median", 9, 9, "rect", 50),
              ("median", 5, 5, "disk", 50), ("percentile", 5, 5, "rect", 20),
              ("percentile", 11, 31, "rect", 90), ("min", 5, 5, "disk", 0), ("max", 7, 3, "cross", 0),
              ("min", 9, 5, "rect", 0), ("max", 3, 3, "rect", 0), ("max", 31, 9, "rect", 0),
              ("morphgradient", 5, 5, "disk", 0)]


FULL_SWEEP = {"median:3x3,rect", "median:9x9,rect", "min:5x5,disk", "morphgradient:5x5,disk"}


@pytest.mark.parametrize("case,border", rotated_borders(RANK_CASES),
                         ids=[f"{border}-{rank_text(*case)}" for case, border in rotated_borders(RANK_CASES)])
def test_rank_equals_scipy(case, border: str) -> None:
    text = rank_text(*case)
    reference = rank_reference(*case)
    rng = np.random.default_rng(3)
    for shape in shapes(text in FULL_SWEEP):
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, text, border, BORDER_VALUE)
        expected = reference(image, SCIPY_MODES[border], BORDER_VALUE)
        # A rank filter returns one of its inputs (the gradient the difference of two): exact.
        np.testing.assert_array_equal(result, expected, err_msg=f"{text}, {border}, shape {shape}")


def footprint_sweep() -> list[tuple]:
    """Footprints of 1 to 31 per side (exhaustive only: each is a kernel build)."""
    if not exhaustive():
        return [("median", 1, 1, "rect", 50), ("max", 1, 7, "disk", 0)]
    # lines, squares and rectangles from 1 to 31; 7x7 is the largest network, 9x5 an array
    windows = [(1, 1), (1, 31), (31, 1), (3, 3), (5, 3), (7, 7), (9, 5), (15, 15), (21, 9), (31, 31)]
    cases = [(kind, w, h, shape, 50) for kind in ("min", "max", "median") for shape in ("rect", "cross", "disk")
             for w, h in windows]
    cases += [("percentile", w, w, "rect", p) for w in (3, 7, 31) for p in (0, 10, 33.3, 99.9, 100)]
    return cases


@pytest.mark.parametrize("case", footprint_sweep(), ids=lambda c: rank_text(*c))
def test_footprints_equals_scipy(case) -> None:
    text = rank_text(*case)
    reference = rank_reference(*case)
    image = np.random.default_rng(4).random((40, 45), dtype=np.float32)
    for border in SCIPY_MODES:
        np.testing.assert_array_equal(clstencil.filter(image, text, border, BORDER_VALUE),
                                      reference(image, SCIPY_MODES[border], BORDER_VALUE),
                                      err_msg=f"{text}, {border}")


def test_integer_median_is_exact() -> None:
    image = np.random.default_rng(5).integers(0, 256, (31, 40), dtype=np.uint8)
    result = clstencil.filter(image, "median:5x3", "mirror")
    assert result.dtype == np.uint8
    np.testing.assert_array_equal(result, ndimage.median_filter(image, size=(3, 5), mode="reflect"))


def test_percentile_ends_are_min_and_max() -> None:
    image = np.random.default_rng(6).random((20, 17), dtype=np.float32)
    for low, high in (("percentile:0,3", "min:3"), ("percentile:100,3", "max:3")):
        np.testing.assert_array_equal(clstencil.filter(image, low), clstencil.filter(image, high))


def test_erode_and_dilate_are_min_and_max() -> None:
    assert clstencil.Operator("erode:5,cross").name == "min:5x5,cross"
    assert clstencil.Operator("dilate:3x5").name == "max:3x5,rect"


def test_undefined_border_computes_the_interior_only() -> None:
    image = np.random.default_rng(7).random((9, 12), dtype=np.float32)
    result = clstencil.filter(image, "median:5x3", "undefined")
    expected = ndimage.median_filter(image, size=(3, 5), mode="nearest")
    np.testing.assert_array_equal(result[1:-1, 2:-2], expected[1:-1, 2:-2])
    untouched = np.ones(result.shape, bool)
    untouched[1:-1, 2:-2] = False
    assert not result[untouched].any()


@pytest.mark.parametrize("text", ["median:4", "median:33", "median:63x31", "percentile:101,3", "min:5,square",
                                  "max:3x", "log:8", "dog:1", "unsharp:1", "tonemap:0"])
def test_bad_parameters_are_refused(text: str) -> None:
    with pytest.raises(clstencil.InvalidArgumentError):
        clstencil.Operator(text)


def test_too_large_a_rank_footprint_names_the_limit() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="at most 1024"):
        clstencil.Operator("median:33")
