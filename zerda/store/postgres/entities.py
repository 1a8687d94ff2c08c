"""Entities found afterwards in the PostgreSQL store: for messages and a summary stored
without them (imported history, or written with `extract_entities` off)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.entities import stored_entities
from zerda.store.postgres import rows

if TYPE_CHECKING:
    from psycopg import Connection

    Conn = Connection[tuple[Any, ...]]

BATCH = 500
_WANTED = """
    SELECT seq, uuid, content, nuls FROM zerda_messages
    WHERE session_id = %s AND seq > %s {lacking} ORDER BY seq LIMIT %s
"""
# A message is given its entities only if it still holds the text they were found in:
# one replaced meanwhile keeps what its writer gave it.
_SET = """
    UPDATE zerda_messages AS t SET entities = m.entities
    FROM unnest(%s::text[], %s::text[], %s::json[]) AS m(uuid, content, entities)
    WHERE t.session_id = %s AND t.uuid = m.uuid AND t.content = m.content
"""
_SUMMARY = "SELECT uuid, content, nuls, entities IS NULL FROM zerda_summaries WHERE session_id = %s"
_SET_SUMMARY = """
    UPDATE zerda_summaries SET entities = %s::json
    WHERE session_id = %s AND uuid = %s AND content = %s
"""


def fill_messages(conn: Conn, session_id: str, again: bool) -> int:
    """Give entities to the session's messages without them (all with `again`), BATCH
    at a time, each batch a transaction of its own. Returns how many were given some."""
    query = _WANTED.format(lacking="" if again else "AND entities IS NULL")
    filled, after = 0, 0
    while found := conn.execute(query, (session_id, after, BATCH)).fetchall():
        after = found[-1][0]
        texts = [rows.restored_text(content, nuls) for _, _, content, nuls in found]
        entities = [rows.entities_json(stored_entities(text)) for text in texts]
        with conn.transaction():
            done = conn.execute(
                _SET, ([r[1] for r in found], [r[2] for r in found], entities, session_id)
            )
        filled += done.rowcount
    return filled


def fill_summary(conn: Conn, session_id: str, again: bool) -> None:
    """Give entities to the session's summary if it has none (or with `again`)."""
    row = conn.execute(_SUMMARY, (session_id,)).fetchone()
    if row is None or not (again or row[3]):
        return
    uuid, content, nuls, _ = row
    found = rows.entities_json(stored_entities(rows.restored_text(content, nuls)))
    with conn.transaction():
        conn.execute(_SET_SUMMARY, (found, session_id, uuid, content))
