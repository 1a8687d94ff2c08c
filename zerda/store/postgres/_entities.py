"""Entities found afterwards in the PostgreSQL store: for messages and a summary stored
without them (imported history, or written with `extract_entities` off), or whose
stored entities no longer read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.entities import stored_entities
from zerda.store.postgres import _rows as rows

if TYPE_CHECKING:
    from psycopg import Connection

    Conn = Connection[tuple[Any, ...]]

BATCH = 500
_MESSAGES = """
    SELECT seq, uuid, content, nuls, entities::text FROM zerda_messages
    WHERE session_id = %s AND seq > %s ORDER BY seq LIMIT %s
"""
# A message is given its entities only if it still holds the text they were found in and
# the entities that were read: one a writer changed meanwhile keeps what it was given.
_SET = """
    UPDATE zerda_messages AS t SET entities = m.entities
    FROM unnest(%s::text[], %s::text[], %s::text[], %s::json[]) AS m(uuid, content, old, entities)
    WHERE t.session_id = %s AND t.uuid = m.uuid AND t.content = m.content
      AND t.entities::text IS NOT DISTINCT FROM m.old
"""
_SUMMARY = "SELECT uuid, content, nuls, entities::text FROM zerda_summaries WHERE session_id = %s"
_SET_SUMMARY = """
    UPDATE zerda_summaries SET entities = %s::json
    WHERE session_id = %s AND uuid = %s AND content = %s
      AND entities::text IS NOT DISTINCT FROM %s
"""


def wanted(stored: str | None, again: bool) -> bool:
    """Whether entities stored as `stored` (JSON text, None: none) are to be found."""
    if again or stored is None:
        return True
    import json

    return rows.readable_entities(json.loads(stored)) is None


def fill_messages(conn: Conn, session_id: str, again: bool) -> int:
    """Give entities to the session's messages without them (or whose entities do not
    read; all with `again`), BATCH rows at a time, each batch a transaction of its own.
    Returns how many were given some."""
    filled, after = 0, 0
    while found := conn.execute(_MESSAGES, (session_id, after, BATCH)).fetchall():
        after = found[-1][0]
        chosen = [row for row in found if wanted(row[4], again)]
        if not chosen:
            continue
        texts = [rows.restored_text(content, nuls) for _, _, content, nuls, _ in chosen]
        entities = [rows.entities_json(stored_entities(text)) for text in texts]
        columns = ([r[1] for r in chosen], [r[2] for r in chosen], [r[4] for r in chosen])
        with conn.transaction():
            done = conn.execute(_SET, (*columns, entities, session_id))
        filled += done.rowcount
    return filled


def fill_summary(conn: Conn, session_id: str, again: bool) -> None:
    """Give entities to the session's summary if it has none that read (or with `again`)."""
    row = conn.execute(_SUMMARY, (session_id,)).fetchone()
    if row is None or not wanted(row[3], again):
        return
    uuid, content, nuls, old = row
    found = rows.entities_json(stored_entities(rows.restored_text(content, nuls)))
    with conn.transaction():
        conn.execute(_SET_SUMMARY, (found, session_id, uuid, content, old))
