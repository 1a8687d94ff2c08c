"""llm's history: Simon Willison's `llm` logs database (`logs.db`), one session per
conversation.

Format: llm's SQLite schema, as its migrations build it (`llm/migrations.py`,
https://llm.datasette.io/en/stable/logging.html). Two generations of tables hold
conversations, and a database upgraded from an older llm holds both:
- `conversations` and `responses` (llm before 0.32; read by `responses`): one row per
  prompt and its reply, with the system prompt, model, time, duration and token usage;
  `tool_calls` and `tool_results` (llm 0.26+) hold the tools a reply called and the
  results the next prompt sent back.
- `threads`, `turns`, `messages` and `parts` (llm 0.32+; read by `threads`): a thread
  points at its tip message, messages chain up to the first through their parents,
  each made of parts (text, reasoning, tool calls and results, attachments); a turn is
  one model call, with its model, time and usage.

The database is opened read-only and read a conversation at a time. A database in WAL
mode (as llm leaves its logs.db) is opened immutable, so that reading it creates no
`-wal` or `-shm` file beside it: llm must not be writing to it meanwhile. A response
llm also recorded as a turn is read once, as the turn (as `llm logs` does).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from zerda.errors import ImportFailed
from zerda.importers._base import Found
from zerda.importers._llm import responses, threads

WAL_AT = 18  # offset of the database header's read version: 2 in WAL mode


def read(path: Path) -> Iterator[Found]:
    """The conversations of the llm logs database at `path`, legacy ones first."""
    db = _open(path)
    try:
        tables = _tables(db, path)
        yield from responses.read(db, path.name, tables)
        yield from threads.read(db, path.name, tables)
    except sqlite3.DatabaseError as exc:
        raise ImportFailed(f"{path}: the llm logs database cannot be read: {exc}") from None
    finally:
        db.close()


def _open(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise ImportFailed(f"{path}: no such file")
    mode = "ro&immutable=1" if _in_wal_mode(path) else "ro"
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode={mode}", uri=True)
    except sqlite3.Error as exc:
        raise ImportFailed(f"{path}: cannot open it as an llm logs database: {exc}") from None
    db.row_factory = sqlite3.Row
    return db


def _in_wal_mode(path: Path) -> bool:
    """True when the database's header says WAL mode (its read and write versions, bytes
    18 and 19, are 2)."""
    with path.open("rb") as handle:
        header = handle.read(WAL_AT + 1)
    return len(header) > WAL_AT and header[WAL_AT] == 2


def _tables(db: sqlite3.Connection, path: Path) -> frozenset[str]:
    """The tables of the database; ImportFailed when it is not an llm logs database."""
    try:
        names = frozenset(row[0] for row in db.execute("select name from sqlite_master"))
    except sqlite3.DatabaseError as exc:
        raise ImportFailed(f"{path}: not an llm logs database: {exc}") from None
    if "responses" not in names and "threads" not in names:
        raise ImportFailed(f"{path}: not an llm logs database (no responses or threads table)")
    return names
