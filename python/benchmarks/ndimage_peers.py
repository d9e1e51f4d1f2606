#!/usr/bin/env python3
"""ndimage_peers.py — clstencil.ndimage against CuPy's cupyx.scipy.ndimage from numpy arrays,
transfers included (numpy in, numpy out, as a scipy user calls them), beside a round trip of the
same bytes through the GPU (cupy.asarray(a).get()) and scipy.ndimage on the CPU. Each figure is
the median of --runs calls after --warmup calls; the first call of each (its builds) is printed
apart. The drop-in's target: gaussian_filter(a, 2) and median_filter(a, 3) of a 4096^2 float32
array at least 2x faster than CuPy's.

    CLSTENCIL_BUILD_GOAL=fastest-kernel python3 python/benchmarks/ndimage_peers.py --size 4096
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from clstencil import ndimage  # noqa: E402

CALLS = [("gaussian_filter", (2.0,), {}), ("median_filter", (), {"size": 3}),
         ("uniform_filter", (5,), {}), ("minimum_filter", (), {"size": 9}),
         ("sobel", (0,), {}), ("grey_opening", (), {"size": 5})]


def seconds(call, runs: int, warmup: int) -> tuple[float, float]:
    """(the first call's seconds, the median of the next `runs` after `warmup`)."""
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    for _ in range(warmup):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--scipy", action="store_true", help="time scipy.ndimage on the CPU too (one call)")
    args = parser.parse_args()
    image = np.random.default_rng(0).random((args.size, args.size), dtype=np.float32)
    peers = {}
    try:
        import cupy
        import cupyx.scipy.ndimage as cupy_ndimage
        peers["cupy"] = lambda name, a, k: getattr(cupy_ndimage, name)(cupy.asarray(image), *a, **k).get()
        _, round_trip = seconds(lambda: cupy.asarray(image).get(), args.runs, args.warmup)
        print(f"round trip of the image through the GPU (cupy.asarray(a).get()): {round_trip * 1e3:.2f} ms")
    except ImportError:
        print("CuPy is not installed: clstencil alone")
    print(f"{args.size}^2 float32, ms, median of {args.runs} (first call)")
    for name, positional, keywords in CALLS:
        first, ours = seconds(lambda: getattr(ndimage, name)(image, *positional, **keywords), args.runs, args.warmup)
        line = f"{name:16s} clstencil {ours * 1e3:8.2f} ({first * 1e3:.0f})"
        for peer, call in peers.items():
            peer_first, theirs = seconds(lambda: call(name, positional, keywords), args.runs, args.warmup)
            line += f"  {peer} {theirs * 1e3:8.2f} ({peer_first * 1e3:.0f})  {theirs / ours:5.2f}x"
        if args.scipy:
            import scipy.ndimage
            start = time.perf_counter()
            getattr(scipy.ndimage, name)(image, *positional, **keywords)
            line += f"  scipy {(time.perf_counter() - start) * 1e3:8.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
