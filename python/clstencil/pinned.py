"""numpy arrays in pinned host memory (cls_host_alloc): the device copies them to and from its own
memory at full speed (an H200 moved 64 MiB at 54 GB/s each way, against 7-13 GB/s for ordinary
arrays), so `clstencil.filter(pinned, op, out=pinned_out)` spends little on transfers.

Results that filter() and clstencil.ndimage make for the caller come from a pool of such memory
(pooled_empty): pinning 64 MiB took 35 ms on an H200 machine, more than the filter, so memory an
array no longer uses goes back to the pool (up to POOL_BYTES) for the next result of its size;
at most LIVE_BYTES of results are pinned at once, and a size is pinned only once a result of
that size has been freed (a program that keeps its results, as dask's persisted chunks, would
pay the pinning without reusing it).
From numpy, 4096^2 float32 through gaussian:5 took 29.4 ms into a new array, 10.0 ms into pinned
memory (2.6 ms with a pinned input too)."""
from __future__ import annotations

import ctypes
import os
import threading
import weakref

import numpy as np

from ._library import library, text
from .contexts import context, normalize_selector, on_release
from .errors import CLS_ERR_OPENCL, ClstencilError
from .pixel_types import PIXEL_TYPES, pixel_type

# Set when the contexts are released at exit: their pinned memory went with them.
_released = threading.Event()
on_release(_released.set)


def _free(handle: int, address: int) -> None:
    if not _released.is_set():
        library().cls_host_free(handle, address)


# Pinned memory kept for the next result of the same size, per context and size, and its total.
POOL_BYTES = 512 << 20
# Results up to this size come from the pool; larger ones are ordinary memory (not locked in RAM).
POOLED_MAX_BYTES = 256 << 20
# Pinned results alive at once: past this, new results are ordinary memory, so that results a
# program keeps (a list of images, dask's persisted chunks) do not lock the machine's RAM; and
# where nothing is reused, pinning anew costs more than the faster copy saves.
LIVE_BYTES = 1 << 30
_pool: dict[tuple[int, int], list[int]] = {}
_freed_sizes: set[tuple[int, int]] = set()  # (context, bytes) of results freed so far
_pool_lock = threading.Lock()
_pooled_bytes = 0
_live_bytes = 0


def _note_freed(key: tuple[int, int]) -> None:
    with _pool_lock:
        _freed_sizes.add(key)


def _give_back(handle: int, address: int, nbytes: int) -> None:
    global _pooled_bytes, _live_bytes
    with _pool_lock:
        _live_bytes -= nbytes
        if not _released.is_set() and _pooled_bytes + nbytes <= POOL_BYTES:
            _pool.setdefault((handle, nbytes), []).append(address)
            _pooled_bytes += nbytes
            return
    _free(handle, address)


def _release_pool() -> None:
    global _pooled_bytes
    with _pool_lock:
        _pool.clear()  # freed with their contexts
        _pooled_bytes = 0


def _forget_pool_after_fork() -> None:
    """A child process has new contexts: the parent's pinned memory is not for it."""
    global _pool_lock, _pooled_bytes, _live_bytes
    _pool_lock = threading.Lock()
    _pool.clear()
    _freed_sizes.clear()
    _pooled_bytes = _live_bytes = 0


on_release(_release_pool)
os.register_at_fork(after_in_child=_forget_pool_after_fork)


def pooled_empty(shape: tuple[int, ...], dtype, device: str | None = None) -> np.ndarray:
    """An uninitialized array for a result: pinned memory of the device's context from the pool,
    or newly pinned where a result of its size was freed before, up to POOLED_MAX_BYTES an array
    and LIVE_BYTES in all; else ordinary memory (whose freeing is noted)."""
    global _pooled_bytes, _live_bytes
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not 0 < nbytes <= POOLED_MAX_BYTES or dtype.newbyteorder("=") not in PIXEL_TYPES or _released.is_set():
        return np.empty(shape, dtype)
    handle = context(normalize_selector(device))
    with _pool_lock:
        free = _pool.get((handle, nbytes))
        reuse = (handle, nbytes) in _freed_sizes
        if _live_bytes + nbytes > LIVE_BYTES or not (free or reuse):
            ordinary = np.empty(shape, dtype)
            if not reuse:
                weakref.finalize(ordinary, _note_freed, (handle, nbytes))
            return ordinary
        address = free.pop() if free else None
        if address:
            _pooled_bytes -= nbytes
        _live_bytes += nbytes  # counted before pinning, so threads do not overshoot together
    if not address:
        address = library().cls_host_alloc(handle, nbytes)
        if not address:
            with _pool_lock:
                _live_bytes -= nbytes
            return np.empty(shape, dtype)
    storage = (ctypes.c_char * nbytes).from_address(address)
    weakref.finalize(storage, _give_back, handle, address, nbytes)
    return np.frombuffer(storage, dtype=dtype).reshape(shape)


def pinned_empty(shape: int | tuple[int, ...], dtype=np.float32, device: str | None = None) -> np.ndarray:
    """An uninitialized array of `shape` and `dtype` (a pixel type clstencil takes) in pinned host
    memory of the device's context (device: as for filter()); freed when no array uses it any
    more. Pinned memory is locked in RAM: allocate what the work needs, not more."""
    dtype = np.dtype(dtype)
    pixel_type(dtype, "dtype")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(side < 0 for side in shape):
        raise ValueError(f"negative dimensions in shape {shape}")
    nbytes = max(1, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
    handle = context(normalize_selector(device))
    address = library().cls_host_alloc(handle, nbytes)
    if not address:
        raise ClstencilError(text(library().cls_last_error()), CLS_ERR_OPENCL, "CLS_ERR_OPENCL")
    storage = (ctypes.c_char * nbytes).from_address(address)
    weakref.finalize(storage, _free, handle, address)
    return np.frombuffer(storage, dtype=dtype, count=int(np.prod(shape, dtype=np.int64))).reshape(shape)
