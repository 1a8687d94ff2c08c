"""Store edge cases: racing creators, text that cannot be stored, other sessions' temp files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zerda import InvalidMessageError, Message, SessionStore

CREATOR = """
import sys
from zerda import SessionStore
SessionStore(sys.argv[1], fsync=False).create_session("s", user_id=sys.argv[2])
"""


def test_racing_creators_each_leave_their_facts(home: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", CREATOR, str(home), f"user{n}"]) for n in range(6)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    records = [
        json.loads(line) for line in (home / "sessions" / "s.jsonl").read_text().splitlines()
    ]
    kinds = [r["type"] for r in records]
    assert kinds.count("session") == 1 and kinds[0] == "session"
    assert kinds.count("session_update") == 5
    users = {records[0]["user_id"]} | {r["user_id"] for r in records[1:]}
    assert users == {f"user{n}" for n in range(6)}


@pytest.mark.parametrize(
    "message",
    [Message("user", "lone \udcff surrogate"), Message("user", "ok", {"not json": object()})],
)
def test_unstorable_message_is_refused_before_any_file(home: Path, message: Message) -> None:
    store = SessionStore(home, fsync=False)
    with pytest.raises(InvalidMessageError):
        store.add_message("s", message)
    assert not store.exists("s")
    store.append_turn("t", "q", "a")
    before = (home / "sessions" / "t.jsonl").read_bytes()
    with pytest.raises(InvalidMessageError):
        store.add_message("t", message)
    assert (home / "sessions" / "t.jsonl").read_bytes() == before


def test_a_rewrite_leaves_other_sessions_temp_files_alone(store: SessionStore) -> None:
    store.append_turn("a", "q", "a")
    store.append_turn("a.jsonl.x", "q", "a")
    theirs = store.sessions_dir / ".a.jsonl.x.jsonl.4242.tmp"
    theirs.write_text("in progress")
    stale = store.sessions_dir / ".a.jsonl.4242.tmp"
    stale.write_text("left by a crash")
    store.compact("a")
    assert theirs.exists()
    assert not stale.exists()


def test_clear_counts_no_tokens(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    for n in range(20):
        lazy.append_turn("s", f"question {n}", f"answer {n}")
    lazy.create_session("s", user_id="ada")

    def no_counting(*args: object) -> int:
        raise AssertionError("clear counted tokens of messages it throws away")

    monkeypatch.setattr("zerda.store.files._store.count_tokens", no_counting)
    store = SessionStore(home, fsync=False)
    store.clear("s")
    assert store.message_count("s") == 0
    assert store.get_session("s").user_id == "ada"
