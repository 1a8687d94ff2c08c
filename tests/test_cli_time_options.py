"""--since, --until and --older-than are parsed by zerda_cli.options.spans directly: a bad value is
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


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["sessions", "--since", "999999d"], "--since"),
        (["show", "s", "--until", "9999-12-31T23:00-05:00"], "--until"),
        (["show", "s", "--since", "0001-01-01T00:00+01:00"], "--since"),
        (["search", "q", "--since", "999999d"], "--since"),
        (["export", "s", "--until", "9999-12-31T23:00-05:00"], "--until"),
        (["prune", "--older-than", "999999d", "--dry-run"], "--older-than"),
        (["prune", "--older-than", "0d", "--dry-run"], "--older-than"),
    ],
)
def test_a_time_past_the_calendar_is_a_usage_error(
    home: Path, args: list[str], option: str
) -> None:
    from zerda import SessionStore

    SessionStore(home, fsync=False).append_turn("s", "q", "a")
    before = sorted((home / "sessions").iterdir())
    done = subprocess.run(
        [sys.executable, "-m", "zerda_cli", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert option in done.stderr and "unexpected" not in done.stderr
    assert sorted((home / "sessions").iterdir()) == before
