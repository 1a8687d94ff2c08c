"""Importing the library pulls in none of the terminal stack."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("typer", "rich", "prompt_toolkit", "click")


@pytest.mark.parametrize("module", ["zerda", "zerda.memory", "zerda.store"])
def test_library_import_is_light(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "import zerda\n"
        "from zerda.memory import ConversationBufferMemory\n"
        "m = ConversationBufferMemory(); m.save_context({'input': 'a'}, {'output': 'b'})\n"
        f"print(' '.join(sorted(n for n in {HEAVY!r} if n in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_the_check_can_see_a_heavy_import() -> None:
    code = f"import sys, rich\nprint([n for n in {HEAVY!r} if n in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert "rich" in result.stdout
