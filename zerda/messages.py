"""Value types: Message, Summary, Session and Memory, with a plain-dict round trip."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from zerda.entities._model import Entity
from zerda.errors import InvalidMessageError

# What a role means to a model (Zep's role types). A role is the caller's own name for
# a speaker; its type is derived from it unless given.
ROLE_TYPES = ("system", "user", "assistant", "tool", "function", "norole")
ROLE_TYPE_OF = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "tool": "tool",
    "function": "function",
}
MAX_ROLE_LENGTH = 256
# Control characters (C0, DEL, C1) and lone surrogates: never part of a role.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_ROLE_TYPE_SET = frozenset(ROLE_TYPES)
# Characters JSON escapes: a uuid holding one could not be found in a file's raw bytes.
_UUID_UNSAFE = re.compile(r'["\\\x00-\x1f\x7f-\x9f]')


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def new_uuid() -> str:
    """A random (version 4) uuid in the standard 8-4-4-4-12 form, made as `uuid.uuid4`
    makes one, without loading `uuid` (and `platform` with it) on every start."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def format_time(moment: datetime) -> str:
    """ISO-8601 in UTC with microseconds and a trailing Z, as Zep writes it."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 time (the form `format_time` writes, or with fewer digits)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def role_type_in(data: dict[str, Any]) -> str:
    """The role type a stored or exported message's dict gives: "" (derive it) when it
    gives none; an empty one is refused, as any type zerda does not know."""
    value = data.get("role_type")
    if value is None:
        return ""
    if value == "":
        raise InvalidMessageError(f"unknown role_type '' (expected one of {', '.join(ROLE_TYPES)})")
    return value  # type: ignore[no-any-return]  # checked by Message


def role_type_of(role: str) -> str:
    """The role type a role name implies: `human` is a user, `ai` an assistant, `Alice` norole."""
    return ROLE_TYPE_OF.get(role.strip().casefold(), "norole")


# Where a message sits in a turn: it asks (opens a turn), answers (closes it), or is
# inside a tool-call exchange between the two.
ASK, ANSWER, INSIDE = "ask", "answer", "inside"
TOOL_CALL_KEYS = ("tool_calls", "function_call")


def turn_part(role_type: str, extra: dict[str, Any] | None) -> str | None:
    """ASK, ANSWER or INSIDE for a message of `role_type` (with `extra`); None for system.

    Users and speakers of no known type ask; an assistant answers, unless it calls a
    tool (an OpenAI `tool_calls` or `function_call`): that, and the tool's result, are
    inside the turn, which the assistant's final reply closes.
    """
    if role_type in ("user", "norole"):
        return ASK
    if role_type == "assistant":
        calls = extra and any(extra.get(key) for key in TOOL_CALL_KEYS)
        return INSIDE if calls else ANSWER
    if role_type in ("tool", "function"):
        return INSIDE
    return None


def check_role(role: object) -> str:
    """`role` if it is a usable role name: a non-empty string, short, without control characters."""
    if type(role) is str and role in ROLE_TYPE_OF:  # the common case, in one lookup
        return role
    if not isinstance(role, str) or not role.strip():
        raise InvalidMessageError("message role must be a non-empty string")
    if len(role) > MAX_ROLE_LENGTH:
        raise InvalidMessageError(f"message role is longer than {MAX_ROLE_LENGTH} characters")
    if _CONTROL.search(role):
        raise InvalidMessageError(f"message role {role!r} holds control characters")
    return role


@contextmanager
def _malformed(what: str) -> Iterator[None]:
    """Turn the errors of decoding a plain dict into one InvalidMessageError."""
    try:
        yield
    except InvalidMessageError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidMessageError(f"not a {what}: {exc.__class__.__name__}: {exc}") from None


def _check_dict(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidMessageError(f"{what} must be a dict")
    return value


def _check_stamps(uuid: Any, created_at: Any, token_count: Any, what: str) -> None:
    if uuid is not None and (not isinstance(uuid, str) or not uuid or _UUID_UNSAFE.search(uuid)):
        raise InvalidMessageError(
            f"{what} uuid must be a non-empty string without quotes, backslashes or controls"
        )
    if created_at is not None:
        _check_time(created_at, what)
    if token_count is not None and (type(token_count) is not int or token_count < 0):
        raise InvalidMessageError(f"{what} token_count must be a non-negative integer")


def _check_time(created_at: Any, what: str) -> None:
    """Refuse what is not a datetime, or one that cannot be written in UTC (year 1 at +01:00)."""
    if not isinstance(created_at, datetime):
        raise InvalidMessageError(f"{what} created_at must be a datetime")
    if created_at.tzinfo is not UTC:
        try:
            created_at.astimezone(UTC)
        except OverflowError:
            raise InvalidMessageError(f"{what} created_at is out of range in UTC") from None


def _time_or_none(value: Any) -> datetime | None:
    return parse_time(value) if value else None


Entities = tuple[Entity, ...]


def entities_of(value: Any) -> Entities | None:
    """Entities from their plain form (a list of Zep-shaped dicts) or from Entity values;
    None stays None (not extracted). InvalidMessageError on a bad shape."""
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise InvalidMessageError("entities must be a list")
    return tuple(e if isinstance(e, Entity) else Entity.from_dict(e) for e in value)


def _check_entities(value: Any, what: str) -> None:
    if value is not None and (
        type(value) is not tuple or not all(isinstance(e, Entity) for e in value)
    ):
        raise InvalidMessageError(f"{what} entities must be a tuple of Entity (or None)")


def _entities_dicts(entities: Entities) -> list[dict[str, Any]]:
    return [entity.to_dict() for entity in entities]


@dataclass(frozen=True)
class Message:
    """One chat message, kept exactly as given.

    `role` is the caller's name for the speaker (`human`, `ai`, `Alice`); `role_type`
    is what it means to a model, one of ROLE_TYPES: derived from the role unless given
    (an empty `role_type`, or None as a dict without one gives, counts as not given).
    `extra` keeps fields of a foreign message format zerda has no field for (OpenAI
    `tool_calls`, `tool_call_id`, `name`, a `content` that was null or a list of
    parts), so the matching export gives them back. `uuid`, `created_at` and
    `token_count` are set when stored; so are `entities` (what `zerda.entities.extract`
    finds in the content) by a store that extracts them, None meaning not extracted.
    """

    role: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    uuid: str | None = None
    created_at: datetime | None = None
    token_count: int | None = None
    role_type: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    entities: Entities | None = None

    def __post_init__(self) -> None:
        check_role(self.role)
        if not isinstance(self.content, str):
            raise InvalidMessageError("message content must be a string")
        if type(self.metadata) is not dict:
            object.__setattr__(self, "metadata", _check_dict(self.metadata, "message metadata"))
        if type(self.extra) is not dict:
            object.__setattr__(self, "extra", _check_dict(self.extra, "message extra"))
        _check_stamps(self.uuid, self.created_at, self.token_count, "message")
        if self.entities is not None and type(self.entities) is not tuple:
            object.__setattr__(self, "entities", entities_of(self.entities))
        _check_entities(self.entities, "message")
        if self.role_type is None or self.role_type == "":  # not given: derived
            object.__setattr__(self, "role_type", role_type_of(self.role))
        elif self.role_type not in _ROLE_TYPE_SET:
            raise InvalidMessageError(
                f"unknown role_type {self.role_type!r} (expected one of {', '.join(ROLE_TYPES)})"
            )

    @property
    def kind(self) -> str:
        """The role type (`role_type`, always set once constructed)."""
        return self.role_type

    @functools.cached_property
    def part(self) -> str | None:
        """Where the message sits in a turn: ASK, ANSWER, INSIDE, or None (system)."""
        return turn_part(self.kind, self.extra)

    def stamped(self, token_count: int | None) -> Message:
        """A copy with a fresh uuid and creation time (kept if already set)."""
        return replace(
            self,
            uuid=self.uuid or new_uuid(),
            created_at=self.created_at or utc_now(),
            token_count=token_count if self.token_count is None else self.token_count,
        )

    def to_dict(self) -> dict[str, Any]:
        """The Zep-style plain dict (JSON-ready); `extra` only when the message has some,
        `entities` only when they were extracted."""
        data: dict[str, Any] = {
            "uuid": self.uuid,
            "created_at": format_time(self.created_at) if self.created_at else None,
            "role": self.role,
            "role_type": self.role_type,
            "content": self.content,
            "token_count": self.token_count,
            "metadata": self.metadata,
        }
        if self.entities is not None:
            data["entities"] = _entities_dicts(self.entities)
        if self.extra:
            data["extra"] = self.extra
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Build from `to_dict` output or a bare `{"role", "content"}` dict."""
        with _malformed("message"):
            return cls(
                role=data["role"],
                content=data["content"],
                metadata=data.get("metadata") or {},
                uuid=data.get("uuid"),
                created_at=_time_or_none(data.get("created_at")),
                token_count=data.get("token_count"),
                role_type=role_type_in(data),
                extra=data.get("extra") or {},
                entities=entities_of(data.get("entities")),
            )


@dataclass(frozen=True)
class Summary:
    """A session's running summary: its text, when it was made and its size.

    `metadata` may say what made it and which turns it covers; `entities`, set when
    stored by a store that extracts them, what the text names.
    """

    content: str
    uuid: str | None = None
    created_at: datetime | None = None
    token_count: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    entities: Entities | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise InvalidMessageError("summary content must be a string")
        object.__setattr__(self, "metadata", _check_dict(self.metadata, "summary metadata"))
        _check_stamps(self.uuid, self.created_at, self.token_count, "summary")
        if self.entities is not None and type(self.entities) is not tuple:
            object.__setattr__(self, "entities", entities_of(self.entities))
        _check_entities(self.entities, "summary")

    def stamped(self, token_count: int | None) -> Summary:
        """A copy with a uuid, a creation time and a token count (each kept if already set)."""
        return replace(
            self,
            uuid=self.uuid or new_uuid(),
            created_at=self.created_at or utc_now(),
            token_count=token_count if self.token_count is None else self.token_count,
        )

    def to_dict(self) -> dict[str, Any]:
        """The Zep-style plain dict (JSON-ready); `entities` only when extracted."""
        data: dict[str, Any] = {
            "uuid": self.uuid,
            "created_at": format_time(self.created_at) if self.created_at else None,
            "content": self.content,
            "token_count": self.token_count,
            "metadata": self.metadata,
        }
        if self.entities is not None:
            data["entities"] = _entities_dicts(self.entities)
        return data

    @classmethod
    def coerce(cls, value: Summary | str | dict[str, Any] | None) -> Summary | None:
        """A Summary from a Summary, its plain text, its dict form, or None."""
        if value is None or isinstance(value, Summary):
            return value
        if isinstance(value, str):
            return cls(value)
        if not isinstance(value, dict):
            raise InvalidMessageError("a summary must be a string, a dict or a Summary")
        with _malformed("summary"):
            return cls(
                content=value["content"],
                uuid=value.get("uuid"),
                created_at=_time_or_none(value.get("created_at")),
                token_count=value.get("token_count"),
                metadata=value.get("metadata") or {},
                entities=entities_of(value.get("entities")),
            )


TURNS_KEY = "turns"  # Summary.metadata: the session's first `turns` turns are covered


def covered_turns(summary: Summary | None) -> int | None:
    """How many of the session's first turns `summary` covers; None when it does not say."""
    found = summary.metadata.get(TURNS_KEY) if summary else None
    return found if type(found) is int and found >= 0 else None


@dataclass(frozen=True)
class Session:
    """A conversation: its id, optional user, metadata and creation time."""

    id: str
    user_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str):
            raise InvalidMessageError("session id must be a string")
        if self.user_id is not None and not isinstance(self.user_id, str):
            raise InvalidMessageError("session user_id must be a string")
        object.__setattr__(self, "metadata", _check_dict(self.metadata, "session metadata"))
        if self.created_at is not None and not isinstance(self.created_at, datetime):
            raise InvalidMessageError("session created_at must be a datetime")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "id": self.id,
            "user_id": self.user_id,
            "metadata": self.metadata,
            "created_at": format_time(self.created_at) if self.created_at else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Session:
        """Inverse of `to_dict`; InvalidMessageError when `data` is not a session."""
        with _malformed("session"):
            return cls(
                id=data["id"],
                user_id=data.get("user_id"),
                metadata=data.get("metadata") or {},
                created_at=_time_or_none(data.get("created_at")),
            )


@dataclass(frozen=True, init=False)
class Memory:
    """Messages of a session (oldest first) and its running summary, if any.

    `summary` may be given as plain text or a dict; it is kept as a `Summary`.
    """

    messages: list[Message]
    summary: Summary | None

    def __init__(
        self,
        messages: list[Message] | None = None,
        summary: Summary | str | dict[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "messages", [] if messages is None else messages)
        object.__setattr__(self, "summary", Summary.coerce(summary))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        summary = self.summary.to_dict() if self.summary else None
        return {"messages": [m.to_dict() for m in self.messages], "summary": summary}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        """Inverse of `to_dict`; InvalidMessageError when `data` is not a memory."""
        with _malformed("memory"):
            messages = data.get("messages") or []
            if not isinstance(messages, list):
                raise TypeError("messages must be a list")
            summary = Summary.coerce(data.get("summary"))
            return cls(messages=[Message.from_dict(m) for m in messages], summary=summary)
