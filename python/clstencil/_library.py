"""Finds and loads the C library (libclstencil.so) once per process, through the standard
library's ctypes (which releases the GIL during every call), with the prototypes of _functions.

Where it looks, in order:
  1. the file named by the CLSTENCIL_LIBRARY environment variable (it must exist);
  2. next to this package (a package installed together with the library);
  3. the build folders of the checkout that holds this package: build/, build-rel/, build-py/
     (never build-test/ or build-tsan/, whose sanitized libraries a Python process cannot load);
  4. the system's library path (libclstencil.so.1, e.g. after `cmake --install`).
"""
from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from ._functions import declare

LIBRARY_ENVIRONMENT_VARIABLE = "CLSTENCIL_LIBRARY"
LIBRARY_FILE_NAME = "libclstencil.so"
SYSTEM_LIBRARY_NAME = "libclstencil.so.1"
CHECKOUT_BUILD_FOLDERS = ("build", "build-rel", "build-py")

_loaded: ctypes.CDLL | None = None
_loaded_from = ""
_load_lock = threading.Lock()


def library_candidates() -> list[Path]:
    """The files, in search order, that may hold the library (without the system path)."""
    named = os.environ.get(LIBRARY_ENVIRONMENT_VARIABLE, "")
    if named:
        return [Path(named)]
    package_folder = Path(__file__).resolve().parent
    checkout = package_folder.parent.parent
    candidates = [package_folder / LIBRARY_FILE_NAME]
    candidates += [checkout / folder / LIBRARY_FILE_NAME for folder in CHECKOUT_BUILD_FOLDERS]
    return candidates


def _load(name: str) -> ctypes.CDLL:
    loaded = ctypes.CDLL(name)
    declare(loaded)
    return loaded


def _open() -> tuple[ctypes.CDLL, str]:
    named = os.environ.get(LIBRARY_ENVIRONMENT_VARIABLE, "")
    if named and not Path(named).is_file():
        raise ImportError(f"{LIBRARY_ENVIRONMENT_VARIABLE}={named} names no file")
    for candidate in library_candidates():
        if candidate.is_file():
            try:
                return _load(str(candidate)), str(candidate)
            except OSError as error:
                raise ImportError(f"cannot load the clstencil library {candidate}: {error}") from error
    try:
        return _load(SYSTEM_LIBRARY_NAME), SYSTEM_LIBRARY_NAME
    except OSError:
        searched = ", ".join(str(path) for path in library_candidates())
        raise ImportError(
            f"the clstencil C library was not found (searched {searched} and the system's "
            f"{SYSTEM_LIBRARY_NAME}); build it (./scripts/quickstart.sh) or set "
            f"{LIBRARY_ENVIRONMENT_VARIABLE} to the path of libclstencil.so") from None


def library() -> ctypes.CDLL:
    """The loaded C library (loaded on first use; thread-safe)."""
    global _loaded, _loaded_from
    if _loaded is None:
        with _load_lock:
            if _loaded is None:
                _loaded, _loaded_from = _open()
    return _loaded


def library_path() -> str:
    """The file the library was loaded from (a name when the system's path found it)."""
    library()
    return _loaded_from


def text(value: bytes | None) -> str:
    """A Python string from a C string the library returned or a struct's char array, which
    ctypes gives as bytes ("" for NULL)."""
    return "" if value is None else value.decode("utf-8", "replace")
