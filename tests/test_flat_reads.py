"""Reads that must not hold a session in memory, and listings that pass over sessions
that do not exist: streamed search, folded contexts, line numbers counted in blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zerda import SessionStore

ZERDA = str(Path(sys.executable).parent / "zerda")


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZERDA_DEBUG"}
    env["ZERDA_HOME"] = str(home)
    return subprocess.run(
        [ZERDA, *args], capture_output=True, env=env, text=True, timeout=60, check=False
    )


def unfinished_first_write(store: SessionStore, session_id: str) -> None:
    """A session file holding only the start of its first write (a writer killed in it)."""
    store.sessions_dir.mkdir(parents=True, exist_ok=True)
    (store.sessions_dir / f"{session_id}.jsonl").write_bytes(b'{"type":"session","version":2')


def test_a_session_with_only_an_unfinished_first_write_is_not_listed(store: SessionStore) -> None:
    store.append_turn("a", "find me", "found")
    unfinished_first_write(store, "b")
    store.append_turn("c", "find me too", "found")
    assert store.session_ids() == ["a", "c"]
    assert [sid for sid, _ in store.search("find me")] == ["a", "c"]
    assert [s.session_id for s in store.list_sessions()] == ["c", "a"]
    found = run(store.home, "search", "find me", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["session_id"] for hit in json.loads(found.stdout)] == ["a", "c"]
    listed = run(store.home, "sessions", "--json")
    assert listed.returncode == 0 and listed.stderr == ""
    assert [row["session_id"] for row in json.loads(listed.stdout)] == ["c", "a"]


def test_a_session_deleted_during_a_search_is_passed_over(store: SessionStore) -> None:
    for sid in "abc":
        store.append_turn(sid, f"needle in {sid}", "reply")
    hits = store.search("needle")
    assert next(hits)[0] == "a"  # b and c are listed, not yet opened
    store.delete_session("b")
    assert [sid for sid, _ in hits] == ["c"]


def test_a_session_asked_for_by_name_must_exist(store: SessionStore) -> None:
    store.append_turn("a", "needle", "reply")
    unfinished_first_write(store, "b")
    result = run(store.home, "search", "needle", "--session", "b")
    assert result.returncode == 1
    assert result.stderr == "error: session not found: b\n"
