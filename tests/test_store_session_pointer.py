"""Session facts in two lines: the header and the latest update the last record points to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zerda import CorruptSessionError, SessionStore


def lines(store: SessionStore) -> list[bytes]:
    return (store.sessions_dir / "s.jsonl").read_bytes().splitlines(keepends=True)


def write(store: SessionStore, records: list[bytes]) -> None:
    (store.sessions_dir / "s.jsonl").write_bytes(b"".join(records))


def test_updates_merge_field_by_field(store: SessionStore) -> None:
    store.create_session("s", user_id="ada", metadata={"topic": "engines"})
    store.append_turn("s", "q", "a")
    store.create_session("s", metadata={"topic": "looms"})
    store.append_turn("s", "q2", "a2")
    store.create_session("s", user_id="babbage")
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("babbage", {"topic": "looms"})


def test_facts_are_read_without_the_middle_of_the_file(store: SessionStore) -> None:
    store.create_session("s", user_id="ada")
    for n in range(20):
        store.append_turn("s", f"question {n}", f"answer {n}")
    store.create_session("s", metadata={"k": "v"})
    store.append_turn("s", "last", "reply")
    records = lines(store)
    records[10] = b"{damaged\n"  # a strict scan would stop here
    write(store, records)
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("ada", {"k": "v"})
    with pytest.raises(CorruptSessionError):
        list(store.iter_messages("s"))  # the damage is real: a scan does trip on it


def test_files_without_the_pointer_are_scanned(store: SessionStore) -> None:
    store.create_session("s", user_id="ada")
    store.append_turn("s", "q", "a")
    store.create_session("s", metadata={"k": "v"})
    store.append_turn("s", "q2", "a2")
    stripped = []
    for line in lines(store):
        record = json.loads(line)
        record.pop("session_at", None)
        stripped.append(json.dumps(record).encode() + b"\n")
    write(store, stripped)
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("ada", {"k": "v"})


def test_a_pointer_that_misses_falls_back_to_a_scan_backwards(store: SessionStore) -> None:
    store.create_session("s", user_id="ada")
    store.append_turn("s", "q", "a")
    records = lines(store)
    last = json.loads(records[-1])
    last["session_at"] = 0  # the header, not an update
    records[-1] = json.dumps(last).encode() + b"\n"
    write(store, records)
    assert store.get_session("s").user_id == "ada"


def test_new_sessions_carry_the_pointer(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "q", "a")
    assert json.loads(lines(store)[-1])["session_at"] is None
    assert store.get_session("s").user_id is None
