"""`zerda doctor` on session files, run as a real process: every kind of damage is
reported (with line numbers) and `--repair` keeps every readable message, saving the
damaged lines aside byte for byte."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_runner import process

from zerda import SessionStore
from zerda.store._tally import SEAL
from zerda.store.files._sessionfile import NOTE


def readable(home: Path, sid: str = "s") -> list[dict[str, object]]:
    """The messages a lenient read finds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [m.to_dict() for m in SessionStore(home, lenient=True).iter_messages(sid)]


@pytest.fixture
def session(home: Path) -> Path:
    store = SessionStore(home, fsync=False)
    for i in range(3):
        store.append_turn("s", f"question {i}", f"answer {i}")
    store.append_turn("t", "other", "session")
    return home / "sessions" / "s.jsonl"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def write_lines(path: Path, lines: list[bytes], tail: bytes = b"") -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)


def torn(path: Path) -> bytes:
    tail = b'{"type":"message","role":"user","cont'
    write_lines(path, lines_of(path), tail)
    return tail + b"\n"


def garbage(path: Path) -> bytes:
    lines = lines_of(path)
    write_lines(path, [*lines[:3], b"garbage {{{ not json", *lines[3:]])
    return b"garbage {{{ not json\n"


def bad_types(path: Path) -> bytes:
    lines = lines_of(path)
    record = json.loads(lines[2])
    record["content"] = 42
    bad = json.dumps(record).encode()
    write_lines(path, [*lines[:2], bad, *lines[3:]])
    return bad + b"\n"


def unsealed(path: Path) -> bytes:
    lines = lines_of(path)
    lines[-1] = lines[-1][: lines[-1].rfind(SEAL)] + b"}}"
    write_lines(path, lines)
    return b""


def no_totals(path: Path) -> bytes:
    lines = lines_of(path)
    record = json.loads(lines[-1])
    del record["tally"]
    write_lines(path, [*lines[:-1], json.dumps(record).encode()])
    return b""


def unfinished(path: Path) -> bytes:
    size = path.stat().st_size
    half = b'{"type":"message","role":"user","content":"half a wri'
    with path.open("ab") as handle:
        handle.write(b'{"type":"message"}\n' + half)
    (path.parent / ".s.lock").write_bytes(NOTE % size)
    return b'{"type":"message"}\n' + half + b"\n"


def stray_temp(path: Path) -> bytes:
    (path.parent / ".s.jsonl.99999999.tmp").write_bytes(b"half a rewrite")
    return b""


def hard_link(path: Path) -> bytes:
    os.link(path, path.parent.parent / "elsewhere")
    return b""


def wrong_mode(path: Path) -> bytes:
    path.chmod(0o644)
    return b""


DAMAGE: dict[str, tuple[Callable[[Path], bytes], str]] = {
    "torn": (torn, ":8: torn last line"),
    "garbage": (garbage, ":4: damaged line: not valid JSON"),
    "bad-types": (bad_types, ":3: damaged line"),
    "unsealed": (unsealed, "running totals are not sealed"),
    "no-totals": (no_totals, "no running totals on the last line"),
    "unfinished": (unfinished, "an unfinished write (72 bytes) left by a process that died"),
    "stray-temp": (stray_temp, ".s.jsonl.99999999.tmp: stray temp file"),
    "hard-link": (hard_link, "has 2 hard links"),
    "wrong-mode": (wrong_mode, "mode 0644, not 0600"),
}


def side_bytes(sessions: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(sessions.glob("s.jsonl.*")))


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_repair_keeps_every_readable_message_and_saves_damaged_lines(
    home: Path, session: Path, kind: str
) -> None:
    damage, finding = DAMAGE[kind]
    healthy = process(home, "doctor")
    assert healthy.code == 0 and healthy.out == ""
    saved = damage(session)
    before = readable(home)
    checked = process(home, "doctor")
    assert checked.code == 1 and finding in checked.out, checked.out
    assert all(line.startswith(str(home)) for line in checked.out.splitlines())
    assert process(home, "doctor", "t").code == 0  # the other session is fine
    repaired = process(home, "doctor", "--repair")
    assert repaired.code == 0, repaired.out + repaired.err
    assert "repaired: " in repaired.out and "left:" not in repaired.out
    assert [m.to_dict() for m in SessionStore(home).iter_messages("s")] == before
    assert side_bytes(session.parent) == saved
    assert (session.stat().st_mode & 0o777, session.stat().st_nlink) == (0o600, 1)
    assert not list(session.parent.glob(".*.tmp"))
    again = process(home, "doctor")
    assert again.code == 0 and again.out == "", again.out
    assert SessionStore(home).session_stats("s").messages == len(before)


def test_every_finding_at_once_one_line_each(home: Path, session: Path) -> None:
    saved = garbage(session)
    wrong_mode(session)
    stray_temp(session)
    (session.parent / ".gone.lock").write_bytes(b"")
    out = process(home, "doctor").out.splitlines()
    assert out == [
        f"{session}: mode 0644, not 0600",
        f"{session}:4: damaged line: not valid JSON (JSONDecodeError)",
        f"{session.parent}/.gone.lock: stray lock file beside no session",
        f"{session.parent}/.s.jsonl.99999999.tmp: stray temp file of a rewrite that died",
    ]
    only = process(home, "doctor", "s", "--repair")
    assert only.code == 0 and (session.parent / ".gone.lock").exists()
    assert side_bytes(session.parent) == saved
    assert process(home, "doctor", "--repair").code == 0
    assert not (session.parent / ".gone.lock").exists()


def test_a_temp_file_of_a_rewrite_in_progress_is_left(home: Path, session: Path) -> None:
    stray_temp(session)
    store = SessionStore(home)
    with store._file("s").locked():  # a rewrite holds the lock while its temp file exists
        held = process(home, "doctor", "--repair")
    assert held.code == 0 and (session.parent / ".s.jsonl.99999999.tmp").exists()
    assert process(home, "doctor", "--repair").out.startswith("repaired: ")


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["nope"], 1, "error: session not found: nope\n"),
        (["../x"], 2, "Invalid value for '[SESSION]'"),
        (["s", "--frobnicate"], 2, "No such option: --frobnicate"),
    ],
)
def test_bad_arguments_change_nothing(
    home: Path, session: Path, args: list[str], code: int, says: str
) -> None:
    garbage(session)
    before = session.read_bytes()
    done = process(home, "doctor", "--repair", *args)
    assert done.code == code and says in done.err and done.one_error_line()
    assert session.read_bytes() == before and not side_bytes(session.parent)


def test_checking_totals_keeps_memory_flat_whatever_waits_for_a_count(home: Path) -> None:
    # Messages written without counts (as `zerda add` writes them) wait for a tokens
    # record that may never come: the check counts them as they stream by.
    import tracemalloc

    from zerda import Memory, Message

    store = SessionStore(home, fsync=False, count_on_write=False)
    count = 50_000
    for start in range(0, count, 5_000):
        batch = [Message("user", f"message {n} " + "x" * 40) for n in range(start, start + 5000)]
        store.add_memory("big", Memory(batch))
    tracemalloc.start()
    try:
        assert SessionStore(home).check("big") == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Holding the messages took over 600 bytes each; a block of lines and a hash each remain.
    assert peak < 200 * count, peak
