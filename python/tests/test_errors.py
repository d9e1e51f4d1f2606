"""Errors come back as Python exceptions carrying the C library's message."""
from __future__ import annotations

import numpy as np
import pytest

import clstencil

IMAGE = np.zeros((8, 8), np.float32)


def test_bad_operators_carry_the_library_message() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="operator 'gaussian:4': .*odd SIZE") as caught:
        clstencil.filter(IMAGE, "gaussian:4")
    assert caught.value.status_name == "CLS_ERR_INVALID_ARGUMENT"
    assert str(caught.value).count("gaussian:4") == 1  # named once, not by the binding again
    with pytest.raises(clstencil.InvalidArgumentError, match="operator 'gaussian:0x5'"):
        clstencil.filter(IMAGE, "gaussian:0x5")  # decimal sizes only
    with pytest.raises(clstencil.InvalidArgumentError, match="unknown operator"):
        clstencil.Operator("frobnicate")
    with pytest.raises(TypeError, match="operator string"):
        clstencil.filter(IMAGE, 3)


def test_bad_border_carries_the_library_message() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="unknown border mode 'bounce'"):
        clstencil.filter(IMAGE, "box:3", "bounce")
    with pytest.raises(clstencil.InvalidArgumentError, match="border value 1e\\+300: beyond float32's range"):
        clstencil.filter(IMAGE, "box:3", "constant", 1e300)


def test_nothing_after_a_nul_is_dropped() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="a NUL character"):
        clstencil.filter(IMAGE, "box:3\x00junk")


def test_aliases_and_case_are_the_library_s() -> None:
    np.testing.assert_array_equal(clstencil.filter(IMAGE + 1, "box:3", "REPLICATE"),
                                  clstencil.filter(IMAGE + 1, "box:3", "clamp"))


def test_no_such_device() -> None:
    with pytest.raises(clstencil.DeviceError, match="no-such-device"):
        clstencil.filter(IMAGE, "box:3", device="no-such-device")


def test_bad_build_goal() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="build must be one of"):
        clstencil.filter(IMAGE, "box:3", build="slowest")


def test_user_operator_compile_error_has_the_body_s_line() -> None:
    body = "float best = -INFINITY;\nFOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\nOUT = bset;\n"
    operator = clstencil.Operator.user(body, 3, 3)
    with pytest.raises(clstencil.ClstencilError, match=r"operator:3:") as caught:
        clstencil.filter(IMAGE, operator)
    assert caught.value.status_name == "CLS_ERR_BUILD"


def test_user_operator_runs() -> None:
    body = "float best = -INFINITY;\nFOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\nOUT = best;\n"
    image = np.random.default_rng(3).random((9, 11), dtype=np.float32)
    dilated = clstencil.filter(image, clstencil.Operator.user(body, 3, 5), "clamp")
    padded = np.pad(image, ((2, 2), (1, 1)), mode="edge")
    expected = np.max([padded[j:j + 9, i:i + 11] for j in range(5) for i in range(3)], axis=0)
    np.testing.assert_array_equal(dilated, expected)


def test_bad_user_operator_arguments() -> None:
    with pytest.raises(ValueError, match="mask has 4 values; a 3x3 window needs 9"):
        clstencil.Operator.user("OUT = IN(0, 0);", 3, 3, mask=[1, 2, 3, 4])
    with pytest.raises(clstencil.InvalidArgumentError):
        clstencil.Operator.user("OUT = IN(0, 0);", 4, 3)


def test_operators_of_one_size_keep_their_own_coefficients() -> None:
    image = np.full((6, 6), 0.5, np.float32)
    signs = clstencil.filter(image, "convolve:3x1,1,-2,3", "clamp")
    ones = clstencil.filter(image, "convolve:3x1,1,1,1", "clamp")
    assert (signs == 1.0).all() and (ones == 1.5).all()
