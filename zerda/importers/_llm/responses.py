"""llm's first tables: `conversations` and `responses` (and `tool_calls`, `tool_results`).

Each response is a prompt and its reply. It becomes, in order: the system prompt as a
system message when it first appears or changes, the tool results the prompt sent
back (tool messages), the prompt (a user message, left out when empty and only
results were sent) and the reply (an assistant message carrying the tools it called,
the model, duration, options and token usage in its metadata). Rows are read sorted
by conversation, so one conversation is held at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from itertools import groupby
from typing import Any

from zerda.importers._base import Conversation, Found
from zerda.importers._llm.common import (
    SOURCE,
    Unreadable,
    call_metadata,
    conversation_at,
    message_uuid,
    openai_tool_call,
    utc_time,
)
from zerda.messages import Message

ROWS = """
select responses.rowid as row_number, responses.*,
    coalesce(responses.conversation_id, responses.id) as conversation_key,
    conversations.name as conversation_name, conversations.model as conversation_model
from responses left join conversations on conversations.id = responses.conversation_id
{where}
order by conversation_key, responses.rowid
"""


NOT_TURNS = "responses.id not in (select id from turns)"
NOT_THREADS = "coalesce(responses.conversation_id, responses.id) not in (select id from threads)"


def read(db: sqlite3.Connection, name: str, tables: frozenset[str]) -> Iterator[Found]:
    """The conversations of the `responses` table, one at a time, but for those llm
    0.32+ went on with as threads (the thread reader reads them, with these rows)."""
    if "responses" not in tables:
        return
    wanted = [NOT_TURNS] * ("turns" in tables) + [NOT_THREADS] * ("threads" in tables)
    where = f"where {' and '.join(wanted)}" if wanted else ""
    tools = _tool_tables(db, tables)
    rows = db.execute(ROWS.format(where=where))
    for key, group in groupby(rows, key=lambda row: row["conversation_key"]):
        try:
            with conversation_at(f"{name}: conversation {key}"):
                yield _conversation(db, str(key), list(group), tools)
        except Unreadable as exc:
            yield exc.problem


def continued(db: sqlite3.Connection, tables: frozenset[str]) -> frozenset[str]:
    """The conversations of these tables that llm 0.32+ went on with, as a thread of
    the same id (whose first messages are then these rows again)."""
    if not {"responses", "threads", "turns"} <= tables:
        return frozenset()
    query = (
        "select distinct conversation_id from responses"
        f" where conversation_id in (select id from threads) and {NOT_TURNS}"
    )
    return frozenset(row[0] for row in db.execute(query))


def conversation_of(db: sqlite3.Connection, key: str, tables: frozenset[str]) -> Conversation:
    """Conversation `key` as these tables hold it."""
    where = f"where responses.conversation_id = ? and {NOT_TURNS}"
    rows = list(db.execute(ROWS.format(where=where), (key,)))
    return _conversation(db, key, rows, _tool_tables(db, tables))


def _conversation(
    db: sqlite3.Connection, key: str, rows: list[sqlite3.Row], tables: frozenset[str]
) -> Conversation:
    first = rows[0]
    ids = [row["id"] for row in rows]
    calls = _by_response(db, "tool_calls", ids, tables)
    results = _by_response(db, "tool_results", ids, tables)
    model = first["conversation_model"] or first["model"]
    conversation = Conversation(
        SOURCE,
        key,
        first["conversation_name"],
        utc_time(first["datetime_utc"]),
        [],
        metadata={"model": model} if model else {},
    )
    system = None
    for row in rows:
        for message in _exchange(key, row, system, calls.get(row["id"]), results.get(row["id"])):
            conversation.messages.append(message)
        system = row["system"] or system
    return conversation


def _exchange(
    key: str,
    row: sqlite3.Row,
    system: str | None,
    calls: list[sqlite3.Row] | None,
    results: list[sqlite3.Row] | None,
) -> Iterator[Message]:
    """The messages of one response: system, tool results, prompt, reply."""
    rid, at = row["id"], utc_time(row["datetime_utc"])
    if row["system"] and row["system"] != system:
        yield Message("system", row["system"], uuid=message_uuid(key, rid, "system"), created_at=at)
    for result in results or []:
        yield _tool_result(key, rid, result, at)
    if row["prompt"] or not results:
        uuid = message_uuid(key, rid, "prompt")
        yield Message("user", row["prompt"] or "", uuid=uuid, created_at=at)
    yield _reply(key, row, calls or [], at)


def _reply(key: str, row: sqlite3.Row, calls: list[sqlite3.Row], at: Any) -> Message:
    text = row["response"] or ""
    extra: dict[str, Any] = {}
    if calls:
        extra["tool_calls"] = [
            openai_tool_call(c["tool_call_id"], c["name"], c["arguments"]) for c in calls
        ]
        extra.update({} if text else {"content": None})
    metadata = call_metadata(row) | {"llm_response_id": row["id"]}
    if "reasoning" in set(row.keys()) and row["reasoning"]:
        metadata["reasoning"] = row["reasoning"]
    uuid = message_uuid(key, row["id"], "response")
    return Message("assistant", text, metadata, uuid, at, extra=extra)


def _tool_result(key: str, rid: str, row: sqlite3.Row, at: Any) -> Message:
    metadata = {"tool": row["name"]}
    if "exception" in set(row.keys()) and row["exception"]:
        metadata["exception"] = row["exception"]
    uuid = message_uuid(key, rid, "tool_result", str(row["id"]))
    extra = {"tool_call_id": row["tool_call_id"]}
    return Message("tool", row["output"] or "", metadata, uuid, at, extra=extra)


def _tool_tables(db: sqlite3.Connection, tables: frozenset[str]) -> frozenset[str]:
    """The tool tables that hold rows (a query of an empty one is skipped)."""
    held = ("tool_calls", "tool_results")
    return frozenset(t for t in held if t in tables and _holds_rows(db, t))


def _holds_rows(db: sqlite3.Connection, table: str) -> bool:
    return db.execute(f"select 1 from {table} limit 1").fetchone() is not None


def _by_response(
    db: sqlite3.Connection, table: str, ids: Iterable[str], tables: frozenset[str]
) -> dict[str, list[sqlite3.Row]]:
    """The rows of `table` (tool_calls or tool_results) of the responses `ids`, by response;
    none when `table` is not among the `tables` that hold rows."""
    if table not in tables:
        return {}
    found: dict[str, list[sqlite3.Row]] = {}
    wanted = list(ids)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        query = f"select * from {table} where response_id in ({marks}) order by id"
        for row in db.execute(query, chunk):
            found.setdefault(row["response_id"], []).append(row)
    return found
