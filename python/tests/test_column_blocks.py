"""The 3x3 median (sorted rows) and a column body (OUT_AT) in blocks of 1, 3 and 8 rows: the same
bits in every block, NaN, infinities and signed zeros included, and scipy's values."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndimage

import clstencil
from blocks import filter_in_blocks
from conftest import BORDER_VALUE, SCIPY_MODES


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_3x3_median_has_the_same_bits_in_every_block(border: str) -> None:
    """The 3x3 median is one network (sorted rows) whatever the block of rows: the same bits in
    blocks of 1, 3 and 8 rows, NaN, infinities and zeros of both signs included (fmin and fmax
    drop a NaN and may order +0 and -0 either way, so the bits are the network's own); windows
    without a NaN equal scipy's median."""
    rng = np.random.default_rng(9)
    image = rng.integers(-4, 5, (29, 37)).astype(np.float32) / 4  # ties
    image[rng.random(image.shape) < 0.05] = -0.0
    image[rng.random(image.shape) < 0.03] = np.nan
    image[14, 3] = np.inf
    image[15, 4] = -np.inf
    one_row = filter_in_blocks(image, "median:3x3", border, 1)
    for rows in (3, 8):
        np.testing.assert_array_equal(filter_in_blocks(image, "median:3x3", border, rows).view(np.uint32),
                                      one_row.view(np.uint32), err_msg=f"{border}, {rows} rows")
    mode = SCIPY_MODES[border]
    without_nan = ~ndimage.maximum_filter(np.isnan(image), size=3, mode=mode)
    expected = ndimage.median_filter(image, size=3, mode=mode, cval=BORDER_VALUE)
    np.testing.assert_array_equal(one_row[without_nan], expected[without_nan], err_msg=border)


def test_column_body_from_the_docs() -> None:
    """docs/api.md's OUT_AT example, a vertical 3-tap mean that loads each input row once for a
    column of outputs, equals scipy in blocks of 1, 3 and 8 rows and three borders."""
    body = ("float above = IN(0, -1), here = IN(0, 0);\n"
            "for (int k = 0; k < ROWS; ++k) {\n"
            "    const float below = IN(0, k + 1);\n"
            "    OUT_AT(k) = (above + here + below) / 3.0f;\n"
            "    above = here;\n"
            "    here = below;\n"
            "}\n")
    operator = clstencil.Operator.user(body, 1, 3)
    image = np.random.default_rng(1).random((37, 29), dtype=np.float32)
    for border in ("clamp", "mirror", "constant"):
        expected = ndimage.correlate(image, np.full((3, 1), 1 / 3, np.float32), mode=SCIPY_MODES[border],
                                     cval=BORDER_VALUE)
        for rows in (1, 3, 8):
            np.testing.assert_allclose(filter_in_blocks(image, operator, border, rows), expected, rtol=1e-6,
                                       atol=1e-6, err_msg=f"{border}, {rows} rows")
