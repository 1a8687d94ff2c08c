"""`zerda sessions`: every session with its title, size and last activity, filtered,
sorted and cut as asked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from zerda.messages import parse_time
from zerda.store.overview import SessionOverview
from zerda_cli import render
from zerda_cli.params import HomeOpt, JsonOpt, StoreOpt, open_store
from zerda_cli.spans import SinceOpt, UntilOpt, within


class SortKey(StrEnum):
    """What `zerda sessions --sort` orders by."""

    activity = "activity"
    created = "created"
    messages = "messages"
    tokens = "tokens"
    name = "name"


# Each key's value, and whether the order is largest (newest) first. A session without
# a time sorts as the oldest.
ORDERS: dict[SortKey, tuple[Callable[[SessionOverview], Any], bool]] = {
    SortKey.activity: (lambda o: o.stats.last_activity or "", True),
    SortKey.created: (lambda o: o.created_at.timestamp() if o.created_at else float("-inf"), True),
    SortKey.messages: (lambda o: o.stats.messages, True),
    SortKey.tokens: (lambda o: o.stats.token_count, True),
    SortKey.name: (lambda o: o.session_id, False),
}


def sessions(
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, metavar="N", help="At most N sessions.")
    ] = None,
    sort: Annotated[
        SortKey, typer.Option("--sort", help="Order by (newest, largest first; name A-Z).")
    ] = SortKey.activity,
    reverse: Annotated[bool, typer.Option("--reverse", "-r", help="The other way round.")] = False,
    as_json: JsonOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """All sessions with title, messages, tokens and last activity, newest activity first.

    A session without a title shows the start of its first user message. With
    --since or --until, only the sessions last active in that range are listed.
    """
    found = open_store(home, location).list_overviews()
    chosen = [o for o in found if within(_last_activity(o), since, until)]
    render.sessions(ordered(chosen, sort, reverse)[:limit], as_json)


def ordered(
    overviews: list[SessionOverview], sort: SortKey, reverse: bool
) -> list[SessionOverview]:
    """`overviews` in `sort`'s order (ties by name), the other way round if `reverse`."""
    key, largest_first = ORDERS[sort]
    by_name = sorted(overviews, key=lambda o: o.session_id)
    return sorted(by_name, key=key, reverse=largest_first != reverse)


def _last_activity(overview: SessionOverview) -> datetime | None:
    stamp = overview.stats.last_activity
    return parse_time(stamp) if stamp else None
