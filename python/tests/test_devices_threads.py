"""Devices, the shared per-process context, and threads sharing filters."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import clstencil


def test_devices_lists_a_default() -> None:
    found = clstencil.devices()
    assert found and sum(device.default for device in found) == 1
    default = next(device for device in found if device.default)
    assert default.name and default.compute_units >= 1 and ":" in default.selector


def test_device_selector_picks_the_same_device() -> None:
    default = next(device for device in clstencil.devices() if device.default)
    image = np.arange(30, dtype=np.float32).reshape(5, 6)
    np.testing.assert_array_equal(clstencil.filter(image, "box:3", device=default.selector),
                                  clstencil.filter(image, "box:3"))


def test_threads_share_filters_and_agree(rng: np.random.Generator) -> None:
    images = [rng.random((33, 47), dtype=np.float32) for _ in range(16)]
    expected = [clstencil.filter(image, "gaussian:5", "mirror") for image in images]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda image: clstencil.filter(image, "gaussian:5", "mirror"),
                                images * 4))
    for index, result in enumerate(results):
        np.testing.assert_array_equal(result, expected[index % len(images)])


def test_library_version() -> None:
    assert clstencil.library_version().count(".") == 2
