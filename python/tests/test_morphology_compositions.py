"""The morphological compositions and the operators that came with them, against scipy.ndimage,
border pixels included: grey_opening, grey_closing, white_tophat and black_tophat in every border
mode scipy shares, over an asymmetric footprint from a file (which the dilations reflect, as
scipy's do), and top-hats of rectangles with a mode per axis; minimum_filter, grey_dilation, median_filter and morphological_gradient over mask
files; gaussian_filter's derivatives (gaussian_d); and convolve, which flips its mask as scipy's
convolve does, where correlate does not.

Every kernel build costs a PoCL compile, so the default run shares them: the four compositions
of one footprint and border run the same two stage kernels (an erosion and a reflected dilation),
and min and dilate over that file are those kernels again. CLS_TEST_EXHAUSTIVE=1 adds the
rectangle, cross and disk footprints, a footprint without its centre, max and percentile over
files, every border mode for the rest, and every image size from 1x1 to 24x33."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import scipy.ndimage as ndimage

import clstencil
from conftest import SCIPY_MODES, exhaustive
from footprints import footprint as shape_footprint

BORDER_VALUE = 0.75
# (rows, columns): one pixel, lines, images smaller than the windows, odd sizes.
REPRESENTATIVE_SHAPES = [(1, 1), (2, 3), (5, 1), (1, 6), (9, 4), (13, 31), (20, 17)]
# Asymmetric footprints, as the files draw them: 5 wide and 3 tall with the centre, and 3x3
# without it (scipy takes both).
FOOTPRINT_FILES = {"skewed": ["11000", "01100", "00111"], "hollow": ["101", "000", "011"]}


def shapes() -> list[tuple[int, int]]:
    if exhaustive():
        return list(itertools.product(range(1, 25), range(1, 34)))
    return REPRESENTATIVE_SHAPES


@pytest.fixture(scope="module")
def masks(tmp_path_factory) -> dict[str, Path]:
    """The footprint files, written with a comment and blanks between the cells."""
    folder = tmp_path_factory.mktemp("footprints")
    paths = {}
    for name, rows in FOOTPRINT_FILES.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("# a footprint\n" + "".join(" ".join(row) + "\n" for row in rows))
    return paths


def footprint(spec: str) -> np.ndarray:
    """The footprint of "WxH,SHAPE" as docs/api.md defines it, or of a footprint file's name."""
    if spec in FOOTPRINT_FILES:
        return np.array([[c == "1" for c in row] for row in FOOTPRINT_FILES[spec]])
    window, shape = spec.split(",")
    width, height = (int(side) for side in window.split("x"))
    return shape_footprint(width, height, shape)


def operator_text(kind: str, spec: str, masks: dict[str, Path]) -> str:
    argument = f"mask:{masks[spec]}" if spec in FOOTPRINT_FILES else spec
    return f"{kind}:{argument}"


SCIPY_COMPOSITIONS = {"opening": ndimage.grey_opening, "closing": ndimage.grey_closing,
                      "tophat": ndimage.white_tophat, "blackhat": ndimage.black_tophat}


def footprint_specs() -> list[str]:
    if exhaustive():
        return ["skewed", "hollow", "5x3,rect", "3x5,cross", "5x5,disk", "7x3,disk"]
    return ["skewed"]


@pytest.mark.parametrize("spec", footprint_specs())
@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_compositions_equal_scipy(spec: str, border: str, masks) -> None:
    rng = np.random.default_rng(21)
    for shape in shapes():
        image = rng.random(shape, dtype=np.float32)
        for kind, reference in SCIPY_COMPOSITIONS.items():
            text = operator_text(kind, spec, masks)
            expected = reference(image, footprint=footprint(spec), mode=SCIPY_MODES[border],
                                 cval=BORDER_VALUE)
            # minima, maxima and one float32 difference: the same bits
            np.testing.assert_array_equal(clstencil.filter(image, text, border, BORDER_VALUE), expected,
                                          err_msg=f"{text}, {border}, shape {shape}")


@pytest.mark.parametrize("border", list(SCIPY_MODES))
def test_rectangle_compositions_in_passes_equal_scipy(border: str) -> None:
    """A 7x5 rectangle's compositions run their erosion and dilation as row and column passes
    (four stages): scipy's results bit for bit, on images larger and smaller than the window."""
    rng = np.random.default_rng(22)
    for shape in ((23, 31), (4, 6)):
        image = rng.random(shape, dtype=np.float32)
        for kind, reference in SCIPY_COMPOSITIONS.items():
            expected = reference(image, footprint=np.ones((5, 7), bool), mode=SCIPY_MODES[border],
                                 cval=BORDER_VALUE)
            np.testing.assert_array_equal(clstencil.filter(image, f"{kind}:7x5", border, BORDER_VALUE), expected,
                                          err_msg=f"{kind}:7x5, {border}, shape {shape}")


@pytest.mark.parametrize("case", [("tophat:3x5", ("reflect", "mirror")), ("blackhat:9x7", ("wrap", "nearest"))],
                         ids=lambda c: c[0])
def test_top_hats_with_a_mode_per_axis_equal_scipy(case) -> None:
    """A mode per axis: the 3x5 rectangle's stages as direct loops and a combination kernel, the
    9x7 one's as row and column passes, the last subtracting: scipy's minimum and maximum filters
    with those modes, then the difference, bit for bit."""
    text, modes = case
    rows, columns = (int(side) for side in reversed(text.split(":")[1].split("x")))
    rng = np.random.default_rng(23)
    image = rng.random((23, 31), dtype=np.float32)
    black = text.startswith("blackhat")
    first = (ndimage.maximum_filter if black else ndimage.minimum_filter)(image, size=(rows, columns), mode=modes)
    second = (ndimage.minimum_filter if black else ndimage.maximum_filter)(first, size=(rows, columns), mode=modes)
    expected = second - image if black else image - second
    np.testing.assert_array_equal(clstencil.filter(image, text, border=modes), expected, err_msg=f"{text}, {modes}")


# The rank operators over a footprint file: (operator, scipy's filter of (image, footprint, mode)).
MASK_FILE_CASES = [
    ("min", lambda a, f, m: ndimage.minimum_filter(a, footprint=f, mode=m, cval=BORDER_VALUE)),
    ("dilate", lambda a, f, m: ndimage.grey_dilation(a, footprint=f, mode=m, cval=BORDER_VALUE)),
    ("median", lambda a, f, m: ndimage.median_filter(a, footprint=f, mode=m, cval=BORDER_VALUE)),
    ("morphgradient",
     lambda a, f, m: ndimage.morphological_gradient(a, footprint=f, mode=m, cval=BORDER_VALUE)),
]
MASK_FILE_EXHAUSTIVE_CASES = [
    ("max", lambda a, f, m: ndimage.maximum_filter(a, footprint=f, mode=m, cval=BORDER_VALUE)),
    ("percentile:30,",
     lambda a, f, m: ndimage.percentile_filter(a, 30, footprint=f, mode=m, cval=BORDER_VALUE)),
]


def mask_file_cases() -> list[tuple]:
    return MASK_FILE_CASES + (MASK_FILE_EXHAUSTIVE_CASES if exhaustive() else [])


@pytest.mark.parametrize("case", mask_file_cases(), ids=lambda c: c[0].rstrip(":,"))
def test_mask_file_footprints_equal_scipy(case, masks) -> None:
    kind, reference = case
    image = np.random.default_rng(22).random((11, 14), dtype=np.float32)
    # mirror: min and dilate are the compositions' stage kernels, built already
    borders = SCIPY_MODES if exhaustive() else {"mirror": "reflect"}
    for spec in FOOTPRINT_FILES if exhaustive() else ["skewed"]:
        text = f"{kind}mask:{masks[spec]}" if kind.endswith(",") else f"{kind}:mask:{masks[spec]}"
        for border, mode in borders.items():
            np.testing.assert_array_equal(clstencil.filter(image, text, border, BORDER_VALUE),
                                          reference(image, footprint(spec), mode),
                                          err_msg=f"{text}, {border}")


def test_integer_top_hat_is_exact(masks) -> None:
    image = np.random.default_rng(23).integers(0, 256, (19, 26), dtype=np.uint8)
    result = clstencil.filter(image, f"tophat:mask:{masks['skewed']}", "repeat")
    assert result.dtype == np.uint8
    expected = ndimage.white_tophat(image, footprint=footprint("skewed"), mode="wrap")
    np.testing.assert_array_equal(result, expected)


def test_views_and_out_with_row_pitches(masks) -> None:
    """The first stage reads the input's pitch and offset; the difference reads them again and
    writes the output's."""
    image = np.random.default_rng(24).random((30, 40), dtype=np.float32)
    view = image[3:27, 5:36]
    text = f"blackhat:mask:{masks['skewed']}"
    expected = ndimage.black_tophat(np.ascontiguousarray(view), footprint=footprint("skewed"), mode="mirror")
    wide = np.full((24, 45), -1.0, np.float32)
    clstencil.filter(view, text, "mirror101", out=wide[:, 7:38])
    np.testing.assert_array_equal(wide[:, 7:38], expected)
    assert (wide[:, :7] == -1).all() and (wide[:, 38:] == -1).all()


def test_a_pipeline_stage(masks) -> None:
    image = np.random.default_rng(25).random((21, 18), dtype=np.float32)
    pipeline = clstencil.Pipeline(["max:3", f"closing:mask:{masks['skewed']}"], border="constant",
                                  value=BORDER_VALUE)
    widened = ndimage.maximum_filter(image, size=3, mode="constant", cval=BORDER_VALUE)
    expected = ndimage.grey_closing(widened, footprint=footprint("skewed"), mode="constant",
                                    cval=BORDER_VALUE)
    np.testing.assert_array_equal(pipeline.run(image, dtype=np.float32), expected)


def test_chunks_take_the_reach_of_both_stages(masks) -> None:
    """The window of a composition is the reach of its two stages (dask's halo)."""
    assert clstencil.Operator("opening:5x3").window == (5, 9)
    assert clstencil.Operator("tophat:3,cross").radius == (2, 2)
    da = pytest.importorskip("dask.array")  # the package runs without dask; the chunks need it
    chunks = pytest.importorskip("clstencil.dask")
    text = f"tophat:mask:{masks['skewed']}"
    image = np.random.default_rng(26).random((40, 37), dtype=np.float32)
    chunked = chunks.filter(da.from_array(image, chunks=(9, 11)), text, "mirror")
    np.testing.assert_array_equal(chunked.compute(scheduler="threads"),
                                  clstencil.filter(image, text, "mirror"))


GAUSSIAN_DERIVATIVES = [(1.2, 1, 0, None), (1.0, 0, 2, 7), (0.8, 1, 1, None), (1.5, 2, 1, 9)]


def gaussian_derivative_cases() -> list[tuple]:
    """Every case in every mode when exhaustive; else three cases in three modes (a mask's border
    handling is the weighted sums', tested in every mode elsewhere)."""
    if exhaustive():
        return [(case, border) for case in GAUSSIAN_DERIVATIVES for border in SCIPY_MODES]
    return [(GAUSSIAN_DERIVATIVES[0], "clamp"), (GAUSSIAN_DERIVATIVES[1], "mirror101"),
            (GAUSSIAN_DERIVATIVES[2], "constant")]


@pytest.mark.parametrize("case,border", gaussian_derivative_cases(),
                         ids=lambda c: "gaussian_d:" + ",".join(str(v) for v in c if v is not None)
                         if isinstance(c, tuple) else c)
def test_gaussian_derivatives_equal_scipy(case, border: str) -> None:
    sigma, order_x, order_y, size = case
    text = f"gaussian_d:{sigma},{order_x},{order_y}" + (f",{size}" if size else "")
    radius = clstencil.Operator(text).radius[0]
    assert radius == (size // 2 if size else int(4 * sigma + 0.5))  # scipy's truncate 4.0 by default
    rng = np.random.default_rng(27)
    for shape in shapes():
        image = rng.random(shape, dtype=np.float32)
        # scipy filters one axis after the other, padding the intermediate with cval: the same as
        # one 2-D mask for cval 0 only
        expected = ndimage.gaussian_filter(image.astype(np.float64), sigma, order=(order_y, order_x),
                                           mode=SCIPY_MODES[border], cval=0.0, truncate=radius / sigma)
        np.testing.assert_allclose(clstencil.filter(image, text, border, 0.0), expected, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{text}, {border}, {shape}")


RANDOM_MASK = np.random.default_rng(28).uniform(-1, 1, (3, 5)).astype(np.float32)


@pytest.mark.parametrize("border", list(SCIPY_MODES) if exhaustive() else ["mirror"])
def test_convolve_flips_where_correlate_does_not(border: str) -> None:
    coefficients = ",".join(f"{c:.9g}" for c in RANDOM_MASK.ravel())
    flipped = ",".join(f"{c:.9g}" for c in RANDOM_MASK[::-1, ::-1].ravel())
    image = np.random.default_rng(29).random((12, 17), dtype=np.float32)
    convolved = clstencil.filter(image, "convolve:5x3," + coefficients, border, BORDER_VALUE)
    mode = SCIPY_MODES[border]
    expected = ndimage.convolve(image.astype(np.float64), RANDOM_MASK.astype(np.float64), mode=mode,
                                cval=BORDER_VALUE)
    np.testing.assert_allclose(convolved, expected, rtol=1e-5, atol=1e-5)
    correlated = clstencil.filter(image, "correlate:5x3," + flipped, border, BORDER_VALUE)
    np.testing.assert_array_equal(convolved, correlated)
    # the spec holds the mask flipped: Operator.mask is applied as a correlation
    np.testing.assert_array_equal(clstencil.Operator("convolve:5x3," + coefficients).mask,
                                  RANDOM_MASK[::-1, ::-1])


def test_undefined_border_writes_the_interior_only() -> None:
    """The stages run with clamp and only the pixels whose whole window (both stages' reach)
    lies inside the image are written: clamp's values there, zeros elsewhere."""
    image = np.random.default_rng(8).random((12, 15), dtype=np.float32)
    for text, (rx, ry) in (("opening:3", (2, 2)), ("tophat:5x3", (4, 2))):
        result = clstencil.filter(image, text, "undefined")
        clamped = clstencil.filter(image, text, "clamp")
        np.testing.assert_array_equal(result[ry:-ry, rx:-rx], clamped[ry:-ry, rx:-rx], err_msg=text)
        untouched = np.ones(image.shape, bool)
        untouched[ry:-ry, rx:-rx] = False
        assert not result[untouched].any(), text
    assert not clstencil.filter(image[:4], "opening:3", "undefined").any()  # no 5x5 window fits


def test_refusals_name_the_problem(masks, tmp_path) -> None:
    with pytest.raises(clstencil.InvalidArgumentError, match="sides up to 31"):
        clstencil.Operator("tophat:33")
    bad = tmp_path / "bad.txt"
    bad.write_text("010\n1x1\n010\n")
    message = f"footprint file {bad}, line 2: 'x' is not a cell"
    with pytest.raises(clstencil.InvalidArgumentError, match=message):
        clstencil.Operator(f"closing:mask:{bad}")
    with pytest.raises(clstencil.InvalidArgumentError, match="orders 0, 1 or 2"):
        clstencil.Operator("gaussian_d:1,3,0")
    assert clstencil.Operator(f"DILATE:mask:{masks['skewed']}").name == f"dilate:mask:{masks['skewed']}"
    assert clstencil.Operator("dilate:3,disk").name == "max:3x3,disk"
