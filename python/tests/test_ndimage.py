"""clstencil.ndimage against scipy.ndimage itself: every function on random arrays (border
pixels included) in every mode, with even windows, origins, footprints, per-axis arguments,
1-D and 3-D arrays and integer outputs; what is refused, how, and the fallback switch."""
from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.ndimage as scipy_ndimage

from clstencil import ndimage

# Every window here is a new kernel: the quick one is enough to test the values (the same bits
# as the specialized one), without a background build for each.
os.environ.setdefault("CLSTENCIL_BUILD_GOAL", "first-result")

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]
FOOTPRINT = np.array([[0, 1, 1, 0], [1, 1, 0, 1], [0, 1, 1, 1]], bool)  # 3x4, asymmetric, even side


def random(shape, dtype=np.float32, seed=5):
    values = np.random.default_rng(seed).uniform(0, 200, shape)
    return values.astype(dtype)


def same(name, *args, tolerance=2e-5, **kwargs):
    """The drop-in's result equals scipy's (values and dtype), within float32's rounding for
    sums (relative to the largest value), exactly for integer outputs and ranks."""
    ours = getattr(ndimage, name)(*args, **kwargs)
    theirs = getattr(scipy_ndimage, name)(*args, **kwargs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    scale = max(1.0, float(np.abs(theirs.astype(np.float64)).max()))
    difference = np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).max() if ours.size else 0
    assert difference <= tolerance * scale, f"{name}: off by {difference}"
    return ours


@pytest.mark.parametrize("mode", MODES)
def test_weighted_sums_in_every_mode(mode):
    image = random((23, 31))
    weights = np.random.default_rng(2).uniform(-1, 1, (4, 5))
    same("correlate", image, weights, mode=mode, cval=3.5)
    same("convolve", image, weights, mode=mode, cval=3.5, origin=(1, -2))
    same("correlate1d", image, [1, -2, 4, 0.5], axis=0, mode=mode, origin=-1)
    same("convolve1d", image, [1, -2, 4, 0.5], mode=mode)
    same("uniform_filter", image, (4, 3), mode=mode, origin=(0, 1))
    same("gaussian_filter", image, (1.5, 0.8), order=(0, 1), mode=mode)
    same("gaussian_filter1d", image, 2.0, axis=0, order=2, mode=mode, truncate=3.0)


@pytest.mark.parametrize("mode", MODES[:5])
def test_ranks_and_morphology_in_every_mode(mode):
    image = random((19, 26)).round()  # ties, as images have
    same("median_filter", image, size=(3, 4), mode=mode, cval=7, tolerance=0)
    same("rank_filter", image, 3, footprint=FOOTPRINT, mode=mode, origin=(0, 1), tolerance=0)
    same("percentile_filter", image, 70, size=5, mode=mode, tolerance=0)
    same("minimum_filter", image, footprint=FOOTPRINT, mode=mode, tolerance=0)
    same("maximum_filter", image, size=(2, 5), mode=mode, origin=(-1, 2), tolerance=0)
    same("grey_dilation", image, footprint=FOOTPRINT, mode=mode, origin=(1, 0), tolerance=0)
    same("grey_opening", image, size=(3, 2), mode=mode, tolerance=0)
    same("black_tophat", image, footprint=FOOTPRINT, mode=mode, tolerance=0)
    same("morphological_gradient", image, size=3, mode=mode, tolerance=0)


def test_modes_per_axis():
    """One window for float32 sums (each axis bordered by its own mode) and for boxes of
    extremes; passes for double sums, as scipy's."""
    image = random((21, 17))
    modes = ["wrap", "nearest"]
    same("gaussian_filter", image, 1.5, mode=modes)
    same("uniform_filter", image, (3, 5), mode=["constant", "reflect"], cval=2.0)
    same("laplace", image, mode=["mirror", "wrap"])
    same("sobel", image, axis=0, mode=modes)
    same("minimum_filter", image, size=(3, 5), mode=modes, tolerance=0)
    same("maximum_filter", random((7, 9, 6)), size=3, mode=["wrap", "constant", "mirror"], cval=1.0, tolerance=0)
    same("gaussian_filter", image.astype(np.float64), 1.0, mode=modes, tolerance=1e-7)


def test_derivatives_and_laplacians():
    image = random((21, 17))
    for axis in (0, 1):
        same("sobel", image, axis)
        same("prewitt", image, axis, mode=["nearest", "wrap"])  # a mode per axis
    same("laplace", image, mode="mirror")
    same("gaussian_laplace", image, 1.3)
    same("gaussian_gradient_magnitude", image, 1.1, mode="nearest")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.int32, np.float64, bool])
def test_dtypes_and_outputs_as_scipy(dtype):
    """The output's dtype and its C-cast values: truncation, wrap-around of negative sums."""
    image = random((15, 14), dtype)
    same("uniform_filter", image, 3, tolerance=0 if dtype != np.float64 else 2e-5)
    same("sobel", image, 0, tolerance=0 if dtype != np.float64 else 2e-5)
    same("median_filter", image, 3, tolerance=0 if dtype != np.float64 else 1e-7)
    same("gaussian_filter", image, 1.0, output=np.float32)
    out = np.zeros(image.shape, np.int16)
    assert ndimage.laplace(image, output=out) is out
    assert np.array_equal(out, scipy_ndimage.laplace(image, output=np.int16))


def test_lines_and_volumes():
    line = random(40)
    same("correlate1d", line, [1, 2, 3], mode="wrap")
    same("median_filter", line, 4, mode="mirror", tolerance=0)
    same("gaussian_filter", line, 2.0)
    # lines wider than the device's 63 taps: pieces over the values extended on the host
    image = random((12, 70))
    for mode in MODES[:5]:
        same("gaussian_filter", image, (0.5, 12.0), mode=mode, cval=2.0)
        same("correlate1d", image, np.arange(-40.0, 40.0), mode=mode, origin=7, cval=2.0)
    volume = random((9, 10, 12))
    same("gaussian_filter", volume, (1.0, 0.0, 1.5), mode="nearest")
    same("correlate", volume, np.random.default_rng(3).uniform(-1, 1, (3, 2, 3)), mode="mirror")
    same("uniform_filter", volume.astype(np.uint8), (3, 1, 2), mode="reflect", tolerance=0)
    same("maximum_filter", volume, size=(3, 2, 3), mode="wrap", tolerance=0)
    same("minimum_filter1d", volume, 4, axis=1, mode="constant", cval=-1, tolerance=0)
    same("grey_closing", volume, size=(2, 3, 1), tolerance=0)
    ball = np.zeros((3, 4, 3), bool)
    ball[1, :, 1] = ball[:, 1, 1] = ball[1, 1, :] = True  # a cross, 4 rows tall
    same("grey_dilation", volume, footprint=ball, mode="mirror", origin=(0, 1, -1), tolerance=0)
    same("minimum_filter", volume.astype(np.uint16), footprint=ball, mode="constant", cval=9, tolerance=0)
    same("white_tophat", volume, footprint=ball, mode="nearest", tolerance=0)
    same("median_filter", volume.round(), size=3, mode="mirror", tolerance=0)
    same("percentile_filter", volume, 70, footprint=ball, mode="constant", cval=50, origin=(1, 0, 0), tolerance=0)
    same("rank_filter", volume.astype(np.uint8), -2, size=(3, 2, 3), mode="wrap", tolerance=0)
    same("median_filter", volume.astype(np.float64) / 3, size=3, mode="wrap", tolerance=0)


def test_bad_arguments_raise_as_scipy():
    image = random((8, 8))
    for call, error in [
        (lambda: ndimage.correlate1d(image, [1, 2], origin=1), ValueError),
        (lambda: ndimage.correlate(image, np.ones(3)), RuntimeError),
        (lambda: ndimage.uniform_filter(image, 3, mode="bouncy"), RuntimeError),
        (lambda: ndimage.uniform_filter1d(image, 0), RuntimeError),
        (lambda: ndimage.gaussian_filter(image, 1, order=-1), ValueError),
        (lambda: ndimage.gaussian_filter(image, 1, radius=-2), ValueError),
        (lambda: ndimage.median_filter(image), RuntimeError),
        (lambda: ndimage.rank_filter(image, 10, size=3), RuntimeError),
        (lambda: ndimage.rank_filter(image, 0.5, size=3), TypeError),
        (lambda: ndimage.percentile_filter(image, 101, size=3), RuntimeError),
        (lambda: ndimage.minimum_filter(image, footprint=np.zeros((3, 3))), ValueError),
        (lambda: ndimage.median_filter(image, footprint=np.ones((3, 3)), mode=["wrap", "wrap"]), RuntimeError),
        (lambda: ndimage.grey_erosion(image), ValueError),
        (lambda: ndimage.sobel(image, output=np.zeros((3, 3))), RuntimeError),
        (lambda: ndimage.sobel(image, 2), IndexError),  # numpy's AxisError is one
        (lambda: ndimage.gaussian_filter(image.astype(np.float16), 1), RuntimeError),
        (lambda: ndimage.uniform_filter(image, 3, output=np.float16), RuntimeError),
        (lambda: ndimage.median_filter(image, 3, mode=None), RuntimeError),
        (lambda: ndimage.maximum_filter1d(image, 3, mode=("reflect", "wrap")), RuntimeError),
    ]:
        with pytest.raises(error):
            call()


def test_wide_integers_and_float64_sum_in_double():
    """Integers past float32's 2**24 and float64 values are summed in double on the device, as
    scipy sums them: the same values (ranks still select through float32)."""
    big = np.random.default_rng(4).integers(-2 ** 40, 2 ** 40, (12, 13))
    same("uniform_filter", big, 3, tolerance=0)
    # negative sums wrap past 2**63 in uint64: double's rounding there (2048) depends on the order
    same("sobel", big.astype(np.uint64), 1, tolerance=1e-15)
    fine = np.random.default_rng(5).uniform(-1, 1, (17, 19)) * 1e6
    same("correlate", fine, np.arange(12.0).reshape(3, 4) - 5.5, mode="wrap", tolerance=1e-14)
    same("gaussian_filter", fine, 1.7, mode="mirror", tolerance=1e-7)  # its weights in float


def test_ranks_of_any_values_are_exact():
    """float64 values float32 cannot hold, and integers past 2**24, rank exactly (through their
    indices among the distinct values); the constant border's value takes part."""
    fine = np.random.default_rng(6).uniform(-1, 1, (15, 18)) * (1 + 1e-12)
    same("median_filter", fine, 3, mode="constant", cval=0.123456789012345, tolerance=0)
    same("percentile_filter", fine, 30, size=(3, 4), mode="wrap", tolerance=0)
    same("minimum_filter", fine, size=5, tolerance=0)
    same("grey_opening", fine, size=(3, 3), tolerance=0)
    big = np.random.default_rng(7).integers(-2 ** 40, 2 ** 40, (11, 9))
    same("median_filter", big, 3, tolerance=0)
    same("maximum_filter", big.astype(np.uint64), footprint=FOOTPRINT, tolerance=0)
    same("median_filter", fine.astype(np.float32).astype(np.float64), 3, tolerance=0)  # float32's own


def test_unserved_calls_are_refused_or_handed_to_scipy():
    complex_image = random((6, 6)) + 1j
    unserved = [lambda: ndimage.correlate(complex_image, np.ones((3, 3))),
                lambda: ndimage.uniform_filter(np.zeros((2, 2, 2, 2), np.float32), 3),
                lambda: ndimage.median_filter(random((12, 12, 12)), footprint=np.ones((11, 11, 11))),
                lambda: ndimage.minimum_filter(random((40, 5, 5)), footprint=np.eye(33)[:, :, np.newaxis]),
                lambda: ndimage.grey_erosion(random((6, 6)), structure=np.ones((3, 3))),
                lambda: ndimage.correlate(random((6, 6)), np.ones((64, 3))),
                lambda: ndimage.minimum_filter1d(random((6, 6)), 64),
                lambda: ndimage.median_filter(random((40, 40)), 33),
                lambda: ndimage.correlate(random((6, 6, 6), np.float64), np.ones((3, 3, 3))),  # a volume in double
                lambda: ndimage.correlate(random((6, 6)), [[np.nan, 1], [1, 1]]),
                lambda: ndimage.uniform_filter(random((6, 6)), 3, mode="constant", cval=np.nan)]
    for call in unserved:
        with pytest.raises(ndimage.Unserved):
            call()
    assert issubclass(ndimage.Unserved, NotImplementedError)
    before = dict(ndimage.counts)
    ndimage.fallback_to_scipy = True
    try:
        answer = ndimage.correlate(complex_image, np.ones((3, 3)))
        assert np.array_equal(answer, scipy_ndimage.correlate(complex_image, np.ones((3, 3))))
        assert ndimage.counts["scipy"] == before.get("scipy", 0) + 1
        assert any("complex" in why for why in ndimage.fallback_reasons)
    finally:
        ndimage.fallback_to_scipy = False
    ndimage.uniform_filter(random((6, 6)), 3)
    assert ndimage.counts["device"] > before.get("device", 0)


def test_what_scipy_takes_at_the_edges():
    """Arguments scipy takes that the device's own limits would refuse or change, and the stores
    scipy's C casts make: a nonzero border value through the derivatives' passes, top-hats that
    go negative, an axis of size 0, infinite and wide border values, booleans, byte order."""
    image = random((14, 17))
    for name in ("sobel", "prewitt"):  # each pass bordered by cval, as scipy's passes are
        same(name, image, mode="constant", cval=50.0)
    same("gaussian_filter", image, 1.5, order=(0, 1), mode="constant", cval=50.0)
    small = random((9, 11), np.uint8)  # the closing below cval 0: negative differences
    same("black_tophat", small, size=3, mode="constant", output=np.float32, tolerance=0)
    same("white_tophat", small, footprint=FOOTPRINT, mode="reflect", tolerance=0)  # wraps in uint8
    same("morphological_gradient", random((9, 11), np.float64) / 7, size=3, tolerance=0)
    same("minimum_filter", image, size=(0, 3), origin=(1, 0), tolerance=0)  # the axis of 0 untouched
    for values in (image, small):  # a peak finder's border: never the maximum
        same("maximum_filter", values, size=3, mode="constant", cval=-np.inf, tolerance=0)
    ours = ndimage.correlate(image, np.ones((3, 3)), mode="constant", cval=1e39)  # inf there, as scipy's
    theirs = scipy_ndimage.correlate(image, np.ones((3, 3)), mode="constant", cval=1e39)
    assert np.array_equal(np.isinf(ours), np.isinf(theirs)) and np.isinf(ours[0]).all()
    np.testing.assert_allclose(ours[1:-1, 1:-1], theirs[1:-1, 1:-1], rtol=1e-6)
    wide = np.arange(12, dtype=np.int32).reshape(3, 4)
    same("correlate", wide, np.ones((3, 3)), mode="constant", cval=16777217, tolerance=0)  # past float32
    same("minimum_filter", np.ones((3, 3), bool), size=3, mode="constant", cval=0.25, tolerance=0)
    assert ndimage.correlate1d(np.zeros((5, 0), np.float32), np.ones(70)).shape == (5, 0)
    assert ndimage.uniform_filter(image.astype(">f4"), 3).dtype == np.dtype("=f4")


def test_volumes_in_double_and_deep_lines():
    """A volume's lines of weights run as the rows of an image where its masks do not reach:
    sums in double, more than 31 taps along z."""
    volume = random((6, 7, 8), np.float64)
    same("gaussian_filter", volume, 1.0, mode="constant", cval=3.0, tolerance=1e-7)  # weights in float
    same("sobel", volume.astype(np.int32), 0, tolerance=0)
    same("correlate1d", random((8, 9, 10)), np.linspace(-1, 1, 40), axis=0, mode="wrap")
