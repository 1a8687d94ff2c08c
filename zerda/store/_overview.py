"""What a listing of sessions shows of each: its stats, title, creation time and opening words.

Each store gathers these cheaply (`Store.list_overviews`): the file store reads a
session's last line for its totals, its header and latest update for its facts, and
its first lines up to the first message that asks; the PostgreSQL store, one query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any

from zerda.messages import ASK, Message, format_time, parse_time
from zerda.store._stats import SessionStats

# How much of the first message that asks an overview keeps: more than any listing shows.
OPENING_CHARS = 200
# Messages read from the start looking for one that asks, at most (system prompts,
# tool exchanges may come first); a session asking later shows no opening words.
OPENING_MESSAGES = 64


@dataclass(frozen=True)
class SessionOverview:
    """One session as `zerda sessions` lists it.

    `title` is the session's metadata `title` when it is a non-empty string; `opening`
    the first OPENING_CHARS characters of its first message that asks (a user's), None
    when none is found early on.
    """

    stats: SessionStats
    title: str | None = None
    created_at: datetime | None = None
    opening: str | None = None

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.stats.session_id

    @property
    def activity(self) -> datetime | None:
        """When the session was last active (see `last_activity`)."""
        return last_activity(self.stats, self.created_at)

    def to_dict(self) -> dict[str, Any]:
        """The stats' JSON-ready dict with the title, creation time and opening words."""
        created = format_time(self.created_at) if self.created_at else None
        extra = {"title": self.title, "created_at": created, "opening": self.opening}
        return {**self.stats.to_dict(), **extra}


def last_activity(stats: SessionStats, created_at: datetime | None) -> datetime | None:
    """The later of the session's last message's time and its creation: what `prune`
    measures inactivity by."""
    stamp = stats.last_activity
    times = [t for t in (parse_time(stamp) if stamp else None, created_at) if t is not None]
    return max(times, default=None)


def title_of(metadata: dict[str, Any]) -> str | None:
    """The session's title: metadata `title` when it is a non-empty string."""
    title = metadata.get("title")
    return title if isinstance(title, str) and title else None


def opening_of(messages: Iterable[Message]) -> str | None:
    """The start of the first message that asks among the first OPENING_MESSAGES."""
    for message in islice(messages, OPENING_MESSAGES):
        if message.part == ASK:
            return message.content[:OPENING_CHARS]
    return None


# What `Store.overviews` sorts by: each key's value, and whether the order is largest
# (newest) first. A session without a time sorts as the oldest; ties go by name.
ORDERS: dict[str, tuple[Callable[[SessionOverview], Any], bool]] = {
    "activity": (lambda o: o.stats.last_activity or "", True),
    "created": (lambda o: o.created_at.timestamp() if o.created_at else float("-inf"), True),
    "messages": (lambda o: o.stats.messages, True),
    "tokens": (lambda o: o.stats.token_count, True),
    "name": (lambda o: o.session_id, False),
}


def ordered(
    overviews: Iterable[SessionOverview], sort: str = "activity", reverse: bool = False
) -> list[SessionOverview]:
    """`overviews` in `sort`'s order (ties by name), the other way round if `reverse`."""
    key, largest_first = ORDERS[sort]
    by_name = sorted(overviews, key=lambda o: o.session_id)
    return sorted(by_name, key=key, reverse=largest_first != reverse)


def active_within(
    overview: SessionOverview, since: datetime | None, until: datetime | None
) -> bool:
    """Whether the session's last message is in [since, until) (always, when neither is
    given; never, for a session without messages, when one is)."""
    if since is None and until is None:
        return True
    stamp = overview.stats.last_activity
    if not stamp:
        return False
    moment = parse_time(stamp)
    return (since is None or moment >= since) and (until is None or moment < until)


def check_listing(
    sort: str, limit: int | None, since: datetime | None = None, until: datetime | None = None
) -> None:
    """InvalidArgumentError for a sort key `ORDERS` does not hold, a limit below 1, or a
    time without a timezone."""
    from zerda.errors import InvalidArgumentError

    if sort not in ORDERS:
        raise InvalidArgumentError(f"cannot sort sessions by {sort!r}: use {', '.join(ORDERS)}")
    if limit is not None and (type(limit) is not int or limit < 1):  # as search's limit
        raise InvalidArgumentError(f"limit must be a positive integer, not {limit!r}")
    if any(moment is not None and moment.tzinfo is None for moment in (since, until)):
        raise InvalidArgumentError("since and until must be timezone-aware datetimes")
