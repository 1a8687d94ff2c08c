"""LangChain messages <-> zerda messages, losslessly.

Format: LangChain's dict form of a message, `{"type": ..., "data": {...}}`, as
`langchain_core.messages.message_to_dict` writes it and `messages_from_dict` reads it
(https://python.langchain.com/api_reference/core/messages.html); it is also what
LangChain's FileChatMessageHistory stores. Pure functions: nothing here imports LangChain.

A LangChain message becomes a zerda message whose own fields stay meaningful:
- `role` and `role_type` from the type: human is `human`/user, ai `ai`/assistant,
  system `system` (`developer` when `additional_kwargs` say so), tool `tool`, function
  `function`; a chat message keeps its own `role` (one zerda cannot hold becomes `chat`).
  Chunk types map as their message type.
- `content` is the text; a list of content blocks gives its strings and text blocks, one
  a line.
- `extra` holds, in OpenAI's shape, what OpenAI has a field for, so
  `zerda.formats.openai.to_openai` sends a valid message: `tool_calls` (LangChain's
  `tool_calls` and `invalid_tool_calls`, arguments as JSON text), `tool_call_id`,
  `name`, `function_call`, `refusal`, and a `content` that is null (a tool call without
  text) or a list of OpenAI content parts.
- `extra["langchain"]` holds every LangChain field those do not give back exactly (ids,
  usage and response metadata, `additional_kwargs`, artifacts, status, content blocks,
  a chunk's type, ...), so `to_langchain(from_langchain(m)) == m`. A message zerda's
  fields describe fully has no such key.

A zerda message LangChain did not write (no `langchain` key) maps by its role type:
user to human, assistant to ai (tool calls parsed from OpenAI's form), system to system,
tool to tool, function to function, norole to a chat message with the role.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import ROLE_TYPE_OF, Message, check_role

LANGCHAIN = "langchain"  # the key of `Message.extra` holding LangChain's own fields

# LangChain message type (chunks included) -> the message type it is a kind of.
BASE_TYPES = {
    **{t: t for t in ("human", "ai", "system", "tool", "function", "chat")},
    "HumanMessageChunk": "human",
    "AIMessageChunk": "ai",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "function",
    "ChatMessageChunk": "chat",
}
SPEAKERS = {
    "human": ("human", "user"),
    "ai": ("ai", "assistant"),
    "system": ("system", "system"),
    "tool": ("tool", "tool"),
    "function": ("function", "function"),
}
TYPE_OF_ROLE_TYPE = {
    "user": "human",
    "assistant": "ai",
    "system": "system",
    "tool": "tool",
    "function": "function",
    "norole": "chat",
}
NAMED_TYPES = ("human", "ai", "system", "function")  # whose `name` OpenAI takes as `name`
OPENAI_PARTS = {"text", "image_url", "input_audio", "file"}
AI_OPENAI_KEYS = ("function_call", "refusal")  # OpenAI keys LangChain keeps in additional_kwargs
OPENAI_ROLE = "__openai_role__"  # additional_kwargs key LangChain marks a developer message with
# The value of each field a LangChain constructor fills in when it is not given.
_COMMON: dict[str, Any] = {
    "additional_kwargs": {},
    "response_metadata": {},
    "name": None,
    "id": None,
}
DEFAULTS: dict[str, dict[str, Any]] = {
    **{t: _COMMON for t in ("human", "system", "function", "chat")},
    "ai": {**_COMMON, "tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None},
    "tool": {**_COMMON, "artifact": None, "status": "success"},
}
_ABSENT = object()


@contextmanager
def _malformed() -> Iterator[None]:
    """Turn the errors of reading a malformed dict into one InvalidMessageError."""
    try:
        yield
    except InvalidMessageError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        reason = f"{exc.__class__.__name__}: {exc}"
        raise InvalidMessageError(f"not a LangChain message: {reason}") from None


def from_langchain(item: dict[str, Any]) -> Message:
    """A zerda Message from LangChain's dict form of a message.

    InvalidMessageError when `item` is not one, or its tool call arguments are not JSON.
    """
    with _malformed():
        kind, data = item["type"], item["data"]
        if kind not in BASE_TYPES or not isinstance(data, dict):
            raise InvalidMessageError(f"not a LangChain chat message: type {kind!r}")
        base = BASE_TYPES[kind]
        role, role_type = _speaker(base, data)
        extra = _openai_fields(base, data)
        message = Message(role, text_of(data.get("content")), role_type=role_type, extra=extra)
        rest = _rest(kind, data, *_derived(message))
        if not rest:
            return message
        return Message(role, message.content, role_type=role_type, extra={**extra, LANGCHAIN: rest})


def to_langchain(message: Message) -> dict[str, Any]:
    """LangChain's dict form of a zerda Message, as `messages_from_dict` reads it.

    Fields at their default are left out (LangChain fills them in): the message is
    the same, and building it is up to three times faster.
    """
    base, derived = _derived(message)
    rest = message.extra.get(LANGCHAIN)
    if rest is None:
        return {"type": base, "data": derived}
    if not isinstance(rest, dict):
        raise InvalidMessageError(f"extra[{LANGCHAIN!r}] must be an object")
    if "type" in rest:  # a type zerda's fields do not give: every field was kept
        return {"type": rest["type"], "data": dict(rest)}
    return {"type": base, "data": {**derived, **rest}}


def text_of(content: Any) -> str:
    """The text of a LangChain content: the string, or a block list's texts, one a line."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if not isinstance(content, list):
        raise InvalidMessageError("content must be a string or a list of content blocks")
    texts = [
        p if isinstance(p, str) else p.get("text") for p in content if isinstance(p, str | dict)
    ]
    return "\n".join(t for t in texts if isinstance(t, str))


def _speaker(base: str, data: dict[str, Any]) -> tuple[str, str]:
    """(role, role_type) of a message of type `base`; an empty role_type lets the role decide."""
    if base == "chat":
        try:
            return check_role(data.get("role")), ""
        except InvalidMessageError:
            return "chat", "norole"
    if base == "system" and (data.get("additional_kwargs") or {}).get(OPENAI_ROLE) == "developer":
        return "developer", "system"
    return SPEAKERS[base]


def _openai_fields(base: str, data: dict[str, Any]) -> dict[str, Any]:
    """What OpenAI has a field for, in OpenAI's shape (the keys `to_openai` sends)."""
    extra: dict[str, Any] = {}
    content = data.get("content")
    if isinstance(content, list) and content and all(_is_openai_part(p) for p in content):
        extra["content"] = content
    if base in NAMED_TYPES and data.get("name") is not None:
        extra["name"] = data["name"]
    if base == "tool" and data.get("tool_call_id") is not None:
        extra["tool_call_id"] = data["tool_call_id"]
    if base != "ai":
        return extra
    calls = _openai_tool_calls(data)
    if calls:
        extra["tool_calls"] = calls
    kwargs = data.get("additional_kwargs") or {}
    extra.update((key, kwargs[key]) for key in AI_OPENAI_KEYS if kwargs.get(key) is not None)
    calling = calls or "function_call" in extra
    if calling and "content" not in extra and not text_of(content):
        extra["content"] = None  # OpenAI's form of a call without text
    return extra


def _is_openai_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in OPENAI_PARTS and len(part) == 2


def _openai_tool_calls(data: dict[str, Any]) -> list[dict[str, Any]]:
    """LangChain's tool calls (valid, then invalid) as OpenAI `tool_calls`."""
    calls = []
    for call in data.get("tool_calls") or []:
        try:
            arguments = json.dumps(call["args"], ensure_ascii=False)
        except (TypeError, ValueError):
            raise InvalidMessageError("tool call arguments must be JSON values") from None
        calls.append(_openai_call(call.get("id"), call.get("name"), arguments))
    for call in data.get("invalid_tool_calls") or []:
        calls.append(_openai_call(call.get("id"), call.get("name"), call.get("args") or ""))
    return calls


def _openai_call(call_id: Any, name: Any, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _derived(message: Message) -> tuple[str, dict[str, Any]]:
    """The LangChain type and the fields zerda's own fields give (no `langchain` key
    consulted); fields at their default are left out."""
    extra = message.extra
    base = TYPE_OF_ROLE_TYPE[message.kind]
    content = extra.get("content")
    data: dict[str, Any] = {"content": content if isinstance(content, list) else message.content}
    name = extra.get("name")
    if name is None and base in NAMED_TYPES and message.role.casefold() not in ROLE_TYPE_OF:
        name = message.role  # a speaker of the caller's naming, as to_openai sends it
    if name is not None:
        data["name"] = name
    if base == "system" and message.role.casefold() == "developer":
        data["additional_kwargs"] = {OPENAI_ROLE: "developer"}
    elif base == "ai":
        data.update(_ai_fields(extra))
    elif base == "tool":
        data["tool_call_id"] = str(extra.get("tool_call_id") or "")
    elif base == "function":
        data["name"] = name or message.role
    elif base == "chat":
        data["role"] = message.role
    return base, data


def _ai_fields(extra: dict[str, Any]) -> dict[str, Any]:
    """An AI message's tool calls from OpenAI `tool_calls`, and OpenAI keys as additional_kwargs."""
    valid: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    kwargs = {key: extra[key] for key in AI_OPENAI_KEYS if key in extra}
    raw = extra.get("tool_calls") or []
    if _are_openai_calls(raw):
        for call in raw:
            name, arguments = call["function"].get("name"), call["function"].get("arguments")
            args = _json_object(arguments)
            if args is None:
                invalid.append(
                    {
                        "name": name,
                        "args": arguments,
                        "id": call.get("id"),
                        "error": None,
                        "type": "invalid_tool_call",
                    }
                )
            else:
                valid.append(
                    {"name": name, "args": args, "id": call.get("id"), "type": "tool_call"}
                )
    else:
        kwargs["tool_calls"] = raw  # not OpenAI's shape: handed over as it is
    fields = {"additional_kwargs": kwargs, "tool_calls": valid, "invalid_tool_calls": invalid}
    return {key: value for key, value in fields.items() if value}


def _are_openai_calls(raw: Any) -> bool:
    return isinstance(raw, list) and all(
        isinstance(call, dict) and isinstance(call.get("function"), dict) for call in raw
    )


def _json_object(text: Any) -> dict[str, Any] | None:
    """`text` decoded when it is a JSON object, else None."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _rest(kind: str, data: dict[str, Any], base: str, derived: dict[str, Any]) -> dict[str, Any]:
    """The fields of `data` that `derived` (of type `base`) does not give back exactly."""
    if kind != base:
        return {**data, "type": kind}
    defaults = DEFAULTS[base]
    return {
        k: v
        for k, v in data.items()
        if k != "type" and v != derived.get(k, defaults.get(k, _ABSENT))
    }
