"""clstencil: run-time generated OpenCL stencil kernels for numpy (and dask) images.

    import numpy, clstencil
    image = numpy.random.default_rng(0).random((512, 512), dtype=numpy.float32)
    smooth = clstencil.filter(image, "gaussian:5", border="mirror")

A thin layer over the C library libclstencil, called through the standard library's ctypes:
operators, border modes, device selection, the program and disk caches are the library's.
clstencil.dask filters dask arrays.
"""
from ._library import library as _load_library, library_path, text as _text
from .devices import Device, devices
from .errors import ClstencilError, DeviceError, InvalidArgumentError
from .filtering import filter
from .operators import Operator
from .pinned import pinned_empty
from .pipeline import Pipeline

_load_library()  # fails here, with where it looked, when the C library cannot be found

__all__ = ["ClstencilError", "Device", "DeviceError", "InvalidArgumentError", "Operator",
           "Pipeline", "devices", "filter", "library_path", "library_version", "pinned_empty"]


def library_version() -> str:
    """The C library's version, e.g. "0.1.0"."""
    return _text(_load_library().cls_version())
