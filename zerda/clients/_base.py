"""What every model client is: a reply streamed in pieces, judged complete by its protocol.

A client takes a context (OpenAI-style `{"role", "content"}` dicts, the newest
message last) and returns a `Reply`. Iterating the reply yields its text as it
arrives. The iteration ends normally only when the reply ended as its protocol
says a reply ends (an HTTP stream's `[DONE]` or a `finish_reason`, a program's exit
status 0); any other end raises `ClientError` with one line for people, so a reply
cut short is never taken for a whole one. A complete reply carries its
`Provenance`: which backend and model made it, how it finished, how long it took
and, when the server reports them, its token counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from zerda.errors import ClientError

Messages = list[dict[str, Any]]

# Finish reasons that say the reply stops before the model meant to stop.
CUT_SHORT = frozenset({"length", "content_filter"})
# Metadata keys of a stored assistant message: how it was made; and, when the model
# was stopped early, why (a value of CUT_SHORT).
PROVENANCE_KEY = "zerda.provenance"
TRUNCATED_KEY = "zerda.truncated"
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


def one_line(text: str, limit: int = 200) -> str:
    """`text` squeezed to one printable line of at most `limit` characters."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Provenance:
    """How one reply was made: backend, model, finish reason, latency and usage.

    `first_byte_ms` is the time from the request to the first piece of the reply,
    `total_ms` to its end; `usage` holds the server's `prompt_tokens`,
    `completion_tokens` and `total_tokens` when it reports them.
    """

    backend: str
    model: str | None = None
    finish_reason: str | None = None
    first_byte_ms: int | None = None
    total_ms: int | None = None
    usage: dict[str, int] | None = None

    @property
    def truncated(self) -> bool:
        """True when the model stopped early (`length`, `content_filter`)."""
        return self.finish_reason in CUT_SHORT

    def as_dict(self) -> dict[str, Any]:
        """The fields that are known, as JSON-ready values."""
        fields = {
            "backend": self.backend,
            "model": self.model,
            "finish_reason": self.finish_reason,
            "first_byte_ms": self.first_byte_ms,
            "total_ms": self.total_ms,
            "usage": dict(self.usage) if self.usage else None,
        }
        return {key: value for key, value in fields.items() if value is not None}

    def metadata(self) -> dict[str, Any]:
        """The metadata stored with the assistant message this reply becomes."""
        marks: dict[str, Any] = {PROVENANCE_KEY: self.as_dict()}
        if self.truncated:
            marks[TRUNCATED_KEY] = self.finish_reason
        return marks

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> Provenance | None:
        """The provenance a stored message carries, or None (anything malformed is ignored)."""
        found = metadata.get(PROVENANCE_KEY)
        if not isinstance(found, dict) or not isinstance(found.get("backend"), str):
            return None
        return cls(
            backend=found["backend"],
            model=_text(found.get("model")),
            finish_reason=_text(found.get("finish_reason")),
            first_byte_ms=_count(found.get("first_byte_ms")),
            total_ms=_count(found.get("total_ms")),
            usage=usage_figures(found.get("usage")),
        )


def usage_figures(usage: Any) -> dict[str, int] | None:
    """The token counts of an OpenAI `usage` object (whole numbers >= 0 only), or None."""
    if not isinstance(usage, dict):
        return None
    figures = {name: usage[name] for name in USAGE_FIELDS if _count(usage.get(name)) is not None}
    return figures or None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


@dataclass
class Ending:
    """What a client learns about a reply besides its text, filled in as it streams."""

    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    model: str | None = None


Produce = Callable[[Ending], Iterator[str]]  # a generator, closed when the reply is


@dataclass
class Reply:
    """One reply as it arrives: iterate for its text; then `provenance` says how it was made.

    `produce` yields the text and records what else it learns in the `Ending` it is
    given; it raises ClientError unless the reply ended as its protocol says.
    `provenance` stays None until the iteration has ended that way.
    """

    backend: str
    model: str | None
    produce: Produce
    provenance: Provenance | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._pieces = self._timed()

    def __iter__(self) -> Iterator[str]:
        return self._pieces

    def __next__(self) -> str:
        return next(self._pieces)

    def close(self) -> None:
        """Stop reading: the request or program in progress is ended."""
        self._pieces.close()

    def read(self) -> str:
        """The whole text (after which `provenance` is set); ClientError if it fails."""
        return "".join(self._pieces)

    def _timed(self) -> Generator[str, None, None]:
        ending = Ending()
        started = time.monotonic()
        first: float | None = None
        pieces = self.produce(ending)
        try:
            for piece in pieces:
                if first is None and piece:
                    first = time.monotonic()
                yield piece
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()
        ended = time.monotonic()
        self.provenance = Provenance(
            backend=self.backend,
            model=ending.model or self.model,
            finish_reason=ending.finish_reason,
            first_byte_ms=_ms(first - started) if first is not None else None,
            total_ms=_ms(ended - started),
            usage=ending.usage,
        )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


class ChatClient(Protocol):
    """A model that answers a context: the OpenAI-compatible API, a program, a person."""

    name: str
    model: str | None

    def reply(self, messages: Messages) -> Reply:
        """The reply to `messages`, streamed; nothing is sent before it is iterated."""
        ...

    def cancel(self) -> None:
        """Abort the reply in progress; may be called from another thread."""
        ...


__all__ = [
    "CUT_SHORT",
    "PROVENANCE_KEY",
    "TRUNCATED_KEY",
    "ChatClient",
    "ClientError",
    "Ending",
    "Messages",
    "Provenance",
    "Reply",
    "one_line",
    "usage_figures",
]
