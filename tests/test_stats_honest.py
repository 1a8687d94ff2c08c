"""Stats agree with what `show` reads, or refuse as it does: damaged and hand-edited files.

Each file is built with the library, then damaged by hand, byte by byte. The installed
`zerda` runs in a subprocess: `stats --json`, `sessions --json` and `show --json` must
give the same numbers, or `stats` and `show` must both refuse with the same one error
line (exit 1) while `sessions` skips the session with one warning line. A lenient store
counts exactly the messages its `get_memory` returns.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_runner import process

from zerda import Message, SessionStore, ZerdaWarning
from zerda.messages import ANSWER, ASK, turn_part
from zerda.store._tally import SEAL, seal

Damage = Callable[[list[bytes]], list[bytes]]


def build(home: Path) -> Path:
    """Session `s`: a system prompt, turns, a summary, uncounted messages, then counted."""
    store = SessionStore(home, fsync=False)
    store.add_message("s", Message("system", "Answer briefly."))
    for n in range(4):
        store.append_turn("s", f"question {n} ünï", f"answer {n} " * (n + 1))
    store.set_summary("s", "four questions")
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    lazy.append_turn("s", "late question", "late answer")
    store.session_stats("s")  # counts the late turn: a `tokens` record
    store.append_turn("s", "last question", "last answer")
    return home / "sessions" / "s.jsonl"


def numbers(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What stats must say about the messages `show --json` lists."""
    turns, chars, after_user = 0, 0, False
    for m in messages:
        part = turn_part(m["role_type"], m.get("extra"))
        if part == ASK:
            turns, after_user = turns + 1, True
        elif part == ANSWER:
            turns, after_user = turns + (0 if after_user else 1), False
        chars += len(m["content"]) if part in (ASK, ANSWER) else 0
    return {
        "messages": len(messages),
        "turn_count": turns,
        "total_characters": chars,
        "token_count": sum(m["token_count"] or 0 for m in messages),
        "first_activity": messages[0]["created_at"] if messages else None,
        "last_activity": messages[-1]["created_at"] if messages else None,
    }


def errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def assert_agree(home: Path) -> bool:
    """stats, sessions and show agree on session `s`; True when show read it."""
    show, stats = process(home, "show", "s", "--json"), process(home, "stats", "s", "--json")
    listed = process(home, "sessions", "--json")
    assert listed.code == 0, listed.err
    rows = {row["session_id"]: row for row in json.loads(listed.out)}
    if show.code == 0:
        want = numbers(json.loads(show.out)["messages"])
        assert stats.code == 0, stats.err
        got = json.loads(stats.out)
        assert {k: got[k] for k in want} == want
        assert {k: rows["s"][k] for k in want} == want
        return True
    assert show.code == stats.code == 1
    assert len(errors(show.err)) == 1 and errors(show.err) == errors(stats.err)
    assert stats.out == ""
    assert "s" not in rows
    skipped = [line for line in listed.err.splitlines() if "skipped session s:" in line]
    assert len(skipped) == 1 and skipped[0].startswith("warning: ")
    return False


def assert_lenient_agrees(home: Path) -> None:
    lenient = SessionStore(home, fsync=False, lenient=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)
        messages = lenient.get_memory("s").messages
        stats = lenient.session_stats("s")
    assert stats.messages == len(messages)
    assert stats.token_count == sum(m.token_count or 0 for m in messages)


def edit(index: int, old: bytes, new: bytes) -> Damage:
    def damage(lines: list[bytes]) -> list[bytes]:
        assert old in lines[index], lines[index]
        lines[index] = lines[index].replace(old, new, 1)
        return lines

    return damage


def insert(index: int, line: bytes) -> Damage:
    return lambda lines: [*lines[:index], line, *lines[index:]]


# Damage that `show` reports: stats must refuse too.
REFUSED: dict[str, Damage] = {
    "garbage line in the middle": insert(4, b"not json at all\n"),
    "broken JSON in the middle": edit(2, b'"role":"user"', b'"role":"user",,'),
    "content of the wrong type": edit(
        2, b'"content":"question 0 \xc3\xbcn\xc3\xaf"', b'"content":5'
    ),
    "bad UTF-8 in the middle": edit(4, b"question 1", b"question \xff\xfe"),
    "unknown record type": insert(6, b'{"type":"gossip"}\n'),
    "tokens record of the wrong shape": insert(6, b'{"type":"tokens","counts":[1,2]}\n'),
    "message without a time": edit(4, b'"created_at":"', b'"created":"'),
    "header of a future version": edit(0, b'"version":2', b'"version":9'),
    "damaged header": edit(0, b'{"type":"session"', b'{"type":"sessio'),
    "damaged last line": lambda lines: [*lines[:-1], lines[-1][:40] + b"\n"],
    "last line of the wrong type": lambda lines: [*lines[:-1], b"[1, 2, 3]\n"],
}

# Changes `show` reads through: stats must give its numbers.
READ: dict[str, Damage] = {
    "tally count edited": edit(-1, b'"messages":13,', b'"messages":14,'),
    "tally characters edited": edit(-1, b'"chars":', b'"chars":1'),
    "tally tokens zeroed": lambda lines: [
        *lines[:-1],
        re.sub(rb'"tokens":[0-9]+', b'"tokens":0', lines[-1]),
    ],
    "seal removed": lambda lines: [
        *lines[:-1],
        lines[-1][: lines[-1].rindex(SEAL)] + b"}}\n",
    ],
    "last message's content edited": edit(-1, b"last answer", b"last answer, longer"),
    "a middle message removed": lambda lines: lines[:3] + lines[4:],
    "a middle message duplicated": lambda lines: [*lines[:4], lines[3], *lines[4:]],
    "a message's text edited": edit(4, b"question 1", b"question one, edited"),
    "blank lines added": lambda lines: [*lines[:3], b"\n", b"   \n", *lines[3:], b"\n"],
    "the last write cut off": lambda lines: lines[:-2],
    "torn last line": lambda lines: [*lines[:-1], lines[-1][:30]],
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_stats_refuse_what_show_refuses(home: Path, name: str) -> None:
    path = build(home)
    path.write_bytes(b"".join(REFUSED[name](path.read_bytes().splitlines(keepends=True))))
    assert assert_agree(home) is False
    assert_lenient_agrees(home)


@pytest.mark.parametrize("name", list(READ))
def test_stats_give_what_show_reads(home: Path, name: str) -> None:
    path = build(home)
    path.write_bytes(b"".join(READ[name](path.read_bytes().splitlines(keepends=True))))
    assert assert_agree(home) is True
    assert_lenient_agrees(home)


def tally_line(path: Path) -> tuple[int, dict[str, Any]]:
    lines = path.read_bytes().splitlines(keepends=True)
    return len(b"".join(lines[:-1])), json.loads(lines[-1])


def resealed(path: Path, **changes: Any) -> None:
    """The last line's tally changed and sealed again, as only a writer could."""
    at, record = tally_line(path)
    record["tally"].pop("seal")
    record["tally"].update(changes)
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    path.write_bytes(path.read_bytes()[:at] + seal(line))


IMPLAUSIBLE = [
    {"turns": 20},
    {"pending": 20},
    {"system": 13},
    {"first": "yesterday"},
    {"last": None},
    {"last": "2020-01-01T00:00:00.000000Z"},
    {"at": 1},
    {"messages": 1_000_000},
    {"chars": 10_000_000},
    {"after_user": True},
    {"after_user": 1},
    {"tokens": 0},
    {"messages": "13"},
    {"messages": 0, "turns": 0, "chars": 0, "tokens": 0, "system": 0},
]


@pytest.mark.parametrize("changes", IMPLAUSIBLE)
def test_a_sealed_tally_that_does_not_hold_together_is_not_trusted(
    home: Path, changes: dict[str, Any]
) -> None:
    path = build(home)
    resealed(path)  # sealed again unchanged: still trusted
    store = SessionStore(home, fsync=False)
    assert store._last_tally("s") is not None
    resealed(path, **changes)
    assert store._last_tally("s") is None
    assert assert_agree(home) is True


def test_an_intact_file_is_counted_from_its_last_line(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(home)
    store = SessionStore(home, fsync=False)

    def no_reading(*args: object) -> None:
        raise AssertionError("the messages were read")

    monkeypatch.setattr(SessionStore, "iter_messages", no_reading)
    assert store.session_stats("s").messages == 13
    assert [s.messages for s in store.list_sessions()] == [13]


def test_a_hand_edited_tally_is_not_carried_forward(home: Path) -> None:
    path = build(home)
    path.write_bytes(b"".join(READ["tally count edited"](path.read_bytes().splitlines(True))))
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "after the edit", "still counted right")
    _, record = tally_line(path)
    assert record["tally"]["messages"] == 15
    assert store._last_tally("s") is not None  # counted afresh and sealed: trusted again
    assert assert_agree(home) is True


def test_a_write_after_damage_carries_no_tally(home: Path) -> None:
    path = build(home)
    path.write_bytes(
        b"".join(REFUSED["garbage line in the middle"](path.read_bytes().splitlines(True)))
    )
    SessionStore(home, fsync=False).append_turn("s", "after the damage", "reply")
    _, record = tally_line(path)
    assert "tally" not in record
    assert assert_agree(home) is False
    SessionStore(home, fsync=False).append_turn("s", "and again", "reply")  # stays without
    assert "tally" not in tally_line(path)[1]
