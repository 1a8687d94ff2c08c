"""Checking a PostgreSQL store and repairing it: the schema version, and each session's
running totals against its counted rows (read only, in one snapshot; recounted in one
transaction by a repair)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda._paths import validate_session_id
from zerda.errors import NotFoundError
from zerda.store._checks import Finding, Repair
from zerda.store.postgres._schema import LATEST, current_version
from zerda.store.postgres._totals import COUNTED, RECOUNT, TOTALS

if TYPE_CHECKING:
    from psycopg import Connection

    from zerda.store.postgres._store import PostgresStore

    Conn = Connection[tuple[Any, ...]]


def check(store: PostgresStore, session_id: str | None = None) -> list[Finding]:
    """The schema's version when it is not this zerda's, else each session whose totals
    disagree with its rows: both read in one read-only snapshot, so writers go on
    meanwhile and a turn they commit cannot make a disagreement appear."""
    with store.server.connection() as conn:
        version = current_version(conn)
        if version != LATEST:
            return [_schema_finding(store, version)]
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return [
                _finding(store.where, sid, changed)
                for sid in _ids(conn, session_id)
                if (changed := _differences(_stored(conn, sid), _counted(conn, sid)))
            ]


def repair(store: PostgresStore, session_id: str | None = None) -> Repair:
    """Migrate the schema if it is behind, then recount every session's totals (or
    `session_id`'s) in one transaction."""
    before = check(store, session_id)
    if any(f.kind == "schema" for f in before):
        store.init()
    _recount(store, session_id)
    after = check(store, session_id)
    return Repair([f for f in before if f not in after], [], after)


def _recount(store: PostgresStore, session_id: str | None) -> None:
    """Count every session's totals (or `session_id`'s) afresh, in one transaction."""
    with store.server.connection() as conn, conn.transaction():
        for sid in _ids(conn, session_id):
            # The row first, as a writer takes it: no turn commits between the count
            # and its update, which would then miss it.
            conn.execute("SELECT 1 FROM zerda_sessions WHERE id = %s FOR UPDATE", (sid,))
            conn.execute(RECOUNT, {"id": sid})


def _schema_finding(store: PostgresStore, version: int) -> Finding:
    problem = f"schema at version {version}, this zerda's is {LATEST}"
    return Finding(store.where, "schema", problem, repairable=version < LATEST)


def _finding(where: str, sid: str, changed: str) -> Finding:
    problem = f"running totals disagree with its messages ({changed})"
    return Finding(f"session {sid} at {where}", "totals", problem, None, sid)


def _ids(conn: Conn, session_id: str | None) -> list[str]:
    if session_id is None:
        return [row[0] for row in conn.execute("SELECT id FROM zerda_sessions ORDER BY id")]
    validate_session_id(session_id)
    if conn.execute("SELECT 1 FROM zerda_sessions WHERE id = %s", (session_id,)).fetchone():
        return [session_id]
    raise NotFoundError(session_id)


def _stored(conn: Conn, sid: str) -> tuple[Any, ...]:
    row = conn.execute(f"SELECT {TOTALS} FROM zerda_sessions WHERE id = %s", (sid,)).fetchone()
    assert row is not None
    return tuple(row)


def _counted(conn: Conn, sid: str) -> tuple[Any, ...]:
    row = conn.execute(COUNTED, {"id": sid}).fetchone()
    assert row is not None
    return tuple(row)


def _differences(stored: tuple[Any, ...], counted: tuple[Any, ...]) -> str:
    """`messages 3, counted 2; ...` for each total that differs."""
    names = [name.strip() for name in TOTALS.split(",")]
    return "; ".join(
        f"{name} {old}, counted {new}"
        for name, old, new in zip(names, stored, counted, strict=True)
        if old != new
    )
