"""Value types: Message, Session and Memory, with a plain-dict round trip."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from zerda.errors import InvalidMessageError

ROLES = ("system", "user", "assistant", "tool")
ROLE_ALIASES = {"human": "user", "ai": "assistant"}


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """ISO-8601 in UTC with a trailing Z, as Zep writes it."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """Parse the ISO-8601 form written by `format_time`."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def normalize_role(role: str) -> str:
    """Map Zep's `human`/`ai` to `user`/`assistant`; refuse unknown roles."""
    name = ROLE_ALIASES.get(role, role) if isinstance(role, str) else role
    if name not in ROLES:
        raise InvalidMessageError(f"unknown role {role!r} (expected one of {', '.join(ROLES)})")
    return name


@contextmanager
def _malformed(what: str) -> Iterator[None]:
    """Turn the errors of decoding a plain dict into one InvalidMessageError."""
    try:
        yield
    except InvalidMessageError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidMessageError(f"not a {what}: {exc.__class__.__name__}: {exc}") from None


@dataclass(frozen=True)
class Message:
    """One chat message; `uuid`, `created_at` and `token_count` are set when stored."""

    role: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    uuid: str | None = None
    created_at: datetime | None = None
    token_count: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", normalize_role(self.role))
        if not isinstance(self.content, str):
            raise InvalidMessageError("message content must be a string")
        if self.metadata is None:
            object.__setattr__(self, "metadata", {})
        if not isinstance(self.metadata, dict):
            raise InvalidMessageError("message metadata must be a dict")
        if self.uuid is not None and not isinstance(self.uuid, str):
            raise InvalidMessageError("message uuid must be a string")
        if self.created_at is not None and not isinstance(self.created_at, datetime):
            raise InvalidMessageError("message created_at must be a datetime")
        count = self.token_count
        if count is not None and (type(count) is not int or count < 0):
            raise InvalidMessageError("message token_count must be a non-negative integer")

    def stamped(self, token_count: int | None) -> Message:
        """A copy with a fresh uuid and creation time (kept if already set)."""
        return replace(
            self,
            uuid=self.uuid or uuidlib.uuid4().hex,
            created_at=self.created_at or utc_now(),
            token_count=token_count if self.token_count is None else self.token_count,
        )

    def to_dict(self) -> dict[str, Any]:
        """The Zep-style plain dict (JSON-ready)."""
        return {
            "uuid": self.uuid,
            "created_at": format_time(self.created_at) if self.created_at else None,
            "role": self.role,
            "content": self.content,
            "token_count": self.token_count,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Build from `to_dict` output or a bare `{"role", "content"}` dict."""
        with _malformed("message"):
            created = data.get("created_at")
            return cls(
                role=data["role"],
                content=data["content"],
                metadata=data.get("metadata") or {},
                uuid=data.get("uuid"),
                created_at=parse_time(created) if created else None,
                token_count=data.get("token_count"),
            )


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
        if self.metadata is None:
            object.__setattr__(self, "metadata", {})
        if not isinstance(self.metadata, dict):
            raise InvalidMessageError("session metadata must be a dict")

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
            created = data.get("created_at")
            return cls(
                id=data["id"],
                user_id=data.get("user_id"),
                metadata=data.get("metadata") or {},
                created_at=parse_time(created) if created else None,
            )


@dataclass(frozen=True)
class Memory:
    """Messages of a session (oldest first) and its running summary, if any."""

    messages: list[Message] = field(default_factory=list)
    summary: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"messages": [m.to_dict() for m in self.messages], "summary": self.summary}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        """Inverse of `to_dict`; InvalidMessageError when `data` is not a memory."""
        with _malformed("memory"):
            messages = data.get("messages") or []
            summary = data.get("summary")
            if not isinstance(messages, list) or not isinstance(summary, str | None):
                raise TypeError("messages must be a list and summary a string")
            return cls(messages=[Message.from_dict(m) for m in messages], summary=summary)
