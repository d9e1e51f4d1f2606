"""scipy's own filter tests (Debian's scipy/ndimage/tests/test_filters.py, 1,548 of them) run
with clstencil.ndimage in scipy.ndimage's place (scipy_suite_plugin.py): every test passes, and
the calls clstencil does not compute itself are only those it documents as not served."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clstencil
from conftest import python_environment

scipy_tests = pytest.importorskip("scipy.ndimage.tests")
SUITE = Path(scipy_tests.__file__).parent / "test_filters.py"
# CTest runs the suite in shards (CLS_SCIPY_SUITE_SHARD "K/N": every Nth of scipy's tests from the
# Kth), each a test of its own.
SHARD = os.environ.get("CLS_SCIPY_SUITE_SHARD", "0/1")
SHARDS = int(SHARD.split("/")[1])
# What clstencil leaves to scipy in that suite, and nothing else: complex values.
DOCUMENTED = ("complex weights", "complex arrays")


def test_scipy_filter_suite_passes_with_the_drop_in(tmp_path):
    if not SUITE.exists():
        pytest.skip(f"scipy's tests are not installed ({SUITE})")
    counts_file = tmp_path / "counts.json"
    environment = python_environment(CLS_SCIPY_SUITE_COUNTS=str(counts_file), CLS_SCIPY_SUITE_SHARD=SHARD,
                                     CLSTENCIL_BUILD_GOAL="first-result",
                                     CLSTENCIL_LIBRARY=str(Path(clstencil.library_path()).resolve()),
                                     PYTHONPATH=os.pathsep.join([str(Path(__file__).parent),
                                                                 os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "scipy_suite_plugin",
                          "-W", "ignore::DeprecationWarning", str(SUITE)],
                         env=environment, capture_output=True, text=True, cwd=tmp_path)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]
    assert run.returncode == 0, f"scipy's suite with the drop-in: {summary}\n{run.stdout[-6000:]}"
    report = json.loads(counts_file.read_text())
    counts, reasons = report["counts"], report["fallback_reasons"]
    print(f"\nscipy's {SUITE.name}: {summary}; calls computed by clstencil: {counts.get('device', 0)}, "
          f"left to scipy: {counts.get('scipy', 0)} {reasons}")
    assert counts.get("device", 0) > 3000 / SHARDS
    undocumented = [why for why in reasons if not any(known in why for known in DOCUMENTED)]
    assert not undocumented, f"calls left to scipy for undocumented reasons: {undocumented}"
