"""Exceptions that carry the C library's own message (cls_last_error) and status name."""
from __future__ import annotations

from ._library import library, text

CLS_OK = 0
CLS_ERR_INVALID_ARGUMENT = 1
CLS_ERR_NO_PLATFORM = 2
CLS_ERR_NO_DEVICE = 3
CLS_ERR_OPENCL = 4


class ClstencilError(RuntimeError):
    """A call into the C library failed; str() is the library's message.

    Attributes: status (the cls_status number) and status_name ("CLS_ERR_BUILD", ...).
    """

    def __init__(self, message: str, status: int, status_name: str) -> None:
        super().__init__(message)
        self.status = status
        self.status_name = status_name


class DeviceError(ClstencilError):
    """No OpenCL platform, or no device matches the selector (CLS_ERR_NO_PLATFORM, _NO_DEVICE)."""


class InvalidArgumentError(ClstencilError, ValueError):
    """The library refused a parameter (CLS_ERR_INVALID_ARGUMENT): a bad operator, border, ..."""


def check(status: int, what: str) -> None:
    """Raises the exception for a failed status, with `what` and the library's message."""
    if status == CLS_OK:
        return
    lib = library()
    message = text(lib.cls_last_error())
    name = text(lib.cls_status_name(status))
    if not message:
        full = f"{what}: {name}"
    elif message.startswith(f"{what}:"):  # the library named the subject ("operator 'gaussian:4': ...")
        full = message
    else:
        full = f"{what}: {message}"
    if status == CLS_ERR_INVALID_ARGUMENT:
        raise InvalidArgumentError(full, status, name)
    if status in (CLS_ERR_NO_PLATFORM, CLS_ERR_NO_DEVICE):
        raise DeviceError(full, status, name)
    raise ClstencilError(full, status, name)
