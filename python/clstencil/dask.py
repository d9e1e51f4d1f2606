"""clstencil.dask: filtering dask arrays chunk by chunk, equal bit for bit to filtering the
whole array in one piece, on a local or distributed cluster.

Each chunk is filtered with a halo of the operator's radius taken from its neighbours (two
tasks a chunk, clstencil.halo_graph; dask.array.map_overlap where chunks are thinner than the
halo). Along the array's outer edges there is no halo: the chunk's edge is
the image's edge there, and clstencil's own border handling applies, exactly as in one piece,
for every border mode, mirror101 included. Only repeat needs data from the opposite edge, which
dask's periodic boundary provides. Every worker process filters with its own context on the
device that CLSTENCIL_DEVICE names (else the default one) and reuses the disk cache
(CLSTENCIL_CACHE_DIR), so one worker per GPU is a matter of the workers' environment. Each of a
worker's threads filters in a context of its own (contexts.lane), so that its chunks' copies and
launches do not wait for the other threads'.
"""
from __future__ import annotations

import functools
import threading
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize

from .contexts import lane
from .devices import names_several
from .filtering import UNDEFINED_BORDER
from .filtering import filter as filter_numpy
from .filters import border_mode, border_modes, build_goal, compute_method
from .halo_graph import apply_with_halo
from .operators import Operator, OperatorLike, as_operator
from .pinned import POOLED_MAX_BYTES, pinned_empty
from .pipeline import Pipeline
from .pixel_types import pixel_type

REPEAT_BORDER = 4

__all__ = ["filter", "run_pipeline", "overlap_boundary"]


def overlap_boundary(dask_array: da.Array, repeat: bool) -> dict[int, str]:
    """dask's boundary per axis: periodic for repeat along axes of several chunks (the halo at
    the outer edges comes from the opposite edge), else none (clstencil handles the edge)."""
    return {axis: "periodic" if repeat and len(chunks) > 1 else "none"
            for axis, chunks in enumerate(dask_array.chunks)}


def _check_dask_array(x: Any, volume: bool = False) -> da.Array:
    if not isinstance(x, da.Array):
        raise TypeError(f"x must be a dask array, not {type(x).__name__} "
                        f"(numpy arrays: clstencil.filter)")
    if volume and x.ndim != 3:
        raise ValueError(f"x must be 3-D (slices, rows, columns) for a volume's operator, not of "
                         f"shape {x.shape}")
    if not volume and x.ndim != 2:
        raise ValueError(f"x must be 2-D (rows, columns), not of shape {x.shape}")
    pixel_type(x.dtype, "x")
    return x


def _output_dtype(x: da.Array, dtype) -> np.dtype:
    chosen = x.dtype if dtype is None else np.dtype(dtype)
    pixel_type(chosen, "dtype")
    return chosen


def _filter_block(block: np.ndarray, op: Operator, border: str, value: float,
                  device: str | None, out_dtype: np.dtype, build: str | None,
                  method: str | None) -> np.ndarray:
    chosen = device if names_several(device) else lane(device)
    return filter_numpy(block, op, border, value, device=chosen, dtype=out_dtype, build=build,
                        method=method)


# Each worker thread's pinned memory for a padded chunk and for its filtered result: the driver
# copies pinned memory at full speed and ordinary memory through pinned buffers of its own, a copy
# more each way. One array each for every chunk, grown with a sixteenth to spare (a chunk's halo
# differs at the array's edges), for chunks up to the pool's largest (POOLED_MAX_BYTES: larger
# ones are ordinary memory, not locked in RAM).
_staging = threading.local()


def _staged(role: str, shape: tuple[int, ...], dtype: np.dtype, device: str | None) -> np.ndarray | None:
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if nbytes > POOLED_MAX_BYTES:
        return None
    held = getattr(_staging, role, None)
    if held is None or held.nbytes < nbytes:
        held = pinned_empty(max(1, nbytes + nbytes // 16), np.uint8, device)
        setattr(_staging, role, held)
    return held[:nbytes].view(dtype).reshape(shape)


def _filter_padded(padded: np.ndarray, inner: tuple[slice, ...], op: Operator, border: str,
                   value: float, device: str | None, out_dtype: np.dtype, build: str | None,
                   method: str | None) -> np.ndarray:
    """A chunk padded with its halo through the operator, into the thread's pinned result and
    copied out without the halo; into a new array where the undefined border leaves pixels
    unwritten (zero there) or several devices share the chunk."""
    staged = not names_several(device) and border_modes(border, padded.ndim)[0] != UNDEFINED_BORDER
    out = _staged("result", padded.shape, out_dtype, device) if staged else None
    if out is None:
        return _filter_block(padded, op, border, value, device, out_dtype, build, method)[inner]
    filter_numpy(padded, op, border, value, device=lane(device), out=out, build=build, method=method)
    return out[inner].copy()


def _staging_input(device: str | None):
    """The allocator of padded chunks: the thread's pinned memory, unless several devices share
    the chunk or it is larger than the pool's largest."""
    def allocate(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        staged = None if names_several(device) else _staged("input", shape, dtype, device)
        return np.empty(shape, dtype) if staged is None else staged
    return allocate


def _pipeline_block(block: np.ndarray, pipeline: Pipeline, out_dtype: np.dtype) -> np.ndarray:
    return _process_pipeline(pipeline).run(block, dtype=out_dtype)


def _pipeline_padded(padded: np.ndarray, inner: tuple[slice, ...], pipeline: Pipeline,
                     out_dtype: np.dtype) -> np.ndarray:
    return _pipeline_block(padded, pipeline, out_dtype)[inner]


_pipelines: dict[tuple, Pipeline] = {}
_pipelines_lock = threading.Lock()


def _process_pipeline(pipeline: Pipeline) -> Pipeline:
    """One Pipeline per process for each distinct pipeline (each chunk arrives unpickled)."""
    with _pipelines_lock:
        return _pipelines.setdefault(pipeline.key, pipeline)


def filter(x: da.Array, op: OperatorLike, border: str = "clamp", value: float = 0.0, *,
           device: str | None = None, dtype=None, build: str | None = None,
           method: str | None = None) -> da.Array:
    """clstencil.filter over a 2-D dask array (3-D with a volume's operator: a halo along every
    axis), lazily: the result equals
    clstencil.filter(x.compute(), op, border, value, ...) bit for bit, chunk edges included
    (a weighted sum by FFT, method="fft" or auto's choice for a large mask, within the FFT's
    tolerance: its rounding depends on the chunk's size).

    Arguments as for clstencil.filter; device=None lets every worker take CLSTENCIL_DEVICE.
    Chunks smaller than the operator's radius are merged by dask first.
    """
    operator = as_operator(op)
    x = _check_dask_array(x, volume=len(operator.window) == 3)
    mode = border_mode(border)
    build_goal(build)
    compute_method(method)
    out_dtype = _output_dtype(x, dtype)
    arguments = dict(op=operator, border=border, value=float(value), device=device,
                     out_dtype=out_dtype, build=build, method=method)
    return _with_halo(x, functools.partial(_filter_padded, **arguments),
                      functools.partial(_filter_block, **arguments), tuple(operator.radius),
                      mode == REPEAT_BORDER, out_dtype, _staging_input(device))


def _with_halo(x: da.Array, padded_function, block_function, depth: tuple[int, ...], repeat: bool,
               out_dtype: np.dtype, allocate=np.empty) -> da.Array:
    """The operator over x's chunks with a halo of depth: two tasks a chunk where its neighbours
    hold the halo (halo_graph: padded_function(padded chunk, the chunk's place in it)), else
    dask's map_overlap (block_function(padded chunk), trimmed by dask), which merges chunks
    thinner than the halo first."""
    lean = apply_with_halo(x, padded_function, depth, periodic=repeat, dtype=out_dtype,
                           token=tokenize(block_function), allocate=allocate)
    if lean is not None:
        return lean
    return da.map_overlap(block_function, x, depth=dict(enumerate(depth)),
                          boundary=overlap_boundary(x, repeat), trim=True,
                          dtype=out_dtype, meta=np.empty((0,) * x.ndim, dtype=out_dtype))


def run_pipeline(x: da.Array, pipeline: Pipeline, *, dtype=None) -> da.Array:
    """Pipeline.run over a 2-D dask array (3-D for a pipeline of volumes' operators), lazily and
    bit for bit equal (within the FFT's tolerance for stages by FFT, whose rounding depends on the
    chunk's size) to running it on the whole array: the halo is the sum of the stages' radii
    along each axis. The stages must all use repeat or
    all other border modes (a mix needs one clstencil.dask.filter per stage)."""
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a clstencil.Pipeline, not {type(pipeline).__name__}")
    x = _check_dask_array(x, volume=bool(pipeline.volume))
    if not pipeline.stages:
        raise ValueError("the pipeline has no stage")
    repeats = {border == REPEAT_BORDER for border in pipeline.borders}
    if len(repeats) > 1:
        raise ValueError("the pipeline mixes the repeat border with others, which one halo "
                         "cannot serve; chain clstencil.dask.filter calls, one per stage")
    out_dtype = _output_dtype(x, dtype)
    return _with_halo(x, functools.partial(_pipeline_padded, pipeline=pipeline, out_dtype=out_dtype),
                      functools.partial(_pipeline_block, pipeline=pipeline, out_dtype=out_dtype),
                      tuple(pipeline.radius), repeats == {True}, out_dtype)
