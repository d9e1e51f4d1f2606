#!/usr/bin/env python3
"""overhead.py — clstencil.filter of a square float32 numpy array against the bare transfer of the
same bytes to the same device and back (OpenCL writes and reads into buffers made beforehand, on
clstencil's own context and queue), medians after warm-up, with scipy.ndimage.correlate (CPU)
beside them; the same filter between arrays in pinned memory (clstencil.pinned_empty); and, where
CuPy is installed, cupyx.scipy.ndimage.correlate from and to numpy arrays. The target: filter
within 1.5x of the bare transfer.

    /usr/bin/python3 python/benchmarks/overhead.py --size 4096 --op gaussian:5 --runs 20
"""
from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clstencil  # noqa: E402
from clstencil._library import library  # noqa: E402
from clstencil.contexts import context  # noqa: E402

# The OpenCL calls the bare transfer makes: name -> (result type, argument types).
OPENCL = {
    "clCreateBuffer": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t,
                                         ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32)]),
    "clEnqueueWriteBuffer": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32,
                                              ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p,
                                              ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]),
    "clEnqueueReadBuffer": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32,
                                             ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p,
                                             ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]),
    "clReleaseMemObject": (ctypes.c_int32, [ctypes.c_void_p]),
}
CL_MEM_READ_WRITE = 1


def median_seconds(action: Callable[[], object], runs: int, warmup: int) -> float:
    for _ in range(warmup):
        action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bare_transfer(device: str | None, source: np.ndarray, target: np.ndarray) -> Callable[[], None]:
    """A blocking write of `source` to a device buffer and a blocking read back into `target`."""
    opencl = ctypes.CDLL("libOpenCL.so.1")
    for name, (result, arguments) in OPENCL.items():
        getattr(opencl, name).restype = result
        getattr(opencl, name).argtypes = arguments
    handle = context(device)
    cl_context, queue = library().cls_context_cl(handle), library().cls_context_queue(handle)
    error = ctypes.c_int32()
    buffers = [opencl.clCreateBuffer(cl_context, CL_MEM_READ_WRITE, source.nbytes, None, ctypes.byref(error))
               for _ in range(2)]
    if error.value != 0:
        raise SystemExit(f"clCreateBuffer failed: {error.value}")
    source_pointer, target_pointer = source.ctypes.data, target.ctypes.data

    def transfer() -> None:
        status = opencl.clEnqueueWriteBuffer(queue, buffers[0], 1, 0, source.nbytes, source_pointer,
                                             0, None, None)
        status |= opencl.clEnqueueReadBuffer(queue, buffers[1], 1, 0, target.nbytes, target_pointer,
                                             0, None, None)
        if status != 0:
            raise SystemExit(f"a transfer failed: {status}")
    return transfer


def cupy_numbers(image: np.ndarray, mask: np.ndarray, args: argparse.Namespace) -> dict:
    """cupyx.scipy.ndimage.correlate from a numpy array to a numpy array (copies included, as
    clstencil.filter's), and its kernel alone on the device; {} where CuPy is not installed."""
    try:
        import cupy
        import cupyx.scipy.ndimage
    except ImportError:
        return {}
    modes = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror", "repeat": "wrap", "constant": "constant"}
    mode = modes.get(args.border, "nearest")
    weights = cupy.asarray(mask)
    on_device = cupy.asarray(image)
    target = cupy.empty_like(on_device)

    def round_trip() -> None:
        cupy.asnumpy(cupyx.scipy.ndimage.correlate(cupy.asarray(image), weights, mode=mode))

    def kernel() -> None:
        cupyx.scipy.ndimage.correlate(on_device, weights, output=target, mode=mode)
        cupy.cuda.Device().synchronize()
    return {"cupy_ms": 1e3 * median_seconds(round_trip, args.runs, args.warmup),
            "cupy_kernel_ms": 1e3 * median_seconds(kernel, args.runs, args.warmup)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="image side in pixels (default 4096)")
    parser.add_argument("--op", default="gaussian:5", help="operator (default gaussian:5)")
    parser.add_argument("--border", default="clamp")
    parser.add_argument("--device", default=None, help="selector; default CLSTENCIL_DEVICE or the default device")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--scipy-runs", type=int, default=3, help="0 leaves scipy out")
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()

    image = np.random.default_rng(0).random((args.size, args.size), dtype=np.float32)
    out = np.empty_like(image)
    chosen = clstencil.devices()
    name = next((d.name for d in chosen if d.selector == args.device or (args.device is None and d.default)),
                args.device)
    # The fastest kernel, built (or loaded from the disk cache) before anything is timed.
    filter_once = lambda: clstencil.filter(image, args.op, args.border, device=args.device, out=out,
                                           build="fastest-kernel")
    filter_once()
    transfer = bare_transfer(args.device, image, out)
    results = {
        "device": name, "size": args.size, "op": args.op, "border": args.border, "runs": args.runs,
        "bare_transfer_ms": 1e3 * median_seconds(transfer, args.runs, args.warmup),
        "filter_ms": 1e3 * median_seconds(filter_once, args.runs, args.warmup),
        "filter_new_array_ms": 1e3 * median_seconds(
            lambda: clstencil.filter(image, args.op, args.border, device=args.device, build="fastest-kernel"),
            args.runs, args.warmup),
    }
    pinned, pinned_out = (clstencil.pinned_empty(image.shape, image.dtype, args.device) for _ in range(2))
    pinned[...] = image
    results["filter_pinned_ms"] = 1e3 * median_seconds(
        lambda: clstencil.filter(pinned, args.op, args.border, device=args.device, out=pinned_out,
                                 build="fastest-kernel"), args.runs, args.warmup)
    results["ratio"] = results["filter_ms"] / results["bare_transfer_ms"]
    mask = clstencil.Operator(args.op).mask
    if args.scipy_runs and mask is not None:
        import scipy.ndimage
        modes = {"clamp": "nearest", "mirror": "reflect", "mirror101": "mirror", "repeat": "wrap",
                 "constant": "constant"}
        results["scipy_correlate_ms"] = 1e3 * median_seconds(
            lambda: scipy.ndimage.correlate(image, mask, output=out, mode=modes.get(args.border, "nearest")),
            args.scipy_runs, 1)
    if mask is not None:
        results.update(cupy_numbers(image, mask, args))
    megabytes = image.nbytes / 2**20
    print(f"{name}: {args.op} {args.border}, {args.size}x{args.size} f32 ({megabytes:.0f} MiB each way), "
          f"medians of {args.runs} after {args.warmup} warm-up runs")
    print(f"  bare transfer (write + read)  {results['bare_transfer_ms']:9.2f} ms")
    print(f"  clstencil.filter (out=)       {results['filter_ms']:9.2f} ms   {results['ratio']:.2f}x the transfer "
          f"(target <= 1.5x)")
    print(f"  clstencil.filter (new array)  {results['filter_new_array_ms']:9.2f} ms")
    print(f"  clstencil.filter (pinned)     {results['filter_pinned_ms']:9.2f} ms   (pinned_empty in and out)")
    if "cupy_ms" in results:
        print(f"  cupyx.scipy.ndimage.correlate {results['cupy_ms']:9.2f} ms   the same from and to numpy arrays "
              f"(its kernel alone {results['cupy_kernel_ms']:.3f} ms)")
    if "scipy_correlate_ms" in results:
        print(f"  scipy.ndimage.correlate (CPU) {results['scipy_correlate_ms']:9.2f} ms "
              f"(median of {args.scipy_runs})")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
