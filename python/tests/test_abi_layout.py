"""The package's cffi declarations against include/clstencil.h: every struct the package uses
has the header's size and field offsets, so a header change not mirrored in
clstencil/_declarations.py fails here instead of corrupting memory."""
from __future__ import annotations

import re

import cffi
import pytest

from conftest import REPOSITORY_ROOT
from clstencil._declarations import OPENCL_TYPES, STRUCTS
from clstencil._library import ffi as package_ffi

HEADER = REPOSITORY_ROOT / "include" / "clstencil.h"
STRUCT_NAMES = re.findall(r"\}\s*(cls_\w+);", STRUCTS)


def header_declarations() -> str:
    """The header as cffi can read it: no preprocessor lines, no extern "C" braces, no float
    constants (cffi takes integer #defines only)."""
    kept = []
    for line in HEADER.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and not re.match(r"#define\s+\w+\s+-?\d+\s*(/\*.*)?$", stripped):
            continue
        if stripped in ('extern "C" {', "}") and not line.startswith("}"):
            continue
        kept.append(line)
    text = "\n".join(kept)
    text = re.sub(r'extern "C" \{|^\}\s*$', "", text, flags=re.MULTILINE)
    return OPENCL_TYPES + text


@pytest.fixture(scope="module")
def header_ffi() -> cffi.FFI:
    ffi = cffi.FFI()
    ffi.cdef(header_declarations())
    return ffi


def test_declared_structs_are_found() -> None:
    assert {"cls_spec", "cls_device_caps", "cls_image_desc", "cls_cache_status"} <= set(STRUCT_NAMES)


@pytest.mark.parametrize("name", STRUCT_NAMES)
def test_struct_layout_matches_the_header(header_ffi: cffi.FFI, name: str) -> None:
    header_type = header_ffi.typeof(name)
    package_type = package_ffi.typeof(name)
    header_fields = [(field, header_ffi.offsetof(name, field)) for field, _ in header_type.fields]
    package_fields = [(field, package_ffi.offsetof(name, field)) for field, _ in package_type.fields]
    assert package_fields == header_fields
    assert package_ffi.sizeof(name) == header_ffi.sizeof(name)
