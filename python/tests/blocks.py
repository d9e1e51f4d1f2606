"""filter_in_blocks: clstencil.filter with a given number of output rows per work-item, for the
tests that hold a kernel's bits equal in every block of rows."""
from __future__ import annotations

import numpy as np

from conftest import BORDER_VALUE


def filter_in_blocks(image: np.ndarray, text: str, border: str, rows: int, cols: int = 1) -> np.ndarray:
    """clstencil.filter with `rows` output rows and `cols` columns per work-item, the blocks that
    auto gives bodies on NVIDIA (one row on PoCL), f32 or the image's integer type."""
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
    spec.cols_per_item = cols
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
