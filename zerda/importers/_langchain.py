"""LangChain chat histories: a `FileChatMessageHistory` file, one session per file.

Format: langchain-community's `FileChatMessageHistory`
(`langchain_community/chat_message_histories/file.py`) keeps a history as one JSON
array, rewritten whole on every message: `messages_to_dict` of its messages, each
`{"type": "human" | "ai" | "system" | "tool" | "chat" | "function" | a chunk type,
"data": {...}}` (https://python.langchain.com/api_reference/core/messages.html).
Messages map as `zerda.formats.langchain` maps them, every field kept, so converting
them back gives the messages LangChain wrote.

A message's uuid comes from its LangChain `id` when it has one, else from its
position (the file only ever grows, or is cleared). LangChain records no times: a
message carries the time the file was last written when it is first imported, and
keeps it.
A directory is read file by file (`*.json`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.formats.langchain import from_langchain
from zerda.importers._base import (
    UNREADABLE,
    Conversation,
    Found,
    Problem,
    stable_uuid,
    unreadable,
)
from zerda.importers._localfiles import modified_at, read_each, read_json_list
from zerda.messages import Message

SOURCE = "langchain"


def read(path: Path) -> Iterator[Found]:
    """The history of a FileChatMessageHistory file, or of each `.json` file of a directory."""
    return read_each(path, _read_file, (".json",))


def _read_file(path: Path) -> Iterator[Found]:
    items = read_json_list(path, "a LangChain chat history (a JSON list of messages)")
    written = modified_at(path)
    conversation = Conversation(SOURCE, path.stem, path.stem, written, [], timed=False)
    for position, item in enumerate(items):
        try:
            message = _message(item, path.stem, position, written)
        except (InvalidMessageError, *UNREADABLE) as exc:
            conversation.skip("malformed")
            yield Problem(f"{path.name}: message {position + 1}", unreadable(exc))
            continue
        conversation.messages.append(message)
    yield conversation


def _message(item: Any, history: str, position: int, written: datetime) -> Message:
    if not isinstance(item, dict):
        raise InvalidMessageError("a message must be a JSON object with type and data")
    message = from_langchain(item)
    data = item["data"]
    known = data.get("id")
    key = f"id:{known}" if isinstance(known, str) and known else str(position)
    return replace(message, uuid=stable_uuid(SOURCE, history, key), created_at=written)
