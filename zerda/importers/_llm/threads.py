"""llm's message store (0.32+): `threads`, `messages`, `parts` and `turns`.

A thread is read from its tip: its messages chain up through their parents (one
recursive query with their parts), then are put back in order. Each llm message
becomes one zerda message (text parts joined; reasoning and attachments in metadata;
tool calls as OpenAI `tool_calls`), except a tool message, which becomes one tool
message per result. Messages carry no time of their own: a turn (one model call)
covers the prompt run it was sent and what it added, and gives them its time; the
reply it added also gets its model, duration, options and usage. A message no turn of
the thread covers (the system prompt, a fork's shared start) takes the time of the
next message that has one, or the thread's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from zerda.importers._base import Conversation, Found
from zerda.importers._llm import responses
from zerda.importers._llm.common import (
    SOURCE,
    Unreadable,
    call_metadata,
    conversation_at,
    utc_time,
)
from zerda.importers._llm.parts import LlmMessage, chain_messages, to_zerda

CHAIN = """
with recursive chain(hash, parent_hash, role, depth) as (
    select hash, parent_hash, role, 0 from messages where hash = ?
    union all
    select m.hash, m.parent_hash, m.role, chain.depth + 1
    from messages m join chain on m.hash = chain.parent_hash
    where chain.depth < 1000000
)
select chain.hash, chain.parent_hash, chain.role, parts.position, parts.type, parts.text,
    parts.payload
from chain left join parts on parts.message_hash = chain.hash
order by chain.depth desc, parts.position
"""


def read(db: sqlite3.Connection, name: str, tables: frozenset[str]) -> Iterator[Found]:
    """The threads of the message store, one at a time, oldest first."""
    if not {"threads", "turns", "messages", "parts"} <= tables:
        return
    older = responses.continued(db, tables)
    for thread in db.execute("select * from threads order by datetime_utc, rowid"):
        try:
            with conversation_at(f"{name}: thread {thread['id']}"):
                legacy = thread["id"] in older
                yield _thread(db, thread, _older(db, thread, tables) if legacy else None)
        except Unreadable as exc:
            yield exc.problem


def _thread(
    db: sqlite3.Connection, thread: sqlite3.Row, older: Conversation | None
) -> Conversation:
    """The thread as a conversation; `older`, the rows of the responses table it goes on
    from, stands for the messages no turn of it covers at its start (those same rows)."""
    chain = _chain(db, thread)
    query = "select * from turns where thread_id = ? order by rowid"
    turns = list(db.execute(query, (thread["id"],)))
    times, calls = _turn_spans(chain, turns)
    start = next((i for i, at in enumerate(times) if at), len(chain)) if older else 0
    _fill_times(times, thread["datetime_utc"])
    title = (older and older.title) or thread["name"]
    created_at = older.created_at if older else utc_time(thread["datetime_utc"])
    conversation = Conversation(SOURCE, thread["id"], title, created_at, [])
    conversation.messages.extend(older.messages if older else [])
    for index in range(start, len(chain)):
        found = to_zerda(thread["id"], chain[index], times[index], calls.get(index, {}))
        conversation.messages.extend(found)
    models = {turn["model"] for turn in turns if turn["model"]}
    if len(models) == 1:
        conversation.metadata["model"] = models.pop()
    return conversation


def _chain(db: sqlite3.Connection, thread: sqlite3.Row) -> list[LlmMessage]:
    chain = chain_messages(db, db.execute(CHAIN, (thread["tip_message_hash"],)))
    if thread["tip_message_hash"] is not None and not chain:
        raise KeyError(f"its tip message {thread['tip_message_hash']} is missing")
    if chain and chain[0].parent_hash is not None:
        raise KeyError(f"message {chain[0].parent_hash} of the chain is missing")
    return chain


def _older(db: sqlite3.Connection, thread: sqlite3.Row, tables: frozenset[str]) -> Conversation:
    return responses.conversation_of(db, thread["id"], tables)


def _turn_spans(
    chain: list[LlmMessage], turns: list[sqlite3.Row]
) -> tuple[list[str | None], dict[int, dict[str, Any]]]:
    """Each message's time (from the first turn covering it) and, by the index of the
    last message each turn added, that turn's call metadata."""
    where = {message.hash: index for index, message in enumerate(chain)}
    times: list[str | None] = [None] * len(chain)
    calls: dict[int, dict[str, Any]] = {}
    for turn in turns:
        tip = where.get(turn["tip_message_hash"])
        if tip is None:
            continue  # a turn of a message later dropped from the thread (a fork's old tip)
        parent = where.get(turn["parent_message_hash"], -1)
        start = parent
        while start >= 0 and chain[start].role in ("user", "tool"):
            start -= 1
        for index in range(start + 1, tip + 1):
            times[index] = times[index] or turn["datetime_utc"]
        calls[tip] = call_metadata(turn) | {"llm_turn_id": turn["id"]}
    return times, calls


def _fill_times(times: list[str | None], fallback: str | None) -> None:
    """Give a message no turn covers the time of the next message that has one."""
    following = fallback
    for index in range(len(times) - 1, -1, -1):
        times[index] = following = times[index] or following
