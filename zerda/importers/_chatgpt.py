"""ChatGPT's data export as conversations: `conversations.json` (or the split
`conversations-000.json`, ...), a directory holding them, or the export's `.zip`.

The format is OpenAI's "Export data" (help.openai.com, "How do I export my ChatGPT
history and data?"), undocumented field by field; the shape read here is the one
open-source export parsers read (e.g. mitkury/chatgpt-export-parser,
docs/chatgpt-data-export-format.md). The file is a JSON array of conversations,
streamed one at a time. A conversation's `mapping` is a tree of message nodes: the
conversation as last shown is the path from `current_node` (when an export lacks it,
the newest leaf) up through `parent`, reversed. Other nodes are edits and
regenerations the user moved away from; they are not imported, and are counted as
skipped "branch" messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zerda.importers._base import Conversation, Found, Problem, guarded, once, stable_uuid
from zerda.importers._chatgpt_content import message_text
from zerda.importers._sources import json_items, streams
from zerda.messages import Message, format_time

SOURCE = "chatgpt"
FILES = re.compile(r"conversations(-\d+)?\.json")


def read(path: Path) -> Iterator[Found]:
    """Every conversation of the export at `path`, one at a time (each id once)."""
    return once(_read(path))


def _read(path: Path) -> Iterator[Found]:
    for name, stream in streams(path, lambda base: bool(FILES.fullmatch(base))):
        for number, item in enumerate(json_items(stream, name), 1):
            yield guarded(conversation, item, f"{name}: conversation {number}")


def conversation(item: Any, where: str) -> Found:
    """One conversation of the export, or the Problem that keeps it out."""
    if not isinstance(item, dict):
        return Problem(where, "not a JSON object")
    source_id = item.get("id") or item.get("conversation_id")
    mapping = item.get("mapping") or {}
    if not isinstance(source_id, str) or not isinstance(mapping, dict):
        return Problem(where, "no conversation id or mapping")
    current = item.get("current_node")
    path = current_path(mapping, current if isinstance(current, str) else newest_leaf(mapping))
    if path is None:
        return Problem(f"{where} (id {source_id})", "current_node does not lead to the root")
    found = _conversation(item, source_id)
    on_path = set(path)
    found.off_path = {
        _uuid(source_id, key, raw)
        for key, node in mapping.items()
        if key not in on_path and (raw := _message_of(node)) is not None
    }
    if found.off_path:
        found.skip("branch", len(found.off_path))
    _fill(found, [(key, mapping[key]) for key in reversed(path)])
    return found


def current_path(mapping: dict[str, Any], current: Any) -> list[str] | None:
    """Node ids from `current` up to the root (None when the chain breaks or loops);
    [] for a conversation with no current node."""
    path: list[str] = []
    seen: set[str] = set()
    while isinstance(current, str):
        node = mapping.get(current)
        if not isinstance(node, dict) or current in seen:
            return None
        path.append(current)
        seen.add(current)
        current = node.get("parent")
    return path


def newest_leaf(mapping: dict[str, Any]) -> str | None:
    """The node no other node names as its parent whose message is newest (the last of
    equals): where a conversation exported without `current_node` ended."""
    parents = {n.get("parent") for n in mapping.values() if isinstance(n, dict)}
    leaves = [key for key in mapping if key not in parents]
    return max(reversed(leaves), key=lambda key: _created(mapping[key]), default=None)


def _created(node: Any) -> float:
    created = _dict(_message_of(node)).get("create_time")
    return float(created) if isinstance(created, int | float) else float("-inf")


def _uuid(source_id: str, key: str, raw: dict[str, Any]) -> str:
    return stable_uuid(SOURCE, source_id, str(raw.get("id") or key))


def _conversation(item: dict[str, Any], source_id: str) -> Conversation:
    title = item.get("title")
    created, updated = _time(item.get("create_time")), _time(item.get("update_time"))
    metadata: dict[str, Any] = {}
    if updated:
        metadata["updated_at"] = format_time(updated)
    if isinstance(item.get("default_model_slug"), str):
        metadata["model"] = item["default_model_slug"]
    title = title if isinstance(title, str) and title else None
    return Conversation(SOURCE, source_id, title, created, [], metadata)


def _fill(found: Conversation, nodes: list[tuple[str, dict[str, Any]]]) -> None:
    """Add the messages of `nodes` (root first), counting what is left out."""
    last = found.created_at
    for key, node in nodes:
        raw = _message_of(node)
        if raw is None:
            continue
        taken = _message(raw, _uuid(found.source_id, key, raw), last)
        if isinstance(taken, str):
            found.skip(taken)
            continue
        found.messages.append(taken)
        last = taken.created_at


def _message_of(node: Any) -> dict[str, Any] | None:
    message = node.get("message") if isinstance(node, dict) else None
    return message if isinstance(message, dict) else None


def _message(raw: dict[str, Any], uuid: str, last: datetime | None) -> Message | str:
    """The zerda message of `raw`, or why it is skipped."""
    meta, author = _dict(raw.get("metadata")), _dict(raw.get("author"))
    role = author.get("role")
    if meta.get("is_visually_hidden_from_conversation"):
        return "hidden"
    if raw.get("recipient") not in (None, "all"):
        return "recipient"
    if not isinstance(role, str) or not role:
        return "no role"
    text = message_text(raw.get("content"))
    if isinstance(text, str):
        return text
    content, metadata = text
    if not content.strip() and not metadata.get("attachments"):
        return f"empty {role}"
    if isinstance(meta.get("model_slug"), str):
        metadata["model"] = meta["model_slug"]
    if files := _file_names(meta.get("attachments")):
        metadata["files"] = files
    extra = {"name": author["name"]} if role == "tool" and author.get("name") else {}
    return Message(
        role,
        content,
        metadata,
        uuid=uuid,
        created_at=_time(raw.get("create_time")) or last,
        extra=extra,
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _file_names(attachments: Any) -> list[str]:
    """The names of the files the user attached (message `metadata.attachments`)."""
    if not isinstance(attachments, list):
        return []
    return [
        a["name"] for a in attachments if isinstance(a, dict) and isinstance(a.get("name"), str)
    ]


def _time(value: Any) -> datetime | None:
    """An epoch float as a UTC time (microseconds), None when there is none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None
