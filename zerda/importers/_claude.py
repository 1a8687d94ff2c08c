"""Claude.ai's data export as conversations: `conversations.json`, a directory holding
it, or the export's `.zip`.

The format is Anthropic's "Export data" (Settings → Privacy), undocumented field by
field; the shape read here is the one open-source readers of it read: a JSON array of
conversations (`uuid`, `name`, `created_at`/`updated_at` ISO times, `chat_messages`),
each message with `uuid`, `sender` (`human`/`assistant`), `created_at`, `text`, and in
newer exports `content` blocks (`text`, `tool_use`, `tool_result`, `thinking`),
`attachments` (`file_name`, `file_size`, `file_type`, `extracted_content`) and
`files` (`file_name`). Text blocks are the message's text; tool blocks are kept in its
metadata (`tools`); thinking is not imported (counted as skipped). Where messages
name a `parent_message_uuid`, only the branch ending at `current_leaf_message_uuid`
(else at the last message) is imported; edits off it are counted as "branch".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from zerda.importers._base import Conversation, Found, Problem, guarded, once, stable_uuid
from zerda.importers._sources import json_items, streams
from zerda.messages import Message, parse_time

SOURCE = "claude"
Skip = Callable[[str], None]
ROLES = {"human": "user", "assistant": "assistant"}
ATTACHMENT = ("file_name", "file_size", "file_type", "extracted_content")
TOOL_BLOCKS = frozenset({"tool_use", "tool_result"})
THINKING = frozenset({"thinking", "redacted_thinking"})
TOOL_FIELDS = ("type", "id", "tool_use_id", "name", "input", "content", "is_error")


def read(path: Path) -> Iterator[Found]:
    """Every conversation of the export at `path`, one at a time (each id once)."""
    return once(_read(path))


def _read(path: Path) -> Iterator[Found]:
    for name, stream in streams(path, lambda base: base == "conversations.json"):
        for number, item in enumerate(json_items(stream, name), 1):
            yield guarded(conversation, item, f"{name}: conversation {number}")


def conversation(item: Any, where: str) -> Found:
    """One conversation of the export, or the Problem that keeps it out."""
    if not isinstance(item, dict):
        return Problem(where, "not a JSON object")
    source_id, raw = item.get("uuid"), item.get("chat_messages") or []
    if not isinstance(source_id, str) or not isinstance(raw, list):
        return Problem(where, "no conversation uuid or chat_messages")
    metadata = {"updated_at": item["updated_at"]} if isinstance(item.get("updated_at"), str) else {}
    name = item.get("name") if isinstance(item.get("name"), str) else None
    found = Conversation(
        SOURCE, source_id, name or None, _time(item.get("created_at")), [], metadata
    )
    kept = _branch(raw, item.get("current_leaf_message_uuid"))
    on_path = {number for number, _ in kept}
    found.off_path = {
        stable_uuid(SOURCE, source_id, _id(m, n)) for n, m in enumerate(raw) if n not in on_path
    }
    if len(kept) < len(raw):
        found.skip("branch", len(raw) - len(kept))
    last = found.created_at
    for number, message in kept:
        uuid = stable_uuid(SOURCE, source_id, _id(message, number))
        taken = _message(message, uuid, last, found.skip)
        if isinstance(taken, str):
            found.skip(taken)
        else:
            found.messages.append(taken)
            last = taken.created_at
    return found


def _id(message: Any, number: int) -> str:
    uuid = message.get("uuid") if isinstance(message, dict) else None
    return uuid if isinstance(uuid, str) else f"#{number}"


def _branch(raw: list[Any], leaf: Any) -> list[tuple[int, Any]]:
    """(position, message) of the messages on the current branch, oldest first: all of
    them when the messages name no parents."""
    numbered = list(enumerate(raw))
    by_id = {_id(m, n): m for n, m in numbered}
    if not any(isinstance(m, dict) and m.get("parent_message_uuid") for m in raw):
        return numbered
    current: Any = leaf if isinstance(leaf, str) and leaf in by_id else _id(raw[-1], len(raw) - 1)
    chain: set[str] = set()
    while isinstance(current, str) and current in by_id and current not in chain:
        chain.add(current)
        current = _dict(by_id[current]).get("parent_message_uuid")
    return [(n, m) for n, m in numbered if _id(m, n) in chain]


def _message(raw: Any, uuid: str, last: datetime | None, skip: Skip) -> Message | str:
    """The zerda message of `raw`, or why it is skipped; blocks left out go to `skip`."""
    if not isinstance(raw, dict):
        return "not an object"
    role = ROLES.get(str(raw.get("sender")))
    if role is None:
        return "unknown sender"
    text, metadata = _content(raw, skip)
    metadata |= _files(raw)
    if not text.strip() and not metadata:
        return "empty"
    created = _time(raw.get("created_at")) or last
    return Message(role, text, metadata, uuid=uuid, created_at=created)


def _content(raw: dict[str, Any], skip: Skip) -> tuple[str, dict[str, Any]]:
    """The text of a message and its tool blocks (metadata `tools`)."""
    blocks = raw.get("content")
    if not isinstance(blocks, list) or not blocks:
        text = raw.get("text")
        return (text if isinstance(text, str) else ""), {}
    texts = [b["text"] for b in blocks if _kind(b) == "text" and isinstance(b.get("text"), str)]
    tools = [{k: b[k] for k in TOOL_FIELDS if k in b} for b in blocks if _kind(b) in TOOL_BLOCKS]
    for block in blocks:
        kind = _kind(block)
        if kind in THINKING:
            skip("thinking")
        elif kind not in TOOL_BLOCKS and kind != "text":
            skip(f"block {kind}")
    return "\n\n".join(texts), {"tools": tools} if tools else {}


def _kind(block: Any) -> str | None:
    kind = block.get("type") if isinstance(block, dict) else None
    return kind if isinstance(kind, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _files(raw: dict[str, Any]) -> dict[str, Any]:
    """Attachments (names, sizes, types, extracted text) and uploaded files' names."""
    found: dict[str, Any] = {}
    attachments = [
        {k: a[k] for k in ATTACHMENT if k in a}
        for a in _list(raw.get("attachments"))
        if isinstance(a, dict)
    ]
    if attachments:
        found["attachments"] = attachments
    names = [
        f["file_name"]
        for f in _list(raw.get("files")) + _list(raw.get("files_v2"))
        if isinstance(f, dict) and isinstance(f.get("file_name"), str)
    ]
    if names:
        found["files"] = sorted(set(names), key=names.index)
    return found


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return parse_time(value)
    except ValueError:
        return None
