"""The Python examples in README.md run as written and print what README says they print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
EXAMPLE = re.compile(r"```python\n(.*?)```(?:\n\nOutput:\n\n```text\n(.*?)```)?", re.S)


def examples() -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in EXAMPLE.finditer(README.read_text())]


def test_readme_has_examples_with_outputs() -> None:
    found = examples()
    assert len(found) >= 3
    assert sum(1 for _, output in found if output) >= 3


@pytest.mark.parametrize("code,expected", examples())
def test_readme_example_runs(code: str, expected: str | None, tmp_path: Path) -> None:
    env = {"ZERDA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    if expected is not None:
        assert result.stdout == expected
