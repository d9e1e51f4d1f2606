"""numpy dtypes and the C library's pixel types (cls_pixel_type): f32, u8, u16, i16, f16 and f64
(float64 takes the weighted sums, computed in double)."""
from __future__ import annotations

import numpy as np

# numpy dtype -> cls_pixel_type (CLS_PIXEL_F32, CLS_PIXEL_U8, CLS_PIXEL_U16, CLS_PIXEL_I16,
# CLS_PIXEL_F16, CLS_PIXEL_F64).
PIXEL_TYPES = {np.dtype(np.float32): 0, np.dtype(np.uint8): 1, np.dtype(np.uint16): 2, np.dtype(np.int16): 3,
               np.dtype(np.float16): 4, np.dtype(np.float64): 5}
SUPPORTED_NAMES = "float32, uint8, uint16, int16, float16, float64"


def pixel_type(dtype: np.dtype | type, role: str = "array") -> int:
    """The cls_pixel_type of a dtype; TypeError naming it when the C library has no such type.

    Nothing is converted silently: int32 or int8 images must be converted by the caller
    (e.g. array.astype(numpy.float32)), which keeps the cost and the rounding visible. float64
    images are weighted sums' only (computed in double; other operators refuse them).
    """
    dtype = np.dtype(dtype)
    if dtype.byteorder == ">" or (dtype.byteorder == "=" and not dtype.isnative):
        raise TypeError(f"{role} has the non-native byte order {dtype.str}; convert it with "
                        f"array.astype(array.dtype.newbyteorder('='))")
    native = dtype.newbyteorder("=")
    if native not in PIXEL_TYPES:
        raise TypeError(f"{role} has dtype {dtype.name}, which clstencil does not support; "
                        f"supported: {SUPPORTED_NAMES} (convert explicitly, e.g. "
                        f"array.astype(numpy.float32))")
    return PIXEL_TYPES[native]
