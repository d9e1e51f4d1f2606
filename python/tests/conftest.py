"""pytest setup: the package of this checkout (also for dask's worker processes), a fixed seed,
the border value and image sizes the sweeps share, and whether the exhaustive sweeps run
(CLS_TEST_EXHAUSTIVE=1, the CTest label `exhaustive`)."""
from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import numpy as np
import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPOSITORY_ROOT = PACKAGE_ROOT.parent
sys.path.insert(0, str(PACKAGE_ROOT))
# Worker processes (dask's LocalCluster) import the same package.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(PACKAGE_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
# A sanitized build preloads AddressSanitizer's runtime into this interpreter (tests/CMakeLists.txt).
# Only Python processes that load the library need it; the processes PoCL starts (its linker, once
# a kernel) would run their allocations through ASan as well, several times slower. So it leaves
# this process's environment here, and python_environment() gives it to the Python processes the
# tests start.
SANITIZER_PRELOAD = os.environ.pop("LD_PRELOAD", None)


def python_environment(**variables: str) -> dict[str, str]:
    """The environment of a Python process a test starts that loads the library: this process's,
    with VARIABLES, and the sanitizer's runtime preloaded where this interpreter had it."""
    environment = dict(os.environ, **variables)
    if SANITIZER_PRELOAD:
        environment["LD_PRELOAD"] = SANITIZER_PRELOAD
    return environment

# The scipy.ndimage mode of each clstencil border mode that scipy shares.
SCIPY_MODES = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror",
               "repeat": "wrap", "constant": "constant"}


def exhaustive() -> bool:
    """Whether the full sweeps were asked for (as tests/support/test_level.h)."""
    value = os.environ.get("CLS_TEST_EXHAUSTIVE", "")
    return value not in ("", "0")


def rotated_borders(cases: list, per_case: int = 2) -> list[tuple]:
    """(case, border) pairs: every border for every case when exhaustive, else PER_CASE borders a
    case, rotating, so that every border meets several cases (each pair is a kernel build)."""
    borders = list(SCIPY_MODES)
    if exhaustive():
        return [(case, border) for case in cases for border in borders]
    return [(case, borders[(i * per_case + k) % len(borders)]) for i, case in enumerate(cases) for k in range(per_case)]


BORDER_VALUE = 0.75
# (rows, columns): single pixels, lines, images narrower than the windows, odd sizes, the largest.
REPRESENTATIVE_SHAPES = [(1, 1), (1, 6), (5, 1), (2, 3), (4, 9), (13, 31), (64, 97)]


def shapes(full_sweep: bool = True) -> list[tuple[int, int]]:
    """Every size when exhaustive (for the cases marked for the full sweep), else representatives."""
    if exhaustive() and full_sweep:
        return list(itertools.product(range(1, 65), range(1, 98)))
    return REPRESENTATIVE_SHAPES


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261125)
