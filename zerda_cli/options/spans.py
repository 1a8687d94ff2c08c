"""`--since` / `--until` values: an ISO date or time, or a span back from now (`7d`, `12h`);
the options that take them, and the test a message's time must pass.

A range is `since` (included) to `until` (left out); a bad value is a usage error (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from zerda.messages import Message
from zerda_cli.options.errors import InputError

_SPAN = re.compile(r"(\d{1,9})([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_span(text: str) -> timedelta:
    """`30d` -> 30 days (units s, m, h, d, w). InputError for anything else."""
    found = _SPAN.fullmatch(text.strip())
    if not found:
        raise InputError(f"bad duration {text!r}: use a number and a unit, as 30d, 12h, 45m, 2w")
    amount, unit = int(found[1]), found[2]
    try:
        return timedelta(**{_UNITS[unit]: amount})
    except OverflowError:
        raise InputError(f"bad duration {text!r}: too long") from None


def parse_age(text: str) -> timedelta:
    """A span of inactivity (`30d`), as parse_span but more than zero and not reaching
    back before the year 1. InputError for anything else."""
    span = parse_span(text)
    if not span:
        raise InputError(f"bad duration {text!r}: it must be more than zero")
    back_from_now(span, text)
    return span


def back_from_now(span: timedelta, text: str, now: datetime | None = None) -> datetime:
    """The time `span` (given as `text`) before now; InputError when that is before the year 1."""
    try:
        return (now or datetime.now(UTC)) - span
    except OverflowError:
        raise InputError(f"bad duration {text!r}: it reaches back before the year 1") from None


def parse_moment(text: str, now: datetime | None = None) -> datetime:
    """An aware UTC time from `2026-11-30`, `2026-11-30T08:00`, `...Z`/`+02:00`, or a
    span back from now (`7d`). A date or time without an offset is UTC."""
    text = text.strip()
    if _SPAN.fullmatch(text):
        return back_from_now(parse_span(text), text, now)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise InputError(
            f"bad time {text!r}: use an ISO date or time (2026-11-30, 2026-11-30T08:00Z) "
            "or a span back from now (7d, 12h)"
        ) from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise InputError(f"bad time {text!r}: in UTC it falls outside the years 1-9999") from None


def moment_value(value: str | None) -> datetime | None:
    """A `--since`/`--until` value parsed; ValueError (a usage error) for a bad one."""
    if value is None:
        return None
    try:
        return parse_moment(value)
    except InputError as exc:
        raise ValueError(str(exc)) from None


def age_value(value: str | None) -> timedelta | None:
    """A span of inactivity option's value parsed (`30d`); ValueError (a usage error) for a
    bad one."""
    if value is None:
        return None
    try:
        return parse_age(value)
    except InputError as exc:
        raise ValueError(str(exc)) from None


SinceOpt = Annotated[
    datetime | None,
    typer.Option(
        "--since",
        metavar="WHEN",
        parser=moment_value,
        help="From this time on: an ISO date or time (2026-11-30, 2026-11-30T08:00Z, "
        "UTC unless it says) or a span back from now (7d, 12h).",
        show_default=False,
    ),
]
UntilOpt = Annotated[
    datetime | None,
    typer.Option(
        "--until",
        metavar="WHEN",
        parser=moment_value,
        help="Before this time (as --since).",
        show_default=False,
    ),
]


def within(moment: datetime | None, since: datetime | None, until: datetime | None) -> bool:
    """True when `moment` is in [since, until); a missing time is in no range."""
    if since is None and until is None:
        return True
    if moment is None:
        return False
    return (since is None or moment >= since) and (until is None or moment < until)


def messages_within(
    messages: Iterable[Message], since: datetime | None, until: datetime | None
) -> Iterator[Message]:
    """The messages created in [since, until) (all of them when neither is given)."""
    return (m for m in messages if within(m.created_at, since, until))
