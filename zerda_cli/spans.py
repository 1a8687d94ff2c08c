"""`--since` / `--until` values: an ISO date or time, or a span back from now (`7d`, `12h`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from zerda_cli.inputs import InputError

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


def parse_moment(text: str, now: datetime | None = None) -> datetime:
    """An aware UTC time from `2026-11-30`, `2026-11-30T08:00`, `...Z`/`+02:00`, or a
    span back from now (`7d`). A date or time without an offset is UTC."""
    text = text.strip()
    if _SPAN.fullmatch(text):
        return (now or datetime.now(UTC)) - parse_span(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise InputError(
            f"bad time {text!r}: use an ISO date or time (2026-11-30, 2026-11-30T08:00Z) "
            "or a span back from now (7d, 12h)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
