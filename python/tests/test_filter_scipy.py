"""clstencil.filter against scipy.ndimage.correlate in every border mode scipy shares, images
of 1x1 to 97x64 pixels (representative sizes by default, every size when exhaustive)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.ndimage

import clstencil
from conftest import SCIPY_MODES, exhaustive

# A random, asymmetric 5-wide, 3-tall mask (its orientation matters) and a Gaussian whose
# window is wider than the smallest images (reflections beyond one period).
RANDOM_MASK = np.random.default_rng(7).uniform(-1, 1, (3, 5)).astype(np.float32)
OPERATORS = ["correlate:5x3," + ",".join(f"{c:.9g}" for c in RANDOM_MASK.ravel()), "gaussian:7"]
# (rows, columns): single pixels, lines, images narrower than the windows, odd sizes, the largest.
REPRESENTATIVE_SHAPES = [(1, 1), (1, 7), (7, 1), (2, 3), (3, 2), (5, 5), (4, 9), (16, 9),
                         (13, 31), (33, 20), (64, 97)]
BORDER_VALUE = 0.75


def shapes() -> list[tuple[int, int]]:
    if exhaustive():
        return list(itertools.product(range(1, 65), range(1, 98)))
    return REPRESENTATIVE_SHAPES


def reference(image: np.ndarray, operator: clstencil.Operator, border: str) -> np.ndarray:
    return scipy.ndimage.correlate(image.astype(np.float64), operator.mask.astype(np.float64),
                                   mode=SCIPY_MODES[border], cval=BORDER_VALUE)


@pytest.mark.parametrize("op", OPERATORS, ids=["random5x3", "gaussian7"])
@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_filter_equals_scipy_correlate(op: str, border: str) -> None:
    operator = clstencil.Operator(op)
    rng = np.random.default_rng(1)
    for shape in shapes():
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, operator, border, BORDER_VALUE)
        assert result.dtype == np.float32 and result.shape == shape
        np.testing.assert_allclose(result, reference(image, operator, border), rtol=1e-5,
                                   atol=1e-5, err_msg=f"{op}, {border}, shape {shape}")


# clstencil's borders as numpy.pad's modes: the per-axis oracle pads each axis by its own.
PAD_MODES = {"clamp": "edge", "mirror": "symmetric", "mirror101": "reflect", "repeat": "wrap",
             "constant": "constant"}


def padded_reference(image: np.ndarray, mask: np.ndarray, borders: tuple) -> np.ndarray:
    """The correlation over the image padded axis by axis, each by its mode (numpy's order),
    as far as the window reaches: no border of the correlation itself is read."""
    wide = image.astype(np.float64)
    for axis, (border, side) in enumerate(zip(borders, mask.shape)):
        reach = [(0, 0)] * image.ndim
        reach[axis] = (side // 2, side // 2)
        extra = {"constant_values": BORDER_VALUE} if border == "constant" else {}
        wide = np.pad(wide, reach, mode=PAD_MODES[border], **extra)
    full = scipy.ndimage.correlate(wide, mask.astype(np.float64), mode="constant")
    return full[tuple(slice(side // 2, side // 2 + length) for side, length in zip(mask.shape, image.shape))]


@pytest.mark.parametrize("pair", [("mirror", "clamp"), ("constant", "repeat"), ("repeat", "mirror101"),
                                  ("mirror101", "constant")])
def test_a_border_per_axis(pair: tuple) -> None:
    """A sequence of modes, one per axis in numpy's order, for images and a volume."""
    operator = clstencil.Operator(OPERATORS[0])
    rng = np.random.default_rng(3)
    for shape in [(13, 31), (2, 3), (1, 7)]:
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, operator, pair, BORDER_VALUE)
        np.testing.assert_allclose(result, padded_reference(image, operator.mask, pair), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{pair}, shape {shape}")
    weights = rng.uniform(-1, 1, (3, 3, 3)).astype(np.float32)
    volume = rng.random((5, 9, 7), dtype=np.float32)
    modes = (pair[1], pair[0], "mirror")
    result = clstencil.filter(volume, clstencil.Operator.correlate(weights, [0, 0, 0]), modes, BORDER_VALUE)
    np.testing.assert_allclose(result, padded_reference(volume, weights, modes), rtol=1e-5, atol=1e-5)


def test_bad_borders_per_axis_are_refused() -> None:
    image = np.zeros((4, 5), np.float32)
    with pytest.raises(ValueError, match="one per axis"):
        clstencil.filter(image, "box:3", ("mirror", "clamp", "wrap"))
    with pytest.raises(clstencil.InvalidArgumentError, match="undefined border"):
        clstencil.filter(image, "box:3", ("undefined", "clamp"))
    with pytest.raises(clstencil.InvalidArgumentError, match="sideways"):
        clstencil.filter(image, "box:3", ("sideways", "clamp"))
    with pytest.raises(TypeError, match="a name such as"):
        clstencil.Pipeline(border=("mirror", "clamp"))


def test_the_random_mask_is_the_operators() -> None:
    np.testing.assert_array_equal(clstencil.Operator(OPERATORS[0]).mask, RANDOM_MASK)


def test_undefined_border_computes_the_interior_only() -> None:
    image = np.random.default_rng(2).random((9, 12), dtype=np.float32)
    operator = clstencil.Operator(OPERATORS[0])
    result = clstencil.filter(image, operator, "undefined")
    expected = reference(image, operator, "clamp")
    np.testing.assert_allclose(result[1:-1, 2:-2], expected[1:-1, 2:-2], rtol=1e-5, atol=1e-5)
    untouched = np.ones(result.shape, bool)
    untouched[1:-1, 2:-2] = False
    assert not result[untouched].any()
    small = clstencil.filter(image[:2, :], operator, "undefined")  # no whole window fits
    assert not small.any()


# A random 25x25 mask by FFT: within the FFT's tolerance (1e-5 x sum |mask| x max |input|) of
# scipy in every shared border mode, on images smaller and larger than the mask.
LARGE_MASK = np.random.default_rng(25).uniform(-1, 1, (25, 25)).astype(np.float32)


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_fft_equals_scipy_correlate(border: str) -> None:
    operator = clstencil.Operator("correlate:25x25," + ",".join(f"{c:.9g}" for c in LARGE_MASK.ravel()))
    rng = np.random.default_rng(3)
    bound = 1e-5 * float(np.abs(LARGE_MASK).sum())
    for shape in [(7, 5), (40, 33), (64, 97)]:
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, operator, border, BORDER_VALUE, method="fft")
        np.testing.assert_allclose(result, reference(image, operator, border), rtol=0, atol=bound,
                                   err_msg=f"fft, {border}, shape {shape}")
    staged = clstencil.Pipeline(border=border, value=BORDER_VALUE).add(operator, method="fft").run(image)
    np.testing.assert_allclose(staged, reference(image, operator, border), rtol=0, atol=bound,
                               err_msg=f"fft in a pipeline, {border}")


def test_method_names() -> None:
    image = np.ones((8, 8), np.float32)
    np.testing.assert_allclose(clstencil.filter(image, "box:3", method="direct"), image, rtol=1e-6)
    with pytest.raises(clstencil.InvalidArgumentError, match="method"):
        clstencil.filter(image, "box:3", method="fourier")
    with pytest.raises(clstencil.InvalidArgumentError, match="fft"):
        clstencil.filter(image, "median:3", method="fft")
