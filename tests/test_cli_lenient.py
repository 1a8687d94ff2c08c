"""`--lenient` on the reading commands, run as a real process: what can be read of a
damaged session, and one warning saying how many lines were skipped; `zerda delete`
on a damaged session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zerda import SessionStore

ZERDA = str(Path(sys.executable).parent / "zerda")
WARNING = (
    "warning: --lenient skipped 2 damaged lines (s.jsonl lines 3, 6); "
    "zerda doctor --repair saves them aside and repairs the file\n"
)


def run(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZERDA_HOME": str(home)}
    env.pop("ZERDA_STORE", None)
    return subprocess.run(
        [ZERDA, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )


@pytest.fixture
def damaged(home: Path) -> Path:
    """Session s with a garbage line and a line of bad types in the middle."""
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "Where is Rome?", "In Italy.")
    store.append_turn("s", "And Paris?", "In France, the garbage city.")
    path = home / "sessions" / "s.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines.insert(2, b"garbage {{{")
    lines.insert(5, b'{"type":"message","role":"user","content":5,"garbage":1}')
    path.write_bytes(b"\n".join(lines))
    return path


READS = [
    ["show", "s"],
    ["export", "s"],
    ["stats", "s"],
    ["search", "garbage"],
    ["window", "s"],
    ["context", "s"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: a[0])
def test_lenient_reads_what_it_can_with_one_warning(
    home: Path, damaged: Path, args: list[str]
) -> None:
    before = damaged.read_bytes()
    strict = run(home, *args)
    assert strict.returncode == (2 if args[0] == "search" else 1)  # search: grep's trouble
    assert strict.stderr.startswith(f"error: {damaged}: line ") and strict.stderr.count("\n") == 1
    lenient = run(home, *args, "--lenient")
    assert lenient.returncode == 0 and lenient.stderr == WARNING
    assert damaged.read_bytes() == before


def test_lenient_shows_every_readable_message(home: Path, damaged: Path) -> None:
    shown = run(home, "show", "s", "--lenient", "--jsonl").stdout
    for text in ("Where is Rome?", "In Italy.", "And Paris?", "the garbage city"):
        assert text in shown
    assert 'content": 5' not in shown
    assert run(home, "stats", "s", "--lenient", "--json").stdout.count('"messages": 4') == 1


def test_lenient_on_a_healthy_session_says_nothing(home: Path) -> None:
    SessionStore(home).append_turn("s", "q", "a")
    done = run(home, "show", "s", "--lenient")
    assert done.returncode == 0 and done.stderr == ""


def test_delete_of_a_damaged_session_counts_what_can_be_read(home: Path, damaged: Path) -> None:
    refused = run(home, "delete", "s")
    assert refused.returncode == 1 and "pass --yes" in refused.stderr and damaged.exists()
    done = run(home, "delete", "s", "--yes")
    assert done.returncode == 0 and done.stderr == "deleted session s\n"
    assert not damaged.exists()


@pytest.mark.parametrize(
    "args", [["show", "s"], ["stats", "s"], ["search", "Paris"]], ids=lambda a: a[0]
)
def test_lenient_never_writes_not_even_counts(home: Path, args: list[str]) -> None:
    # Messages stored without a count, a damaged line and a torn last line: the counts are
    # made in memory, and the torn line is left for doctor --repair to save aside.
    store = SessionStore(home, fsync=False, count_on_write=False)
    store.append_turn("s", "Where is Rome?", "In Italy.")
    store.append_turn("s", "And Paris?", "In France.")
    path = home / "sessions" / "s.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines.insert(2, b"garbage {{{")
    path.write_bytes(b"\n".join(lines) + b'{"type":"message","role":"us')
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
    done = run(home, *args, "--lenient")
    assert done.returncode == 0, done.stderr
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before
