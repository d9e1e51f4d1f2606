"""The examples of docs/python.md and the README: every ```python block of a page, in order,
as one script."""
from __future__ import annotations

import re

from conftest import REPOSITORY_ROOT, SANITIZER_PRELOAD

import pytest

PAGE = REPOSITORY_ROOT / "docs" / "python.md"
README = REPOSITORY_ROOT / "README.md"


def python_blocks(page=PAGE) -> list[tuple[int, str]]:
    """(line number, code) of each ```python block of a page."""
    text = page.read_text(encoding="utf-8")
    return [(text[:match.start()].count("\n") + 2, match.group(1))
            for match in re.finditer(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)]


def test_the_page_has_examples() -> None:
    assert len(python_blocks()) >= 10


@pytest.mark.parametrize("page", [PAGE, README], ids=["docs-python", "readme"])
def test_examples_run(page, monkeypatch) -> None:
    if SANITIZER_PRELOAD:  # the examples' dask workers are Python processes that load the library
        monkeypatch.setenv("LD_PRELOAD", SANITIZER_PRELOAD)
    namespace: dict = {"__name__": "examples"}
    for line, code in python_blocks(page):
        # Blank lines up to the block keep the tracebacks' line numbers the page's.
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)


def test_the_readme_example_is_the_quick_start_script() -> None:
    (_, readme_example), = python_blocks(README)
    script = (REPOSITORY_ROOT / "python" / "examples" / "quickstart.py").read_text(encoding="utf-8")
    assert readme_example in script


def test_the_reference_names_every_public_name() -> None:
    import clstencil

    text = PAGE.read_text(encoding="utf-8")
    reference = text[text.index("## Reference"):text.index("## Not there yet")]
    missing = [name for name in clstencil.__all__ if name not in reference]
    for kind in (clstencil.Pipeline, clstencil.Operator):  # methods as .name(, attributes as `name`
        missing += [f"{kind.__name__}.{name}" for name in vars(kind)
                    if not name.startswith("_") and name != "spec_copy"  # the bindings' own
                    and f".{name}(" not in reference and f"`{name}`" not in reference]
    missing += [f"Device.{field}" for field in clstencil.Device.__dataclass_fields__
                if f"`{field}`" not in reference]
    missing += [name for name in ("dask.filter(", "dask.run_pipeline(", "dask.overlap_boundary(",
                                  "opencl.filter(") if name not in reference]
    assert not missing, f"docs/python.md's reference lacks {missing}"
