"""A rectangle's min and max in a row pass and a column pass against the same rectangle drawn in a
footprint file (one kernel): the same bits in every border mode, NaN pixels included."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil
from conftest import BORDER_VALUE, SCIPY_MODES


@pytest.mark.parametrize("border", list(SCIPY_MODES) + ["undefined"])
def test_rectangle_passes_equal_one_kernel(border: str, tmp_path) -> None:
    """min and max over a rectangle run as a row pass and then a column pass; the same rectangle
    drawn in a footprint file runs as one kernel: the same bits, borders, NaN pixels (both skip
    them) and windows of NaN only (infinity) included."""
    ones = tmp_path / "ones.txt"
    ones.write_text("1111111\n" * 5)
    image = np.random.default_rng(6).random((23, 30), dtype=np.float32)
    image[3, 4] = np.nan
    image[10:17, 10:19] = np.nan
    for kind in ("min", "max"):
        passes = clstencil.filter(image, f"{kind}:7x5", border, BORDER_VALUE)
        one_kernel = clstencil.filter(image, f"{kind}:mask:{ones}", border, BORDER_VALUE)
        np.testing.assert_array_equal(passes, one_kernel, err_msg=f"{kind}, {border}")
        assert passes[13, 14] == (np.inf if kind == "min" else -np.inf)
