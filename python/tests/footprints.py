"""The rank operators' footprints as docs/api.md defines them, written independently of the
generator, for the tests that compare with scipy.ndimage."""
from __future__ import annotations

import numpy as np


def footprint(width: int, height: int, shape: str) -> np.ndarray:
    """The WxH footprint of SHAPE: rect; the cross is the centre row and column; the disk
    dx^2/rx^2 + dy^2/ry^2 <= 1."""
    rx, ry = width // 2, height // 2
    dy, dx = np.mgrid[-ry:ry + 1, -rx:rx + 1]
    if shape == "cross":
        return (dx == 0) | (dy == 0)
    if shape == "disk":
        return dx * dx * ry * ry + dy * dy * rx * rx <= rx * rx * ry * ry
    return np.ones((height, width), bool)
