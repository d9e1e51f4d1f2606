"""Array layouts: slices pass with their row pitch, other layouts are copied first; `out` may be
a view or the input itself; empty images; bad shapes and types give clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil

OPERATOR = "convolve:3x3,1,2,3,4,5,6,7,8,9"


@pytest.fixture
def image(rng: np.random.Generator) -> np.ndarray:
    return rng.random((40, 50), dtype=np.float32)


@pytest.mark.parametrize("view", [
    lambda a: a[3:29, 5:44],     # rows of a wider array: a row pitch
    lambda a: a[::2, :],         # every other row: a pitch of two rows
    lambda a: a[:, ::3],         # every third column: copied
    lambda a: a.T,               # transposed: copied
    lambda a: a[::-1, ::-1],     # negative strides: copied
    lambda a: a[7:8, :],         # one row of a larger array
    lambda a: a[:, 9:10],        # one column
], ids=["window", "rows", "columns", "transposed", "reversed", "one-row", "one-column"])
def test_views_equal_their_contiguous_copy(image: np.ndarray, view) -> None:
    viewed = view(image)
    expected = clstencil.filter(np.ascontiguousarray(viewed), OPERATOR, "mirror")
    np.testing.assert_array_equal(clstencil.filter(viewed, OPERATOR, "mirror"), expected)


def test_out_views_and_in_place(image: np.ndarray) -> None:
    expected = clstencil.filter(image, OPERATOR, "repeat")
    wide = np.full((40, 60), -1.0, np.float32)
    clstencil.filter(image, OPERATOR, "repeat", out=wide[:, 5:55])
    np.testing.assert_array_equal(wide[:, 5:55], expected)
    assert (wide[:, :5] == -1).all() and (wide[:, 55:] == -1).all()
    transposed = np.empty((50, 40), np.float32).T
    clstencil.filter(image, OPERATOR, "repeat", out=transposed)
    np.testing.assert_array_equal(transposed, expected)
    in_place = image.copy()
    assert clstencil.filter(in_place, OPERATOR, "repeat", out=in_place) is in_place
    np.testing.assert_array_equal(in_place, expected)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)])
def test_empty_images_give_empty_results(shape: tuple[int, int]) -> None:
    result = clstencil.filter(np.zeros(shape, np.uint8), "box:3", dtype=np.float32)
    assert result.shape == shape and result.dtype == np.float32


def test_bad_arrays_raise_clear_errors() -> None:
    with pytest.raises(TypeError, match="numpy array, not list"):
        clstencil.filter([[1.0]], "box:3")
    with pytest.raises(ValueError, match=r"2-D .* shape \(2, 3, 4\)"):
        clstencil.filter(np.zeros((2, 3, 4), np.float32), "box:3")
    with pytest.raises(ValueError, match=r"out has shape \(3, 3\), the input \(4, 4\)"):
        clstencil.filter(np.zeros((4, 4), np.float32), "box:3", out=np.zeros((3, 3), np.float32))
    read_only = np.zeros((4, 4), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        clstencil.filter(read_only, "box:3", out=read_only)
