"""--since, --until and --older-than are parsed by zerda_cli.spans directly: a bad value is
a usage error naming the option, and no command imports pydantic for them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECK = """
import sys
from zerda_cli.__main__ import main
code = main(sys.argv[1:])
print(code, "pydantic" in sys.modules)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["sessions", "--since", "7d", "--until", "2026-11-30"],
        ["show", "s", "--since", "12h"],
        ["prune", "--older-than", "30d", "--dry-run"],
    ],
)
def test_time_options_need_no_pydantic(home: Path, args: list[str]) -> None:
    from zerda import SessionStore

    SessionStore(home, fsync=False).append_turn("s", "q", "a")
    done = subprocess.run(
        [sys.executable, "-c", CHECK, *args], capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == "0 False", done.stderr


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["sessions", "--until", "2026-02-30"], "--until"),
        (["prune", "--older-than", "1y", "--yes"], "--older-than"),
    ],
)
def test_a_bad_time_names_its_option(home: Path, args: list[str], option: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "zerda_cli", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"error: Invalid value for '{option}'")
