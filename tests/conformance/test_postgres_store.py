"""What only the PostgreSQL store has: its URL, its schema and migrations, its indexes,
its connections, and the failures a server brings (down, wrong password, no database)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import Throwaway, drop_database, finish, go, new_database, run_python, start_python

from zerda import (
    InvalidArgumentError,
    InvalidMessageError,
    PostgresStore,
    SessionStore,
    StoreError,
    ZerdaError,
    open_store,
)
from zerda.messages import Message
from zerda.store._matching import Filters, Matcher
from zerda.store.postgres._schema import LATEST, MIGRATIONS
from zerda.store.postgres._searching import SearchQuery
from zerda.store.postgres._store import LAST_N
from zerda.store.postgres._urls import redact


@pytest.fixture
def database(postgres_admin: str) -> Iterator[str]:
    """A fresh database without zerda's schema."""
    url = new_database(postgres_admin)
    yield url
    drop_database(postgres_admin, url)


@pytest.fixture(scope="module")
def own_server() -> Iterator[Throwaway]:
    """A server of the module's own, with a role that needs a password."""
    server = Throwaway()
    import psycopg

    with psycopg.connect(server.server.url(), autocommit=True) as conn:
        conn.execute("CREATE ROLE zerda_pw LOGIN PASSWORD 'sesame' CREATEDB")
        conn.execute("CREATE DATABASE zerda_pw OWNER zerda_pw")
    yield server
    server.close()


def test_import_zerda_needs_no_psycopg() -> None:
    done = run_python(
        """
        import sys
        import zerda
        from zerda import PostgresStore, open_store
        store = open_store("postgresql://u:pw@127.0.0.1:1/db")
        assert isinstance(store, PostgresStore), store
        assert not [m for m in sys.modules if m.startswith("psycopg")], "psycopg imported"
        """
    )
    assert done.returncode == 0, done.stderr


def test_open_store_picks_the_store_by_location(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path), SessionStore)
    assert isinstance(open_store(str(tmp_path)), SessionStore)
    assert isinstance(open_store("postgres://h/db"), PostgresStore)
    with pytest.raises(InvalidArgumentError) as caught:
        open_store("mysql://root:hunter2@h/db")
    assert "hunter2" not in str(caught.value) and "mysql://root@h/db" in str(caught.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://ana:s3cr%40t@db.example:5433/chat", "postgresql://ana@db.example:5433/chat"),
        (
            "postgresql://ana@h/chat?password=s3cret&sslmode=require",
            "postgresql://ana@h/chat?sslmode=require",
        ),
        ("postgres:///chat?host=/run/pg&password=x", "postgres:///chat?host=/run/pg"),
        ("postgresql://ana:s3cret@[::1/chat", "postgresql://ana@[::1/chat"),  # bad IPv6 host
        ("postgresql://ana:s3c/r?e#t@h/chat", "postgresql://ana@h/chat"),  # not escaped
    ],
)
def test_urls_are_shown_without_their_password(url: str, shown: str) -> None:
    assert redact(url) == shown
    assert PostgresStore(url).where == shown
    assert "s3c" not in repr(PostgresStore(url))


def test_first_use_creates_the_schema(database: str) -> None:
    store = PostgresStore(database)
    try:
        assert store.schema_version() == 0
        store.append_turn("s", "q", "a")
        assert store.schema_version() == LATEST
        assert store.init() == []  # already current: nothing applied
    finally:
        store.close()


def test_init_applies_each_migration_once_for_racing_processes(database: str) -> None:
    code = """
        import sys
        from zerda import PostgresStore
        store = PostgresStore(sys.argv[1])
        sys.stdin.readline()
        store.append_turn(sys.argv[2], "q", "a")
        store.close()
    """

    procs = [start_python(code, database, f"s{n}") for n in range(4)]
    go(procs)
    results = [finish(proc) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 4, results
    import psycopg

    with psycopg.connect(database) as conn:
        versions = conn.execute("SELECT version FROM zerda_schema ORDER BY version").fetchall()
    assert [v for (v,) in versions] == [m.version for m in MIGRATIONS]
    store = PostgresStore(database)
    assert store.session_ids() == [f"s{n}" for n in range(4)]
    store.close()


def test_a_version_1_database_gains_entities_and_keeps_its_messages(database: str) -> None:
    import psycopg

    with psycopg.connect(database) as conn:  # the schema as zerda 0.1 made it
        conn.execute(
            "CREATE TABLE zerda_schema (version integer PRIMARY KEY, description text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for statement in MIGRATIONS[0].statements:
            conn.execute(statement.encode())
        conn.execute("INSERT INTO zerda_schema (version, description) VALUES (1, 'v1')")
        conn.execute(
            "INSERT INTO zerda_sessions (id, metadata, created_at, encoding, seq, messages)"
            " VALUES ('old', '{}', now(), 'o200k_base', 1, 1)"
        )
        conn.execute(
            "INSERT INTO zerda_messages (session_id, seq, uuid, created_at, role, role_type,"
            " part, content, token_count, metadata)"
            " VALUES ('old', 1, 'u1', now(), 'user', 'user', 'ask', 'Ada lives in Paris', 5, '{}')"
        )
    store = PostgresStore(database)
    try:
        [old] = store.get_memory("old").messages
        assert (old.content, old.entities, store.schema_version()) == (
            "Ada lives in Paris",
            None,
            LATEST,
        )
        new = store.add_message("old", Message("user", "Email ada@example.com"))
        assert [(e.label, e.name) for e in new.entities or ()] == [("EMAIL", "ada@example.com")]
        assert store.get_memory("old").messages[1] == new
    finally:
        store.close()


def test_a_newer_schema_is_refused(database: str) -> None:
    store = PostgresStore(database)
    store.init()
    with store.server.connection() as conn:
        conn.execute("INSERT INTO zerda_schema (version, description) VALUES (999, 'future')")
    store.close()
    newer = PostgresStore(database)
    with pytest.raises(StoreError, match="version 999, newer than this zerda"):
        newer.append_turn("s", "q", "a")
    newer.close()


def plan(store: PostgresStore, query: str, *params: object) -> str:
    """The plan of `query` when it may not scan the table (nor walk the key in order)."""
    with store.server.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_indexscan = off")
        found = conn.execute(f"EXPLAIN {query}", params).fetchall()
    return "\n".join(row[0] for row in found)


def test_last_n_reads_and_search_use_the_indexes(pg: PostgresStore) -> None:
    for n in range(20):
        pg.append_turn(f"s{n % 3}", f"question {n}", f"answer {n}")
    with pg.server.connection() as conn:
        last = "\n".join(r[0] for r in conn.execute(f"EXPLAIN {LAST_N}", ("s1", 10)))
    assert "Index Scan Backward using zerda_messages_pkey" in last and "Sort" not in last
    search = SearchQuery(Matcher("answer 1"), Filters(), None, None)
    assert "zerda_messages_search" in plan(pg, search.statement(), *search.params)
    with pg.server.connection() as conn:
        stats = conn.execute(
            "EXPLAIN SELECT messages FROM zerda_sessions WHERE id = %s", ("s1",)
        ).fetchall()
    assert "zerda_sessions_pkey" in "\n".join(r[0] for r in stats)


def test_nul_in_a_user_id_cannot_be_stored(pg: PostgresStore) -> None:
    pg.append_turn("s", "q", "a")
    with pytest.raises(InvalidMessageError):
        pg.create_session("t", user_id="nul\x00inside")
    with pytest.raises(InvalidMessageError):
        pg.update_session("s", user_id="nul\x00inside")
    assert not pg.exists("t") and pg.get_session("s").user_id is None


def one_line_error(call: object) -> str:
    with pytest.raises(ZerdaError) as caught:
        call()  # type: ignore[operator]
    text = str(caught.value)
    assert isinstance(caught.value, StoreError) and "\n" not in text
    return text


def test_a_server_that_is_down_is_one_line() -> None:
    dead = PostgresStore("postgresql://zerda_pw:sesame@127.0.0.1:1/zerda_pw")
    text = one_line_error(lambda: dead.append_turn("s", "q", "a"))
    assert text.startswith("PostgreSQL at postgresql://zerda_pw@127.0.0.1:1/zerda_pw: ")
    assert "refused" in text and "sesame" not in text


def test_a_wrong_password_is_one_line_without_it(own_server: Throwaway) -> None:
    wrong = PostgresStore(own_server.server.url("zerda_pw", "zerda_pw", "open-sesame"))
    text = one_line_error(lambda: wrong.get_memory("s"))
    assert "password authentication failed" in text and "open-sesame" not in text
    right = PostgresStore(own_server.server.url("zerda_pw", "zerda_pw", "sesame"))
    right.append_turn("s", "q", "a")
    assert right.message_count("s") == 2
    right.close()


def test_a_missing_database_is_one_line(own_server: Throwaway) -> None:
    missing = PostgresStore(own_server.server.url("no_such_db"))
    text = one_line_error(lambda: missing.session_ids())
    assert 'database "no_such_db" does not exist' in text


def test_more_threads_than_connections_all_get_their_turn(pg: PostgresStore) -> None:
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(20):
                pg.append_turn(f"t{n % 4}", f"q{n} {i}", f"a{n} {i}")
                pg.get_memory(f"t{n % 4}", lastn=4)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(pg.message_count(f"t{n}") for n in range(4)) == 24 * 20 * 2


def test_a_pattern_the_server_refuses_is_matched_in_python(
    pg: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerda.store.postgres import _searching as searching

    monkeypatch.setattr(searching, "_UNSHARED", re.compile("(?!)"))  # everything goes
    pg.append_turn("s", "rome", "roome")
    pattern = re.compile("ro++me")
    assert [m.content for _, m in pg.search(pattern)] == ["roome", "rome"]


def test_a_check_reads_without_waiting_for_a_writer(pg: PostgresStore) -> None:
    import threading

    pg.append_turn("s", "q", "a")
    done: list[object] = []
    with pg.server.connection() as writer, writer.transaction():
        # A writer in the middle of a turn holds the session's row.
        writer.execute("SELECT 1 FROM zerda_sessions WHERE id = 's' FOR UPDATE")
        checking = threading.Thread(target=lambda: done.append(pg.check("s")))
        checking.start()
        checking.join(20)
        assert done == [[]]  # read in its own snapshot, without waiting for the writer
    checking.join()


def test_filling_entities_keeps_what_a_writer_gave_meanwhile(
    pg: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerda.entities import Entity, EntityMatch, stored_entities
    from zerda.store.postgres import _entities as entities

    plain = PostgresStore(pg.server.url, extract_entities=False)
    first = plain.add_message("s", Message("user", "Ada Lovelace in London"))
    second = plain.add_message("s", Message("user", "Charles Babbage in Paris"))
    given = (Entity("ORG", "Zerda", (EntityMatch(0, 3, "Ada"),)),)
    finding = entities.stored_entities

    def meanwhile(text: str) -> tuple[Entity, ...]:  # a writer between the read and the write
        if text == first.content:
            pg.add_message("s", replace(first, entities=given))
        return finding(text)

    monkeypatch.setattr(entities, "stored_entities", meanwhile)
    assert plain.fill_entities("s") == 1
    assert [m.entities for m in pg.get_memory("s").messages] == [
        given,
        stored_entities(second.content),
    ]
    plain.close()


def test_entities_that_do_not_read_are_found_again(pg: PostgresStore) -> None:
    from zerda.entities import stored_entities

    stored = pg.add_message("s", Message("user", "Ada Lovelace in London"))
    pg.set_summary("s", "Ada Lovelace wrote.")
    with pg.server.connection() as conn:
        conn.execute("UPDATE zerda_messages SET entities = '\"junk\"'")
        conn.execute("UPDATE zerda_summaries SET entities = '[1]'")
    assert pg.get_memory("s").messages[0].entities is None
    assert pg.fill_entities("s") == 1
    assert pg.get_memory("s").messages == [stored]
    assert pg.get_summary("s").entities == stored_entities("Ada Lovelace wrote.")  # type: ignore[union-attr]
