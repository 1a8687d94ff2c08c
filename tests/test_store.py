"""SessionStore's API: sessions, messages, summaries, token counts, rewrites, search."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from zerda import (
    CorruptSessionError,
    Memory,
    Message,
    NotFoundError,
    Session,
    SessionStore,
    ZerdaWarning,
)
from zerda.messages import Summary
from zerda.tokens import count_tokens


def _text(summary: Summary | None) -> str | None:
    """The text of a stored summary, or None."""
    return summary.content if summary else None


def records(store: SessionStore, session_id: str) -> list[dict[str, Any]]:
    path = store.sessions_dir / f"{session_id}.jsonl"
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def add_turns(store: SessionStore, session_id: str, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        store.append_turn(session_id, f"q{i}", f"a{i}")


def test_home_from_environment(home: Path) -> None:
    store = SessionStore(fsync=False)
    assert store.home == home
    store.append_turn("s", "q", "a")
    assert (home / "sessions" / "s.jsonl").is_file()


def test_home_argument_wins(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    SessionStore(other, fsync=False).append_turn("s", "q", "a")
    assert (other / "sessions" / "s.jsonl").is_file()
    assert not home.exists()


def test_session_created_on_first_write(store: SessionStore) -> None:
    assert not store.exists("s1")
    stored = store.add_memory("s1", Memory([Message("human", "hi"), Message("ai", "hello")]))
    assert store.exists("s1")
    assert [m.role for m in stored] == ["human", "ai"]  # roles as given
    assert [m.role_type for m in stored] == ["user", "assistant"]
    assert all(m.uuid and m.created_at and m.token_count is not None for m in stored)
    first = records(store, "s1")[0]
    assert first["type"] == "session" and first["version"] == 2 and first["id"] == "s1"
    assert first["encoding"] == "cl100k_base"
    assert store.get_memory("s1").messages == stored
    assert store.get_session("s1").id == "s1"


def test_create_and_update_session(store: SessionStore) -> None:
    created = store.create_session("s", user_id="u1", metadata={"a": 1})
    assert (created.user_id, created.metadata) == ("u1", {"a": 1})
    assert created.created_at is not None
    updated = store.create_session("s", metadata={"b": 2})
    assert updated.metadata == {"a": 1, "b": 2}  # merged, as Zep does
    assert updated.user_id == "u1"  # not given: kept
    assert updated.created_at == created.created_at
    assert [r["type"] for r in records(store, "s")] == ["session", "session_update"]
    assert store.get_memory("s").messages == []


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get_memory("nope"),
        lambda s: s.get_memory("nope", lastn=3),
        lambda s: s.get_session("nope"),
        lambda s: list(s.iter_messages("nope")),
        lambda s: s.clear("nope"),
        lambda s: s.delete_session("nope"),
        lambda s: s.delete_last_turn("nope"),
        lambda s: s.session_stats("nope"),
        lambda s: list(s.search("x", session_id="nope")),
    ],
)
def test_unknown_session_raises_not_found(store: SessionStore, call: Any) -> None:
    add_turns(store, "other", 1)
    with pytest.raises(NotFoundError, match="nope"):
        call(store)
    assert not (store.sessions_dir / "nope.jsonl").exists()


def test_iter_messages_streams_in_order(store: SessionStore) -> None:
    add_turns(store, "s", 3)
    contents = [m.content for m in store.iter_messages("s")]
    assert contents == ["q0", "a0", "q1", "a1", "q2", "a2"]


@pytest.mark.parametrize("lastn", [0, 1, 2, 5, 10, 59, 60, 61, 1000])
def test_get_memory_lastn_reads_from_the_end(store: SessionStore, lastn: int) -> None:
    add_turns(store, "s", 30)
    everything = store.get_memory("s").messages
    assert len(everything) == 60
    tail = store.get_memory("s", lastn=lastn).messages
    assert tail == (everything[-lastn:] if lastn else everything)  # 0: all, as get_messages


def test_get_memory_lastn_does_not_read_the_front(store: SessionStore) -> None:
    """Damage near the start is never seen by a read of the last messages."""
    add_turns(store, "s", 20)
    path = store.sessions_dir / "s.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b"{damaged\n"
    path.write_bytes(b"".join(lines))
    tail = store.get_memory("s", lastn=10).messages
    assert [m.content for m in tail][-2:] == ["q19", "a19"]


def test_token_counts_stored_at_write_time(store: SessionStore) -> None:
    store.append_turn("s", "hello world", "The quick brown fox jumps over the lazy dog.")
    counts = [r["token_count"] for r in records(store, "s") if r["type"] == "message"]
    assert counts == [2, 10]


def test_count_on_write_off_counts_once_on_first_read(home: Path) -> None:
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    lazy.append_turn("s", "hello world", "one two three")
    assert [r.get("token_count") for r in records(lazy, "s") if r["type"] == "message"] == [
        None,
        None,
    ]
    first = list(lazy.iter_messages("s"))
    assert [m.token_count for m in first] == [2, count_tokens("one two three")]
    after_first = records(lazy, "s")
    assert [r["type"] for r in after_first].count("tokens") == 1
    tokens = after_first[-1]
    assert tokens["type"] == "tokens"
    assert tokens["counts"] == {m.uuid: m.token_count for m in first}
    assert list(lazy.iter_messages("s")) == first
    assert lazy.get_memory("s", lastn=1).messages == first[-1:]
    assert lazy.session_stats("s").token_count == sum(m.token_count or 0 for m in first)
    assert records(lazy, "s") == after_first  # no recount, nothing appended


def test_count_on_write_off_backward_read_counts_and_records(home: Path) -> None:
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    lazy.append_turn("s", "hello world", "bye")
    tail = lazy.get_memory("s", lastn=2).messages
    assert [m.token_count for m in tail] == [2, 1]
    assert records(lazy, "s")[-1]["type"] == "tokens"
    before = records(lazy, "s")
    assert [m.token_count for m in lazy.iter_messages("s")] == [2, 1]
    assert records(lazy, "s") == before


def test_delete_last_turn(store: SessionStore) -> None:
    add_turns(store, "s", 3)
    store.set_summary("s", "kept summary")
    removed = store.delete_last_turn("s")
    assert [m.content for m in removed] == ["q2", "a2"]
    assert [m.content for m in store.iter_messages("s")] == ["q0", "a0", "q1", "a1"]
    assert _text(store.get_summary("s")) == "kept summary"
    store.add_message("s", Message("user", "unanswered"))
    assert [m.content for m in store.delete_last_turn("s")] == ["unanswered"]
    assert [m.content for m in store.delete_last_turn("s")] == ["q1", "a1"]


def test_delete_last_turn_with_no_user_message(store: SessionStore) -> None:
    store.add_message("s", Message("system", "be brief"))
    assert store.delete_last_turn("s") == []
    assert [m.content for m in store.iter_messages("s")] == ["be brief"]


def test_clear_keeps_the_session(store: SessionStore) -> None:
    store.create_session("s", user_id="u", metadata={"topic": "t"})
    add_turns(store, "s", 3)
    store.set_summary("s", "old")
    store.clear("s")
    assert store.get_memory("s") == Memory(messages=[], summary=None)
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("u", {"topic": "t"})
    assert [r["type"] for r in records(store, "s")] == ["session"]
    add_turns(store, "s", 1)
    assert len(store.get_memory("s").messages) == 2


def test_compact_keeps_everything_that_matters(home: Path) -> None:
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    lazy.create_session("s", user_id="u")
    lazy.create_session("s", metadata={"m": 1})
    add_turns(lazy, "s", 2)
    lazy.set_summary("s", "one")
    lazy.set_summary("s", "two")
    before = lazy.get_memory("s")
    session = lazy.get_session("s")
    lazy.compact("s")
    assert [r["type"] for r in records(lazy, "s")] == ["session"] + ["message"] * 4 + ["summary"]
    assert lazy.get_memory("s") == before
    assert lazy.get_session("s") == session
    assert all(r["token_count"] is not None for r in records(lazy, "s")[1:5])


def test_delete_session(store: SessionStore) -> None:
    add_turns(store, "s", 1)
    store.delete_session("s")
    assert not store.exists("s")
    assert store.session_ids() == []
    assert list(store.sessions_dir.iterdir()) == []
    with pytest.raises(NotFoundError):
        store.get_memory("s")


def test_summary_last_wins(store: SessionStore) -> None:
    add_turns(store, "s", 1)
    assert _text(store.get_summary("s")) is None
    store.set_summary("s", "first")
    add_turns(store, "s", 1)
    store.set_summary("s", "second")
    assert _text(store.get_memory("s").summary) == "second"
    store.add_memory("s", Memory([Message("user", "x")], summary="third"))
    assert _text(store.get_summary("s")) == "third"


def test_search(store: SessionStore) -> None:
    store.append_turn("a", "Where is Rome?", "In Italy.")
    store.append_turn("b", "Paris?", "France, like ROME is Italy")
    hits = [(sid, m.content) for sid, m in store.search("rome")]
    assert hits == [("b", "France, like ROME is Italy"), ("a", "Where is Rome?")]
    assert [sid for sid, _ in store.search("rome", session_id="b")] == ["b"]
    assert list(store.search("nowhere")) == []


def test_list_sessions(store: SessionStore) -> None:
    assert store.list_sessions() == []
    add_turns(store, "old", 2)
    store.append_turn("new", "hello world", "hello world")
    listed = store.list_sessions()
    assert [s.session_id for s in listed] == ["new", "old"]
    new = listed[0]
    assert (new.messages, new.turn_count, new.token_count) == (2, 1, 4)
    assert new.total_characters == 22 and new.estimated_tokens == 5
    assert new.file_size == (store.sessions_dir / "new.jsonl").stat().st_size
    assert new.last_activity is not None and listed[1].last_activity is not None
    assert new.last_activity >= listed[1].last_activity
    assert listed[1].messages == 4


def test_list_sessions_ignores_other_files(store: SessionStore) -> None:
    add_turns(store, "s", 1)
    (store.sessions_dir / "notes.txt").write_text("x")
    (store.sessions_dir / ".hidden.jsonl").write_text("x")
    assert store.session_ids() == ["s"]


def test_metadata_and_unicode_survive(store: SessionStore) -> None:
    text = '日本語 \u2028 tab\t nul\x00 \x1b[31m quote" \\ end'
    store.append_turn("s", text, "ok", metadata={"model": "m", "n": [1, {"x": None}]})
    line = (store.sessions_dir / "s.jsonl").read_bytes().splitlines()[1]
    assert b"\x1b" not in line and b"\x00" not in line
    message = store.get_memory("s").messages[0]
    assert message.content == text
    assert message.metadata == {"model": "m", "n": [1, {"x": None}]}


def test_get_session_for_implicit_session(store: SessionStore) -> None:
    add_turns(store, "s", 1)
    session = store.get_session("s")
    assert session == Session(id="s", user_id=None, metadata={}, created_at=session.created_at)
    assert session.created_at is not None


def test_reads_do_not_warn_on_a_clean_file(store: SessionStore) -> None:
    add_turns(store, "s", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZerdaWarning)
        store.get_memory("s")
        store.get_memory("s", lastn=2)
        store.list_sessions()


def damage_line(path: Path, index: int) -> None:
    """Overwrite one line with garbage of the same length: later offsets stay right."""
    lines = path.read_bytes().splitlines(keepends=True)
    lines[index] = b"{" + b"x" * (len(lines[index]) - 2) + b"\n"
    path.write_bytes(b"".join(lines))
    with pytest.raises(CorruptSessionError):
        list(SessionStore(path.parent.parent).iter_messages(path.stem))


def strip_pointers(path: Path) -> None:
    """Rewrite a file as a writer without summary pointers would have left it."""
    lines = []
    for line in path.read_bytes().splitlines():
        record = json.loads(line)
        record.pop("summary_at", None)
        lines.append(json.dumps(record).encode() + b"\n")
    path.write_bytes(b"".join(lines))


def test_summary_found_without_reading_the_front(store: SessionStore) -> None:
    add_turns(store, "s", 3)
    store.set_summary("s", "the summary")
    add_turns(store, "s", 5, start=3)
    path = store.sessions_dir / "s.jsonl"
    assert records(store, "s")[-1]["summary_at"] == path.read_bytes().index(b'{"type":"summary"')
    damage_line(path, 2)
    memory = store.get_memory("s", lastn=2)
    assert _text(memory.summary) == "the summary"
    assert [m.content for m in memory.messages] == ["q7", "a7"]


def test_stale_summary_pointer_falls_back_to_a_scan(store: SessionStore) -> None:
    add_turns(store, "s", 3)
    store.set_summary("s", "the summary")
    add_turns(store, "s", 2, start=3)
    path = store.sessions_dir / "s.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    del lines[1:3]  # the pointer now lands elsewhere
    path.write_bytes(b"".join(lines))
    assert _text(store.get_summary("s")) == "the summary"


def test_no_summary_found_without_reading_the_front(store: SessionStore) -> None:
    add_turns(store, "s", 5)
    assert records(store, "s")[-1]["summary_at"] is None
    damage_line(store.sessions_dir / "s.jsonl", 2)
    assert store.get_memory("s", lastn=2).summary is None


def test_files_without_summary_pointers_still_read(store: SessionStore) -> None:
    add_turns(store, "s", 2)
    store.set_summary("s", "old one")
    add_turns(store, "s", 2, start=2)
    path = store.sessions_dir / "s.jsonl"
    strip_pointers(path)
    assert _text(store.get_summary("s")) == "old one"
    add_turns(store, "s", 1, start=4)  # the pointer is unknown: the new record carries none
    assert "summary_at" not in records(store, "s")[-1]
    assert _text(store.get_summary("s")) == "old one"
    store.set_summary("s", "new one")
    add_turns(store, "s", 1, start=5)
    assert records(store, "s")[-1]["summary_at"] is not None
    assert _text(store.get_memory("s", lastn=1).summary) == "new one"
    store.compact("s")
    assert _text(store.get_summary("s")) == "new one"


def test_summary_pointer_survives_tokens_records_and_torn_tails(home: Path) -> None:
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    lazy.set_summary("s", "S")
    add_turns(lazy, "s", 2)
    list(lazy.iter_messages("s"))  # appends a tokens record
    assert records(lazy, "s")[-1]["type"] == "tokens"
    path = lazy.sessions_dir / "s.jsonl"
    path.write_bytes(path.read_bytes() + b'{"type":"sum')
    with pytest.warns(ZerdaWarning):
        lazy.append_turn("s", "q", "a")
    assert _text(lazy.get_summary("s")) == "S"
    assert records(lazy, "s")[-1]["summary_at"] == path.read_bytes().index(b'{"type":"summary"')
