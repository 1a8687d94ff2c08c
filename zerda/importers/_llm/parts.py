"""llm's stored messages and their parts, as zerda messages.

A part is a row of `parts`: its `type` (text, reasoning, tool_call, tool_result,
attachment), literal `text`, and the rest of it as JSON `payload`, where a text that
borrows fragments is a `text_ref` list of literals and fragment ids, and an
attachment is its id in `attachments` (`llm/logs.py`, `_write_part`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zerda.importers._llm.common import message_uuid, openai_tool_call, utc_time
from zerda.messages import Message


@dataclass
class LlmMessage:
    """One row of `messages` and its parts (each the dict llm's `Part.to_dict` gives)."""

    hash: str
    parent_hash: str | None
    role: str
    parts: list[dict[str, Any]] = field(default_factory=list)


def chain_messages(db: sqlite3.Connection, rows: Iterable[sqlite3.Row]) -> list[LlmMessage]:
    """The messages of rows of (message, part) in chain order, references resolved."""
    chain: list[LlmMessage] = []
    for row in rows:
        if not chain or chain[-1].hash != row["hash"]:
            chain.append(LlmMessage(row["hash"], row["parent_hash"], row["role"]))
        if row["type"] is not None:
            chain[-1].parts.append(_part(db, row))
    return chain


def _part(db: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    part: dict[str, Any] = json.loads(row["payload"]) if row["payload"] else {}
    part["type"] = row["type"]
    if row["text"] is not None:
        part["text"] = row["text"]
    pieces = part.pop("text_ref", None)
    if pieces is not None:
        part["text"] = "".join(_piece(db, piece) for piece in pieces)
    if isinstance(part.get("attachment"), dict):
        part["attachment"] = _attachment(db, part["attachment"].get("id"))
    return part


def _piece(db: sqlite3.Connection, piece: dict[str, Any]) -> str:
    if "literal" in piece:
        return str(piece["literal"])
    found = db.execute("select content from fragments where id = ?", (piece["fragment"],))
    row = found.fetchone()
    return str(row[0]) if row and row[0] is not None else ""


def _attachment(db: sqlite3.Connection, attachment_id: Any) -> dict[str, Any]:
    """An attachment's id, type, path and url (its bytes stay in llm's database)."""
    query = "select id, type, path, url from attachments where id = ?"
    row = db.execute(query, (attachment_id,)).fetchone()
    found = dict(row) if row else {"id": attachment_id}
    return {key: value for key, value in found.items() if value is not None}


def to_zerda(
    thread_id: str, message: LlmMessage, time: str | None, call: dict[str, Any]
) -> list[Message]:
    """The zerda messages of one llm message: one per tool result for a tool message."""
    at = utc_time(time)
    uuid = message_uuid(thread_id, message.hash)
    results = [p for p in message.parts if p["type"] == "tool_result"]
    if message.role == "tool" and results:
        return [
            _tool_result(message_uuid(thread_id, message.hash, str(n)), part, at)
            for n, part in enumerate(results)
        ]
    text = "".join(p.get("text") or "" for p in message.parts if p["type"] == "text")
    metadata = dict(call)
    reasoning = "".join(p.get("text") or "" for p in message.parts if p["type"] == "reasoning")
    if reasoning:
        metadata["reasoning"] = reasoning
    attachments = [p["attachment"] for p in message.parts if p["type"] == "attachment"]
    if attachments:
        metadata["attachments"] = attachments
    extra = _tool_calls(message.parts, text)
    return [Message(message.role, text, metadata, uuid, at, extra=extra)]


def _tool_calls(parts: list[dict[str, Any]], text: str) -> dict[str, Any]:
    calls = [
        openai_tool_call(p.get("tool_call_id"), p.get("name"), p.get("arguments") or {})
        for p in parts
        if p["type"] == "tool_call"
    ]
    if not calls:
        return {}
    return {"tool_calls": calls} if text else {"content": None, "tool_calls": calls}


def _tool_result(uuid: str, part: dict[str, Any], at: Any) -> Message:
    metadata = {"tool": part.get("name")}
    if part.get("exception"):
        metadata["exception"] = part["exception"]
    extra = {"tool_call_id": part.get("tool_call_id")}
    return Message("tool", str(part.get("output") or ""), metadata, uuid, at, extra=extra)
