"""Per-session statistics: from a session's running totals, or counted from its messages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from zerda.messages import Message, format_time, parse_time
from zerda.store._tally import Tally


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


def stats_from_tally(session_id: str, tally: Tally) -> SessionStats:
    """The SessionStats of a session whose running totals are `tally`."""
    return SessionStats(
        session_id=session_id,
        messages=tally.messages,
        turn_count=tally.turns,
        total_characters=tally.chars,
        token_count=tally.tokens,
        first_activity=_known_time(tally.first),
        last_activity=_known_time(tally.last),
    )


def _known_time(stamp: object) -> str | None:
    """A tally's time in the form `format_time` writes, or None (unknown) when it has no
    such form: a message time at the ends of the calendar, which has no UTC form, must
    not make stats fail."""
    if not isinstance(stamp, str):
        return None
    try:
        return format_time(parse_time(stamp))
    except (ValueError, OverflowError):  # OverflowError: a time at the ends of the calendar
        return None


def tally_of(messages: Iterable[Message]) -> Tally:
    """The running totals of `messages` (oldest first); those without a count are pending."""
    tally = Tally()
    for m in messages:
        stamp = tally_time(m.created_at) if m.created_at is not None else None
        tally.add(m.kind, m.part, len(m.content), m.token_count, stamp)
    return tally


def tally_time(moment: datetime) -> str:
    try:
        return format_time(moment)
    except OverflowError:  # no UTC form: kept as it is, and shown as unknown
        return moment.isoformat()


def collect_stats(session_id: str, messages: Iterable[Message]) -> SessionStats:
    """Fold messages (oldest first) into a SessionStats."""
    return stats_from_tally(session_id, tally_of(messages))
