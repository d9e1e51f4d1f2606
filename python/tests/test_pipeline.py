"""clstencil.Pipeline: stages on the device equal filters chained through float32 images."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import clstencil


def test_pipeline_equals_chained_filters(rng: np.random.Generator) -> None:
    image = rng.integers(0, 255, (30, 41), dtype=np.uint8, endpoint=True)
    pipeline = clstencil.Pipeline(["gaussian:5,1.2", "sobel:mag"], border="mirror101")
    assert pipeline.stages == ("gaussian:5,1.2 (mirror101)", "sobel:mag,3 (mirror101)")
    assert pipeline.radius == (3, 3)
    smoothed = clstencil.filter(image, "gaussian:5,1.2", "mirror101", dtype=np.float32)
    expected = clstencil.filter(smoothed, "sobel:mag", "mirror101", dtype=np.uint8)
    np.testing.assert_array_equal(pipeline(image), expected)
    as_float = pipeline.run(image, dtype=np.float32)
    np.testing.assert_array_equal(as_float, clstencil.filter(smoothed, "sobel:mag", "mirror101"))


def test_stages_take_their_own_borders(rng: np.random.Generator) -> None:
    image = rng.random((12, 9), dtype=np.float32)
    pipeline = clstencil.Pipeline().add("box:3", "constant", 2.0).add("laplace", "repeat")
    expected = clstencil.filter(clstencil.filter(image, "box:3", "constant", 2.0), "laplace", "repeat")
    np.testing.assert_array_equal(pipeline(image), expected)


def test_night_filter_runs(rng: np.random.Generator) -> None:
    image = rng.random((40, 40), dtype=np.float32)
    pipeline = clstencil.Pipeline(border="mirror").add_night()
    assert pipeline.radius == (15, 15)
    result = pipeline(image)
    assert result.shape == image.shape and np.isfinite(result).all()
    assert (0 <= result).all() and (result < 1).all()  # v / (1 + v) of non-negative v


def test_pipeline_errors() -> None:
    with pytest.raises(ValueError, match="no stage"):
        clstencil.Pipeline()(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="undefined border"):
        clstencil.Pipeline(["box:3"], border="undefined")
    with pytest.raises(TypeError, match="int32"):
        clstencil.Pipeline(["box:3"])(np.zeros((4, 4), np.int32))


def test_pipelines_and_operators_pickle(rng: np.random.Generator) -> None:
    image = rng.random((10, 10), dtype=np.float32)
    body = "OUT = IN(1, 0) - IN(-1, 0);"
    pipeline = clstencil.Pipeline([clstencil.Operator.user(body, 3, 1, mask=[1, 1, 1]), "box:3"])
    copy = pickle.loads(pickle.dumps(pipeline))
    assert copy.key == pipeline.key
    by_fft = clstencil.Pipeline().add("box:3", method="fft")  # dask's workers look pipelines up by key
    assert by_fft.key != clstencil.Pipeline().add("box:3", method="direct").key
    np.testing.assert_array_equal(copy(image), pipeline(image))


def test_graph_unsharp_and_branches_equal_scipy(rng: np.random.Generator) -> None:
    ndimage = pytest.importorskip("scipy.ndimage")
    image = rng.random((33, 47), dtype=np.float32)
    sharpen = clstencil.Pipeline(border="mirror")
    sharpen.add("gaussian:5,1.0", name="blur", source="input")
    sharpen.add_elementwise("sharp", "input + 1.5f * (input - blur)")
    assert sharpen.stages == ("blur = gaussian:5,1 of input (mirror)", "sharp = input + 1.5f * (input - blur)")
    assert sharpen.radius == (2, 2)
    blur = ndimage.gaussian_filter(image.astype(np.float64), 1.0, mode="reflect", truncate=2.0)
    np.testing.assert_allclose(sharpen(image), image + 1.5 * (image - blur), atol=2e-6)
    # Two branches of a blur joined: the gradient magnitude; its reach is the longest path.
    gradient = clstencil.Pipeline(border="clamp")
    gradient.add("box:5", name="smooth")
    gradient.add("correlate:3x1,-1,0,1", name="gx", source="smooth")
    gradient.add("correlate:1x3,-1,0,1", name="gy", source="smooth")
    gradient.add_elementwise(None, "hypot(gx, gy)")
    assert gradient.radius == (3, 3)
    smooth = ndimage.uniform_filter(image.astype(np.float64), 5, mode="nearest")
    gx = ndimage.correlate1d(smooth, [-1, 0, 1], axis=1, mode="nearest")
    gy = ndimage.correlate1d(smooth, [-1, 0, 1], axis=0, mode="nearest")
    np.testing.assert_allclose(gradient(image), np.hypot(gx, gy), atol=2e-6)


def test_graph_of_two_inputs(rng: np.random.Generator) -> None:
    a = rng.random((20, 31), dtype=np.float32)
    b = rng.random((20, 31), dtype=np.float32)
    brightest = clstencil.Pipeline(inputs=("a", "b")).add_elementwise("m", "max(a, b)").add("box:3")
    expected = clstencil.filter(np.maximum(a, b), "box:3")
    np.testing.assert_allclose(brightest(a, b), expected, atol=1e-6)
    with pytest.raises(ValueError, match="reads 2 image"):
        brightest(a)
    with pytest.raises(ValueError, match="share one shape and dtype"):
        brightest(a, b[:10])
    unused = clstencil.Pipeline(inputs=("a", "b")).add("box:3", source="a")
    with pytest.raises(clstencil.ClstencilError, match="input 'b' is read by no stage"):
        unused(a, b)
    with pytest.raises(clstencil.ClstencilError, match="reads 'c', which is no image"):
        clstencil.Pipeline().add_elementwise("d", "input - c")(a)
    again = pickle.loads(pickle.dumps(brightest))
    np.testing.assert_array_equal(again(a, b), brightest(a, b))
