"""`pip install ./python` the usual way: into a virtual environment that sees Debian's numpy, with
pip's isolated build (build_backend.py needs nothing from an index), and the installed package,
not the checkout's, filters an image; the wheel carries the checkout's build/ library when there is
one and is pure Python otherwise."""
from __future__ import annotations

import re
import subprocess
import sys
import zipfile

from conftest import PACKAGE_ROOT, REPOSITORY_ROOT, python_environment

import build_backend  # noqa: E402  (python/ is on sys.path: conftest)


def test_pip_installs_the_package_into_a_virtual_environment(tmp_path) -> None:
    environment = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(environment)], check=True)
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(PACKAGE_ROOT)], check=True,
                   capture_output=True, cwd=tmp_path)
    # The installed package: no PYTHONPATH to the checkout; the library as the test run gives it.
    child = python_environment()
    del child["PYTHONPATH"]
    script = ("import numpy, clstencil\n"
              "from clstencil import ndimage\n"
              "out = clstencil.filter(numpy.ones((9, 7), numpy.float32), 'box:3')\n"
              "assert abs(float(out.sum()) - 63) < 1e-3, out\n"
              "assert float(ndimage.uniform_filter(numpy.ones((9, 7), numpy.float32), 3).sum()) == 63\n"
              "print(clstencil.__file__)\n")
    run = subprocess.run([str(python), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path,
                         env=child)
    assert run.stdout.strip().startswith(str(environment)), run.stdout


def test_the_package_has_the_library_s_version() -> None:
    cmake = (REPOSITORY_ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    assert re.search(r"project\(clstencil VERSION ([0-9.]+)", cmake).group(1) == build_backend._project()["version"]


def test_the_wheel_holds_the_modules_and_the_built_library_if_any(tmp_path) -> None:
    name = build_backend.build_wheel(str(tmp_path))
    version = build_backend._project()["version"]
    with zipfile.ZipFile(tmp_path / name) as wheel:
        names = set(wheel.namelist())
        record = wheel.read(f"clstencil-{version}.dist-info/RECORD").decode()
    package = PACKAGE_ROOT / "clstencil"
    modules = {f"clstencil/{path.relative_to(package).as_posix()}" for path in package.rglob("*.py")}
    assert "clstencil/ndimage/__init__.py" in modules
    assert modules <= names
    assert all(entry in record for entry in modules)
    if build_backend.LIBRARY.is_file():
        assert "clstencil/libclstencil.so" in names and not name.endswith("-any.whl")
    else:
        assert not any(n.endswith(".so") for n in names) and name.endswith("-py3-none-any.whl")
