"""The examples in README.md and docs/*.md run as written and print what they say they print.

Every ```python block runs in a fresh interpreter; when "Output:" and a ```text block follow
it, its stdout must be that text exactly. A ```sh block followed by "Output:" and a ```text
block runs the same way in bash, with the installed `zerda` on PATH (a ```sh block without
one only shows commands). Each runs with ZERDA_HOME and the working directory in a fresh
temporary directory.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
EXAMPLE = re.compile(r"```(python|sh)\n(.*?)```(?:\n\nOutput:\n\n```text\n(.*?)```)?", re.S)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def examples(page: Path) -> list[tuple[str, int, str, str | None]]:
    """(language, line, code, expected output or None) of each example on the page."""
    text = page.read_text()
    found = []
    for match in EXAMPLE.finditer(text):
        language, code, expected = match.groups()
        if language == "python" or expected is not None:
            found.append((language, text.count("\n", 0, match.start()) + 1, code, expected))
    return found


def all_examples() -> list[pytest.ParameterSet]:
    return [
        pytest.param(language, code, expected, id=f"{page.relative_to(ROOT)}:{line}")
        for page in pages()
        for language, line, code, expected in examples(page)
    ]


def test_readme_has_examples_with_outputs() -> None:
    readme = examples(README)
    assert any(lang == "python" and output for lang, _, _, output in readme), "a library example"
    assert any(lang == "sh" and output for lang, _, _, output in readme), "a command example"
    documented = [example for page in pages() for example in examples(page)]
    assert len(documented) >= 13  # as many as README.md and docs/ hold
    assert sum(1 for _, _, _, output in documented if output) >= 12


def test_every_docs_page_is_read_for_examples() -> None:
    names = {page.name for page in pages()}
    for name in ("library.md", "memory.md", "importing.md", "postgresql.md", "serving.md"):
        assert name in names and examples(DOCS / name), name


@pytest.mark.parametrize("language,code,expected", all_examples())
def test_readme_example_runs(
    language: str, code: str, expected: str | None, tmp_path: Path
) -> None:
    env = {
        "ZERDA_HOME": str(tmp_path / "home"),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "NO_COLOR": "1",
    }
    command = (
        [sys.executable, "-c", code]
        if language == "python"
        else ["bash", "-e", "-o", "pipefail", "-c", code]
    )
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert result.returncode == 0, result.stderr
    if expected is not None:
        assert result.stdout == expected
