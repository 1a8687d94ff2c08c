"""OpenAI chat messages <-> zerda messages, losslessly.

Format: https://platform.openai.com/docs/api-reference/chat/create (`messages`).
A message is `{"role", "content", ...}` where content may be a string, null (an
assistant message that only calls tools) or a list of content parts, and other keys
(`name`, `tool_calls`, `tool_call_id`, `function_call`, `refusal`, ...) may follow.
zerda keeps the text in `content` (for search, token counts and display) and every
key it has no field for in `Message.extra`, with the original `content` there too
when it was not a string, so `to_openai(from_openai(m)) == m`.
"""

from __future__ import annotations

import re
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import ROLE_TYPE_OF, Entities, Message, entities_of, parse_time, role_type_in

OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
# How a message whose role is not an OpenAI role is sent: by its role type, with the
# role as `name` unless it is one of Zep's aliases (`human`, `ai`).
SENT_AS = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "function",
    "norole": "user",
}
# Fields of zerda's own dict form of a message, which are not OpenAI keys.
ZERDA_FIELDS = frozenset(
    {"uuid", "created_at", "role_type", "token_count", "metadata", "extra", "type"}
)
# Keys of `extra` that hold another format's own fields (`zerda.formats.langchain`), never sent.
OTHER_FORMATS = frozenset({"langchain"})
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def to_openai(message: Message) -> dict[str, Any]:
    """The message as a chat-completions API takes it, every kept key given back."""
    extra = {k: v for k, v in message.extra.items() if k not in OTHER_FORMATS}
    content = extra.pop("content", message.content)
    role = message.role if message.role in OPENAI_ROLES else SENT_AS[message.kind]
    sent: dict[str, Any] = {"role": role, "content": content, **extra}
    if role != message.role and message.role.casefold() not in ROLE_TYPE_OF and "name" not in sent:
        sent["name"] = speaker_name(message.role)
    return sent


def speaker_name(role: str) -> str:
    """`role` as an OpenAI `name` (letters, digits, `_` and `-`, at most 64)."""
    return _NAME_UNSAFE.sub("_", role.strip()).strip("_")[:64] or "speaker"


def from_openai(item: dict[str, Any]) -> Message:
    """A Message from an OpenAI message, or from zerda's dict form of one.

    InvalidMessageError names what is wrong.
    """
    if not isinstance(item, dict):
        raise InvalidMessageError("a message must be a JSON object with role and content")
    content = item.get("content")
    extra = {
        k: v for k, v in item.items() if k not in ZERDA_FIELDS and k not in ("role", "content")
    }
    stored = item.get("extra")
    if stored is not None and not isinstance(stored, dict):
        raise InvalidMessageError("extra must be an object")
    extra.update(stored or {})
    if not isinstance(content, str):
        extra["content"] = content
    entities = _entities(item, extra)
    return Message(
        role=item.get("role"),  # type: ignore[arg-type]  # checked by Message
        content=content_text(content),
        metadata=item.get("metadata") or {},
        uuid=item.get("uuid"),
        created_at=_time(item.get("created_at")),
        token_count=item.get("token_count"),
        role_type=role_type_in(item),
        extra=extra,
        entities=entities,
    )


def _entities(item: dict[str, Any], extra: dict[str, Any]) -> Entities | None:
    """The entities of zerda's dict form (it has a `role_type`, which no OpenAI message
    has); in any other message, or of another shape, `entities` stays in `extra`, as
    every key zerda has no field for."""
    if "role_type" not in item or item.get("entities") is None:
        return None
    try:
        found = entities_of(item["entities"])
    except InvalidMessageError:
        return None
    del extra["entities"]
    return found


def content_text(content: Any) -> str:
    """The text of a content: the string, or the text parts of a part list joined by lines."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if not isinstance(content, list) or not all(isinstance(p, dict) for p in content):
        raise InvalidMessageError("content must be a string, null or a list of content parts")
    texts = [p.get("text") for p in content]
    return "\n".join(t for t in texts if isinstance(t, str))


def _time(value: Any) -> Any:
    if value is None:
        return None
    try:
        return parse_time(value)
    except (TypeError, ValueError, AttributeError):
        raise InvalidMessageError(f"created_at is not an ISO-8601 time: {value!r}") from None
