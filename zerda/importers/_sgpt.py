"""shell_gpt chats: its chat cache files, one session per chat.

Format: shell_gpt's `ChatSession` (https://github.com/TheR1D/shell_gpt,
`sgpt/handlers/chat_handler.py`) keeps each chat in a file named by the chat id, with
no extension, in `CHAT_CACHE_PATH` (default `/tmp/chat_cache`): a JSON list of the
OpenAI messages sent and received (`{"role", "content"}`, plus `name` and
`function_call` when functions were called), rewritten whole after every reply and
cut to its last `CHAT_CACHE_LENGTH` messages (default 100).

Two quirks decide how it is read:
- shell_gpt records no times. A message carries the time the file was last written
  when it is first imported (the latest time it can have been said) and keeps it:
  shell_gpt rewrites the file after every reply.
- The cache drops its oldest messages as a chat grows, so a message's position is
  not its identity. Its uuid is derived from the message and the one before it
  (and, for a repeated pair, how many times it came before), so a later copy of the
  cache lands on the same uuids for what both copies hold; its first message, whose
  predecessor was dropped, takes on import the uuid of the held message saying the
  same just before the ones it holds (`Conversation.rolling`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.formats.openai import from_openai
from zerda.importers._base import (
    UNREADABLE,
    Conversation,
    Found,
    Problem,
    stable_uuid,
    unreadable,
)
from zerda.importers._localfiles import modified_at, read_each, read_json_list

SOURCE = "sgpt"


def read(path: Path) -> Iterator[Found]:
    """The chats of a shell_gpt cache file, or of every file in a cache directory."""
    return read_each(path, _read_file)


def _read_file(path: Path) -> Iterator[Found]:
    items = read_json_list(path, "a shell_gpt chat (a JSON list of messages)")
    chat_id, written = path.name, modified_at(path)
    conversation = Conversation(SOURCE, chat_id, chat_id, written, [], timed=False, rolling=True)
    seen: dict[str, int] = {}
    previous = ""
    for position, item in enumerate(items):
        try:
            message = from_openai(item)
        except (InvalidMessageError, *UNREADABLE) as exc:
            conversation.skip("malformed")
            yield Problem(f"{path.name}: message {position + 1}", unreadable(exc))
            continue
        link = _digest(previous + _digest(item))
        seen[link] = seen.get(link, 0) + 1
        uuid = stable_uuid(SOURCE, chat_id, link, str(seen[link]))
        conversation.messages.append(replace(message, uuid=uuid, created_at=written))
        previous = _digest(item)
    yield conversation


def _digest(item: Any) -> str:
    canonical = json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
