"""Parsing files for `zerda import`: zerda's JSONL and JSON exports, OpenAI message arrays.

Everything is validated before anything is written: the first problem is an
InputError naming the line or item, and the session is left untouched.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import Message, parse_time
from zerda_cli.inputs import InputError

# Records of a raw session file that are not messages; they are skipped on import.
SKIPPED_RECORDS = frozenset({"session", "session_update", "tokens", "summary"})
ROLE_ALIASES = {"developer": "system"}
KEPT_OPENAI_KEYS = ("name", "tool_call_id")


def parse_import(text: str, source: str) -> list[Message]:
    """The messages in `text`: one JSON document (array or export object) or JSON Lines."""
    if not text.strip():
        raise InputError(f"{source} is empty; nothing was imported")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return _from_lines(text, source)
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return _from_items(document["messages"], source)
    if isinstance(document, list):
        return _from_items(document, source)
    return _from_lines(text, source)


def _from_items(items: list[Any], source: str) -> list[Message]:
    found = (_message(item, f"{source}: item {n}") for n, item in enumerate(items, 1))
    return _nonempty([m for m in found if m is not None], source)


def _from_lines(text: str, source: str) -> list[Message]:
    messages = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source}: line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
        message = _message(item, where)
        if message is not None:
            messages.append(message)
    return _nonempty(messages, source)


def _nonempty(messages: list[Message], source: str) -> list[Message]:
    if not messages:
        raise InputError(f"{source} holds no messages; nothing was imported")
    return messages


def _message(item: Any, where: str) -> Message | None:
    """One message from a zerda record, a zerda message dict or an OpenAI message."""
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a JSON object with role and content")
    kind = item.get("type")
    if kind in SKIPPED_RECORDS:
        return None
    if kind not in (None, "message"):
        raise InputError(f"{where}: unknown record type {kind!r}")
    role = item.get("role")
    if not isinstance(role, str):
        raise InputError(f"{where}: role must be a string")
    try:
        return Message(
            role=ROLE_ALIASES.get(role, role),
            content=_content(item.get("content"), where),
            metadata=_metadata(item, where),
            created_at=_time(item.get("created_at"), where),
        )
    except (InvalidMessageError, TypeError) as exc:
        raise InputError(f"{where}: {exc}") from None


def _content(content: Any, where: str) -> str:
    """A string, or the text parts of an OpenAI content-part list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        for p in content
    ):
        return "\n".join(p["text"] for p in content)
    raise InputError(f"{where}: content must be a string or a list of text parts")


def _metadata(item: dict[str, Any], where: str) -> dict[str, Any]:
    metadata = item.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError(f"{where}: metadata must be an object")
    extra = {k: item[k] for k in KEPT_OPENAI_KEYS if item.get(k) is not None}
    return {**extra, **metadata}


def _time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: created_at is not an ISO-8601 time: {value!r}") from None
