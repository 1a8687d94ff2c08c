"""PostgresStore: sessions in a PostgreSQL database, with the file store's guarantees.

A write is one transaction: a turn's messages, its summary and the session's running
totals commit together or not at all. Every write takes the session row's lock (the
upsert that reserves positions for its messages), so writers from any number of
processes and hosts queue per session and never interleave or lose a turn. Messages
are keyed by (session, position): the last N are read from an index, whatever the
session's length, and appends cost the same at any length.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from zerda._paths import validate_session_id
from zerda.errors import (
    InvalidArgumentError,
    InvalidMessageError,
    NotFoundError,
    SessionChangedError,
)
from zerda.messages import ANSWER, ASK, Memory, Message, Session, Summary, format_time, utc_now
from zerda.store._checks import Finding, Repair
from zerda.store._matching import Filters, Matcher, Query, check_limit
from zerda.store._overview import SessionOverview
from zerda.store._stats import SessionStats, stats_from_tally
from zerda.store._tally import Tally
from zerda.store.base import Store, last_wins, merged_metadata
from zerda.store.postgres import _managing as managing
from zerda.store.postgres import _rows as rows
from zerda.store.postgres._pool import Server
from zerda.store.postgres._schema import LATEST, current_version, migrate
from zerda.store.postgres._searching import SearchQuery
from zerda.store.postgres._totals import RECOUNT, TOTALS
from zerda.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from psycopg import Connection

    from zerda.store._ranking import Corpus
    from zerda.store._sources import MessageSource

    Conn = Connection[tuple[Any, ...]]

# Messages fetched from the server at a time by the streaming reads: a few first (a
# window memory reading back its last turns stops there), then more.
FIRST_BATCH = 24
BATCH = 500
# A message row's written columns and their SQL types, for `unnest` over arrays.
MESSAGE_FIELDS = (
    ("uuid", "text"),
    ("created_at", "timestamptz"),
    ("role", "text"),
    ("role_type", "text"),
    ("part", "text"),
    ("content", "text"),
    ("nuls", "json"),
    ("folded", "text"),
    ("token_count", "bigint"),
    ("metadata", "json"),
    ("extra", "json"),
    ("entities", "json"),
)
_NAMES = ", ".join(name for name, _ in MESSAGE_FIELDS)
_ARRAYS = ", ".join(f"%({name})s::{kind}[]" for name, kind in MESSAGE_FIELDS)
# The rows of a batch, numbered from 1 in the batch's order.
_BATCH_ROWS = f"unnest({_ARRAYS}) WITH ORDINALITY AS m({_NAMES}, ord)"

_NEW_SESSION = """
    INSERT INTO zerda_sessions AS s
        (id, user_id, metadata, created_at, encoding, seq, messages, turns, chars, tokens,
         system, after_user, first_at, last_at)
    VALUES (%(id)s, NULL, '{}', %(now)s, %(encoding)s, %(n)s, %(n)s, %(turns0)s, %(chars)s,
            %(tokens)s, %(system)s, %(after0)s, %(first)s, %(last)s)
"""
# One statement appends a batch: the session row is created or locked and its positions
# and totals moved on (the turns a batch adds depend on whether the session's last
# message asked, so both answers come along), then the messages are inserted after it.
_APPEND = f"""
    WITH session AS (
        {_NEW_SESSION}
        ON CONFLICT (id) DO UPDATE SET
            seq = s.seq + %(n)s,
            messages = s.messages + %(n)s,
            turns = s.turns + CASE WHEN s.after_user THEN %(turns1)s ELSE %(turns0)s END,
            chars = s.chars + %(chars)s,
            tokens = s.tokens + %(tokens)s,
            system = s.system + %(system)s,
            after_user = CASE WHEN s.after_user THEN %(after1)s ELSE %(after0)s END,
            first_at = coalesce(s.first_at, %(first)s),
            last_at = coalesce(%(last)s, s.last_at)
        RETURNING seq
    )/*summary*/
    INSERT INTO zerda_messages (session_id, seq, {_NAMES})
    SELECT %(id)s, session.seq - %(n)s + m.ord, {", ".join(f"m.{n}" for n, _ in MESSAGE_FIELDS)}
    FROM session, {_BATCH_ROWS}
"""
_SUMMARY_COLUMNS = rows.SUMMARY_COLUMNS
_SET_SUMMARY = f"""
    INSERT INTO zerda_summaries (session_id, {_SUMMARY_COLUMNS})
    SELECT %(id)s, %(s_uuid)s, %(s_created_at)s, %(s_content)s, %(s_nuls)s::json,
           %(s_token_count)s, %(s_metadata)s::json, %(s_entities)s::json
    /*source*/
    ON CONFLICT (session_id) DO UPDATE SET
        {", ".join(f"{c} = EXCLUDED.{c}" for c in _SUMMARY_COLUMNS.split(", "))}
"""
_APPEND_WITH_SUMMARY = _APPEND.replace(
    "/*summary*/", f", summary AS ({_SET_SUMMARY.replace('/*source*/', 'FROM session')})"
)
_INSERT_AT = f"""
    INSERT INTO zerda_messages (session_id, seq, {_NAMES})
    SELECT %(id)s, %(start)s + m.ord, {", ".join(f"m.{n}" for n, _ in MESSAGE_FIELDS)}
    FROM {_BATCH_ROWS}
"""
_SELECT_MESSAGES = f"SELECT {rows.MESSAGE_COLUMNS} FROM zerda_messages WHERE session_id = %s"
DELETE_IF_EMPTY = """
    DELETE FROM zerda_sessions AS s
    WHERE s.id = %s AND s.messages = 0
      AND NOT EXISTS (SELECT 1 FROM zerda_messages WHERE session_id = s.id)
      AND NOT EXISTS (SELECT 1 FROM zerda_summaries WHERE session_id = s.id)
    RETURNING s.id
"""
# Last active: the later of the last message's time and the creation (NULLs ignored).
DELETE_IF_INACTIVE = """
    DELETE FROM zerda_sessions WHERE id = %s AND greatest(last_at, created_at) < %s
    RETURNING id
"""
# The last N messages, newest first: a backward scan of the (session, position) key.
LAST_N = f"{_SELECT_MESSAGES} ORDER BY seq DESC LIMIT %s"
FORWARD = f"{_SELECT_MESSAGES} ORDER BY seq"
BACKWARD = f"{_SELECT_MESSAGES} ORDER BY seq DESC"


class PostgresStore(Store):
    """Sessions in the PostgreSQL database at `url` (`postgresql://user:pw@host:port/db`).

    The schema is created or migrated on first use (or by `init`). A pool of at most
    `max_connections` connections is shared by the store's threads; `close` ends them.
    Every message is counted as it is written (in `encoding`). The URL's password is
    never shown: errors name the server by `where`, the URL without it.
    """

    def __init__(
        self,
        url: str,
        *,
        encoding: str = DEFAULT_ENCODING,
        min_connections: int = 1,
        max_connections: int = 8,
        extract_entities: bool = True,
    ) -> None:
        self.server = Server(url, min_size=min_connections, max_size=max_connections)
        self.where = self.server.where
        self.encoding = encoding
        self.extract_entities = extract_entities
        self._ready = False

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"

    def close(self) -> None:
        """Close the store's connections (a later call opens them again)."""
        self.server.close()

    def describe(self, session_id: str) -> str:
        """The server (its URL without the password) and the session."""
        validate_session_id(session_id)
        return f"session {session_id} at {self.where}"

    def init(self) -> list[str]:
        """Create or migrate the schema now; returns what was applied ("" when current)."""
        conn = self.server.connect()
        try:
            with self.server.translated():
                applied = migrate(conn)
        finally:
            conn.close()
        self._ready = True
        return [f"{m.version}: {m.description}" for m in applied]

    def schema_version(self) -> int:
        """The schema version the database holds (0: none yet); nothing is migrated."""
        with self.server.connection() as conn:
            return current_version(conn)

    def _connection(self) -> AbstractContextManager[Conn]:
        """A pooled connection (a context manager), the schema made current on first use."""
        if not self._ready:
            with self.server.connection() as conn:
                current = current_version(conn) == LATEST
            if not current:
                self.init()
            self._ready = True
        return self.server.connection()

    # -- sessions ----------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        """True when the session has a row."""
        validate_session_id(session_id)
        with self._connection() as conn:
            return (
                _one(conn, "SELECT 1 FROM zerda_sessions WHERE id = %s", (session_id,)) is not None
            )

    def create_session(
        self,
        session_id: str,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: datetime | None = None,
    ) -> Session:
        """Create the session, or update it as `update_session` does if it exists.

        `created_at` (default now) is used only when the session is new.
        """
        validate_session_id(session_id)
        metadata = merged_metadata({}, metadata or {})
        session = Session(session_id, user_id, metadata, created_at or utc_now())
        values = {
            "id": session_id,
            "user_id": _user(user_id),
            "metadata": rows.json_text(metadata, "session's metadata"),
            "created_at": rows.utc(session.created_at or utc_now(), "session"),
            "encoding": self.encoding,
        }
        with self._connection() as conn:
            made = _one(
                conn,
                """
                INSERT INTO zerda_sessions (id, user_id, metadata, created_at, encoding)
                VALUES (%(id)s, %(user_id)s, %(metadata)s::json, %(created_at)s, %(encoding)s)
                ON CONFLICT (id) DO NOTHING RETURNING id
                """,
                values,
            )
        if made is None:
            return self.update_session(session_id, user_id, metadata)
        return self.get_session(session_id)

    def update_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Set the user (when given) and merge `metadata` into the session's.

        A key given as None is removed. NotFoundError for a session that does not exist.
        """
        validate_session_id(session_id)
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidArgumentError("session metadata must be a dict")
        user = _user(user_id)
        with self._connection() as conn, conn.transaction():
            row = _one(
                conn,
                "SELECT user_id, metadata FROM zerda_sessions WHERE id = %s FOR UPDATE",
                (session_id,),
            )
            if row is None:
                raise NotFoundError(session_id)
            merged = merged_metadata(row[1] or {}, metadata or {})
            conn.execute(
                "UPDATE zerda_sessions SET user_id = %s, metadata = %s::json WHERE id = %s",
                (
                    row[0] if user is None else user,
                    rows.json_text(merged, "session's metadata"),
                    session_id,
                ),
            )
        return self.get_session(session_id)

    def get_session(self, session_id: str) -> Session:
        """The session's id, user, metadata and creation time."""
        validate_session_id(session_id)
        with self._connection() as conn:
            row = _one(
                conn,
                "SELECT user_id, metadata, created_at FROM zerda_sessions WHERE id = %s",
                (session_id,),
            )
        if row is None:
            raise NotFoundError(session_id)
        return Session(session_id, row[0], row[1] or {}, row[2].replace(tzinfo=UTC))

    def session_ids(self) -> list[str]:
        """The ids of all sessions, sorted."""
        with self._connection() as conn:
            found = conn.execute("SELECT id FROM zerda_sessions ORDER BY id").fetchall()
        return [row[0] for row in found]

    def list_sessions(self) -> list[SessionStats]:
        """Stats of every session, most recently active first: one row each."""
        with self._connection() as conn:
            found = conn.execute(f"SELECT id, {TOTALS} FROM zerda_sessions ORDER BY id").fetchall()
        stats = [self._stats(row[0], _tally(row[1:])) for row in found]
        return sorted(stats, key=lambda s: s.last_activity or "", reverse=True)

    def delete_session(self, session_id: str) -> None:
        """Remove the session, its messages and its summary."""
        validate_session_id(session_id)
        with self._connection() as conn:
            gone = _one(
                conn, "DELETE FROM zerda_sessions WHERE id = %s RETURNING id", (session_id,)
            )
        if gone is None:
            raise NotFoundError(session_id)

    def delete_session_if_empty(self, session_id: str) -> bool:
        """Remove the session if it holds no message and no summary, in one statement:
        its row lock orders it with any write adding one. True when it was removed."""
        validate_session_id(session_id)
        with self._connection() as conn:
            gone = _one(conn, DELETE_IF_EMPTY, (session_id,))
        return gone is not None

    def delete_session_if_inactive(self, session_id: str, cutoff: datetime) -> bool:
        """Remove the session if it was last active before `cutoff` (see
        `Store.delete_session_if_inactive`), in one statement: its row lock orders it with
        any write. True when it was removed."""
        validate_session_id(session_id)
        with self._connection() as conn:
            gone = _one(conn, DELETE_IF_INACTIVE, (session_id, rows.utc(cutoff, "cutoff")))
        return gone is not None

    def rename_session(self, old: str, new: str) -> None:
        """Give session `old` the id `new` in one transaction (see `Store.rename_session`):
        it takes `old`'s row lock, so writers to `old` queue behind it."""
        validate_session_id(old)
        validate_session_id(new)
        with self._connection() as conn:
            managing.rename(conn, old, new)

    def list_overviews(self) -> list[SessionOverview]:
        """Stats, title, creation time and opening words of every session, most recently
        active first: one query."""
        with self._connection() as conn:
            found = conn.execute(managing.OVERVIEWS).fetchall()
        overviews = [
            SessionOverview(
                self._stats(row[0], _tally(row[4:])), row[1], row[2].astimezone(UTC), row[3]
            )
            for row in found
        ]
        return sorted(overviews, key=lambda o: o.stats.last_activity or "", reverse=True)

    # -- writing messages ----------------------------------------------------------

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Add the messages (and summary) in one transaction; returns them as stored.

        The session is created on first write. A message whose uuid the session
        already holds replaces that message in place (role, content, metadata and
        extra; its time is kept unless given), as Zep upserts. Within one call the
        last of a uuid wins.
        """
        validate_session_id(session_id)
        batch = last_wins(memory.messages)
        summary = self._stamp_summary(memory.summary)
        if not any(m.uuid for m in batch):  # nothing to replace: one statement
            stored = [self._stamp(m) for m in batch]
            with self._connection() as conn:
                conn.execute(*self._append(session_id, stored, summary))
            return stored
        with self._connection() as conn, conn.transaction():
            stored, replaced = self._merge(conn, session_id, batch)
            self._finish(conn, session_id, summary, replaced)
        return stored

    def import_messages(
        self, session_id: str, source: MessageSource, summary: Summary | str | None = None
    ) -> int:
        """Add every message of `source` (and a summary) in one transaction; returns how
        many were written.

        For bulk imports: messages go to the server BATCH at a time, so memory stays
        flat however many there are. As with `add_memory`, the session is created on
        first write, a message whose uuid the session holds replaces it in place, and a
        uuid carried by several messages is stored once, at its first place with its last
        value. A failure (a message that cannot be stored, the server gone) writes none.
        """
        validate_session_id(session_id)
        stamped = self._stamp_summary(summary)
        replaced = False
        with self._connection() as conn, conn.transaction():
            for batch in _batches((message for _, message in source), BATCH):
                replaced = self._merge(conn, session_id, last_wins(batch))[1] or replaced
            self._finish(conn, session_id, stamped, replaced)
            row = _one(
                conn,
                "SELECT count(*) FROM zerda_messages "
                "WHERE session_id = %s AND xmin = pg_current_xact_id()::xid",
                (session_id,),
            )
        return int(row[0]) if row else 0

    def _append(
        self, session_id: str, stored: list[Message], summary: Summary | None
    ) -> tuple[str, dict[str, Any]]:
        """The statement and values that append `stored` (and set `summary`), creating
        the session if it is new."""
        values = {
            "id": session_id,
            "now": utc_now(),
            "encoding": self.encoding,
            "n": len(stored),
            **_batch_totals(stored),
            **_columns(stored),
        }
        if summary is None:
            return _APPEND, values
        return _APPEND_WITH_SUMMARY, {**values, **rows.summary_params(summary)}

    def _merge(
        self, conn: Conn, session_id: str, batch: list[Message]
    ) -> tuple[list[Message], bool]:
        """Write `batch` (uuids distinct) into the session, in this transaction: those
        whose uuid the session holds replace their message in place, the others are
        appended. Returns the messages as stored, and whether any was replaced (the
        running totals then need `_finish`)."""
        wanted = [m.uuid for m in batch if m.uuid]
        held: dict[str, datetime] = {}
        if wanted and self._lock_row(conn, session_id):
            found = conn.execute(
                "SELECT uuid, created_at FROM zerda_messages "
                "WHERE session_id = %s AND uuid = ANY(%s)",
                (session_id, wanted),
            ).fetchall()
            held = {uuid: created.replace(tzinfo=UTC) for uuid, created in found}
        if not held:
            stored = [self._stamp(m) for m in batch]
            conn.execute(*self._append(session_id, stored, None))
            return stored, False
        revised = {m.uuid: self._revised(m, held[m.uuid]) for m in batch if m.uuid in held}
        added = [self._stamp(m) for m in batch if m.uuid not in held]
        self._replace_rows(conn, session_id, list(revised.values()))
        self._insert(conn, session_id, added)
        rest = iter(added)
        return [revised[m.uuid] if m.uuid in revised else next(rest) for m in batch], True

    def _finish(self, conn: Conn, session_id: str, summary: Summary | None, replaced: bool) -> None:
        """End a write of several statements: the session made (if it is new), the summary
        set, and the running totals counted afresh if messages were replaced."""
        conn.execute(*self._append(session_id, [], summary))
        if replaced:
            conn.execute(RECOUNT, {"id": session_id})

    def _revised(self, new: Message, old_time: datetime) -> Message:
        """`new` in place of the message of its uuid: the old time unless new has one."""
        new = self._with_entities(new)
        count = new.token_count
        if count is None:
            count = count_tokens(new.content, self.encoding)
        return replace(new, created_at=new.created_at or old_time, token_count=count)

    def _replace_rows(self, conn: Conn, session_id: str, messages: list[Message]) -> None:
        """Overwrite the rows of `messages` (by uuid) with their new values."""
        assignments = ", ".join(f"{n} = m.{n}" for n, _ in MESSAGE_FIELDS if n != "uuid")
        conn.execute(
            f"""
            UPDATE zerda_messages AS t SET {assignments}
            FROM {_BATCH_ROWS}
            WHERE t.session_id = %(id)s AND t.uuid = m.uuid
            """,
            {"id": session_id, **_columns(messages)},
        )

    def _insert(self, conn: Conn, session_id: str, messages: list[Message]) -> None:
        """Insert `messages` after the session's newest (its row is locked)."""
        if not messages:
            return
        row = _one(
            conn,
            "UPDATE zerda_sessions SET seq = seq + %s WHERE id = %s RETURNING seq",
            (len(messages), session_id),
        )
        assert row is not None
        start = row[0] - len(messages)
        conn.execute(_INSERT_AT, {"id": session_id, "start": start, **_columns(messages)})

    @staticmethod
    def _lock_row(conn: Conn, session_id: str) -> tuple[Any, ...] | None:
        """Lock the session's row for this transaction; its totals, or None if none."""
        return _one(
            conn, f"SELECT {TOTALS} FROM zerda_sessions WHERE id = %s FOR UPDATE", (session_id,)
        )

    def set_summary(self, session_id: str, summary: Summary | str) -> Summary:
        """Record the session's running summary (the latest one wins); returns it stored."""
        validate_session_id(session_id)
        stored = self._stamp_summary(summary)
        assert stored is not None
        with self._connection() as conn:
            conn.execute(*self._append(session_id, [], stored))
        return stored

    def fill_entities(self, session_id: str, *, again: bool = False) -> int:
        """Store the entities of messages and the summary held without them (every one
        with `again`; see `Store.fill_entities`), a batch of messages a transaction: a
        message replaced meanwhile keeps what its writer gave it."""
        from zerda.store.postgres import _entities as entities

        validate_session_id(session_id)
        with self._connection() as conn:
            self._require(conn, session_id)
            filled = entities.fill_messages(conn, session_id, again)
            entities.fill_summary(conn, session_id, again)
        return filled

    # -- reading messages ----------------------------------------------------------

    def _require(self, conn: Conn, session_id: str) -> None:
        if _one(conn, "SELECT 1 FROM zerda_sessions WHERE id = %s", (session_id,)) is None:
            raise NotFoundError(session_id)

    def _streamed(
        self, query: str, params: tuple[Any, ...], session_id: str | None
    ) -> Iterator[tuple[Any, ...]]:
        """The rows of `query`, fetched BATCH at a time from one snapshot; NotFoundError
        first when `session_id` is given and does not exist."""
        with self._connection() as conn, conn.transaction():
            if session_id is not None:
                self._require(conn, session_id)
            with conn.cursor(name="zerda_rows") as cursor:
                cursor.execute(query, params)
                found = cursor.fetchmany(FIRST_BATCH)  # readers of the last turns stop soon
                while found:
                    yield from found
                    found = cursor.fetchmany(BATCH)

    def _stream(self, session_id: str, query: str) -> Iterator[Message]:
        for row in self._streamed(query, (session_id,), session_id):
            yield rows.message_from_row(row)

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """Every message, oldest first, streamed."""
        validate_session_id(session_id)
        messages = self._stream(session_id, FORWARD)
        next_message = next(messages, None)  # raises NotFoundError now, as files do
        return _chained(next_message, messages)

    def iter_messages_reversed(self, session_id: str) -> Iterator[Message]:
        """Messages newest first, streamed from the newest."""
        validate_session_id(session_id)
        yield from self._stream(session_id, BACKWARD)

    def get_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        """The session's messages (the last `lastn` only, read by index) and summary.

        `lastn` None or 0 gives every message, as `get_messages(limit=0)` does.
        """
        if lastn is not None and (type(lastn) is not int or lastn < 0):
            raise InvalidArgumentError(f"lastn must be a non-negative integer, not {lastn!r}")
        validate_session_id(session_id)
        if not lastn:
            messages = list(self.iter_messages(session_id))
            return Memory(messages=messages, summary=self.get_summary(session_id))
        with self._connection() as conn:
            summary = self._summary(conn, session_id)
            found = conn.execute(LAST_N, (session_id, lastn)).fetchall()
        messages = [rows.message_from_row(row) for row in reversed(found)]
        return Memory(messages=messages, summary=summary)

    def _summary(self, conn: Conn, session_id: str) -> Summary | None:
        """The session's summary; NotFoundError when the session does not exist."""
        row = _one(
            conn,
            f"SELECT s.id, {', '.join('m.' + c for c in _SUMMARY_COLUMNS.split(', '))} "
            "FROM zerda_sessions AS s LEFT JOIN zerda_summaries AS m ON m.session_id = s.id "
            "WHERE s.id = %s",
            (session_id,),
        )
        if row is None:
            raise NotFoundError(session_id)
        return None if row[1] is None else rows.summary_from_row(row[1:])

    def get_summary(self, session_id: str) -> Summary | None:
        """The latest summary recorded for the session, or None."""
        validate_session_id(session_id)
        with self._connection() as conn:
            return self._summary(conn, session_id)

    def system_messages(self, session_id: str) -> list[Message]:
        """The session's system messages, oldest first (none costs one row's read)."""
        validate_session_id(session_id)
        with self._connection() as conn:
            row = _one(conn, "SELECT system FROM zerda_sessions WHERE id = %s", (session_id,))
            if row is None:
                raise NotFoundError(session_id)
            if not row[0]:
                return []
            found = conn.execute(
                f"SELECT {rows.MESSAGE_COLUMNS} FROM zerda_messages "
                "WHERE session_id = %s AND role_type = 'system' ORDER BY seq",
                (session_id,),
            ).fetchall()
        return [rows.message_from_row(row) for row in found]

    def message_count(self, session_id: str) -> int:
        """How many messages the session holds (its running total)."""
        validate_session_id(session_id)
        with self._connection() as conn:
            row = _one(conn, "SELECT messages FROM zerda_sessions WHERE id = %s", (session_id,))
        if row is None:
            raise NotFoundError(session_id)
        return int(row[0])

    def session_stats(self, session_id: str) -> SessionStats:
        """Counts, tokens, characters and activity: the session row's running totals."""
        validate_session_id(session_id)
        with self._connection() as conn:
            row = _one(conn, f"SELECT {TOTALS} FROM zerda_sessions WHERE id = %s", (session_id,))
        if row is None:
            raise NotFoundError(session_id)
        return self._stats(session_id, _tally(row))

    def _stats(self, session_id: str, tally: Tally) -> SessionStats:
        return replace(stats_from_tally(session_id, tally), encoding=self.encoding)

    def search(
        self,
        query: Query,
        session_id: str | None = None,
        *,
        roles: Collection[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[tuple[str, Message]]:
        """(session id, message) for each message `query` finds, newest first (by time,
        then session id, then position, last first); see `Store.search`.

        The filters are SQL (`zerda.store.postgres._searching`): the trigram index picks
        a string's candidates; each is checked exactly here.
        """
        check_limit(limit)
        session_id = session_id or None
        if session_id is not None:
            validate_session_id(session_id)
        matcher = Matcher(query)
        sql = SearchQuery(matcher, Filters.of(roles, since, until), session_id, limit)
        if sql.pattern is not None and not self._server_reads(sql.pattern):
            sql = SearchQuery(
                matcher, Filters.of(roles, since, until), session_id, limit, server_pattern=False
            )
        found = self._streamed(sql.statement(), tuple(sql.params), session_id)
        hits = (
            (row[0], message)
            for row in found
            if matcher.found((message := rows.message_from_row(row[1:])).content)
        )
        return islice(hits, limit)

    def corpus(self, terms: Sequence[Sequence[str]]) -> Corpus:
        """What ranking needs of the store (see `Store.corpus`): the totals of every
        session, and a count of each term's candidates on the trigram index."""
        from zerda.store._ranking import Corpus
        from zerda.store.postgres._searching import holding_count

        with self._connection() as conn:
            totals = _one(conn, "SELECT sum(messages), sum(chars) FROM zerda_sessions", ())
            holding = [_one(conn, *holding_count(texts)) for texts in terms]
        messages, characters = totals or (0, 0)
        found = tuple(int(row[0]) if row else 0 for row in holding)
        return Corpus(int(messages or 0), int(characters or 0), found)

    def _server_reads(self, pattern: str) -> bool:
        """False when the server refuses `pattern` (a Python pattern it reads otherwise
        than `searching` knows of): the search then matches in Python alone."""
        from psycopg.errors import InvalidRegularExpression

        with self._connection() as conn:
            try:
                conn.execute("SELECT '' ~ %s", (pattern,))
            except InvalidRegularExpression:
                return False
        return True

    # -- checking --------------------------------------------------------------------

    def check(self, session_id: str | None = None) -> list[Finding]:
        """The schema's version, and each session's running totals against its counted
        rows; see `zerda.store.postgres._doctor`."""
        from zerda.store.postgres import _doctor as doctor

        return doctor.check(self, session_id)

    def repair(self, session_id: str | None = None) -> Repair:
        """Migrate a schema that is behind and recount the totals in one transaction."""
        from zerda.store.postgres import _doctor as doctor

        return doctor.repair(self, session_id)

    # -- rewriting -----------------------------------------------------------------

    def _locked_totals(self, conn: Conn, session_id: str) -> Tally:
        row = self._lock_row(conn, session_id)
        if row is None:
            raise NotFoundError(session_id)
        return _tally(row)

    def clear(self, session_id: str) -> None:
        """Empty the session (messages and summary); the session and its metadata stay."""
        validate_session_id(session_id)
        with self._connection() as conn, conn.transaction():
            self._locked_totals(conn, session_id)
            conn.execute("DELETE FROM zerda_messages WHERE session_id = %s", (session_id,))
            conn.execute("DELETE FROM zerda_summaries WHERE session_id = %s", (session_id,))
            _save_totals(conn, session_id, Tally())

    def replace_messages(self, session_id: str, messages: list[Message]) -> None:
        """Make the session's messages exactly `messages` (see `Store.replace_messages`) in
        one transaction."""
        validate_session_id(session_id)
        stored = [self._stamp(m) for m in last_wins(messages)]
        _columns(stored)  # refuses what cannot be stored before anything is written
        with self._connection() as conn, conn.transaction():
            self._locked_totals(conn, session_id)
            conn.execute("DELETE FROM zerda_messages WHERE session_id = %s", (session_id,))
            self._insert(conn, session_id, stored)
            conn.execute(RECOUNT, {"id": session_id})

    def compact(self, session_id: str) -> None:
        """Count the session's running totals afresh from its messages (a repair: rows are
        rewritten in place, so there is nothing else to fold)."""
        validate_session_id(session_id)
        with self._connection() as conn, conn.transaction():
            self._locked_totals(conn, session_id)
            conn.execute(RECOUNT, {"id": session_id})

    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last turn: the last message that asks (a user, or a speaker of no
        known type; see `Message.part`) and everything after it. Returns what was removed.

        The summary stays. A session where no message asks keeps all its messages.
        """
        validate_session_id(session_id)
        with self._connection() as conn, conn.transaction():
            totals = self._locked_totals(conn, session_id)
            cut = _last_ask(conn, session_id)
            if cut is None:
                return []
            removed, kept = _cut(conn, session_id, cut[0], totals)
            _save_totals(conn, session_id, kept)
        return removed

    def replace_last_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        *,
        replaces: str | None = None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> tuple[Message, Message]:
        """Swap the last turn (as `delete_last_turn` finds it) for a new one.

        One transaction: the old turn or the new one, never neither. The summary stays.
        `replaces`, when given, is the uuid of the message expected to open the last
        turn; if the session has moved on, `SessionChangedError` is raised and nothing is
        written. A session where no message asks gets the turn appended.
        `reply_metadata` is the new reply's metadata.
        """
        validate_session_id(session_id)
        reply = Message("assistant", assistant, dict(reply_metadata or {}))
        pair = (self._stamp(Message("user", user)), self._stamp(reply))
        _columns(list(pair))  # refuses what cannot be stored before anything is written
        with self._connection() as conn, conn.transaction():
            totals = self._locked_totals(conn, session_id)
            cut = _last_ask(conn, session_id)
            if replaces is not None and (cut is None or cut[1] != replaces):
                raise SessionChangedError(
                    f"session {session_id} changed since its last turn was read; nothing written"
                )
            if cut is not None:
                totals = _cut(conn, session_id, cut[0], totals)[1]
            for message in pair:
                _count(totals, message)
            self._insert(conn, session_id, list(pair))
            _save_totals(conn, session_id, totals)
        return pair


def _one(conn: Conn, query: str, params: Any) -> tuple[Any, ...] | None:
    """The first row `query` gives, or None."""
    return conn.execute(query, params).fetchone()


def _chained(first: Message | None, rest: Iterator[Message]) -> Iterator[Message]:
    if first is not None:
        yield first
        yield from rest


def _user(user_id: object) -> str | None:
    """A user id as stored: a string (or None, for none given)."""
    if user_id is None:
        return None
    if not isinstance(user_id, str):
        raise InvalidMessageError("session user_id must be a string")
    return rows.text_value(user_id, "session's user_id")


def _stamp_of(moment: datetime | None) -> str | None:
    return format_time(moment) if moment is not None else None


def _tally(row: tuple[Any, ...]) -> Tally:
    """The Tally of a session row's TOTALS."""
    messages, turns, chars, tokens, system, after_user, first_at, last_at = row
    return Tally(
        messages=messages,
        turns=turns,
        chars=chars,
        tokens=tokens,
        system=system,
        after_user=after_user,
        first=_stamp_of(first_at),
        last=_stamp_of(last_at),
    )


def _count(tally: Tally, message: Message) -> None:
    """Add one stored message to `tally`."""
    stamp = _stamp_of(message.created_at)
    tally.add(message.kind, message.part, len(message.content), message.token_count, stamp)


def _batch_totals(stored: list[Message]) -> dict[str, Any]:
    """What a batch adds to a session's totals, after a message that asked (`1`) or not (`0`)."""
    after: dict[bool, Tally] = {False: Tally(), True: Tally(after_user=True)}
    for tally in after.values():
        for message in stored:
            tally.add(message.kind, message.part, len(message.content), message.token_count, None)
    times = [rows.utc(m.created_at, "message") for m in stored if m.created_at is not None]
    return {
        "turns0": after[False].turns,
        "turns1": after[True].turns,
        "after0": after[False].after_user,
        "after1": after[True].after_user,
        "chars": after[False].chars,
        "tokens": after[False].tokens,
        "system": after[False].system,
        "first": times[0] if times else None,
        "last": times[-1] if times else None,
    }


def _batches(messages: Iterator[Message], size: int) -> Iterator[list[Message]]:
    """`messages` in lists of `size` (the last may be shorter)."""
    batch: list[Message] = []
    for message in messages:
        batch.append(message)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _columns(messages: list[Message]) -> dict[str, list[Any]]:
    """The values of `messages`' rows, one array per column (for `unnest`)."""
    values = [rows.message_params(m) for m in messages]
    return {name: [v[name] for v in values] for name, _ in MESSAGE_FIELDS}


def _save_totals(conn: Conn, session_id: str, tally: Tally) -> None:
    conn.execute(
        """
        UPDATE zerda_sessions SET messages = %s, turns = %s, chars = %s, tokens = %s,
            system = %s, after_user = %s, first_at = %s, last_at = %s
        WHERE id = %s
        """,
        (
            tally.messages,
            tally.turns,
            tally.chars,
            tally.tokens,
            tally.system,
            tally.after_user,
            tally.first,
            tally.last,
            session_id,
        ),
    )


def _last_ask(conn: Conn, session_id: str) -> tuple[int, str] | None:
    """(position, uuid) of the session's last message that asks, or None."""
    row = _one(
        conn,
        f"SELECT seq, uuid FROM zerda_messages WHERE session_id = %s AND part = '{ASK}' "
        "ORDER BY seq DESC LIMIT 1",
        (session_id,),
    )
    return (int(row[0]), str(row[1])) if row else None


def _cut(conn: Conn, session_id: str, at: int, totals: Tally) -> tuple[list[Message], Tally]:
    """Delete the messages from position `at` on; (them, the totals of those kept).

    The totals kept are `totals` less what the removed messages added, counted from
    the state the kept ones left (did the last of them ask?): no full recount.
    """
    found = conn.execute(
        f"DELETE FROM zerda_messages WHERE session_id = %s AND seq >= %s "
        f"RETURNING seq, {rows.MESSAGE_COLUMNS}",
        (session_id, at),
    ).fetchall()
    removed = [rows.message_from_row(row[1:]) for row in sorted(found, key=lambda r: r[0])]
    before = _one(
        conn,
        f"SELECT part = '{ASK}' FROM zerda_messages WHERE session_id = %s "
        f"AND part IN ('{ASK}', '{ANSWER}') ORDER BY seq DESC LIMIT 1",
        (session_id,),
    )
    added = Tally(after_user=bool(before and before[0]))
    for message in removed:
        added.add(message.kind, message.part, len(message.content), message.token_count, None)
    last = _one(
        conn,
        "SELECT created_at FROM zerda_messages WHERE session_id = %s ORDER BY seq DESC LIMIT 1",
        (session_id,),
    )
    kept = Tally(
        messages=totals.messages - added.messages,
        turns=totals.turns - added.turns,
        chars=totals.chars - added.chars,
        tokens=totals.tokens - added.tokens,
        system=(totals.system or 0) - (added.system or 0),
        after_user=bool(before and before[0]),
        first=totals.first if last else None,
        last=_stamp_of(last[0]) if last else None,
    )
    return removed, kept
