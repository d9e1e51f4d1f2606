"""build_backend.py — the PEP 517 backend that `pip install ./python` runs: a wheel of the clstencil
package, with the C library of the checkout's build/ beside it when there is one (the package
looks next to itself first). It needs nothing beyond the standard library, so pip's isolated
build works offline: a backend such as setuptools would have to come from an index first.
The project's name, version, summary and dependencies are pyproject.toml's [project] table.
"""
from __future__ import annotations

import base64
import hashlib
import os
import sysconfig
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "clstencil"
LIBRARY = HERE.parent / "build" / "libclstencil.so"  # quickstart.sh's build


def _project() -> dict:
    with open(HERE / "pyproject.toml", "rb") as text:
        return tomllib.load(text)["project"]


def _metadata(project: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {dependency}" for dependency in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _files() -> list[tuple[str, Path]]:
    """(name in the wheel, file) of the package's modules (its subpackages' too), and the library
    when it is built."""
    files = [(f"clstencil/{path.relative_to(PACKAGE).as_posix()}", path) for path in sorted(PACKAGE.rglob("*.py"))]
    if LIBRARY.is_file():
        files.append(("clstencil/libclstencil.so", LIBRARY.resolve()))
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    files = _files()
    with_library = any(name.endswith(".so") for name, _ in files)
    # A wheel with the library runs on this platform only; without it, on any.
    tag = "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_") if with_library else "py3-none-any"
    name = f"{project['name']}-{project['version']}"
    info = f"{name}.dist-info"
    wheel = (f"Wheel-Version: 1.0\nGenerator: clstencil build_backend.py\n"
             f"Root-Is-Purelib: {'false' if with_library else 'true'}\nTag: {tag}\n")
    entries = [(entry, path.read_bytes()) for entry, path in files]
    entries += [(f"{info}/METADATA", _metadata(project).encode()), (f"{info}/WHEEL", wheel.encode())]
    record = [_record_line(entry, data) for entry, data in entries] + [f"{info}/RECORD,,"]
    filename = f"{name}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as archive:
        for entry, data in entries:
            archive.writestr(entry, data)
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return filename
