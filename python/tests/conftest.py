"""pytest setup: the package of this checkout (also for dask's worker processes), a fixed seed,
and whether the exhaustive sweeps run (CLS_TEST_EXHAUSTIVE=1, the CTest label `exhaustive`)."""
from __future__ import annotations

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

# The scipy.ndimage mode of each clstencil border mode that scipy shares.
SCIPY_MODES = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror",
               "repeat": "wrap", "constant": "constant"}


def exhaustive() -> bool:
    """Whether the full sweeps were asked for (as tests/support/test_level.h)."""
    value = os.environ.get("CLS_TEST_EXHAUSTIVE", "")
    return value not in ("", "0")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261125)
