"""aichat sessions: a session YAML file, or the sessions directory, one session per file.

Format: aichat's `Session` (https://github.com/sigoden/aichat, `src/config/session.rs`,
messages in `src/client/message.rs`), serialized with serde_yaml to
`<config>/sessions/NAME.yaml`: `model`, optional settings (`temperature`, `top_p`,
`use_tools`, `save_session`, `compress_threshold`, `role_name`, `agent_variables`,
`agent_instructions`), `compressed_messages` (what aichat compressed away: kept as it
was, and its summary is the system message that starts `messages`), `messages` and
`data_urls` (the images the messages name, inlined: not imported). A message is
`{role, content}`: content is text, a list of OpenAI parts (`text`, `image_url`), or,
for role `tool`, `{tool_results: [{call: {name, arguments, id}, output}], text}`:
that is the assistant's tool calls and one tool message per result, in OpenAI's shape.

Compressed messages come first, marked `compressed` in their metadata; a message's
uuid is its place in compressed-then-current messages, which compression does not
change. aichat records no times: a message carries the time the file was last
written when it is first imported, and keeps it. YAML is read with PyYAML's safe loader, refusing
aliases (aichat writes none; they are how a small file expands without end).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from zerda.errors import ImportFailed, InvalidMessageError
from zerda.formats.openai import from_openai
from zerda.importers._base import UNREADABLE, Conversation, Found, Problem, stable_uuid, unreadable
from zerda.importers._localfiles import modified_at, read_each, read_text
from zerda.messages import Message

SOURCE = "aichat"
LISTS = ("compressed_messages", "messages")
NOT_SETTINGS = (*LISTS, "data_urls")


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases, and resolving plain scalars as serde_yaml
    writes them (YAML 1.2 core: `yes`, `12:30` and `2024-01-01` are text)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "aliases are not allowed", mark)
        return super().compose_node(parent, index)


# serde_yaml writes YAML 1.2, where only these plain scalars are not text.
CORE_SCHEMA = (
    ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("int", r"[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "float",
        r"[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        "-+.0123456789",
    ),
)


def _resolve_as_yaml_1_2(loader: type[yaml.SafeLoader]) -> None:
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag.endswith(":null")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    for tag, pattern, first in CORE_SCHEMA:
        regexp = re.compile(f"^(?:{pattern})$")
        loader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", regexp, list(first))


_resolve_as_yaml_1_2(_Loader)


def read(path: Path) -> Iterator[Found]:
    """The session of an aichat session file, or of each `.yaml` file of a directory."""
    return read_each(path, _read_file, (".yaml", ".yml"))


def _read_file(path: Path) -> Iterator[Found]:
    session = _load(path)
    written = modified_at(path)
    settings = {k: v for k, v in session.items() if k not in NOT_SETTINGS and v is not None}
    conversation = Conversation(
        SOURCE, path.stem, path.stem, written, [], metadata=settings, timed=False
    )
    if session.get("data_urls"):
        conversation.skip("data_urls", len(session["data_urls"]))
    items = [(key, n, item) for key in LISTS for n, item in enumerate(session.get(key) or [])]
    for position, (key, number, item) in enumerate(items):
        try:
            messages = _messages(item, f"{path.stem}\x1f{position}", written)
        except (InvalidMessageError, *UNREADABLE) as exc:
            conversation.skip("malformed")
            yield Problem(f"{path.name}: {key} item {number + 1}", unreadable(exc))
            continue
        if key == "compressed_messages":
            messages = [replace(m, metadata={**m.metadata, "compressed": True}) for m in messages]
        conversation.messages.extend(messages)
    yield conversation


def _load(path: Path) -> dict[str, Any]:
    """The session mapping of `path`; ImportFailed when it is not one."""
    try:
        session = yaml.load(read_text(path), Loader=_Loader)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise ImportFailed(f"{path}: not an aichat session: invalid YAML ({reason})") from None
    except RecursionError:
        raise ImportFailed(f"{path}: not an aichat session: nested too deeply") from None
    if not isinstance(session, dict) or not isinstance(session.get("messages"), list):
        raise ImportFailed(f"{path}: not an aichat session (no list of messages)")
    if not isinstance(session.get("compressed_messages") or [], list):
        raise ImportFailed(f"{path}: not an aichat session (compressed_messages is not a list)")
    return session


def _messages(item: Any, key: str, written: datetime) -> list[Message]:
    """The zerda messages of one aichat message: a tool message is several."""
    if not isinstance(item, dict):
        raise InvalidMessageError("a message must be a mapping with role and content")
    content = item.get("content")
    openai = _tool_exchange(content) if isinstance(content, dict) else [item]
    return [
        replace(from_openai(m), uuid=stable_uuid(SOURCE, key, str(n)), created_at=written)
        for n, m in enumerate(openai)
    ]


def _tool_exchange(content: dict[str, Any]) -> list[dict[str, Any]]:
    """aichat's tool message as OpenAI's: the assistant's calls, then one result each."""
    results = content.get("tool_results")
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise InvalidMessageError("a tool message's content must hold a list of tool_results")
    calls = [_call(r.get("call")) for r in results]
    text = content.get("text") or None
    exchange = [{"role": "assistant", "content": text, "tool_calls": calls}]
    for call, result in zip(calls, results, strict=True):
        output = result.get("output")
        text_output = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        exchange.append({"role": "tool", "tool_call_id": call["id"], "content": text_output})
    return exchange


def _call(call: Any) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise InvalidMessageError("a tool result's call must have a name")
    arguments = call.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {
        "id": call.get("id"),
        "type": "function",
        "function": {"name": call["name"], "arguments": text},
    }
