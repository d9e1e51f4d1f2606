"""The rank, morphology and Gaussian-derived operators against scipy.ndimage in every border mode
scipy shares, borders included: median_filter, percentile_filter, grey_erosion/grey_dilation
with rectangle, cross and disk footprints, morphological_gradient, gaussian_laplace,
gaussian_filter (difference of Gaussians, unsharp masking). Representative image sizes and
footprints by default; every size from 1x1 to 97x64 and footprints up to 31 when exhaustive."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.ndimage as ndimage

import clstencil
from conftest import SCIPY_MODES, exhaustive
from footprints import footprint

BORDER_VALUE = 0.75
# (rows, columns): single pixels, lines, images narrower than the windows, odd sizes, the largest.
REPRESENTATIVE_SHAPES = [(1, 1), (1, 6), (5, 1), (2, 3), (4, 9), (13, 31), (64, 97)]


def shapes(full_sweep: bool = True) -> list[tuple[int, int]]:
    """Every size when exhaustive (for the cases marked for the full sweep), else representatives."""
    if exhaustive() and full_sweep:
        return list(itertools.product(range(1, 65), range(1, 98)))
    return REPRESENTATIVE_SHAPES


def rank_reference(kind: str, width: int, height: int, shape: str, percent: float = 50.0):
    """scipy's filter of an operator of the rank family, as a function of (image, mode, cval)."""
    fp = footprint(width, height, shape)
    if kind == "median":
        return lambda a, mode, cval: ndimage.median_filter(a, footprint=fp, mode=mode, cval=cval)
    if kind == "percentile":
        return lambda a, mode, cval: ndimage.percentile_filter(a, percent, footprint=fp, mode=mode, cval=cval)
    if kind == "min":
        return lambda a, mode, cval: ndimage.grey_erosion(a, footprint=fp, mode=mode, cval=cval)
    if kind == "max":
        return lambda a, mode, cval: ndimage.grey_dilation(a, footprint=fp, mode=mode, cval=cval)
    assert kind == "morphgradient"
    return lambda a, mode, cval: ndimage.morphological_gradient(a, footprint=fp, mode=mode, cval=cval)


def rank_text(kind: str, width: int, height: int, shape: str, percent: float = 50.0) -> str:
    arguments = f"{width}x{height},{shape}"
    return f"percentile:{percent:g},{arguments}" if kind == "percentile" else f"{kind}:{arguments}"


# (kind, width, height, shape, percent): the unrolled networks (9, 15 and 25 pixels), the private
# array (81 and 341 pixels), every footprint shape for min/max and the gradient. Those in
# FULL_SWEEP run on every image size when exhaustive (one of each kind of code).
RANK_CASES = [("median", 3, 3, "rect", 50), ("median", 5, 3, "rect", 50), ("median", 5, 5, "rect", 50),
              ("median", 9, 9, "rect", 50),
              ("median", 5, 5, "disk", 50), ("percentile", 5, 5, "rect", 20),
              ("percentile", 11, 31, "rect", 90), ("min", 5, 5, "disk", 0), ("max", 7, 3, "cross", 0),
              ("min", 9, 5, "rect", 0), ("max", 3, 3, "rect", 0), ("max", 31, 9, "rect", 0),
              ("morphgradient", 5, 5, "disk", 0)]


FULL_SWEEP = {"median:3x3,rect", "median:9x9,rect", "min:5x5,disk", "morphgradient:5x5,disk"}


@pytest.mark.parametrize("case", RANK_CASES, ids=[rank_text(*c) for c in RANK_CASES])
@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_rank_equals_scipy(case, border: str) -> None:
    text = rank_text(*case)
    reference = rank_reference(*case)
    rng = np.random.default_rng(3)
    for shape in shapes(text in FULL_SWEEP):
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, text, border, BORDER_VALUE)
        expected = reference(image, SCIPY_MODES[border], BORDER_VALUE)
        # A rank filter returns one of its inputs (the gradient the difference of two): exact.
        np.testing.assert_array_equal(result, expected, err_msg=f"{text}, {border}, shape {shape}")


def footprint_sweep() -> list[tuple]:
    """Footprints of 1 to 31 per side (exhaustive only: each is a kernel build)."""
    if not exhaustive():
        return [("median", 1, 1, "rect", 50), ("max", 1, 7, "disk", 0)]
    # lines, squares and rectangles from 1 to 31; 7x7 is the largest network, 9x5 an array
    windows = [(1, 1), (1, 31), (31, 1), (3, 3), (5, 3), (7, 7), (9, 5), (15, 15), (21, 9), (31, 31)]
    cases = [(kind, w, h, shape, 50) for kind in ("min", "max", "median") for shape in ("rect", "cross", "disk")
             for w, h in windows]
    cases += [("percentile", w, w, "rect", p) for w in (3, 7, 31) for p in (0, 10, 33.3, 99.9, 100)]
    return cases


@pytest.mark.parametrize("case", footprint_sweep(), ids=lambda c: rank_text(*c))
def test_footprints_equals_scipy(case) -> None:
    text = rank_text(*case)
    reference = rank_reference(*case)
    image = np.random.default_rng(4).random((40, 45), dtype=np.float32)
    for border in SCIPY_MODES:
        np.testing.assert_array_equal(clstencil.filter(image, text, border, BORDER_VALUE),
                                      reference(image, SCIPY_MODES[border], BORDER_VALUE),
                                      err_msg=f"{text}, {border}")


@pytest.mark.parametrize("border", list(SCIPY_MODES) + ["undefined"])
def test_rectangle_passes_equal_one_kernel(border: str, tmp_path) -> None:
    """min and max over a rectangle run as a row pass and then a column pass; the same rectangle
    drawn in a footprint file runs as one kernel: the same bits, borders, NaN pixels (both skip
    them) and windows of NaN only (infinity) included."""
    ones = tmp_path / "ones.txt"
    ones.write_text("1111111\n" * 5)
    image = np.random.default_rng(6).random((23, 30), dtype=np.float32)
    image[3, 4] = np.nan
    image[10:17, 10:19] = np.nan
    for kind in ("min", "max"):
        passes = clstencil.filter(image, f"{kind}:7x5", border, BORDER_VALUE)
        one_kernel = clstencil.filter(image, f"{kind}:mask:{ones}", border, BORDER_VALUE)
        np.testing.assert_array_equal(passes, one_kernel, err_msg=f"{kind}, {border}")
        assert passes[13, 14] == (np.inf if kind == "min" else -np.inf)


def filter_in_blocks(image: np.ndarray, text: str, border: str, rows: int) -> np.ndarray:
    """clstencil.filter with `rows` output rows per work-item, the blocks that auto gives bodies
    on NVIDIA (one row on PoCL), f32 or the image's integer type."""
    import ctypes
    from clstencil._library import library
    from clstencil.contexts import context, normalize_selector
    from clstencil.errors import check
    from clstencil.filters import border_mode, stage_spec
    from clstencil.images import describe, pointer
    from clstencil.operators import as_operator
    from clstencil.pixel_types import pixel_type
    kind = pixel_type(image.dtype, "image")
    spec = stage_spec(as_operator(text), border_mode(border), BORDER_VALUE, kind, kind, 0)
    spec.rows_per_item = rows
    handle = ctypes.c_void_p()
    check(library().cls_filter_create(context(normalize_selector(None)), spec, ctypes.byref(handle)), text)
    try:
        source = np.ascontiguousarray(image)
        result = np.empty_like(source)
        check(library().cls_filter_run_host(handle.value, pointer(source), pointer(result, const=False),
                                            describe(source, result, None)), text)
    finally:
        library().cls_filter_release(handle.value)
    return result


# A block of 8 rows' kernel takes about 60 s to build on PoCL, one of 3 rows (the same walk, its
# rings wrapping) less: the default suite takes one border, the median of f32 pixels and blocks of
# 1 and 3 rows (8 rows, the percentile and u16 when exhaustive).
@pytest.mark.parametrize("border", list(SCIPY_MODES) if exhaustive() else ["mirror"])
def test_5x5_ranks_keep_the_network_bits(border: str, tmp_path) -> None:
    """The 5x5 rectangle's ranks run by sorted rows, shared by a block of rows; windows with NaN
    or both zeros run the Batcher network that a footprint file of the same 25 pixels runs (fmin
    and fmax drop a NaN and copy the other value, and may order +0 and -0 either way: the
    result depends on the network). Both give the same bits, in blocks of 1 and 3 rows (and 8 when
    exhaustive), NaN, infinities and zeros of both signs included; when exhaustive, in every
    border, and u16 and a percentile too."""
    ones = tmp_path / "ones.txt"
    ones.write_text("11111\n" * 5)
    rng = np.random.default_rng(8)
    image = rng.integers(-4, 5, (29, 37)).astype(np.float32) / 4  # ties
    image[rng.random(image.shape) < 0.05] = -0.0  # equal to +0
    image[rng.random(image.shape) < 0.03] = np.nan
    image[5:8, 20:26] = np.nan
    image[14, 3] = np.inf
    image[15, 4] = -np.inf
    image[20, 30] = np.inf
    cases = [("median", image, (1, 3, 8) if exhaustive() else (1, 3))]  # 3: an odd block, the rings wrap
    if exhaustive() and border == "mirror":
        cases.append(("percentile:20", image, (8,)))
    if exhaustive() and border == "clamp":
        cases.append(("median", rng.integers(0, 65536, (23, 31), dtype=np.uint16), (8,)))
    for kind, pixels, blocks in cases:
        separator = "," if ":" in kind else ":"
        expected = clstencil.filter(pixels, f"{kind}{separator}mask:{ones}", border, BORDER_VALUE)
        for block in blocks:
            np.testing.assert_array_equal(filter_in_blocks(pixels, f"{kind}{separator}5x5", border, block), expected,
                                          err_msg=f"{kind} 5x5, {pixels.dtype}, {border}, {block} rows")


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_3x3_median_has_the_same_bits_in_every_block(border: str) -> None:
    """The 3x3 median is one network (sorted rows) whatever the block of rows: the same bits in
    blocks of 1, 3 and 8 rows, NaN, infinities and zeros of both signs included (fmin and fmax
    drop a NaN and may order +0 and -0 either way, so the bits are the network's own); windows
    without a NaN equal scipy's median."""
    rng = np.random.default_rng(9)
    image = rng.integers(-4, 5, (29, 37)).astype(np.float32) / 4  # ties
    image[rng.random(image.shape) < 0.05] = -0.0
    image[rng.random(image.shape) < 0.03] = np.nan
    image[14, 3] = np.inf
    image[15, 4] = -np.inf
    one_row = filter_in_blocks(image, "median:3x3", border, 1)
    for rows in (3, 8):
        np.testing.assert_array_equal(filter_in_blocks(image, "median:3x3", border, rows).view(np.uint32),
                                      one_row.view(np.uint32), err_msg=f"{border}, {rows} rows")
    mode = SCIPY_MODES[border]
    without_nan = ~ndimage.maximum_filter(np.isnan(image), size=3, mode=mode)
    expected = ndimage.median_filter(image, size=3, mode=mode, cval=BORDER_VALUE)
    np.testing.assert_array_equal(one_row[without_nan], expected[without_nan], err_msg=border)


def test_column_body_from_the_docs() -> None:
    """docs/api.md's OUT_AT example, a vertical 3-tap mean that loads each input row once for a
    column of outputs, equals scipy in blocks of 1, 3 and 8 rows and three borders."""
    body = ("float above = IN(0, -1), here = IN(0, 0);\n"
            "for (int k = 0; k < ROWS; ++k) {\n"
            "    const float below = IN(0, k + 1);\n"
            "    OUT_AT(k) = (above + here + below) / 3.0f;\n"
            "    above = here;\n"
            "    here = below;\n"
            "}\n")
    operator = clstencil.Operator.user(body, 1, 3)
    image = np.random.default_rng(1).random((37, 29), dtype=np.float32)
    for border in ("clamp", "mirror", "constant"):
        expected = ndimage.correlate(image, np.full((3, 1), 1 / 3, np.float32), mode=SCIPY_MODES[border],
                                     cval=BORDER_VALUE)
        for rows in (1, 3, 8):
            np.testing.assert_allclose(filter_in_blocks(image, operator, border, rows), expected, rtol=1e-6,
                                       atol=1e-6, err_msg=f"{border}, {rows} rows")


def test_integer_median_is_exact() -> None:
    image = np.random.default_rng(5).integers(0, 256, (31, 40), dtype=np.uint8)
    result = clstencil.filter(image, "median:5x3", "mirror")
    assert result.dtype == np.uint8
    np.testing.assert_array_equal(result, ndimage.median_filter(image, size=(3, 5), mode="reflect"))


def test_percentile_ends_are_min_and_max() -> None:
    image = np.random.default_rng(6).random((20, 17), dtype=np.float32)
    for low, high in (("percentile:0,3", "min:3"), ("percentile:100,3", "max:3")):
        np.testing.assert_array_equal(clstencil.filter(image, low), clstencil.filter(image, high))


def test_erode_and_dilate_are_min_and_max() -> None:
    assert clstencil.Operator("erode:5,cross").name == "min:5x5,cross"
    assert clstencil.Operator("dilate:3x5").name == "max:3x5,rect"


def test_undefined_border_computes_the_interior_only() -> None:
    image = np.random.default_rng(7).random((9, 12), dtype=np.float32)
    result = clstencil.filter(image, "median:5x3", "undefined")
    expected = ndimage.median_filter(image, size=(3, 5), mode="nearest")
    np.testing.assert_array_equal(result[1:-1, 2:-2], expected[1:-1, 2:-2])
    untouched = np.ones(result.shape, bool)
    untouched[1:-1, 2:-2] = False
    assert not result[untouched].any()


@pytest.mark.parametrize("text", ["median:4", "median:33", "median:63x31", "percentile:101,3", "min:5,square",
                                  "max:3x", "log:8", "dog:1", "unsharp:1", "tonemap:0"])
def test_bad_parameters_are_refused(text: str) -> None:
    with pytest.raises(clstencil.InvalidArgumentError):
        clstencil.Operator(text)


def test_too_large_a_rank_footprint_names_the_limit() -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="at most 1024"):
        clstencil.Operator("median:33")


def gaussian(a: np.ndarray, sigma: float, size: int, mode: str, cval: float) -> np.ndarray:
    """scipy's Gaussian over the same radius: truncate = radius / sigma."""
    return ndimage.gaussian_filter(a, sigma, mode=mode, cval=cval, truncate=(size // 2) / sigma)


# The masks' operators: (text, reference(image, mode, cval), the cval scipy's definition matches).
# gaussian_laplace filters separably and pads its intermediate with cval: that equals the one
# 2-D mask's constant border only for cval 0.
MASK_CASES = [
    ("dog:1,2,9", lambda a, m, c: gaussian(a, 1, 9, m, c) - gaussian(a, 2, 9, m, c), BORDER_VALUE),
    ("log:1.5", lambda a, m, c: ndimage.gaussian_laplace(a, 1.5, mode=m, cval=c, truncate=6 / 1.5), 0.0),
    ("log:1,5", lambda a, m, c: ndimage.gaussian_laplace(a, 1.0, mode=m, cval=c, truncate=2.0), 0.0),
    ("unsharp:1.2,0.7,7", lambda a, m, c: a + 0.7 * (a - gaussian(a, 1.2, 7, m, c)), BORDER_VALUE),
]


@pytest.mark.parametrize("case", MASK_CASES, ids=[c[0] for c in MASK_CASES])
@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_gaussian_family_equals_scipy(case, border: str) -> None:
    text, reference, cval = case
    rng = np.random.default_rng(8)
    for shape in shapes(text.startswith(("dog", "log:1.5"))):
        image = rng.random(shape, dtype=np.float32)
        result = clstencil.filter(image, text, border, cval)
        expected = reference(image.astype(np.float64), SCIPY_MODES[border], cval)
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=2e-6, err_msg=f"{text}, {border}, {shape}")


def test_default_windows_follow_scipys_truncate() -> None:
    assert clstencil.Operator("log:1.5").window == (13, 13)      # 2 * int(4 * 1.5 + 0.5) + 1
    assert clstencil.Operator("dog:1,2").window == (17, 17)      # of the larger sigma
    assert clstencil.Operator("unsharp:1,2").window == (9, 9)


def test_correlate_is_convolve_without_flip() -> None:
    coefficients = ",".join(str(c) for c in range(1, 16))
    image = np.random.default_rng(9).random((12, 14), dtype=np.float32)
    mask = np.arange(1, 16, dtype=np.float64).reshape(3, 5)
    correlated = clstencil.filter(image, "correlate:5x3," + coefficients, "mirror")
    flipped = ",".join(str(c) for c in range(15, 0, -1))
    np.testing.assert_array_equal(correlated, clstencil.filter(image, "convolve:5x3," + flipped, "mirror"))
    np.testing.assert_allclose(correlated, ndimage.correlate(image.astype(np.float64), mask, mode="reflect"),
                               rtol=1e-5)


def test_tonemap_scale_maps_to_one_and_back() -> None:
    image = np.arange(256, dtype=np.uint8).reshape(16, 16)
    v = image.astype(np.float64) / 255
    expected = 255 * v / (1 + v)
    np.testing.assert_allclose(clstencil.filter(image, "tonemap:255", dtype=np.float32), expected, rtol=1e-6)
    # u8 results round the same values: a tie may fall either way after float rounding.
    assert np.abs(clstencil.filter(image, "tonemap:255").astype(np.float64) - expected).max() <= 0.5 + 1e-4
