"""Checking a PostgreSQL store and repairing it: the schema version, and each session's
running totals against its counted rows (recounted in one transaction by a repair)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.errors import NotFoundError
from zerda.paths import validate_session_id
from zerda.store.checks import Finding, Repair
from zerda.store.postgres.schema import LATEST, current_version
from zerda.store.postgres.totals import RECOUNT, TOTALS

if TYPE_CHECKING:
    from psycopg import Connection

    from zerda.store.postgres.store import PostgresStore

    Conn = Connection[tuple[Any, ...]]


def check(store: PostgresStore, session_id: str | None = None) -> list[Finding]:
    """The schema's version when it is not this zerda's, else each session whose totals
    disagree with its rows (counted in a transaction that is rolled back)."""
    return _run(store, session_id, keep=False)


def repair(store: PostgresStore, session_id: str | None = None) -> Repair:
    """Migrate the schema if it is behind, then recount every session's totals (or
    `session_id`'s) in one transaction."""
    before = check(store, session_id)
    if any(f.kind == "schema" for f in before):
        store.init()
    _run(store, session_id, keep=True)
    after = check(store, session_id)
    return Repair([f for f in before if f not in after], [], after)


def _run(store: PostgresStore, session_id: str | None, *, keep: bool) -> list[Finding]:
    from psycopg import Rollback

    with store.server.connection() as conn:
        version = current_version(conn)
        if version != LATEST:
            return [_schema_finding(store, version)]
        with conn.transaction():
            found = _recounted(conn, store.where, session_id)
            if not keep:
                raise Rollback
    return found


def _schema_finding(store: PostgresStore, version: int) -> Finding:
    problem = f"schema at version {version}, this zerda's is {LATEST}"
    return Finding(store.where, "schema", problem, repairable=version < LATEST)


def _recounted(conn: Conn, where: str, session_id: str | None) -> list[Finding]:
    """Recount the sessions' totals; a finding for each whose stored totals differed."""
    ids = _ids(conn, session_id)
    before = {sid: _totals(conn, sid) for sid in ids}
    found = []
    for sid in ids:
        conn.execute(RECOUNT, {"id": sid})
        changed = _differences(before[sid], _totals(conn, sid))
        if changed:
            problem = f"running totals disagree with its messages ({changed})"
            found.append(Finding(f"session {sid} at {where}", "totals", problem, None, sid))
    return found


def _ids(conn: Conn, session_id: str | None) -> list[str]:
    if session_id is None:
        return [row[0] for row in conn.execute("SELECT id FROM zerda_sessions ORDER BY id")]
    validate_session_id(session_id)
    if conn.execute("SELECT 1 FROM zerda_sessions WHERE id = %s", (session_id,)).fetchone():
        return [session_id]
    raise NotFoundError(session_id)


def _totals(conn: Conn, sid: str) -> tuple[Any, ...]:
    row = conn.execute(
        f"SELECT {TOTALS} FROM zerda_sessions WHERE id = %s FOR UPDATE", (sid,)
    ).fetchone()
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
