"""Managing sessions on the server: renaming one (one transaction) and listing them all
with their titles and opening words (one query)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.errors import NotFoundError, SessionExistsError
from zerda.messages import ASK
from zerda.store._overview import OPENING_CHARS, OPENING_MESSAGES

if TYPE_CHECKING:
    from psycopg import Connection

    Conn = Connection[tuple[Any, ...]]

_COLUMNS = "user_id, metadata, created_at, encoding, seq, messages, turns, chars, tokens, system, "
_COLUMNS += "after_user, first_at, last_at"
# The new row takes the old one's facts and totals; messages and summary follow it,
# then the old row goes (the foreign keys have no ON UPDATE, so ids are moved, not edited).
_RENAME = (
    f"INSERT INTO zerda_sessions (id, {_COLUMNS}) "
    f"SELECT %(new)s, {_COLUMNS} FROM zerda_sessions WHERE id = %(old)s",
    "UPDATE zerda_messages SET session_id = %(new)s WHERE session_id = %(old)s",
    "UPDATE zerda_summaries SET session_id = %(new)s WHERE session_id = %(old)s",
    "DELETE FROM zerda_sessions WHERE id = %(old)s",
)


def rename(conn: Conn, old: str, new: str) -> None:
    """Give session `old` the id `new`, in one transaction under `old`'s row lock (the
    lock every write to it takes). NotFoundError or SessionExistsError change nothing."""
    from psycopg.errors import UniqueViolation

    with conn.transaction():
        found = conn.execute(
            "SELECT 1 FROM zerda_sessions WHERE id = %s FOR UPDATE", (old,)
        ).fetchone()
        if found is None:
            raise NotFoundError(old)
        try:
            with conn.transaction():  # a savepoint: the violation is ours to report
                conn.execute(_RENAME[0], {"old": old, "new": new})
        except UniqueViolation:
            raise SessionExistsError(new) from None
        for statement in _RENAME[1:]:
            conn.execute(statement, {"old": old, "new": new})


# Each session's row with its title (a non-empty string only, as `title_of` takes it)
# and the start of its first message that asks among its first OPENING_MESSAGES (as the
# file store looks), found by walking the (session, position) key from the start.
OVERVIEWS = f"""
    SELECT s.id,
        CASE WHEN json_typeof(s.metadata -> 'title') = 'string'
             THEN nullif(s.metadata ->> 'title', '') END,
        s.created_at,
        (SELECT left(m.content, {OPENING_CHARS})
         FROM (SELECT seq, part, content FROM zerda_messages WHERE session_id = s.id
               ORDER BY seq LIMIT {OPENING_MESSAGES}) AS m
         WHERE m.part = '{ASK}' ORDER BY m.seq LIMIT 1),
        s.messages, s.turns, s.chars, s.tokens, s.system, s.after_user, s.first_at, s.last_at
    FROM zerda_sessions AS s
"""
