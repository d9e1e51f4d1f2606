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
    np.testing.assert_array_equal(copy(image), pipeline(image))
