"""`zerda sessions`: every session with its title, size and last activity, filtered,
sorted and cut as asked."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from zerda_cli import basics
from zerda_cli.options.params import HomeOpt, JsonOpt, StoreOpt
from zerda_cli.options.spans import SinceOpt, UntilOpt


class SortKey(StrEnum):
    """What `zerda sessions --sort` orders by (see `zerda.store._overview.ORDERS`)."""

    activity = "activity"
    created = "created"
    messages = "messages"
    tokens = "tokens"
    name = "name"


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
    basics.sessions(since, until, limit, sort.value, reverse, as_json, home, location)
