"""The session file format: JSON records, one a line, and how they decode."""

from __future__ import annotations

import json
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import Message, Session, format_time, parse_time, utc_now

FORMAT_VERSION = 1
HEADER = "session"
MESSAGE = "message"
UPDATE = "session_update"
SUMMARY = "summary"
TOKENS = "tokens"
KINDS = frozenset({HEADER, MESSAGE, UPDATE, SUMMARY, TOKENS})


def dumps(record: dict[str, Any]) -> bytes:
    """One record as a UTF-8 line. Non-ASCII stays raw; control characters are escaped."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def loads(line: bytes) -> dict[str, Any]:
    """Decode one line; raise ValueError with a short reason when it is not a record."""
    try:
        record = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc.__class__.__name__})") from None
    if not isinstance(record, dict) or record.get("type") not in KINDS:
        raise ValueError("not a zerda record")
    return record


def header_record(session: Session, encoding: str) -> dict[str, Any]:
    """The first record of every file."""
    return {
        "type": HEADER,
        "version": FORMAT_VERSION,
        "id": session.id,
        "created_at": format_time(session.created_at or utc_now()),
        "user_id": session.user_id,
        "metadata": session.metadata,
        "encoding": encoding,
    }


def message_record(message: Message) -> dict[str, Any]:
    """A stored message (already stamped)."""
    return {"type": MESSAGE, **message.to_dict()}


def message_from(record: dict[str, Any]) -> Message:
    """The Message of a message record; ValueError if malformed."""
    try:
        return Message(
            role=record["role"],
            content=record["content"],
            metadata=record.get("metadata") or {},
            uuid=record["uuid"],
            created_at=parse_time(record["created_at"]),
            token_count=record.get("token_count"),
        )
    except (KeyError, TypeError, ValueError, InvalidMessageError) as exc:
        raise ValueError(f"bad message record ({exc})") from None


def session_from(header: dict[str, Any], updates: list[dict[str, Any]]) -> Session:
    """The Session described by a header and later updates (last wins)."""
    user_id = header.get("user_id")
    metadata = header.get("metadata") or {}
    for update in updates:
        if "user_id" in update:
            user_id = update["user_id"]
        if "metadata" in update:
            metadata = update["metadata"] or {}
    created = header.get("created_at")
    return Session(
        id=header["id"],
        user_id=user_id,
        metadata=metadata,
        created_at=parse_time(created) if created else None,
    )
