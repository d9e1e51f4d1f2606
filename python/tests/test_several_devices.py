"""device= naming several devices ("P:D,P:D", a list, "gpus"): the image in bands of rows, a device
each (cls_filter_run_host_spread), equal to one device's result in every border mode; the default
device named three times stands for three devices; lists that name nothing are refused."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil

BORDERS = ["clamp", "mirror", "mirror101", "repeat", "constant", "undefined"]


@pytest.fixture(scope="module")
def default_device() -> str:
    return next(device.selector for device in clstencil.devices() if device.default)


@pytest.mark.parametrize("border", BORDERS)
def test_bands_equal_one_device(rng: np.random.Generator, default_device: str, border: str) -> None:
    image = rng.random((61, 47), dtype=np.float32)
    one = clstencil.filter(image, "gaussian:5", border, 0.5, device=default_device)
    several = clstencil.filter(image, "gaussian:5", border, 0.5,
                               device=",".join([default_device] * 3))
    np.testing.assert_array_equal(several, one)


def test_list_form_and_u8(rng: np.random.Generator, default_device: str) -> None:
    image = rng.integers(0, 256, (33, 20), dtype=np.uint8)
    one = clstencil.filter(image, "median:3", "repeat", device=default_device)
    np.testing.assert_array_equal(
        clstencil.filter(image, "median:3", "repeat", device=[default_device, default_device]), one)


def test_bad_lists_are_refused(default_device: str) -> None:
    image = np.zeros((8, 8), np.float32)
    with pytest.raises(clstencil.InvalidArgumentError, match="an empty selector"):
        clstencil.filter(image, "box:3", device=f"{default_device},,{default_device}")
    with pytest.raises(clstencil.DeviceError, match="no OpenCL device matches"):
        clstencil.filter(image, "box:3", device=f"{default_device},no-such-device")
    with pytest.raises(ValueError, match="selector strings"):
        clstencil.filter(image, "box:3", device=[])
    if not any(device.type == "gpu" for device in clstencil.devices()):
        with pytest.raises(clstencil.DeviceError):
            clstencil.filter(image, "box:3", device="gpus")
