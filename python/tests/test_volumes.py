"""Volumes through clstencil.filter against scipy.ndimage.correlate in 3-D: every border mode
scipy shares, volumes from 1x1x1 to 33x45x67 (smaller than the mask along some axes included),
masks 3x3x3 and 3x5x7 (random), gaussian3d and masks 17 and 19 deep, large masks by FFT, strided arrays, integer
pixels, the undefined border's interior, user-written bodies, and what a volume refuses."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.ndimage

import clstencil
from conftest import SCIPY_MODES, rotated_borders

RNG = np.random.default_rng(11)
RANDOM_3 = RNG.uniform(-1, 1, (3, 3, 3)).astype(np.float32)
RANDOM_357 = RNG.uniform(-1, 1, (7, 5, 3)).astype(np.float32)  # depth 7, height 5, width 3


def correlate(mask: np.ndarray) -> str:
    depth, height, width = mask.shape
    return f"correlate:{width}x{height}x{depth}," + ",".join(f"{c:.9g}" for c in mask.ravel())


OPERATORS = [correlate(RANDOM_3), correlate(RANDOM_357), "gaussian3d:5,1"]
SHAPES = [(1, 1, 1), (3, 4, 5), (9, 2, 6), (33, 45, 67)]  # (slices, rows, columns)
BORDER_VALUE = 0.75


def reference(volume: np.ndarray, operator: clstencil.Operator, border: str) -> np.ndarray:
    return scipy.ndimage.correlate(volume.astype(np.float64), operator.mask.astype(np.float64),
                                   mode=SCIPY_MODES[border], cval=BORDER_VALUE)


@pytest.mark.parametrize("op", OPERATORS, ids=["random3x3x3", "random3x5x7", "gaussian3d"])
@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_volume_equals_scipy_correlate(op: str, border: str) -> None:
    operator = clstencil.Operator(op)
    rng = np.random.default_rng(3)
    for shape in SHAPES:
        volume = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(volume, operator, border, BORDER_VALUE)
        assert result.dtype == np.float32 and result.shape == shape
        np.testing.assert_allclose(result, reference(volume, operator, border), rtol=1e-5,
                                   atol=1e-5, err_msg=f"{op}, {border}, shape {shape}")


RANDOM_9 = RNG.uniform(-1, 1, (9, 9, 9)).astype(np.float32)


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_large_masks_by_fft_equal_scipy(border: str) -> None:
    """A random 9x9x9 mask (auto: by FFT where the device's record says so from 600 taps, as
    PoCL's does) equals scipy's correlate within the FFT's tolerance in every mode; in some modes
    a volume smaller than the mask, a 5x5x5 mask by FFT asked for, and dask's chunks too (each
    size plans VkFFT's transforms anew, which is most of the time)."""
    rng = np.random.default_rng(4)
    first = border == next(iter(SCIPY_MODES))
    random_5 = RANDOM_9[2:7, 2:7, 2:7]
    cases = [(RANDOM_9, None, (21, 17, 26))]
    if first:
        cases += [(RANDOM_9, None, (4, 6, 5)), (random_5, "fft", (21, 17, 26))]
    for mask, method, shape in cases:
        operator = clstencil.Operator(correlate(mask))
        bound = 3 * 1e-5 * np.abs(mask).sum()  # CLS_FFT_TOLERANCE x sum |m| x max |input| (1)
        volume = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(volume, operator, border, BORDER_VALUE, method=method)
        np.testing.assert_allclose(result, reference(volume, operator, border), rtol=0, atol=bound,
                                   err_msg=f"{mask.shape}, {border}, shape {shape}")
    if not first:
        return
    da = pytest.importorskip("dask.array")
    from clstencil import dask as chunked_filters
    volume = rng.random((21, 17, 26), dtype=np.float32)
    chunked = chunked_filters.filter(da.from_array(volume, chunks=(21, 17, 13)), correlate(RANDOM_9), border,
                                     BORDER_VALUE).compute(scheduler="synchronous")
    np.testing.assert_allclose(chunked, reference(volume, clstencil.Operator(correlate(RANDOM_9)), border),
                               rtol=0, atol=3 * 1e-5 * np.abs(RANDOM_9).sum())


WEIGHTED_SUM_BODY = """
float s = 0.0f;
FOR_WINDOW(dx, dy, dz) s += MASK(dx, dy, dz) * IN(dx, dy, dz);
OUT = s;
"""


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_a_user_written_body_of_volumes(border: str) -> None:
    """A body over a 3x5x7 window that sums MASK(dx, dy, dz) * IN(dx, dy, dz) equals scipy's
    correlate with that mask, borders and volumes smaller than the window included; it pickles
    (dask sends operators to workers)."""
    operator = clstencil.Operator.user(WEIGHTED_SUM_BODY, 3, 5, RANDOM_357, depth=7)
    assert operator.window == (7, 5, 3)
    again = pickle.loads(pickle.dumps(operator))
    rng = np.random.default_rng(8)
    for shape in SHAPES[:3]:
        volume = rng.random(shape, dtype=np.float32)
        expected = scipy.ndimage.correlate(volume.astype(np.float64), RANDOM_357.astype(np.float64),
                                           mode=SCIPY_MODES[border], cval=BORDER_VALUE)
        for op in (operator, again):
            np.testing.assert_allclose(clstencil.filter(volume, op, border, BORDER_VALUE), expected,
                                       rtol=1e-5, atol=1e-5, err_msg=f"{border}, shape {shape}")
    with pytest.raises(ValueError, match="a 3x5x7 window needs 105"):
        clstencil.Operator.user(WEIGHTED_SUM_BODY, 3, 5, RANDOM_3, depth=7)
    with pytest.raises(clstencil.InvalidArgumentError, match="reads outside the 3x3x3 window"):
        clstencil.Operator.user("OUT = IN(0, 0, 2);", depth=3)


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_minimum_and_maximum_equal_scipy(border: str) -> None:
    volume = np.random.default_rng(6).random((9, 17, 23), dtype=np.float32)
    for op, size, scipy_filter in (("min3d:3", 3, scipy.ndimage.minimum_filter),
                                   ("max3d:5", 5, scipy.ndimage.maximum_filter)):
        result = clstencil.filter(volume, op, border, BORDER_VALUE)
        expected = scipy_filter(volume, size=size, mode=SCIPY_MODES[border], cval=BORDER_VALUE)
        np.testing.assert_array_equal(result, expected, err_msg=f"{op}, {border}")


@pytest.mark.parametrize("op, border", rotated_borders(["gaussian3d:19,3", "max3d:17"], per_case=1))
def test_deep_separable_masks_equal_scipy(op: str, border: str) -> None:
    """Masks 19 and 17 deep: on GPUs one pass from the slice's tile keeping 76 and 68 partial
    sums a work-item, elsewhere passes."""
    volume = np.random.default_rng(8).random((23, 20, 26), dtype=np.float32)
    operator = clstencil.Operator(op)
    result = clstencil.filter(volume, operator, border, BORDER_VALUE)
    if op.startswith("max3d"):
        expected = scipy.ndimage.maximum_filter(volume, size=17, mode=SCIPY_MODES[border], cval=BORDER_VALUE)
        np.testing.assert_array_equal(result, expected, err_msg=f"{op}, {border}")
    else:
        np.testing.assert_allclose(result, reference(volume, operator, border), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{op}, {border}")


def test_operators_of_volumes() -> None:
    operator = clstencil.Operator(correlate(RANDOM_357))
    assert operator.window == (7, 5, 3) and operator.radius == (3, 2, 1)
    np.testing.assert_array_equal(operator.mask, RANDOM_357)
    convolved = clstencil.Operator("convolve" + correlate(RANDOM_357)[len("correlate"):])
    np.testing.assert_array_equal(convolved.mask, RANDOM_357[::-1, ::-1, ::-1])
    gaussian = clstencil.Operator("gaussian3d:5,1").mask
    assert gaussian.shape == (5, 5, 5) and abs(float(gaussian.sum()) - 1) < 1e-5
    np.testing.assert_allclose(gaussian, np.transpose(gaussian, (2, 0, 1)), rtol=1e-6)
    assert clstencil.Operator("box3d:3").mask.shape == (3, 3, 3)
    from_weights = clstencil.Operator.correlate(RANDOM_357)
    assert from_weights.window == (7, 5, 3)
    np.testing.assert_array_equal(from_weights.mask, RANDOM_357)
    assert clstencil.Operator.correlate(np.ones((3, 5))).window == (3, 5)
    # an even side runs as the next odd window, anchored at cell side // 2 as scipy's
    assert clstencil.Operator.correlate(np.ones((2, 3, 3))).window == (3, 3, 3)
    with pytest.raises(clstencil.InvalidArgumentError, match="sides are 1 to 31"):
        clstencil.Operator.correlate(np.ones((33, 3, 3)))
    flat = clstencil.Operator("correlate:3x1,1,2,3")  # WxH stays a 2-D operator
    assert flat.window == (1, 3) and flat.radius == (0, 1)


def test_strided_volumes_and_integer_pixels() -> None:
    rng = np.random.default_rng(5)
    big = rng.random((12, 20, 30), dtype=np.float32)
    view = big[1:10, 2:17, 3:25]  # padded rows and slices
    every_other = big[::2, :, ::3]  # copied first
    operator = clstencil.Operator(correlate(RANDOM_3))
    for volume in (view, every_other):
        np.testing.assert_allclose(clstencil.filter(volume, operator, "mirror"),
                                   reference(np.ascontiguousarray(volume), operator, "mirror"),
                                   rtol=1e-5, atol=1e-5)
    out = np.full((14, 22, 32), -1.0, np.float32)
    clstencil.filter(view, operator, "repeat", out=out[2:11, 3:18, 4:26])
    np.testing.assert_allclose(out[2:11, 3:18, 4:26], reference(view, operator, "repeat"),
                               rtol=1e-5, atol=1e-5)
    out[2:11, 3:18, 4:26] = -1.0
    assert (out == -1.0).all()  # nothing outside the view written
    pixels = rng.integers(0, 256, (6, 7, 8), dtype=np.uint8)
    box = clstencil.filter(pixels, "box3d:3", "clamp")
    expected = scipy.ndimage.uniform_filter(pixels.astype(np.float64), 3, mode="nearest")
    assert box.dtype == np.uint8
    assert np.abs(box.astype(np.float64) - expected).max() <= 0.5 + 1e-4


@pytest.mark.parametrize("border", ["mirror101", "repeat", "constant"])
def test_dask_chunks_equal_one_piece(border: str) -> None:
    da = pytest.importorskip("dask.array")
    import clstencil.dask
    volume = np.random.default_rng(8).random((20, 30, 40), dtype=np.float32)
    for op in (correlate(RANDOM_357), "box3d:5"):
        chunked = clstencil.dask.filter(da.from_array(volume, chunks=(7, 11, 13)), op, border,
                                        BORDER_VALUE).compute(scheduler="synchronous")
        np.testing.assert_array_equal(chunked, clstencil.filter(volume, op, border, BORDER_VALUE),
                                      err_msg=f"{op}, {border}")


def test_undefined_border_computes_the_interior_only() -> None:
    volume = np.random.default_rng(2).random((7, 9, 12), dtype=np.float32)
    operator = clstencil.Operator(correlate(RANDOM_357))
    result = clstencil.filter(volume, operator, "undefined")
    expected = reference(volume, operator, "clamp")
    inside = (slice(3, -3), slice(2, -2), slice(1, -1))
    np.testing.assert_allclose(result[inside], expected[inside], rtol=1e-5, atol=1e-5)
    untouched = np.ones(result.shape, bool)
    untouched[inside] = False
    assert not result[untouched].any()


@pytest.mark.parametrize("border", ["mirror", "repeat"])
def test_a_pipeline_of_volumes(border: str) -> None:
    """An opening and its top-hat through one Pipeline equal scipy's, a strided volume in, and
    the same through dask in chunks smaller than the halo along no axis."""
    volume = np.random.default_rng(7).random((9, 14, 11), dtype=np.float32)
    pipeline = (clstencil.Pipeline(border=border).add("min3d:3", name="eroded")
                .add("max3d:3", name="opened").add_elementwise("tophat", "input - opened"))
    opened = scipy.ndimage.grey_opening(volume, size=3, mode=SCIPY_MODES[border])
    np.testing.assert_array_equal(pipeline.run(volume), volume - opened)
    strided = np.zeros((9, 14, 22), np.float32)
    strided[:, :, ::2] = volume
    np.testing.assert_array_equal(pipeline.run(strided[:, :, ::2]), volume - opened)
    da = pytest.importorskip("dask.array")
    import clstencil.dask as chunked_filters
    assert pipeline.radius == (2, 2, 2)  # the erosion's reach and the dilation's, per axis
    chunked = chunked_filters.run_pipeline(da.from_array(volume, chunks=(4, 5, 6)), pipeline)
    np.testing.assert_array_equal(chunked.compute(scheduler="threads"), volume - opened)


def test_what_a_volume_refuses() -> None:
    volume = np.zeros((4, 4, 4), np.float32)
    with pytest.raises(ValueError, match="volume's operator"):
        clstencil.filter(volume, "gaussian:3")
    with pytest.raises(ValueError, match="3-D"):
        clstencil.filter(volume[0], "box3d:3")
    with pytest.raises(ValueError, match="one device"):
        clstencil.filter(volume, "box3d:3", device="0:0,0:0")
    with pytest.raises(ValueError, match="all 2-D"):
        clstencil.Pipeline().add("box3d:3").add("gaussian:3")
    with pytest.raises(ValueError, match="3-D"):
        clstencil.Pipeline().add("box3d:3").run(volume[0])
    with pytest.raises(ValueError, match="Night"):
        clstencil.Pipeline().add("box3d:3").add_night()
    with pytest.raises(clstencil.InvalidArgumentError, match="D up to 31"):
        clstencil.Operator("correlate:1x1x33," + ",".join(["1"] * 33))
    with pytest.raises(clstencil.InvalidArgumentError, match="SIZE up to 31"):
        clstencil.Operator("gaussian3d:33")


def test_volumes_of_one_size_class_share_a_filter() -> None:
    """A volume's filter or pipeline is built for its size (`auto` chooses its walk for it on
    GPUs): volumes of about the same number of voxels share one, a volume of another size class gets its own,
    and each equals scipy."""
    from clstencil import filters
    rng = np.random.default_rng(5)
    classes = []
    for shape in [(8, 8, 8), (4, 16, 8), (64, 128, 128)]:  # size classes 3, 3, 7
        volume = rng.random(shape, dtype=np.float32)
        before = set(filters._filters)
        result = clstencil.filter(volume, "box3d:3", "clamp")
        classes.append({key[-1] for key in set(filters._filters) - before})
        expected = scipy.ndimage.uniform_filter(volume.astype(np.float64), 3, mode="nearest")
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
    assert classes[0] <= {3} and classes[1] == set() and classes[2] <= {7}
    assert {3, 7} <= {key[-1] for key in filters._filters}
    pipeline = clstencil.Pipeline().add("box3d:3")  # a pipeline is built a size class too
    for shape in [(8, 8, 8), (4, 16, 8), (64, 128, 128)]:
        pipeline.run(rng.random(shape, dtype=np.float32))
    assert sorted(key[-1] for key in pipeline._built) == [3, 7]
    assert filters.volume_size_class((512, 512, 512)) == 9
    assert filters.volume_size_class((128, 1024, 1024)) == 9
