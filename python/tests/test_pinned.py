"""Arrays in pinned host memory (clstencil.pinned_empty): filtered like any array (the same bits
as ordinary arrays), alive while a view uses them, refused for types clstencil does not take."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import clstencil


def test_pinned_arrays_filter_like_ordinary_ones() -> None:
    rng = np.random.default_rng(21)
    ordinary = rng.random((45, 70), dtype=np.float32)
    pinned = clstencil.pinned_empty(ordinary.shape, np.float32)
    pinned[...] = ordinary
    out = clstencil.pinned_empty(ordinary.shape, np.uint16)
    result = clstencil.filter(pinned, "gaussian:5", "mirror101", out=out)
    assert result is out
    np.testing.assert_array_equal(out, clstencil.filter(ordinary, "gaussian:5", "mirror101", dtype=np.uint16))
    pipeline = clstencil.Pipeline(["box:3", "sobel:mag"], border="repeat")
    np.testing.assert_array_equal(pipeline.run(pinned), pipeline.run(ordinary))


def test_a_view_keeps_the_memory() -> None:
    pinned = clstencil.pinned_empty((64, 64), np.int16)
    pinned[...] = np.arange(64 * 64, dtype=np.int16).reshape(64, 64)
    rows = pinned[10:20]
    del pinned
    gc.collect()
    np.testing.assert_array_equal(rows[0], np.arange(640, 704, dtype=np.int16))
    assert clstencil.filter(rows, "box:1").dtype == np.int16


def test_refusals() -> None:
    with pytest.raises(TypeError, match="int32"):
        clstencil.pinned_empty((4, 4), np.int32)
    with pytest.raises(ValueError, match="negative"):
        clstencil.pinned_empty((4, -1))
    assert clstencil.pinned_empty((0, 5)).shape == (0, 5)


def test_results_come_from_a_bounded_pool(monkeypatch) -> None:
    """A result of a size is ordinary memory until one of that size was freed, then pinned memory,
    reused once freed; past LIVE_BYTES results are ordinary arrays; the values are the same."""
    from clstencil import pinned
    image = np.random.default_rng(3).random((256, 256), dtype=np.float32)
    expected = clstencil.filter(image, "box:3", out=np.empty_like(image))
    kept = clstencil.filter(image, "box:3")
    assert kept.base is None  # nothing of its size freed yet: ordinary memory
    del kept
    gc.collect()
    first = clstencil.filter(image, "box:3")
    assert first.base is not None  # pinned now
    address = first.ctypes.data
    np.testing.assert_array_equal(first, expected)
    del first
    gc.collect()
    again = clstencil.filter(image, "box:3")
    assert again.ctypes.data == address  # the freed memory, from the pool
    monkeypatch.setattr(pinned, "LIVE_BYTES", pinned._live_bytes)  # no more pinned results
    ordinary = clstencil.filter(image, "box:3")
    assert ordinary.base is None and ordinary.flags.owndata
    np.testing.assert_array_equal(ordinary, expected)
    np.testing.assert_array_equal(again, expected)
