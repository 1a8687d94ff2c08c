"""`--lenient` on the reading commands, run as a real process: what can be read of a
damaged session, and one warning saying how many lines were skipped; `zerda delete`
on a damaged session."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import process

from zerda import SessionStore

WARNING = (
    "warning: --lenient skipped 2 damaged lines (s.jsonl lines 3, 6); "
    "zerda doctor --repair saves them aside and repairs the file\n"
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
    strict = process(home, *args)
    assert strict.code == (2 if args[0] == "search" else 1)  # search: grep's trouble
    assert strict.err.startswith(f"error: {damaged}: line ") and strict.one_error_line()
    lenient = process(home, *args, "--lenient")
    assert lenient.code == 0 and lenient.err == WARNING
    assert damaged.read_bytes() == before


def test_lenient_shows_every_readable_message(home: Path, damaged: Path) -> None:
    shown = process(home, "show", "s", "--lenient", "--jsonl").out
    for text in ("Where is Rome?", "In Italy.", "And Paris?", "the garbage city"):
        assert text in shown
    assert 'content": 5' not in shown
    assert process(home, "stats", "s", "--lenient", "--json").out.count('"messages": 4') == 1


def test_lenient_on_a_healthy_session_says_nothing(home: Path) -> None:
    SessionStore(home).append_turn("s", "q", "a")
    done = process(home, "show", "s", "--lenient")
    assert done.code == 0 and done.err == ""


def test_delete_of_a_damaged_session_counts_what_can_be_read(home: Path, damaged: Path) -> None:
    refused = process(home, "delete", "s")
    assert refused.code == 1 and "pass --yes" in refused.err and damaged.exists()
    done = process(home, "delete", "s", "--yes")
    assert done.code == 0 and done.err == "deleted session s\n"
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
    done = process(home, *args, "--lenient")
    assert done.code == 0, done.err
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before
