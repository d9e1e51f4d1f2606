"""pyopencl interop: device arrays in the caller's context and queue, equal bit for bit to the
numpy path; launches ordered by events without waiting in between."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil

pyopencl = pytest.importorskip("pyopencl")
import pyopencl.array  # noqa: E402

import clstencil.opencl  # noqa: E402


@pytest.fixture(scope="module")
def queue():
    default = next(device for device in clstencil.devices() if device.default)
    platform_index, device_index = map(int, default.selector.split(":"))
    device = pyopencl.get_platforms()[platform_index].get_devices()[device_index]
    return pyopencl.CommandQueue(pyopencl.Context([device]))


@pytest.mark.parametrize("border", ["clamp", "mirror101", "constant", "undefined"])
def test_device_arrays_equal_the_numpy_path(queue, border: str) -> None:
    image = np.random.default_rng(8).random((37, 53), dtype=np.float32)
    on_device = pyopencl.array.to_device(queue, image)
    result = clstencil.opencl.filter(on_device, "gaussian:5", border, 0.5)
    assert result.queue is queue and result.events  # the launch is the last event
    np.testing.assert_array_equal(result.get(), clstencil.filter(image, "gaussian:5", border, 0.5))


def test_chained_launches_and_views(queue) -> None:
    image = np.random.default_rng(9).integers(0, 255, (40, 64), dtype=np.uint8, endpoint=True)
    on_device = pyopencl.array.to_device(queue, image)
    smooth = clstencil.opencl.filter(on_device, "box:3", "mirror", dtype=np.float32)
    edges = clstencil.opencl.filter(smooth, "sobel:mag", "mirror", dtype=np.uint8)
    expected = clstencil.filter(clstencil.filter(image, "box:3", "mirror", dtype=np.float32),
                                "sobel:mag", "mirror", dtype=np.uint8)
    np.testing.assert_array_equal(edges.get(), expected)
    window = on_device[5:30]  # rows of a larger buffer: an offset
    np.testing.assert_array_equal(clstencil.opencl.filter(window, "laplace", "repeat").get(),
                                  clstencil.filter(image[5:30], "laplace", "repeat"))


def test_device_errors(queue) -> None:
    with pytest.raises(TypeError, match="pyopencl.array.Array, not ndarray"):
        clstencil.opencl.filter(np.zeros((4, 4), np.float32), "box:3")
    with pytest.raises(TypeError, match="int32"):
        clstencil.opencl.filter(pyopencl.array.zeros(queue, (4, 4), np.int32), "box:3")
    with pytest.raises(ValueError, match="contiguous pixels"):
        clstencil.opencl.filter(pyopencl.array.zeros(queue, (4, 4), np.float32)[:, ::2], "box:3")


def test_clstencil_filter_dispatches_device_arrays(queue) -> None:
    image = np.random.default_rng(10).random((16, 16), dtype=np.float32)
    result = clstencil.filter(pyopencl.array.to_device(queue, image), "box:3", "mirror")
    assert isinstance(result, pyopencl.array.Array)
    np.testing.assert_array_equal(result.get(), clstencil.filter(image, "box:3", "mirror"))


def test_clstencil_filter_passes_its_arguments_to_device_arrays(queue) -> None:
    image = np.random.default_rng(11).random((16, 16), dtype=np.float32)
    on_device = pyopencl.array.to_device(queue, image)
    with pytest.raises(clstencil.InvalidArgumentError, match="bogus"):
        clstencil.filter(on_device, "box:3", method="bogus")
    fft = clstencil.filter(on_device, "box:3", "mirror", method="fft")
    expected = clstencil.filter(image, "box:3", "mirror", method="fft")
    np.testing.assert_array_equal(fft.get(), expected)
    out = pyopencl.array.zeros(queue, (16, 16), np.uint8)
    with pytest.raises(ValueError, match="dtype float32 differs from out's uint8"):
        clstencil.filter(on_device, "box:3", out=out, dtype=np.float32)
