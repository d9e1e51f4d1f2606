#!/usr/bin/env python3
"""compare_peers.py — clstencil against CuPy, OpenCV and scipy on the same machine, one float32
image, the same masks and border modes, as a Markdown table (the README's comparison).

Cases: Gaussian 3x3 and 5x5 (clstencil's gaussian:SIZE,SIGMA with OpenCV's default sigma, the
peers the same mask computed in numpy) and random 9x9, 13x13 and 25x25 masks (uniform in -1..1,
fixed seed; clstencil's correlate:NxN,c1,..., a correlation as the peers compute), each with the
clamp (replicate, scipy's nearest) and mirror101 (reflect-101, scipy's mirror) borders; and, asked
for by --cases, the rank filters median 3x3 and 5x5 and the minimum and maximum over a 31x31
square (scipy's median_filter, minimum_filter and maximum_filter, CuPy's the same, OpenCV's
medianBlur, which takes float32 at 3 and 5 with the replicated border only, erode and dilate).

  clstencil  `clstencil bench --op OP --borders clamp,mirror101 --size WxH --runs N --json FILE`:
             the median kernel time from OpenCL profiling events and a device-to-device copy of
             the same bytes in the same run (bench takes at least 20 runs).
  CuPy       cupyx.scipy.ndimage.correlate into a preallocated array, timed with CUDA events
             (median after warm-up), cupy.copyto of the same bytes timed the same way, and the
             first call's wall time (CuPy compiles the kernel then: the kernel cache is a new
             empty folder unless CUPY_CACHE_DIR is set).
  OpenCV     cv2.filter2D (CPU, every core OpenCV uses) with the same mask, time.perf_counter
             medians, and numpy.copyto of the same bytes as the CPU's reference.
  OpenCV-OCL the same calls on cv2.UMat images (OpenCV's OpenCL path, where cv2.ocl finds a
             device: OPENCV_OPENCL_DEVICE chooses it, e.g. ":GPU:0"), each call's wall time up
             to cv2.ocl.finish(), launch overhead included.
  scipy      scipy.ndimage.correlate (CPU, one core), fewer runs (--scipy-runs).

Before a peer is timed, its result on a 64x64 image is compared with scipy.ndimage.correlate in
float64 (clstencil's semantics: out[y, x] = sum mask[j, i] * in[y + j - r, x + i - r]); a peer
that differs is reported as a mismatch instead of timed. A peer that cannot be imported (or, for
clstencil, run) shows "–" and a note; the script never stops for one.

    python3 scripts/compare_peers.py --clstencil build/tools/clstencil --json peers.json
    python3 scripts/compare_peers.py --clstencil build/tools/clstencil --size 512x512 --runs 5
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

CHECK_SIZE = 64
CHECK_TOLERANCE = 1e-4  # of sum |mask|, the largest possible output on an image in 0..1
# clstencil's border name -> each peer's name for the same mode.
BORDERS = {
    "clamp": {"scipy": "nearest", "cupy": "nearest", "opencv": "BORDER_REPLICATE"},
    "mirror101": {"scipy": "mirror", "cupy": "mirror", "opencv": "BORDER_REFLECT_101"},
}
# Case name -> (kind, mask side). The rank cases run only when --cases names them.
CASES = {"gaussian3": ("gaussian", 3), "gaussian5": ("gaussian", 5), "random9": ("random", 9),
         "random13": ("random", 13), "random25": ("random", 25)}
RANK_CASES = {"median3": ("median", 3), "median5": ("median", 5), "min31": ("minimum", 31),
              "max31": ("maximum", 31)}
RANK_OPERATORS = {"median": "median", "minimum": "min", "maximum": "max"}  # clstencil's names
DASH = "–"
DEFAULTS = {"runs": 21, "warmup": 3, "scipy_runs": 3}
QUICK_DEFAULTS = {"runs": 5, "warmup": 1, "scipy_runs": 1}


@dataclass
class Case:
    """One mask: its label, clstencil's operator text and the mask the peers take; kind is
    "correlate" for the weighted sums, else "median", "minimum" or "maximum" over the mask's square."""

    name: str
    label: str
    operator: str
    mask: np.ndarray
    kind: str = "correlate"


@dataclass
class Peer:
    """What one peer reported: per (case, border) numbers, its description and notes."""

    name: str
    available: bool = False
    description: str = ""
    notes: list[str] = field(default_factory=list)
    results: dict[tuple[str, str], dict] = field(default_factory=dict)


# ---------------------------------------------------------------- cases

def gaussian_sigma(size: int) -> float:
    """OpenCV's (and clstencil's) default sigma for a Gaussian of SIZE taps."""
    return 0.3 * ((size - 1) / 2 - 1) + 0.8


def gaussian_mask(size: int, sigma: float) -> np.ndarray:
    """The normalized size x size Gaussian, as the outer product of the 1-D one."""
    x = np.arange(size) - size // 2
    line = np.exp(-(x * x) / (2 * sigma * sigma))
    line /= line.sum()
    return np.outer(line, line).astype(np.float32)


def make_case(name: str, rng: np.random.Generator) -> Case:
    kind, size = {**CASES, **RANK_CASES}[name]
    if kind in RANK_OPERATORS:
        operator = f"{RANK_OPERATORS[kind]}:{size}"
        return Case(name, f"{kind} {size}x{size}", operator, np.ones((size, size), np.float32), kind)
    if kind == "gaussian":
        sigma = gaussian_sigma(size)
        return Case(name, f"gaussian {size}x{size}", f"gaussian:{size},{sigma:.9g}",
                    gaussian_mask(size, sigma))
    mask = rng.uniform(-1.0, 1.0, (size, size)).astype(np.float32)
    coefficients = ",".join(f"{value:.9g}" for value in mask.ravel())
    return Case(name, f"random {size}x{size}", f"correlate:{size}x{size},{coefficients}", mask)


# ---------------------------------------------------------------- timing helpers

def guarded(peer: Peer, case: Case, border: str, action: Callable[[], object]) -> None:
    """Runs one case of a peer; an error becomes a note on the peer instead of the end."""
    try:
        action()
    except Exception as error:  # a peer's own failure (memory, a driver, a missing mode)
        peer.notes.append(f"{case.label} {border}: {type(error).__name__}: {error}")


def median_wall_ms(action: Callable[[], object], runs: int, warmup: int) -> float:
    """The median wall time of `action` in milliseconds, after `warmup` untimed calls."""
    for _ in range(warmup):
        action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def ndimage_call(ndimage, case: Case, image, mode: str, **output):
    """The case's scipy.ndimage (or cupyx.scipy.ndimage) function applied to image."""
    if case.kind == "median":
        return ndimage.median_filter(image, size=case.mask.shape, mode=mode, **output)
    if case.kind == "minimum":
        return ndimage.minimum_filter(image, size=case.mask.shape, mode=mode, **output)
    if case.kind == "maximum":
        return ndimage.maximum_filter(image, size=case.mask.shape, mode=mode, **output)
    return ndimage.correlate(image, case.mask, mode=mode, **output)


def reference(image: np.ndarray, case: Case, border: str) -> np.ndarray | None:
    """scipy.ndimage's result in float64 (None without scipy)."""
    try:
        import scipy.ndimage
    except ImportError:
        return None
    return ndimage_call(scipy.ndimage, case, image.astype(np.float64), BORDERS[border]["scipy"])


def matches(result: np.ndarray, expected: np.ndarray | None, case: Case) -> bool:
    """Whether a peer's result equals the reference within float32 rounding (a rank filter's
    exactly: it returns one of its inputs)."""
    if expected is None:
        return True
    if case.kind != "correlate":
        return bool(np.array_equal(result.astype(np.float64), expected))
    limit = CHECK_TOLERANCE * float(np.abs(case.mask).sum())
    return bool(np.max(np.abs(result.astype(np.float64) - expected)) <= limit)


# ---------------------------------------------------------------- clstencil

def run_clstencil(peer: Peer, binary: str, case: Case, args: argparse.Namespace) -> None:
    """One `clstencil bench` run for a case, every border; rows into peer.results."""
    with tempfile.TemporaryDirectory(prefix="compare-peers-") as folder:
        report = Path(folder) / "bench.json"
        command = [binary, "bench", "--op", case.operator, "--borders", ",".join(BORDERS),
                   "--size", args.size, "--runs", str(max(args.runs, 20)),
                   "--warmup", str(args.warmup), "--json", str(report)]
        command += ["--device", args.device] if args.device else []
        command += shlex.split(args.bench_args)
        try:
            completed = subprocess.run(command, capture_output=True, text=True,
                                       timeout=args.clstencil_timeout)
        except (OSError, subprocess.TimeoutExpired) as error:
            peer.notes.append(f"{case.label}: {error}")
            return
        if completed.returncode != 0 or not report.is_file():
            last = (completed.stderr.strip() or completed.stdout.strip()).splitlines()[-1:]
            peer.notes.append(f"{case.label}: bench exited {completed.returncode}: {' '.join(last)}")
            return
        data = json.loads(report.read_text())
    peer.description = (f"{data['device']['name']} ({data['device']['platform']}), "
                        f"clstencil {data['library_version']}")
    for row in data["rows"]:
        if row["outcome"] != "ok":
            peer.notes.append(f"{case.label} {row['border']}: {row['outcome']} {row['note']}")
            continue
        configuration = (f"{row.get('chosen_partition')} {row.get('chosen_group')}, "
                         f"{row.get('chosen_rows')} rows x {row.get('chosen_cols')} columns")
        peer.results[(case.name, row["border"])] = {"kernel_us": row["kernel_us"],
                                                    "copy_us": row["copy_us"],
                                                    "configuration": configuration,
                                                    "runs": data["runs"]}


def clstencil_peer(cases: list[Case], args: argparse.Namespace) -> Peer:
    peer = Peer("clstencil")
    binary = args.clstencil or shutil.which("clstencil")
    if not binary or not (Path(binary).is_file() or shutil.which(binary)):
        peer.notes.append("no clstencil command (give --clstencil PATH)")
        return peer
    peer.available = True
    for case in cases:
        progress(f"clstencil {case.label}")
        run_clstencil(peer, binary, case, args)
    return peer


# ---------------------------------------------------------------- CuPy

def import_cupy(peer: Peer):
    """cupy and cupyx.scipy.ndimage with a GPU, or None with a note."""
    if "CUPY_CACHE_DIR" not in os.environ:  # first calls then include the compilation
        os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="compare-peers-cupy-")
        atexit.register(shutil.rmtree, os.environ["CUPY_CACHE_DIR"], ignore_errors=True)
    try:
        import cupy
        import cupyx.scipy.ndimage  # noqa: F401
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        cupy.asarray(np.ones(4)).sum()  # creates the CUDA context before any first call is timed
    except Exception as error:  # ImportError, or no CUDA device or driver
        peer.notes.append(f"CuPy unavailable: {type(error).__name__}: {error}")
        return None
    name = name.decode() if isinstance(name, bytes) else name
    peer.description = f"{name}, CuPy {cupy.__version__}"
    return cupy


def cupy_event_us(cupy, action: Callable[[], object], runs: int, warmup: int) -> float:
    """The median time of `action` on the GPU in microseconds, from CUDA events."""
    for _ in range(warmup):
        action()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(runs):
        start.record()
        action()
        end.record()
        end.synchronize()
        times.append(1e3 * cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def time_cupy_case(cupy, peer: Peer, case: Case, border: str, image: np.ndarray,
                   small: np.ndarray, args: argparse.Namespace) -> None:
    import cupyx.scipy.ndimage
    mode = BORDERS[border]["cupy"]
    source = cupy.asarray(image)
    target, copy = cupy.empty_like(source), cupy.empty_like(source)
    on_gpu = Case(case.name, case.label, case.operator, cupy.asarray(case.mask), case.kind)
    correlate = lambda: ndimage_call(cupyx.scipy.ndimage, on_gpu, source, mode, output=target)
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    correlate()  # the first call of this mask size and mode: CuPy compiles its kernel
    cupy.cuda.Device().synchronize()
    first_ms = 1e3 * (time.perf_counter() - start)
    checked = cupy.asnumpy(ndimage_call(cupyx.scipy.ndimage, on_gpu, cupy.asarray(small), mode))
    if not matches(checked, reference(small, case, border), case):
        peer.notes.append(f"{case.label} {border}: differs from scipy.ndimage; not timed")
        return
    peer.results[(case.name, border)] = {
        "kernel_us": cupy_event_us(cupy, correlate, args.runs, args.warmup),
        "copy_us": cupy_event_us(cupy, lambda: cupy.copyto(copy, source), args.runs, args.warmup),
        "first_call_ms": first_ms, "runs": args.runs}


def cupy_peer(cases: list[Case], image: np.ndarray, small: np.ndarray,
              args: argparse.Namespace) -> Peer:
    peer = Peer("CuPy")
    cupy = import_cupy(peer)
    if cupy is None:
        return peer
    peer.available = True
    for case in cases:
        for border in BORDERS:
            progress(f"CuPy {case.label} {border}")
            guarded(peer, case, border, lambda: time_cupy_case(cupy, peer, case, border, image,
                                                               small, args))
    return peer


# ---------------------------------------------------------------- OpenCV and scipy (CPU)

def import_cv2(peer: Peer):
    """OpenCV's module, or None with a note on the peer."""
    try:
        import cv2
    except ImportError as error:
        peer.notes.append(f"OpenCV (cv2) unavailable: {error}")
        return None
    return cv2


def opencv_peer(cases: list[Case], image: np.ndarray, small: np.ndarray,
                args: argparse.Namespace) -> Peer:
    peer = Peer("OpenCV")
    cv2 = import_cv2(peer)
    if cv2 is None:
        return peer
    peer.available = True
    peer.description = (f"cv2.filter2D (medianBlur, erode, dilate), OpenCV {cv2.__version__}, "
                        f"{cv2.getNumThreads()} threads")
    target, copy = np.empty_like(image), np.empty_like(image)
    copy_ms = median_wall_ms(lambda: np.copyto(copy, image), args.runs, args.warmup)
    for case in cases:
        for border in BORDERS:
            progress(f"OpenCV {case.label} {border}")
            guarded(peer, case, border, lambda: time_opencv_case(cv2, peer, case, border, image,
                                                                 small, target, args))
            if (case.name, border) in peer.results:
                peer.results[(case.name, border)]["copy_ms"] = copy_ms
    return peer


def time_opencv_case(cv2, peer: Peer, case: Case, border: str, image, small: np.ndarray, target,
                     args: argparse.Namespace, finish: Callable[[], object] = lambda: None) -> None:
    """Times OpenCV's call on image into target (numpy arrays, or UMats with finish waiting for
    the OpenCL queue), after checking its result on the small image against scipy."""
    mode = getattr(cv2, BORDERS[border]["opencv"])
    if case.kind == "median" and border != "clamp":
        peer.notes.append(f"{case.label} {border}: medianBlur replicates the border only")
        return
    if case.kind == "median":
        apply = lambda a, **out: cv2.medianBlur(a, case.mask.shape[0], **out)
    elif case.kind == "minimum":
        apply = lambda a, **out: cv2.erode(a, case.mask.astype(np.uint8), borderType=mode, **out)
    elif case.kind == "maximum":
        apply = lambda a, **out: cv2.dilate(a, case.mask.astype(np.uint8), borderType=mode, **out)
    else:
        apply = lambda a, **out: cv2.filter2D(a, -1, case.mask, borderType=mode, **out)
    checked = apply(small if isinstance(image, np.ndarray) else cv2.UMat(small))
    if not matches(checked if isinstance(checked, np.ndarray) else checked.get(), reference(small, case, border), case):
        peer.notes.append(f"{case.label} {border}: differs from scipy.ndimage; not timed")
        return
    run = lambda: (apply(image, dst=target), finish())
    peer.results[(case.name, border)] = {"ms": median_wall_ms(run, args.runs, args.warmup),
                                         "runs": args.runs}


def opencv_ocl_peer(cases: list[Case], image: np.ndarray, small: np.ndarray,
                    args: argparse.Namespace) -> Peer:
    peer = Peer("OpenCV-OCL")
    cv2 = import_cv2(peer)
    if cv2 is None:
        return peer
    cv2.ocl.setUseOpenCL(True)
    if not cv2.ocl.haveOpenCL() or not cv2.ocl.useOpenCL():
        peer.notes.append("OpenCV finds no OpenCL device")
        return peer
    peer.available = True
    peer.description = (f"cv2.filter2D (medianBlur, erode, dilate) on cv2.UMat, OpenCV {cv2.__version__}, "
                        f"OpenCL device {cv2.ocl.Device.getDefault().name()}")
    source, target = cv2.UMat(image), cv2.UMat(image.shape[0], image.shape[1], cv2.CV_32F)
    for case in cases:
        for border in BORDERS:
            progress(f"OpenCV-OCL {case.label} {border}")
            guarded(peer, case, border, lambda: time_opencv_case(cv2, peer, case, border, source, small,
                                                                 target, args, cv2.ocl.finish))
    return peer


def scipy_peer(cases: list[Case], image: np.ndarray, args: argparse.Namespace) -> Peer:
    peer = Peer("scipy")
    if args.scipy_runs == 0:
        peer.notes.append("scipy left out (--scipy-runs 0)")
        return peer
    try:
        import scipy
        import scipy.ndimage
    except ImportError as error:
        peer.notes.append(f"scipy unavailable: {error}")
        return peer
    peer.available = True
    peer.description = f"scipy.ndimage (correlate, median_filter, minimum_filter, maximum_filter), scipy {scipy.__version__} (one core)"
    target = np.empty_like(image)
    for case in cases:
        for border in BORDERS:
            progress(f"scipy {case.label} {border}")
            mode = BORDERS[border]["scipy"]
            run = lambda: ndimage_call(scipy.ndimage, case, image, mode, output=target)
            timing = lambda: {"ms": median_wall_ms(run, args.scipy_runs, 0), "runs": args.scipy_runs}
            guarded(peer, case, border, lambda: peer.results.update({(case.name, border): timing()}))
    return peer


# ---------------------------------------------------------------- report

def number(value: float | None, digits: int, style: str = "f") -> str:
    return DASH if value is None else f"{value:.{digits}{style}}"


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    return None if numerator is None or not denominator else numerator / denominator


def table_rows(cases: list[Case], peers: dict[str, Peer]) -> list[dict]:
    """One record per case and border with every peer's numbers (None where missing)."""
    rows = []
    for case in cases:
        for border in BORDERS:
            got = {name: peer.results.get((case.name, border), {}) for name, peer in peers.items()}
            row = {"mask": case.label, "border": border, "operator": case.operator.split(",")[0],
                   "clstencil_kernel_us": got["clstencil"].get("kernel_us"),
                   "clstencil_copy_us": got["clstencil"].get("copy_us"),
                   "clstencil_configuration": got["clstencil"].get("configuration"),
                   "cupy_us": got["CuPy"].get("kernel_us"),
                   "cupy_copy_us": got["CuPy"].get("copy_us"),
                   "cupy_first_call_ms": got["CuPy"].get("first_call_ms"),
                   "opencv_ms": got["OpenCV"].get("ms"),
                   "opencv_ocl_ms": got["OpenCV-OCL"].get("ms"),
                   "numpy_copy_ms": got["OpenCV"].get("copy_ms"),
                   "scipy_ms": got["scipy"].get("ms")}
            row["clstencil_over_cupy"] = ratio(row["clstencil_kernel_us"], row["cupy_us"])
            opencv_us = None if row["opencv_ms"] is None else 1e3 * row["opencv_ms"]
            row["clstencil_over_opencv"] = ratio(row["clstencil_kernel_us"], opencv_us)
            ocl_us = None if row["opencv_ocl_ms"] is None else 1e3 * row["opencv_ocl_ms"]
            row["clstencil_over_opencv_ocl"] = ratio(row["clstencil_kernel_us"], ocl_us)
            rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    header = ("| mask | border | clstencil kernel µs | clstencil copy µs | CuPy µs | CuPy copy µs "
              "| CuPy first call ms | OpenCV ms | OpenCV OpenCL ms | scipy ms | clstencil/CuPy "
              "| clstencil/OpenCV | clstencil/OpenCV OpenCL |")
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for row in rows:
        cells = [row["mask"], row["border"], number(row["clstencil_kernel_us"], 1),
                 number(row["clstencil_copy_us"], 1), number(row["cupy_us"], 1),
                 number(row["cupy_copy_us"], 1), number(row["cupy_first_call_ms"], 1),
                 number(row["opencv_ms"], 2), number(row["opencv_ocl_ms"], 3), number(row["scipy_ms"], 1),
                 number(row["clstencil_over_cupy"], 3, "g"),
                 number(row["clstencil_over_opencv"], 3, "g"),
                 number(row["clstencil_over_opencv_ocl"], 3, "g")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def summary(peers: dict[str, Peer], rows: list[dict], args: argparse.Namespace) -> str:
    copies = [row["numpy_copy_ms"] for row in rows if row["numpy_copy_ms"] is not None]
    lines = [f"{args.size} float32 image; medians of {args.runs} runs after {args.warmup} "
             f"warm-up runs (clstencil at least 20, scipy {args.scipy_runs}); Python "
             f"{platform.python_version()}, numpy {np.__version__}; CPU: {cpu_name()}, "
             f"{os.cpu_count()} logical cores.",
             "Ratios are kernel time over kernel time: below 1, clstencil is faster. The copy "
             "columns are a device-to-device copy of the image's bytes in the same run "
             f"(clstencil: OpenCL, CuPy: cupy.copyto); the CPU's, numpy.copyto: "
             f"{number(copies[0] if copies else None, 3)} ms."]
    for peer in peers.values():
        state = peer.description if peer.available else "not available"
        lines.append(f"- {peer.name}: {state}")
        lines += [f"  - {note}" for note in peer.notes]
    return "\n".join(lines)


def progress(text: str) -> None:
    print(f"compare_peers: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- main

def image_size(size: str) -> str:
    """ "WxH" from "WxH" or "N"."""
    width, _, height = size.lower().partition("x")
    return f"{int(width)}x{int(height or width)}"


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--clstencil", help="the clstencil command (default: clstencil on PATH)")
    parser.add_argument("--size", default="4096x4096", help="image size WxH or N (default 4096x4096)")
    parser.add_argument("--runs", type=int, help="timed runs per peer (default 21; --quick 5)")
    parser.add_argument("--warmup", type=int, help="untimed runs first (default 3; --quick 1)")
    parser.add_argument("--scipy-runs", type=int,
                        help="scipy's timed runs (default 3; --quick 1; 0 leaves scipy out)")
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a first look")
    parser.add_argument("--cases", default=",".join(CASES),
                        help=f"comma-separated subset of {','.join({**CASES, **RANK_CASES})} "
                             f"(default: the weighted sums)")
    parser.add_argument("--seed", type=int, default=20261125, help="random masks' seed")
    parser.add_argument("--device", help="clstencil's device selector (as CLSTENCIL_DEVICE)")
    parser.add_argument("--bench-args", default="", help="more options for clstencil bench")
    parser.add_argument("--clstencil-timeout", type=float, default=1800,
                        help="seconds one bench run may take, builds included (default 1800)")
    parser.add_argument("--json", help="also write every number to this file")
    args = parser.parse_args()
    try:
        args.size = image_size(args.size)
    except ValueError:
        parser.error(f"--size {args.size}: give WxH or N")
    defaults = QUICK_DEFAULTS if args.quick else DEFAULTS
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    unknown = set(args.cases.split(",")) - set(CASES) - set(RANK_CASES)
    if unknown:
        parser.error(f"unknown cases {', '.join(sorted(unknown))}; known: "
                     f"{', '.join({**CASES, **RANK_CASES})}")
    return args


def main() -> None:
    args = parse_arguments()
    rng = np.random.default_rng(args.seed)
    cases = [make_case(name, rng) for name in {**CASES, **RANK_CASES} if name in args.cases.split(",")]
    width, height = map(int, args.size.split("x"))
    image = rng.random((height, width), dtype=np.float32)
    small = rng.random((CHECK_SIZE, CHECK_SIZE), dtype=np.float32)
    peers = {"clstencil": clstencil_peer(cases, args),
             "CuPy": cupy_peer(cases, image, small, args),
             "OpenCV": opencv_peer(cases, image, small, args),
             "OpenCV-OCL": opencv_ocl_peer(cases, image, small, args),
             "scipy": scipy_peer(cases, image, args)}
    rows = table_rows(cases, peers)
    print(markdown(rows))
    print()
    print(summary(peers, rows, args))
    if args.json:
        report = {"size": args.size, "runs": args.runs, "warmup": args.warmup,
                  "scipy_runs": args.scipy_runs, "seed": args.seed, "python": platform.python_version(),
                  "numpy": np.__version__, "cpu": cpu_name(), "rows": rows,
                  "peers": {name: {"available": peer.available, "description": peer.description,
                                   "notes": peer.notes} for name, peer in peers.items()}}
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
