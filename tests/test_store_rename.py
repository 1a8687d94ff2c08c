"""Renaming session files: one rename(2), the bytes as they were (damaged lines too), side
files along, no lock file left behind, the id taken from the file's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from zerda import CorruptSessionError, SessionExistsError, SessionStore


def test_a_damaged_session_is_renamed_byte_for_byte(store: SessionStore) -> None:
    store.append_turn("old", "q", "a")
    path = store.sessions_dir / "old.jsonl"
    damaged = path.read_bytes() + b"not json\n"
    path.write_bytes(damaged)
    side = store.sessions_dir / "old.jsonl.damaged-20261201T120000123456Z"
    side.write_bytes(b"saved line\n")
    store.rename_session("old", "new")
    assert (store.sessions_dir / "new.jsonl").read_bytes() == damaged
    assert (store.sessions_dir / "new.jsonl.damaged-20261201T120000123456Z").read_bytes() == (
        b"saved line\n"
    )
    assert sorted(p.name for p in store.sessions_dir.iterdir()) == [
        ".new.lock",
        "new.jsonl",
        "new.jsonl.damaged-20261201T120000123456Z",
    ]
    with pytest.raises(CorruptSessionError):
        store.get_memory("new")


def test_a_file_that_never_held_a_session_is_no_obstacle(store: SessionStore) -> None:
    store.append_turn("old", "q", "a")
    (store.sessions_dir / "new.jsonl").write_bytes(b"")
    store.rename_session("old", "new")
    assert store.session_ids() == ["new"]
    assert [m.content for m in store.iter_messages("new")] == ["q", "a"]


def test_a_taken_id_leaves_both_files_as_they_were(store: SessionStore, home: Path) -> None:
    store.append_turn("a", "q", "a")
    store.append_turn("b", "q", "a")
    before = {p.name: p.read_bytes() for p in store.sessions_dir.glob("*.jsonl")}
    with pytest.raises(SessionExistsError):
        store.rename_session("a", "b")
    assert {p.name: p.read_bytes() for p in store.sessions_dir.glob("*.jsonl")} == before
