"""The file store's archive index is derived, never the truth: after every write path, by
this process or another, it answers `overviews` and `search` exactly as a full scan of the
session files does; it can be deleted, killed mid-build and shared by 16 writers."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zerda import Memory, Message, SessionStore
from zerda.store._copying import copy_session
from zerda.store._sources import ListSource
from zerda.store.files._catalog import NAME, available

pytestmark = pytest.mark.skipif(not available(), reason="SQLite without FTS5 trigram")

QUERIES = ["zebrafish", "ZEBRA", "fish", "straße", "STRASSE", "na", "été", "q1", "\x00x", "a b"]
SORTS = ["activity", "created", "messages", "tokens", "name"]


def scanned(home: Path) -> SessionStore:
    return SessionStore(home, fsync=False, use_index=False)


def indexed(home: Path) -> SessionStore:
    return SessionStore(home, fsync=False, index_from=0)


def listing(store: SessionStore) -> list[list[dict[str, object]]]:
    return [
        [o.to_dict() for o in store.overviews(sort, reverse)]
        for sort in SORTS
        for reverse in (False, True)
    ]


def hits(store: SessionStore, query: str) -> list[tuple[str, str]]:
    return [(sid, m.uuid) for sid, m in store.search(query)]


def assert_index_true(home: Path) -> None:
    """The index answers every listing and search as the scan of the files does."""
    with_index, without = indexed(home), scanned(home)
    assert listing(with_index) == listing(without)
    for query in QUERIES:
        assert hits(with_index, query) == hits(without, query), query
    since = datetime.now(UTC) - timedelta(hours=1)
    assert [o.to_dict() for o in with_index.overviews(since=since, limit=2)] == [
        o.to_dict() for o in without.overviews(since=since, limit=2)
    ]


TEXTS = ["the zebrafish swims", "in the Straße", "été indien", "na na", "be brief", "q1"]


def seeded(home: Path) -> SessionStore:
    store = indexed(home)
    store.append_turn("a", "the zebrafish swims", "in the Straße")
    store.append_turn("b", "été indien", "na na")
    store.add_memory("c", Memory(messages=[Message("system", "be brief"), Message("user", "q1")]))
    store.update_session("c", metadata={"title": "Zebra notes"})
    assert_index_true(home)
    return store


WRITES: dict[str, Callable[[SessionStore], object]] = {
    "add": lambda s: s.append_turn("a", "a zebrafish again", "yes"),
    "new session": lambda s: s.append_turn("d", "ZEBRAFISH loud", "ok"),
    "import": lambda s: s.import_messages("b", ListSource([Message("user", "imported fish")])),
    "title": lambda s: s.update_session("b", metadata={"title": "Fish"}),
    "summary": lambda s: s.set_summary("a", "about zebrafish"),
    "rename": lambda s: s.rename_session("a", "renamed"),
    "fork": lambda s: s.fork_session("a", "forked"),
    "copy": lambda s: copy_session(_elsewhere(s), s, "e"),
    "clear": lambda s: s.clear("a"),
    "undo": lambda s: s.delete_last_turn("a"),
    "retry": lambda s: s.replace_last_turn("a", "zebra retried", "fish retried"),
    "replace": lambda s: s.replace_messages("b", [Message("user", "only straße now")]),
    "compact": lambda s: s.compact("a"),
    "delete": lambda s: s.delete_session("a"),
    "delete if empty": lambda s: (s.clear("b"), s.delete_session_if_empty("b")),
    "repair": lambda s: s.repair(),
}


def _elsewhere(store: SessionStore) -> SessionStore:
    """Another store holding a session `e` to copy in."""
    other = SessionStore(store.home.parent / f"{store.home.name}-other", fsync=False)
    other.append_turn("e", "copied zebrafish", "from elsewhere")
    return other


@pytest.mark.parametrize("write", sorted(WRITES))
def test_every_write_path_keeps_the_index_true(write: str, tmp_path: Path) -> None:
    store = seeded(tmp_path)
    WRITES[write](store)
    assert_index_true(tmp_path)


def test_a_file_written_by_another_writer_is_read_again(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    path = store.sessions_dir / "a.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    record.update(uuid="11111111-2222-4333-8444-555555555555", content="kangaroo by hand")
    path.write_bytes(lines[0] + lines[1] + json.dumps(record).encode() + b"\n")  # no totals
    assert hits(indexed(tmp_path), "kangaroo") == hits(scanned(tmp_path), "kangaroo")
    assert hits(indexed(tmp_path), "kangaroo")
    assert_index_true(tmp_path)


def test_the_index_can_be_deleted_and_is_built_again(tmp_path: Path) -> None:
    seeded(tmp_path)
    (tmp_path / NAME).unlink()
    assert_index_true(tmp_path)
    (tmp_path / NAME).write_bytes(b"not a database at all" * 100)  # damaged: made again
    assert_index_true(tmp_path)
    assert (tmp_path / NAME).stat().st_mode & 0o777 == 0o600
    indexed(tmp_path).catalog().rebuild()  # type: ignore[union-attr]
    assert_index_true(tmp_path)


def test_another_versions_index_is_made_again_in_place(tmp_path: Path) -> None:
    seeded(tmp_path)
    with sqlite3.connect(tmp_path / NAME) as db:
        db.execute("UPDATE meta SET value='0' WHERE key='version'")
    assert_index_true(tmp_path)
    assert (tmp_path / NAME).stat().st_mode & 0o777 == 0o600


def test_a_message_type_written_as_an_escape_is_indexed(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    path = store.sessions_dir / "a.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    record.update(uuid="11111111-2222-4333-8444-666666666666", content="escaped gnu")
    line = json.dumps(record).replace('"message"', '"\\u006dessage"').encode() + b"\n"
    path.write_bytes(b"".join(lines) + line)
    assert hits(indexed(tmp_path), "escaped gnu") == hits(scanned(tmp_path), "escaped gnu") != []


def test_a_rewrite_in_place_of_the_same_size_is_read_again(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    path = store.sessions_dir / "a.jsonl"
    data = path.read_bytes()
    time.sleep(0.01)
    with path.open("r+b") as handle:  # same inode, same size, other words
        handle.write(data.replace(b"zebrafish", b"kingfishr"))
    assert hits(indexed(tmp_path), "kingfishr") == hits(scanned(tmp_path), "kingfishr") != []
    assert hits(indexed(tmp_path), "zebrafish") == hits(scanned(tmp_path), "zebrafish")


def test_a_path_that_is_not_a_file_is_left_out_with_a_warning(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    (store.sessions_dir / "x.jsonl").mkdir()
    with pytest.warns(Warning, match="skipped session x"):
        names = [o.session_id for o in indexed(tmp_path).overviews()]
    assert "x" not in names and "a" in names


def test_overviews_follow_the_reading_stores_encoding(tmp_path: Path) -> None:
    seeded(tmp_path)
    other = SessionStore(tmp_path, encoding="o200k_base", index_from=0)
    plain = SessionStore(tmp_path, encoding="o200k_base", use_index=False)
    assert [o.to_dict() for o in other.overviews()] == [o.to_dict() for o in plain.overviews()]


def test_the_index_is_private(tmp_path: Path) -> None:
    seeded(tmp_path)
    for name in os.listdir(tmp_path):
        if name.startswith(NAME):
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o600, name


def test_a_damaged_session_is_read_by_search_and_skipped_by_listing(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    with (store.sessions_dir / "b.jsonl").open("ab") as handle:
        handle.write(b"{not json}\n")
    with pytest.warns(Warning, match="skipped session b"):
        names = [o.session_id for o in store.overviews()]
    assert "b" not in names and "a" in names
    found = hits(indexed(tmp_path), "été")  # read from the file, as with no index
    assert found == hits(scanned(tmp_path), "été") and [sid for sid, _ in found] == ["b"]


BUILD = """
import sys
from zerda import SessionStore
catalog = SessionStore(sys.argv[1], fsync=False, index_from=0).catalog()
catalog.refresh(lambda done, total: print(done, flush=True))
"""


def test_a_build_killed_half_way_leaves_nothing_wrong(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, fsync=False, use_index=False)
    for n in range(300):
        store.append_turn(f"s{n}", f"question {n} zebrafish" if n % 7 == 0 else "plain", "answer")
    builder = subprocess.Popen(
        [sys.executable, "-c", BUILD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert builder.stdout is not None
    while int(builder.stdout.readline() or 300) < 50:
        pass
    builder.send_signal(signal.SIGKILL)
    builder.wait()
    assert_index_true(tmp_path)


RACE = """
import sys
from zerda import SessionStore
store = SessionStore(sys.argv[1], fsync=False, index_from=0)
me = sys.argv[2]
for n in range(15):
    store.append_turn(f"{me}-{n % 3}", f"racer {me} zebrafish {n}", "ok")
    list(store.search("zebrafish", limit=3))
    store.overviews(limit=5)
"""


def test_sixteen_writers_and_readers_never_corrupt_it(tmp_path: Path) -> None:
    seeded(tmp_path)
    racers = [
        subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path), f"p{n}"]) for n in range(16)
    ]
    deadline = time.monotonic() + 300
    for racer in racers:
        assert racer.wait(timeout=max(1, deadline - time.monotonic())) == 0
    with sqlite3.connect(tmp_path / NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert len(hits(indexed(tmp_path), "racer")) == 16 * 15
    assert_index_true(tmp_path)


def test_a_lenient_store_reads_the_files(tmp_path: Path) -> None:
    seeded(tmp_path)
    assert SessionStore(tmp_path, lenient=True, index_from=0).catalog() is None


def test_a_small_store_reads_its_files_and_a_large_one_its_index(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, fsync=False, index_from=5)
    for n in range(4):
        store.append_turn(f"s{n}", "question", "answer")
    assert store.catalog() is None and not (tmp_path / NAME).exists()
    store.append_turn("s4", "question", "answer")
    assert store.catalog() is not None
    assert [o.to_dict() for o in store.overviews()] == [
        o.to_dict() for o in scanned(tmp_path).overviews()
    ]
    assert (tmp_path / NAME).exists()


def test_zerda_index_status_and_rebuild(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zerda_cli.__main__ import main

    seeded(tmp_path)
    assert main(["index", "status", "--json", "--home", str(tmp_path)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["sessions"], status["damaged"], status["messages"]) == (3, 0, 6)
    assert status["text_bytes"] == sum(len(t.encode()) for t in TEXTS)
    assert main(["index", "rebuild", "--home", str(tmp_path)]) == 0
    assert capsys.readouterr().err == "indexed 3 sessions (0 damaged, left out)\n"
    assert main(["index", "status", "--store", "postgresql://nobody@127.0.0.1:1/x"]) == 1
    assert "PostgreSQL store indexes in the database" in capsys.readouterr().err


def test_two_sessions_trading_names_are_both_read_again(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    store.rename_session("a", "swap")
    store.rename_session("b", "a")
    store.rename_session("swap", "b")
    assert_index_true(tmp_path)


def test_a_rebuild_meanwhile_is_never_taken_for_a_fresh_index(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    store.append_turn("a", "one more zebrafish", "ok")
    first, second = indexed(tmp_path).catalog(), indexed(tmp_path).catalog()
    assert first is not None and second is not None
    real = first._reindex

    def rebuilt_meanwhile(db: sqlite3.Connection, sid: str) -> None:
        real(db, sid)
        db.execute("COMMIT")
        second.clear()  # another process empties the index meanwhile (a rebuild's start)
        db.execute("BEGIN IMMEDIATE")

    first._reindex = rebuilt_meanwhile  # type: ignore[method-assign]
    first.refresh()
    assert_index_true(tmp_path)
