"""Per-model figures of a session: how many replies each model gave and their tokens.

Read from the provenance every recorded reply carries (`zerda.clients.Provenance`,
metadata key `zerda.provenance`). The figures need every message of the session,
so they are computed on request (`zerda stats --models`), streaming the file once;
the running totals that make `zerda stats` instant do not hold them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zerda.clients._base import Provenance
from zerda.messages import Message

UNKNOWN = "-"  # the backend or model of replies that record none


@dataclass
class ModelUsage:
    """The replies one backend and model gave in a session.

    `tokens` counts the replies' stored text (zerda's encoding); `prompt_tokens` and
    `completion_tokens` add up what the server reported, over `reported` replies.
    """

    backend: str
    model: str
    replies: int = 0
    tokens: int = 0
    truncated: int = 0
    reported: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_ms: list[int] = field(default_factory=list, repr=False)

    def add(self, message: Message, made: Provenance | None) -> None:
        """Count one reply."""
        self.replies += 1
        self.tokens += message.token_count or 0
        if made is None:
            return
        self.truncated += made.truncated
        if made.total_ms is not None:
            self.total_ms.append(made.total_ms)
        if made.usage:
            self.reported += 1
            self.prompt_tokens += made.usage.get("prompt_tokens", 0)
            self.completion_tokens += made.usage.get("completion_tokens", 0)

    @property
    def median_ms(self) -> int | None:
        """The median time a reply took, when recorded."""
        times = sorted(self.total_ms)
        return times[len(times) // 2] if times else None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready figures."""
        return {
            "backend": self.backend,
            "model": self.model,
            "replies": self.replies,
            "tokens": self.tokens,
            "truncated": self.truncated,
            "usage_reported": self.reported,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "median_ms": self.median_ms,
        }


def usage_by_model(messages: Iterable[Message]) -> list[ModelUsage]:
    """The figures of each (backend, model) that replied, most replies first.

    A reply is an assistant message; one recording no provenance (typed in with
    `zerda add`, imported, or written before zerda recorded it) counts under `-`.
    """
    found: dict[tuple[str, str], ModelUsage] = {}
    for message in messages:
        if message.role_type != "assistant":
            continue
        made = Provenance.from_metadata(message.metadata)
        backend = made.backend if made else UNKNOWN
        model = (made.model if made else None) or UNKNOWN
        entry = found.setdefault((backend, model), ModelUsage(backend, model))
        entry.add(message, made)
    return sorted(found.values(), key=lambda u: (-u.replies, u.backend, u.model))
