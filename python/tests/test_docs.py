"""The examples of docs/python.md: every ```python block, in order, as one script."""
from __future__ import annotations

import re

from conftest import REPOSITORY_ROOT

PAGE = REPOSITORY_ROOT / "docs" / "python.md"


def python_blocks() -> list[tuple[int, str]]:
    """(line number, code) of each ```python block of the page."""
    text = PAGE.read_text()
    return [(text[:match.start()].count("\n") + 2, match.group(1))
            for match in re.finditer(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)]


def test_the_page_has_examples() -> None:
    assert len(python_blocks()) >= 10


def test_examples_run() -> None:
    namespace: dict = {"__name__": "docs_python_md"}
    for line, code in python_blocks():
        # Blank lines up to the block keep the tracebacks' line numbers the page's.
        exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), namespace)
