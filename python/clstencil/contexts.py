"""One OpenCL context per device selector and process, shared by every call (thread-safe).

The C library shares a context's program cache between threads, so one context per device is
what every filter of the process uses; the binary cache on disk (CLSTENCIL_CACHE_DIR) serves
later processes. A child made by fork() forgets its parent's contexts (OpenCL state does not
survive a fork) and creates its own on first use.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import threading
from typing import Any, Callable

from ._library import library
from .errors import check

_contexts: dict[str | tuple | None, Any] = {}
_lock = threading.RLock()
# Called before the contexts are released at exit (the filter cache releases its filters).
_before_release: list[Callable[[], None]] = []


def normalize_selector(device: str | tuple | None) -> str | tuple | None:
    """The selector a context is cached under: None (CLSTENCIL_DEVICE or the default), text, or
    the key of a wrapped context (wrapped_context)."""
    if device is None or device == "":
        return None
    if isinstance(device, tuple) and device in _contexts:
        return device
    if not isinstance(device, str):
        raise TypeError(f"device must be a selector string such as 'gpu', 'cpu', '0:1' or a "
                        f"name, not {type(device).__name__}")
    return device


def context(device: str | tuple | None = None) -> Any:
    """The process's cls_context for a device selector, created on first use.

    device: None means the CLSTENCIL_DEVICE environment variable, else the default device
    (a GPU if any, else an accelerator, else a CPU); otherwise "P:D", "gpu", "cpu",
    "accelerator" or a case-insensitive part of the device, platform or vendor name.
    """
    key = normalize_selector(device)
    found = _contexts.get(key)
    if found is not None:
        return found
    with _lock:
        found = _contexts.get(key)
        if found is None:
            lib = library()
            created = ctypes.c_void_p()
            check(lib.cls_context_create(None if key is None else key.encode(),
                                         ctypes.byref(created)),
                  "creating an OpenCL context")
            found = created.value
            _contexts[key] = found
        return found


def lane(device: str | None = None) -> tuple:
    """The key of the calling thread's own context for a device selector, created on first use.
    A context runs one host image at a time (its buffers and queue are shared), so threads that
    filter at once, such as dask's worker threads, each copy and launch in a lane of their own
    instead of waiting for one another; the lanes of one device share the binary cache on disk."""
    selector = normalize_selector(device)
    key = ("lane", selector, threading.get_ident())
    if key not in _contexts:
        with _lock:
            if key not in _contexts:
                created = ctypes.c_void_p()
                check(library().cls_context_create(None if selector is None else selector.encode(),
                                                   ctypes.byref(created)),
                      "creating an OpenCL context")
                _contexts[key] = created.value
    return key


def wrapped_context(cl_context: int, cl_device: int, cl_queue: int) -> tuple:
    """The key of a cls_context that wraps a caller's OpenCL context, device and queue (given as
    their addresses), created on first use. The library retains the three, so the addresses stay
    theirs until exit; filters built for the key enqueue on that queue."""
    key = ("queue", cl_context, cl_device, cl_queue)
    with _lock:
        if key not in _contexts:
            wrapped = ctypes.c_void_p()
            check(library().cls_context_wrap(cl_context, cl_device, cl_queue,
                                             ctypes.byref(wrapped)),
                  "wrapping the caller's OpenCL context and queue")
            _contexts[key] = wrapped.value
    return key


def on_release(callback: Callable[[], None]) -> None:
    """Registers what must be released before the contexts (filters, pipelines)."""
    _before_release.append(callback)


def release_all() -> None:
    """Releases every context (after the callbacks); called at exit."""
    with _lock:
        for callback in _before_release:
            callback()
        lib = library()
        for handle in _contexts.values():
            lib.cls_context_release(handle)
        _contexts.clear()


def _forget_after_fork() -> None:
    global _lock
    _contexts.clear()
    _lock = threading.RLock()


atexit.register(release_all)
os.register_at_fork(after_in_child=_forget_after_fork)
