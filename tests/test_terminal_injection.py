"""Crafted session files cannot drive the terminal or crash `zerda`.

Each file is written byte by byte, as an attacker would, and read by the installed
`zerda` in a subprocess: piped (plain text) and on a pty (Rich). No ESC, BEL or C1
control may reach the output, and every command ends with 0, or 1 and one line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pexpect
import pytest
from cli_runner import ZERDA, Env, environment, process

SGR = re.compile(rb"\x1b\[[0-9;]*m")  # Rich's own styling on a pty
OSC52 = "\x1b]52;c;aGk=\x07"
TITLE = "\x1b]0;pwned\x07"
CSI8 = "\x9b2J"
FIRST = "2025-01-05T10:00:00.000000Z"
LAST = "2025-01-05T10:00:01.000000Z"
PIPED: Env = {"NO_COLOR": None}  # piped runs see no NO_COLOR from the shell


def write_session(
    home: Path, name: str, header: dict[str, Any] | None = None, **tally: Any
) -> None:
    """`<home>/sessions/<name>.jsonl`: a header and one turn whose last line carries a tally."""
    totals = {"messages": 2, "turns": 1, "chars": 10, "tokens": 2, "pending": 0}
    records = [
        {"type": "session", "version": 1, "id": name, "created_at": FIRST, "user_id": None}
        | {"metadata": {}, "encoding": "cl100k_base"}
        | (header or {}),
        {"type": "message", "uuid": "11111111-1111-4111-8111-111111111111", "created_at": FIRST}
        | {"role": "user", "content": "hello", "token_count": 1, "metadata": {}},
        {"type": "message", "uuid": "22222222-2222-4222-8222-222222222222", "created_at": LAST}
        | {"role": "assistant", "content": "world", "token_count": 1, "metadata": {}}
        | {"tally": totals | {"first": FIRST, "last": LAST, "after_user": False} | tally},
    ]
    (home / "sessions").mkdir(parents=True, exist_ok=True)
    lines = (json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (home / "sessions" / f"{name}.jsonl").write_bytes("".join(lines).encode())


def on_pty(home: Path, *args: str, tz: str = "UTC") -> tuple[int, bytes]:
    """Exit status and output of `zerda ARGS` on an 80x24 terminal, Rich's SGR styling removed."""
    env = environment(
        home, {"NO_COLOR": None, "PAGER": None, "LESS": None, "TERM": "xterm-256color", "TZ": tz}
    )
    child = pexpect.spawn(ZERDA, list(args), env=env, dimensions=(24, 80), timeout=30)
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus or 0), SGR.sub(b"", bytes(child.before))


def assert_inert(output: bytes) -> None:
    """No ESC, BEL, CSI/OSC as C1 (raw byte or UTF-8), nor a bare CR."""
    for bad in (b"\x1b", b"\x07", b"\x9b", b"\x9d", "\x9b".encode(), "\x9d".encode()):
        assert bad not in output, (bad, output)
    assert re.search(rb"\r(?!\n)", output) is None, output


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.mark.parametrize(
    "args",
    [
        ("show", "s"),
        ("show", "s", "--format", "text"),
        ("show", "s", "--format", "markdown"),
        ("export", "s", "--format", "text"),
        ("export", "s", "--format", "markdown"),
    ],
)
def test_a_header_id_holding_escapes_is_never_shown(home: Path, args: tuple[str, ...]) -> None:
    # The session's id is its file's name (checked before any path is built).
    write_session(home, "s", {"id": f"s{OSC52}{CSI8}"})
    result = process(home, *args, env=PIPED)
    assert result.code == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    assert b"52;" not in result.stdout and b"2 messages" in result.stdout


def test_session_facts_holding_escapes_are_shown_inert_by_rich(home: Path) -> None:
    write_session(home, "s", {"id": f"s{OSC52}", "metadata": {"k": TITLE}, "user_id": CSI8})
    status, output = on_pty(home, "show", "s")
    assert status == 0, output
    assert_inert(output)
    assert b"Session s  user \\x9b2J" in output and b"k=\\x1b]0;pwned\\x07" in output


@pytest.mark.parametrize("args", [("sessions",), ("stats", "s"), ("stats", "s", "--json")])
def test_tally_times_holding_escapes_are_unknown(home: Path, args: tuple[str, ...]) -> None:
    write_session(home, "s", first=TITLE, last=f"{FIRST}{OSC52}")
    result = process(home, *args, env=PIPED)
    assert result.code == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    assert b"pwned" not in result.stdout and b"52;" not in result.stdout


@pytest.mark.parametrize("args", [("sessions",), ("stats", "s")])
def test_tally_times_holding_escapes_are_unknown_on_a_terminal(
    home: Path, args: tuple[str, ...]
) -> None:
    write_session(home, "s", first=TITLE, last=OSC52)
    status, output = on_pty(home, *args)
    assert status == 0, output
    assert_inert(output)
    assert b"pwned" not in output and b"unexpected" not in output


@pytest.mark.parametrize("bad", ["yesterday", "2025-13-45T99:00:00Z", 17, None, ["x"]])
def test_a_tally_time_that_is_not_iso_is_not_trusted(home: Path, bad: Any) -> None:
    write_session(home, "a", last=bad, first=bad)
    write_session(home, "b")
    listed = process(home, "sessions", env=PIPED)
    assert listed.code == 0, listed.stderr
    rows = listed.out.splitlines()[1:]
    # Neither hand-written tally is sealed: both sessions are counted from their messages.
    assert rows == [f"{name}        2         2       {LAST}  hello" for name in "ab"]
    stats = process(home, "stats", "a", env=PIPED)
    assert stats.code == 0, stats.stderr
    assert f"last_activity     {LAST}\n" in stats.out
    assert process(home, "stats", "a", "--json", env=PIPED).json()["last_activity"] == LAST
    for args in (("sessions",), ("stats", "a")):
        status, output = on_pty(home, *args)
        assert status == 0 and b"unexpected" not in output, output
        assert_inert(output)


def test_a_session_file_named_with_escapes_is_listed_inert(home: Path) -> None:
    write_session(home, f"x{TITLE}")
    result = process(home, "sessions", env=PIPED)
    assert result.code in (0, 1) and b"Traceback" not in result.stderr
    assert_inert(result.stdout + result.stderr)
    if result.code == 1:
        assert result.stderr.count(b"\n") == 1
    status, output = on_pty(home, "sessions")
    assert status in (0, 1) and b"Traceback" not in output
    assert_inert(output)


def test_a_role_holding_escapes_never_reaches_the_terminal(home: Path) -> None:
    write_session(home, "s")
    path = home / "sessions" / "s.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"role": "user"', b'"role": "u\\u001b]0;x\\u0007"'))
    for args in (("show", "s"), ("show", "s", "--format", "markdown"), ("search", "hello")):
        result = process(home, *args, env=PIPED)
        assert result.code in (0, 1, 2) and b"Traceback" not in result.stderr, args
        assert_inert(result.stdout + result.stderr)
        if result.code != 0:  # 1 for show, 2 for search (grep's trouble)
            assert result.stderr.startswith(b"error: ") and result.stderr.count(b"\n") == 1
    for args in (("show", "s"), ("search", "hello")):
        status, output = on_pty(home, *args)
        assert status in (0, 1, 2) and b"Traceback" not in output, args
        assert_inert(output)


def test_a_message_time_at_the_end_of_the_calendar_is_shown(home: Path) -> None:
    write_session(home, "s")
    path = home / "sessions" / "s.jsonl"
    path.write_bytes(path.read_bytes().replace(FIRST.encode(), b"0001-01-01T00:00:00Z"))
    status, output = on_pty(home, "show", "s", tz="America/New_York")
    assert status == 0, output
    assert b"1-01-01 00:00:00 \xe2\x86\x92 2025-01-05" in output  # first -> last


def test_a_title_holding_escapes_is_printed_inert(home: Path) -> None:
    # Imported titles come from other tools' exports.
    write_session(home, "s", {"metadata": {"title": f"t{TITLE}\r{OSC52}{CSI8}\n2"}})
    result = process(home, "title", "s", env=PIPED)
    assert result.code == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    assert result.stdout == b"t\\x1b]0;pwned\\x07\\x0d\\x1b]52;c;aGk=\\x07\\x9b2J 2\n"
