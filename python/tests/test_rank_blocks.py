"""The 5x5 and 7x7 ranks' networks in blocks of rows against the Batcher network of a footprint
file: the same bits, NaN, infinities and signed zeros included."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil
from blocks import filter_in_blocks
from conftest import BORDER_VALUE, SCIPY_MODES, exhaustive


# A block of 8 rows' kernel takes about 60 s to build on PoCL, one of 3 rows (the same walk, its
# rings wrapping) less: the default suite takes one border, the median of f32 pixels and blocks of
# 1 and 3 rows, and 3 rows in two lanes (8 rows, the percentile and u16 when exhaustive); the 7x7
# (no lanes) alike.
@pytest.mark.parametrize("side", [5, 7])
@pytest.mark.parametrize("border", list(SCIPY_MODES) if exhaustive() else ["mirror"])
def test_rectangle_ranks_keep_the_network_bits(side: int, border: str, tmp_path) -> None:
    """The 5x5 and 7x7 rectangles' ranks run by sorted rows, shared by a block of rows; windows
    with NaN or both zeros run the Batcher network that a footprint file of the same pixels runs
    (fmin and fmax drop a NaN and copy the other value, and may order +0 and -0 either way: the
    result depends on the network). Both give the same bits, in blocks of 1 and 3 rows (and 8 when
    exhaustive) and, for the 5x5, in two lanes (two columns of rows sharing the middle of their
    rows, as auto runs them on GPUs), NaN, infinities and zeros of both signs included (and an
    image of zeros with a few -0, and one of ties without either, which no window sends to the
    network); when exhaustive, in every border, and u16 and a percentile too."""
    ones = tmp_path / "ones.txt"
    ones.write_text(("1" * side + "\n") * side)
    rng = np.random.default_rng(8)
    image = rng.integers(-4, 5, (29, 37)).astype(np.float32) / 4  # ties
    image[rng.random(image.shape) < 0.05] = -0.0  # equal to +0
    image[rng.random(image.shape) < 0.03] = np.nan
    image[5:8, 20:26] = np.nan
    image[14, 3] = np.inf
    image[15, 4] = -np.inf
    image[20, 30] = np.inf
    # (rows, columns): 3 rows, an odd block, the rings wrap; 2 columns: the walk in two lanes
    blocks = [(1, 1), (3, 1), (3, 2)] + ([(8, 1), (8, 2)] if exhaustive() else [])
    blocks = [(rows, cols) for rows, cols in blocks if cols == 1 or side == 5]
    # zeros with a few -0 and no NaN: only the check for a -0 sends their windows to the network
    signed_zeros = np.zeros((23, 29), np.float32)
    signed_zeros[rng.random(signed_zeros.shape) < 0.04] = -0.0
    ties = rng.integers(1, 9, (31, 27)).astype(np.float32) / 4
    cases = [("median", image, blocks), ("median", signed_zeros, blocks), ("median", ties, blocks)]
    if exhaustive() and border == "mirror":
        cases.append(("percentile:20", image, [(8, 1), (8, 2)]))
    if exhaustive() and border == "clamp":
        cases.append(("median", rng.integers(0, 65536, (23, 31), dtype=np.uint16), [(8, 1), (8, 2)]))
    for kind, pixels, kind_blocks in cases:
        separator = "," if ":" in kind else ":"
        expected = clstencil.filter(pixels, f"{kind}{separator}mask:{ones}", border, BORDER_VALUE)
        for rows, cols in kind_blocks:
            got = filter_in_blocks(pixels, f"{kind}{separator}{side}x{side}", border, rows, cols)
            bits = np.dtype(f"u{pixels.itemsize}")  # bits, not values: -0 and +0 compare equal
            np.testing.assert_array_equal(got.view(bits), expected.view(bits),
                                          err_msg=f"{kind} {side}x{side}, {pixels.dtype}, {border}, "
                                                  f"{rows} rows x {cols} columns")
