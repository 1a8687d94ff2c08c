"""Per-session statistics, gathered in one pass over the messages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from zerda.messages import Message, format_time


@dataclass(frozen=True)
class SessionStats:
    """What `zerda stats` and `zerda sessions` show about one session.

    `message_count`, `total_characters` and `estimated_tokens` follow the memory
    classes' definitions over turns; `messages` counts every stored message.
    """

    session_id: str
    messages: int = 0
    turn_count: int = 0
    total_characters: int = 0
    token_count: int = 0
    first_activity: str | None = None
    last_activity: str | None = None
    file_size: int = 0
    encoding: str = ""

    @property
    def message_count(self) -> int:
        """Turns held, as `get_memory_stats()['message_count']` counts them."""
        return self.turn_count

    @property
    def estimated_tokens(self) -> int:
        """total_characters // 4, as the memory classes estimate."""
        return self.total_characters // 4

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, including the derived fields."""
        data = asdict(self)
        data["message_count"] = self.message_count
        data["estimated_tokens"] = self.estimated_tokens
        return data


def collect_stats(session_id: str, messages: Iterable[Message]) -> SessionStats:
    """Fold messages (oldest first) into a SessionStats."""
    count = turns = chars = tokens = 0
    first = last = None
    after_user = False
    for message in messages:
        count += 1
        tokens += message.token_count or 0
        if message.role == "user":
            turns += 1
            after_user = True
            chars += len(message.content)
        elif message.role == "assistant":
            turns += 0 if after_user else 1
            after_user = False
            chars += len(message.content)
        if message.created_at is not None:
            stamp = format_time(message.created_at)
            first = first or stamp
            last = stamp
    return SessionStats(
        session_id=session_id,
        messages=count,
        turn_count=turns,
        total_characters=chars,
        token_count=tokens,
        first_activity=first,
        last_activity=last,
    )
