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
