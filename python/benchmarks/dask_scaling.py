#!/usr/bin/env python3
"""dask_scaling.py — clstencil.dask.filter of a large float32 array on one worker per GPU: the
wall time with 1 worker (the first device) and with N (one per device), each worker selecting
its device through CLSTENCIL_DEVICE and running --threads chunks at once. The array is generated on the workers and kept there; the
filtered chunks are persisted on the workers (nothing gathered). The target: 2 GPUs >= 1.8x one.

    /usr/bin/python3 python/benchmarks/dask_scaling.py --size 32768 --chunk 4096 --op gaussian:5
"""
from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

import dask.array as da
import numpy as np
from dask.distributed import Client, Nanny, Scheduler, SpecCluster, wait

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clstencil  # noqa: E402
import clstencil.dask  # noqa: E402


def timed_run(selectors: list[str], args: argparse.Namespace) -> float:
    """The median seconds of filtering the whole array on one worker per selector."""
    workers = {f"device-{n}": {"cls": Nanny, "options": {"nthreads": args.threads, "memory_limit": 0,
                                                         "env": {"CLSTENCIL_DEVICE": selector}}}
               for n, selector in enumerate(selectors)}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": None}}
    with SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(len(selectors))
        x = da.random.RandomState(0).random_sample((args.size, args.size), chunks=args.chunk)
        x = x.astype(np.float32).persist()
        wait(x)
        times = []
        for run in range(args.warmup + args.runs):
            start = time.perf_counter()
            y = clstencil.dask.filter(x, args.op, args.border, build="fastest-kernel").persist()
            wait(y)
            if run >= args.warmup:
                times.append(time.perf_counter() - start)
            del y
        return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=32768)
    parser.add_argument("--chunk", type=int, default=4096)
    parser.add_argument("--op", default="gaussian:5")
    parser.add_argument("--border", default="clamp")
    parser.add_argument("--devices", help="comma-separated selectors (default: every GPU)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads a worker (chunks assembled and copied at once; default 1)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args()
    selectors = args.devices.split(",") if args.devices else [
        d.selector for d in clstencil.devices() if d.type == "gpu"]
    if not selectors:
        raise SystemExit("no GPU found; name devices with --devices")
    one = timed_run(selectors[:1], args)
    print(f"{args.op} {args.border}, {args.size}x{args.size} f32 in {args.chunk}x{args.chunk} chunks, "
          f"{args.threads} thread{'s' if args.threads > 1 else ''} a worker")
    print(f"  1 worker  ({selectors[0]}): {one:8.2f} s")
    if len(selectors) > 1:
        many = timed_run(selectors, args)
        print(f"  {len(selectors)} workers ({','.join(selectors)}): {many:8.2f} s, "
              f"speed-up {one / many:.2f}x (target >= 1.8x for 2)")


if __name__ == "__main__":
    main()
