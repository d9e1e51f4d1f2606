"""Pixel types: u8, u16, i16 and f32 in and out (rounded to nearest even, saturated), and a clear
TypeError for dtypes the C library does not support, never a silent conversion."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

import clstencil


def rounded(values: np.ndarray, dtype) -> np.ndarray:
    limits = np.iinfo(dtype)
    return np.clip(np.rint(values), limits.min, limits.max)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16])
def test_integer_images_round_and_saturate(rng: np.random.Generator, dtype) -> None:
    bottom, top = np.iinfo(dtype).min, np.iinfo(dtype).max
    image = rng.integers(bottom, top, (21, 34), dtype=dtype, endpoint=True)
    mask = clstencil.Operator("laplace").mask.astype(np.float64)
    expected = scipy.ndimage.correlate(image.astype(np.float64), mask, mode="nearest")
    result = clstencil.filter(image, "laplace", "clamp")
    assert result.dtype == dtype
    assert np.abs(result.astype(np.int64) - rounded(expected, dtype)).max() <= 1
    assert (result[expected < bottom - 1] == bottom).all() and (result[expected > top + 1] == top).all()


def test_i16_in_f32_out_every_border(rng: np.random.Generator) -> None:
    """A signed image (CT-like values) through a Gaussian in every border mode scipy shares."""
    image = rng.integers(-1024, 3071, (19, 26), dtype=np.int16, endpoint=True)
    operator = clstencil.Operator("gaussian:5")
    for border, mode in (("clamp", "nearest"), ("mirror", "reflect"), ("mirror101", "mirror"),
                         ("repeat", "wrap")):
        expected = scipy.ndimage.correlate(image.astype(np.float64), operator.mask.astype(np.float64),
                                           mode=mode)
        result = clstencil.filter(image, operator, border, dtype=np.float32)
        assert result.dtype == np.float32
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-2, err_msg=border)


def test_u8_in_f32_out(rng: np.random.Generator) -> None:
    image = rng.integers(0, 255, (17, 23), dtype=np.uint8, endpoint=True)
    operator = clstencil.Operator("gaussian:5")
    expected = scipy.ndimage.correlate(image.astype(np.float64), operator.mask.astype(np.float64),
                                       mode="reflect")
    result = clstencil.filter(image, operator, "mirror", dtype=np.float32)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-3)


def test_f32_in_u16_out_into_out(rng: np.random.Generator) -> None:
    image = rng.random((10, 12), dtype=np.float32) * 1000
    out = np.empty(image.shape, np.uint16)
    returned = clstencil.filter(image, "box:3", "clamp", out=out)
    assert returned is out
    expected = scipy.ndimage.correlate(image.astype(np.float64), np.full((3, 3), 1 / 9),
                                       mode="nearest")
    assert np.abs(out.astype(np.int64) - rounded(expected, np.uint16)).max() <= 1


@pytest.mark.parametrize("border", ["clamp", "mirror", "mirror101", "repeat", "constant"])
def test_float16_in_and_out(border: str) -> None:
    """Half-precision images: read exactly, summed in float32, written rounded to nearest even;
    against scipy in float64 rounded to float16 (within one half-precision step), borders
    included, and infinity where a sum passes 65504."""
    modes = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror", "repeat": "wrap",
             "constant": "constant"}
    rng = np.random.default_rng(12)
    image = (rng.standard_normal((37, 29)) * 3000).astype(np.float16)
    image[5, 7] = 60000
    mask = "correlate:3x3,0.5,1,-0.25,1,2,1,-0.25,1,0.5"
    weights = np.array([[0.5, 1, -0.25], [1, 2, 1], [-0.25, 1, 0.5]])
    expected = scipy.ndimage.correlate(image.astype(np.float64), weights, mode=modes[border], cval=-2.5)
    result = clstencil.filter(image, mask, border, -2.5)
    assert result.dtype == np.float16
    with np.errstate(over="ignore"):  # the sums past 65504 are infinities in half precision
        rounded = expected.astype(np.float16)
    finite = np.isfinite(rounded)
    step = np.spacing(np.abs(rounded[finite]))
    assert (np.abs(result[finite].astype(np.float64) - expected[finite]) <= 1.5 * step).all()
    assert (result[~finite] == rounded[~finite]).all()
    assert np.isinf(result).any()  # 60000 x 2 overflows half precision
    as_float = clstencil.filter(image, mask, border, -2.5, dtype=np.float32)
    np.testing.assert_allclose(as_float, expected, rtol=1e-5, atol=1e-2)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8, np.complex64, np.bool_])
def test_unsupported_dtypes_raise_type_error(dtype) -> None:
    image = np.zeros((4, 4), dtype=dtype)
    with pytest.raises(TypeError, match=f"dtype {np.dtype(dtype).name}.*supported: float32, "
                                        f"uint8, uint16, int16, float16, float64"):
        clstencil.filter(image, "box:3")


@pytest.mark.parametrize("border", ["clamp", "mirror", "mirror101", "repeat", "constant"])
def test_float64_sums_in_double(border) -> None:
    """float64 in or out: the weighted sum computed in double (the float weights exactly as
    given), border pixels included; float64 takes no other operator."""
    rng = np.random.default_rng(64)
    image = rng.uniform(-1e3, 1e3, (29, 41))
    weights = rng.uniform(-1, 1, (5, 4)).astype(np.float32)  # even: anchored at cell 2
    modes = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror", "repeat": "wrap",
             "constant": "constant"}
    expected = scipy.ndimage.correlate(image, weights.astype(np.float64), mode=modes[border], cval=0.25)
    result = clstencil.filter(image, clstencil.Operator.correlate(weights), border, 0.25)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-9)
    single = image.astype(np.float32)
    widened = clstencil.filter(single, clstencil.Operator.correlate(weights), border, 0.25, dtype=np.float64)
    np.testing.assert_allclose(widened, scipy.ndimage.correlate(single.astype(np.float64), weights.astype(np.float64),
                                                                mode=modes[border], cval=0.25), rtol=1e-12, atol=1e-9)
    with pytest.raises(clstencil.InvalidArgumentError, match="f64 pixels compute in double only"):
        clstencil.filter(image, "median:3", border)


@pytest.mark.parametrize("dtype", [np.int32, np.int8])
def test_unsupported_output_dtypes_raise_type_error(dtype) -> None:
    with pytest.raises(TypeError, match=np.dtype(dtype).name):
        clstencil.filter(np.zeros((4, 4), np.float32), "box:3", dtype=dtype)
    with pytest.raises(TypeError, match=np.dtype(dtype).name):
        clstencil.filter(np.zeros((4, 4), np.float32), "box:3", out=np.zeros((4, 4), dtype))


def test_non_native_byte_order_raises_type_error() -> None:
    with pytest.raises(TypeError, match="byte order"):
        clstencil.filter(np.zeros((4, 4), dtype=">f4"), "box:3")
