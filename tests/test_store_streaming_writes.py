"""Writes that touch a whole session stream it: rewrites, upserts and `zerda import`.

Memory figures belong in the benchmark; these check what streaming must keep: the new
file is written while the old one is still being read, the last turn is found from the
end, damaged lines a lenient rewrite drops are saved first, a stored lone surrogate is a
damaged line, and an import reads its file twice (check, then write) in one append.
"""

from __future__ import annotations

import json
import stat
import warnings
from pathlib import Path
from typing import Any

import pytest
from cli_runner import process

from zerda import (
    CorruptSessionError,
    Memory,
    Message,
    SessionChangedError,
    SessionStore,
    StorageWriteError,
    ZerdaWarning,
)
from zerda.store._sources import ListSource
from zerda.store.files import _sessionfile as sf
from zerda.store.files._sessionfile import SideFile

SURROGATE_LINE = (
    b'{"type":"message","uuid":"bad-1","created_at":"2025-01-05T10:00:00.000000Z",'
    b'"role":"user","role_type":"user","content":"half \\udc80 a character",'
    b'"token_count":3,"metadata":{}}\n'
)


def path_of(store: SessionStore, session_id: str = "s") -> Path:
    return store.sessions_dir / f"{session_id}.jsonl"


def contents(store: SessionStore, session_id: str = "s") -> list[str]:
    return [m.content for m in store.iter_messages(session_id)]


def add_turns(store: SessionStore, n: int, session_id: str = "s", size: int = 0) -> None:
    pad = "x" * size
    for start in range(0, n, 500):
        pairs = [
            m
            for i in range(start, min(n, start + 500))
            for m in (Message("user", f"q{i}{pad}"), Message("assistant", f"a{i}{pad}"))
        ]
        store.add_memory(session_id, Memory(pairs))


def side_files(store: SessionStore) -> list[Path]:
    return sorted(store.sessions_dir.glob("*.damaged-*"))


def insert_lines(path: Path, at: int, *lines: bytes) -> bytes:
    """Put `lines` before line `at` (1-based) of the file; returns the new content."""
    old = path.read_bytes().splitlines(keepends=True)
    data = b"".join([*old[: at - 1], *lines, *old[at - 1 :]])
    path.write_bytes(data)
    return data


# -- rewrites stream ----------------------------------------------------------------------


def test_a_rewrite_writes_while_it_reads(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_turns(store, 3000, size=400)  # about 3 MiB: several chunks of reading
    events: list[str] = []
    chunks = sf.SessionFile.chunks

    def reading(self: sf.SessionFile) -> Any:
        for found in chunks(self):
            events.append("read")
            yield found

    write = sf.SessionFile._write_all

    def writing(self: sf.SessionFile, fd: int, data: Any) -> None:
        def noted() -> Any:
            for chunk in [data] if isinstance(data, bytes) else data:
                events.append("write")
                yield chunk

        write(self, fd, noted())

    monkeypatch.setattr(sf.SessionFile, "chunks", reading)
    monkeypatch.setattr(sf.SessionFile, "_write_all", writing)
    before = contents(store)
    events.clear()
    store.compact("s")
    assert events.count("read") > 2
    assert events.index("write") < len(events) - 1 - events[::-1].index("read")
    assert contents(store) == before


def test_undo_finds_the_turn_from_the_end_and_keeps_what_came_before(
    store: SessionStore,
) -> None:
    call = {
        "role": "assistant",
        "content": "",
        "extra": {"tool_calls": [{"id": "c", "type": "function"}]},
    }
    messages = [
        Message("system", "Be brief."),
        Message("Alice", "Who is there?"),  # a speaker of no known type asks
        Message("assistant", "Bob."),
        Message("user", "Weather?"),
        Message.from_dict(call),
        Message("tool", "sun", extra={"tool_call_id": "c"}),
        Message("assistant", "Sunny."),
    ]
    store.add_memory("s", Memory(messages, summary="kept"))
    removed = store.delete_last_turn("s")
    assert [m.content for m in removed] == ["Weather?", "", "sun", "Sunny."]
    assert all(m.token_count is not None for m in removed)
    assert contents(store) == ["Be brief.", "Who is there?", "Bob."]
    assert [m.content for m in store.delete_last_turn("s")] == ["Who is there?", "Bob."]
    assert store.delete_last_turn("s") == []  # nothing asks: all stays
    assert contents(store) == ["Be brief."]
    summary = store.get_summary("s")
    assert summary is not None and summary.content == "kept"


def test_retry_on_a_session_that_moved_on_writes_nothing(store: SessionStore) -> None:
    add_turns(store, 50)
    seen = store.get_memory("s", lastn=2).messages[0]
    store.append_turn("s", "q-late", "a-late")
    path = path_of(store)
    before = path.read_bytes()
    with pytest.raises(SessionChangedError):
        store.replace_last_turn("s", "q49", "better", replaces=seen.uuid)
    assert path.read_bytes() == before
    assert sorted(p.name for p in store.sessions_dir.iterdir()) == [".s.lock", "s.jsonl"]
    late = store.get_memory("s", lastn=2).messages[0]
    store.replace_last_turn("s", "q-late", "better", replaces=late.uuid)
    assert contents(store)[-3:] == ["a49", "q-late", "better"]


def test_totals_and_pointers_after_streamed_writes(store: SessionStore) -> None:
    lazy = SessionStore(store.home, fsync=False, count_on_write=False)
    add_turns(lazy, 40)
    store.set_summary("s", "a summary")
    store.update_session("s", user_id="ada")
    for rewrite in (store.compact, store.delete_last_turn):
        rewrite("s")
        stats = store.session_stats("s")
        messages = list(store.iter_messages("s"))
        assert stats.messages == len(messages) and stats.token_count == sum(
            m.token_count or 0 for m in messages
        )
        record = json.loads(path_of(store).read_bytes().splitlines()[-1])
        assert record["type"] == "summary" and record["tally"]["pending"] == 0
        assert store.get_session("s").user_id == "ada"


def test_an_upsert_streams_and_counts_as_it_passes(store: SessionStore) -> None:
    lazy = SessionStore(store.home, fsync=False, count_on_write=False)
    add_turns(lazy, 20)
    old = list(store.iter_messages("s"))
    new = Message("user", "q3 again", uuid=old[6].uuid)
    fresh = Message("user", "brand new")
    stored = store.add_memory("s", Memory([new, fresh]))
    assert [m.content for m in stored] == ["q3 again", "brand new"]
    assert stored[0].created_at == old[6].created_at
    got = list(store.iter_messages("s"))
    assert [m.content for m in got] == [
        *contents_of(old[:6]),
        "q3 again",
        *contents_of(old[7:]),
        "brand new",
    ]
    lines = [json.loads(line) for line in path_of(store).read_bytes().splitlines()]
    assert all(r["token_count"] is not None for r in lines if r["type"] == "message")


def contents_of(messages: list[Message]) -> list[str]:
    return [m.content for m in messages]


@pytest.mark.parametrize(
    ("error", "raised"),
    [(ValueError("the file changed"), ValueError), (OSError(5, "EIO"), StorageWriteError)],
)
def test_a_source_failing_midway_leaves_the_session_as_it_was(
    store: SessionStore, error: Exception, raised: type[Exception]
) -> None:
    add_turns(store, 5)
    path = path_of(store)
    before = path.read_bytes()

    class Failing(ListSource):
        def __iter__(self) -> Any:
            for pair in super().__iter__():
                if pair[0] == 900:  # past the first MiB: part of the write is on disk
                    raise error
                yield pair

    batch = [Message("user", f"bulk {i} " + "y" * 2000) for i in range(1000)]
    with pytest.raises(raised):
        store.import_messages("s", Failing(batch))
    assert path.read_bytes() == before
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZerdaWarning)
        assert contents(store) == [f"{r}{i}" for i in range(5) for r in "qa"]
    assert store.import_messages("s", ListSource(batch[:3])) == 3
    assert contents(store)[-1].startswith("bulk 2 ")


# -- damaged lines ---------------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["compact", "delete_last_turn", "clear"])
def test_a_lenient_rewrite_saves_damaged_lines_before_dropping_them(
    home: Path, operation: str
) -> None:
    store = SessionStore(home, fsync=False)
    add_turns(store, 10)
    path = path_of(store)
    damaged = [b"{this is not json", b'{"type":"gossip"}', SURROGATE_LINE.rstrip(b"\n")]
    insert_lines(path, 4, damaged[0] + b"\n", damaged[1] + b"\n")
    insert_lines(path, 999, damaged[2] + b"\n")  # in the last turn, which undo removes
    before = path.read_bytes()

    with pytest.raises(CorruptSessionError):
        getattr(store, operation)("s")
    assert path.read_bytes() == before and side_files(store) == []

    lenient = SessionStore(home, fsync=False, lenient=True)
    with pytest.warns(ZerdaWarning) as caught:
        getattr(lenient, operation)("s")
    [side] = side_files(store)
    assert side.read_bytes() == b"".join(line + b"\n" for line in damaged)
    assert stat.S_IMODE(side.stat().st_mode) == 0o600
    saying = [str(w.message) for w in caught if str(side) in str(w.message)]
    assert len(saying) == 3 and all("saved" in text for text in saying)
    assert side.name.startswith("s.jsonl.damaged-") and store.session_ids() == ["s"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZerdaWarning)
        left = contents(store)
    expected = [f"{r}{i}" for i in range(10) for r in "qa"]
    assert left == {"compact": expected, "delete_last_turn": expected[:-2], "clear": []}[operation]


def test_a_side_file_is_never_written_through_an_existing_file(tmp_path: Path) -> None:
    planted = tmp_path / "s.jsonl.damaged-x"
    planted.write_bytes(b"precious\n")
    side = SideFile(planted)
    with pytest.raises(FileExistsError):
        side.add(b"a damaged line")
    assert planted.read_bytes() == b"precious\n"


def test_a_stored_lone_surrogate_is_a_damaged_line(store: SessionStore) -> None:
    add_turns(store, 3)
    path = path_of(store)
    pair = SURROGATE_LINE.replace(b"\\udc80", b"\\ud83d\\ude00").replace(b"bad-1", b"ok-1")
    before = insert_lines(path, 3, SURROGATE_LINE, pair)
    for read in (
        lambda: list(store.iter_messages("s")),
        lambda: store.get_memory("s", lastn=100),
        lambda: store.compact("s"),
    ):
        with pytest.raises(CorruptSessionError, match="line 3: holds a lone surrogate") as caught:
            read()
        assert caught.value.path == path
    assert path.read_bytes() == before
    lenient = SessionStore(store.home, fsync=False, lenient=True)
    with pytest.warns(ZerdaWarning, match="line 3"):
        kept = contents(lenient)
    assert "half \U0001f600 a character" in kept  # an escaped pair is one character, kept
    assert not any("\udc80" in text for text in kept)


@pytest.mark.parametrize(
    "command", [["export", "s", "-o", "OUT"], ["show", "s"], ["show", "s", "--json"]]
)
def test_the_command_on_a_stored_lone_surrogate_is_one_error_line(
    store: SessionStore, tmp_path: Path, command: list[str]
) -> None:
    add_turns(store, 3)
    path = path_of(store)
    before = insert_lines(path, 3, SURROGATE_LINE)
    out = tmp_path / "out.jsonl"
    done = process(store.home, *[str(out) if a == "OUT" else a for a in command])
    err = done.err
    assert done.code == 1, err
    reason = "holds a lone surrogate (\\ud800-\\udfff), which zerda never stores"
    assert err == f"error: {path}: line 3: {reason}\n"
    assert not out.exists() and path.read_bytes() == before
