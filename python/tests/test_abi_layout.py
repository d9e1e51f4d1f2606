"""The package's ctypes structures against include/clstencil.h: every struct the package uses
has the header's field names in order, and the size, field offsets and field sizes that a C
compiler gives the header, so a header change not mirrored in clstencil/_structs.py fails here
instead of corrupting memory. The layout comes from a small probe compiled against the real
header (skipped where no C compiler or OpenCL header is installed)."""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPOSITORY_ROOT
from clstencil._structs import HEADER_NAMES

HEADER = REPOSITORY_ROOT / "include" / "clstencil.h"


def header_fields(struct_name: str) -> list[str]:
    """The field names of `typedef struct NAME { ... } NAME;` in the header, in order."""
    source = re.sub(r"/\*.*?\*/", "", HEADER.read_text(encoding="utf-8"), flags=re.DOTALL)
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct_name, struct_name), source,
                     flags=re.DOTALL)
    assert body, f"{struct_name} is not in {HEADER}"
    names = []
    for declaration in body.group(1).split(";"):
        declaration = declaration.strip()
        if not declaration:
            continue
        # "unsigned platform_index, device_index" or "char name[128]" or "const float *c"
        type_and_first, *others = declaration.split(",")
        names.append(re.sub(r"\[.*\]", "", type_and_first).replace("*", " ").split()[-1])
        names += [re.sub(r"\[.*\]", "", other).replace("*", " ").strip() for other in others]
    return names


def probe_source() -> str:
    """C that prints "struct field offset size" per field and "struct - 0 size" per struct."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "clstencil.h"',
             "int main(void) {"]
    for name, structure in HEADER_NAMES.items():
        lines.append(f'printf("{name} - 0 %zu\\n", sizeof({name}));')
        for field, _ in structure._fields_:
            lines.append(f'printf("{name} {field} %zu %zu\\n", offsetof({name}, {field}), '
                         f'sizeof((({name} *)0)->{field}));')
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def header_layout(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[int, int]]:
    """(struct, field) -> (offset, size) as the C compiler lays out the header; field "-" is
    the struct's size."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        pytest.skip("no C compiler to lay out include/clstencil.h")
    folder = tmp_path_factory.mktemp("abi")
    (folder / "probe.c").write_text(probe_source())
    built = subprocess.run([compiler, "-I", str(REPOSITORY_ROOT / "include"), "-o",
                            str(folder / "probe"), str(folder / "probe.c")],
                           capture_output=True, text=True)
    if built.returncode != 0 and "CL/cl.h" in built.stderr:
        pytest.skip("no OpenCL header (CL/cl.h) to compile include/clstencil.h")
    assert built.returncode == 0, built.stderr
    output = subprocess.run([str(folder / "probe")], capture_output=True, text=True, check=True)
    layout = {}
    for line in output.stdout.splitlines():
        struct_name, field, offset, size = line.split()
        layout[(struct_name, field)] = (int(offset), int(size))
    return layout


def test_declared_structs_are_found() -> None:
    assert {"cls_spec", "cls_device_caps", "cls_image_desc", "cls_cache_status"} <= set(HEADER_NAMES)


@pytest.mark.parametrize("name", sorted(HEADER_NAMES))
def test_struct_fields_are_the_header_s(name: str) -> None:
    assert [field for field, _ in HEADER_NAMES[name]._fields_] == header_fields(name)


@pytest.mark.parametrize("name", sorted(HEADER_NAMES))
def test_struct_layout_matches_the_header(header_layout: dict, name: str) -> None:
    structure = HEADER_NAMES[name]
    package_fields = [(field, getattr(structure, field).offset, getattr(structure, field).size)
                      for field, _ in structure._fields_]
    compiled_fields = [(field, *header_layout[(name, field)]) for field, _ in structure._fields_]
    assert package_fields == compiled_fields
    assert ctypes.sizeof(structure) == header_layout[(name, "-")][1]


@pytest.mark.parametrize("name", sorted(HEADER_NAMES))
def test_structures_built_in_python_carry_their_size(name: str) -> None:
    structure = HEADER_NAMES[name]
    assert structure().struct_size == ctypes.sizeof(structure)
    assert structure(struct_size=8).struct_size == 8  # a size given is kept
