"""The PostgreSQL schema of zerda's sessions, versioned: each migration is applied once, in order.

`zerda_schema` records the versions applied. `migrate` brings a database up to
`LATEST` under an advisory lock, so processes starting together apply each
migration once; a database written by a newer zerda is refused, not changed.

Tables (in the connection's current schema, so `?options=-csearch_path%3Dname` in the
URL picks another):

- `zerda_sessions`: one row a session: its facts (user, metadata, creation time,
  encoding), `seq` (the position of its newest message, taken by each write under
  the row's lock) and its running totals, updated in the same transaction as the
  messages they count, so stats read this one row.
- `zerda_messages`: one row a message, keyed by (session, position); a uuid is
  unique within its session. `content` is the text as given, except that NUL (which
  PostgreSQL text cannot hold) is stored as U+FFFD with its positions in `nuls`.
  `folded` is `str.casefold()` of a non-ASCII text (NULL for ASCII, whose fold is its
  ASCII lowercase), so a search matches exactly as the file store's does, through a
  trigram index on SEARCH_TEXT.
- `zerda_summaries`: the latest summary of each session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zerda.errors import StoreError

if TYPE_CHECKING:
    from psycopg import Connection

# The text a search looks in: the same expression in the index and in every query,
# or the planner would not use the index.
SEARCH_TEXT = 'coalesce(folded, lower(content COLLATE "C"))'
SEARCH_INDEX = f"""
    CREATE INDEX IF NOT EXISTS zerda_messages_search ON zerda_messages
        USING gin (({SEARCH_TEXT}) gin_trgm_ops)
"""
# Taken by `migrate` for its transaction (any fixed number, unlikely to clash).
MIGRATION_LOCK = 0x7A657264_61000001


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its version, what it does, and its statements."""

    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS = (
    Migration(
        1,
        "sessions with running totals, messages by position, latest summaries, trigram search",
        (
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            """
            CREATE TABLE zerda_sessions (
                id text COLLATE "C" PRIMARY KEY,
                user_id text,
                metadata json NOT NULL,
                created_at timestamptz NOT NULL,
                encoding text NOT NULL,
                seq bigint NOT NULL DEFAULT 0,
                messages bigint NOT NULL DEFAULT 0,
                turns bigint NOT NULL DEFAULT 0,
                chars bigint NOT NULL DEFAULT 0,
                tokens bigint NOT NULL DEFAULT 0,
                system bigint NOT NULL DEFAULT 0,
                after_user boolean NOT NULL DEFAULT false,
                first_at timestamptz,
                last_at timestamptz
            )
            """,
            """
            CREATE TABLE zerda_messages (
                session_id text COLLATE "C" NOT NULL
                    REFERENCES zerda_sessions (id) ON DELETE CASCADE,
                seq bigint NOT NULL,
                uuid text NOT NULL,
                created_at timestamptz NOT NULL,
                role text NOT NULL,
                role_type text NOT NULL,
                part text,
                content text NOT NULL,
                nuls json,
                folded text,
                token_count bigint NOT NULL,
                metadata json NOT NULL,
                extra json,
                PRIMARY KEY (session_id, seq),
                UNIQUE (session_id, uuid)
            )
            """,
            """
            CREATE INDEX zerda_messages_system ON zerda_messages (session_id, seq)
                WHERE role_type = 'system'
            """,
            SEARCH_INDEX,
            """
            CREATE TABLE zerda_summaries (
                session_id text COLLATE "C" PRIMARY KEY
                    REFERENCES zerda_sessions (id) ON DELETE CASCADE,
                uuid text NOT NULL,
                created_at timestamptz NOT NULL,
                content text NOT NULL,
                nuls json,
                token_count bigint NOT NULL,
                metadata json NOT NULL
            )
            """,
        ),
    ),
    Migration(
        2,
        "the entities of each message and summary (null: not extracted)",
        (
            "ALTER TABLE zerda_messages ADD COLUMN entities json",
            "ALTER TABLE zerda_summaries ADD COLUMN entities json",
        ),
    ),
)
LATEST = MIGRATIONS[-1].version


def current_version(conn: Connection[tuple[Any, ...]]) -> int:
    """The newest version applied to the database (0: none, the schema is not there).

    One query when the schema is there (the common case); `conn` must be autocommit
    or in a transaction that may fail (a missing table fails the statement).
    """
    from psycopg.errors import UndefinedTable

    try:
        row = conn.execute("SELECT coalesce(max(version), 0) FROM zerda_schema").fetchone()
    except UndefinedTable:
        return 0
    return int(row[0]) if row else 0


def migrate(conn: Connection[tuple[Any, ...]]) -> list[Migration]:
    """Apply the migrations the database lacks, each in order, all in one transaction.

    Returns those applied (none when the schema is current). Raises StoreError for a
    schema newer than this zerda knows.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            """
            CREATE TABLE IF NOT EXISTS zerda_schema (
                version integer PRIMARY KEY,
                description text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        version = current_version(conn)
        if version > LATEST:
            raise StoreError(
                f"the database holds zerda schema version {version}, newer than this zerda "
                f"knows ({LATEST}); upgrade zerda"
            )
        applied = [m for m in MIGRATIONS if m.version > version]
        for migration in applied:
            for statement in migration.statements:
                conn.execute(statement.encode())
            conn.execute(
                "INSERT INTO zerda_schema (version, description) VALUES (%s, %s)",
                (migration.version, migration.description),
            )
    return applied
