"""`zerda` on a real terminal (pexpect pty): Rich output, neutralised escapes, prompts, paging."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pexpect
from cli_runner import ZERDA

from zerda import SessionStore

# Rich's own styling; anything else starting with ESC would have come from stored text.
SGR = re.compile(rb"\x1b\[[0-9;]*m")
HOSTILE = "A\x1b]52;c;aGk=\x07B\x1b[2JC\x9b31mD\rE [bold red]F[/] \x1b[31mG"


def spawn(home: Path, *args: str, **env: str) -> pexpect.spawn:
    """`zerda ARGS` on an 80x24 pty with ZERDA_HOME=home."""
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PAGER", "LESS")}
    full.update({"ZERDA_HOME": str(home), "TERM": "xterm-256color", **env})
    return pexpect.spawn(ZERDA, list(args), env=full, dimensions=(24, 80), timeout=30)


def output_of(child: pexpect.spawn) -> bytes:
    child.expect(pexpect.EOF)
    child.close()
    return bytes(child.before)


def test_stored_escape_sequences_never_reach_the_terminal(store: SessionStore, home: Path) -> None:
    store.append_turn("s", HOSTILE, "fine")
    for args in (("show", "s"), ("search", "bold"), ("window", "s"), ("context", "s")):
        raw = output_of(spawn(home, *args))
        assert b"\x1b[" in raw, "expected Rich styling on a terminal"
        rest = SGR.sub(b"", raw)
        assert b"\x1b" not in rest and b"\x07" not in rest and "\x9b".encode() not in rest, args
        assert re.search(rb"\r(?!\n)", rest) is None, args
        assert b"[bold red]F[/]" in rest, args
    shown = SGR.sub(b"", output_of(spawn(home, "show", "s")))
    assert b"A\\x1b]52;c;aGk=\\x07B\\x1b[2JC\\x9b31mD\\x0dE" in shown


def test_rich_transcript_tells_roles_apart(store: SessionStore, home: Path) -> None:
    store.append_turn("s", "question text", "answer text")
    screen = SGR.sub(b"", output_of(spawn(home, "show", "s"))).decode()
    assert " user " in screen and " assistant " in screen
    assert "tok" in screen and "2 messages" in screen


def test_no_color_drops_colour(store: SessionStore, home: Path) -> None:
    store.append_turn("s", "question", "answer")
    raw = output_of(spawn(home, "show", "s", NO_COLOR="1"))
    colours = [c for c in re.findall(rb"\x1b\[([0-9;]*)m", raw) if re.search(rb"(^|;)(3|4|9)\d", c)]
    assert colours == []
    assert b"question" in raw


def test_clear_asks_on_a_terminal(store: SessionStore, home: Path) -> None:
    store.append_turn("s", "q", "a")
    child = spawn(home, "clear", "s")
    child.expect(r"Remove both messages of session s\? \[y/N\]")
    child.sendline("n")
    output_of(child)
    assert child.exitstatus == 1 and len(list(store.iter_messages("s"))) == 2
    child = spawn(home, "clear", "s")
    child.expect(r"\[y/N\]")
    child.sendline("y")
    output_of(child)
    assert child.exitstatus == 0 and list(store.iter_messages("s")) == []


def test_long_transcripts_go_through_the_pager(store: SessionStore, home: Path) -> None:
    for n in range(30):
        store.append_turn("long", f"question {n}", f"answer {n}")
    pager = "sh -c 'echo PAGED-BY-TEST; cat >/dev/null'"
    assert b"PAGED-BY-TEST" in output_of(spawn(home, "show", "long", ZERDA_PAGER=pager))
    unpaged = output_of(spawn(home, "show", "long", "--no-pager", ZERDA_PAGER=pager))
    assert b"PAGED-BY-TEST" not in unpaged and b"answer 29" in unpaged
    store.append_turn("short", "q", "a")
    assert b"PAGED-BY-TEST" not in output_of(spawn(home, "show", "short", ZERDA_PAGER=pager))


def test_a_search_without_hits_says_so_once(store: SessionStore, home: Path) -> None:
    store.append_turn("s", "hello", "world")
    screen = SGR.sub(b"", output_of(spawn(home, "search", "absent"))).decode()
    assert screen.strip() == "no messages match 'absent'"
