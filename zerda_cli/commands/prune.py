"""`zerda prune`: delete the sessions with no activity for a while, after saying which."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from zerda.errors import NotFoundError
from zerda.store._overview import SessionOverview
from zerda.store.base import Store
from zerda_cli import render
from zerda_cli.options.errors import InputError
from zerda_cli.options.params import HomeOpt, StoreOpt, YesOpt, open_store, usage_error
from zerda_cli.options.spans import age_value, parse_age


def prune(
    older_than: Annotated[
        timedelta | None,
        typer.Option(
            "--older-than",
            metavar="SPAN",
            parser=age_value,
            help="Sessions with no activity for SPAN (30d, 12h, 2w; default: the "
            "history retention setting of config.toml).",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be deleted; delete nothing.")
    ] = False,
    yes: YesOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Delete the sessions with no activity for SPAN: they are listed first, and a terminal
    is asked to confirm (scripts pass --yes)."""
    span = older_than if older_than is not None else _retention(home)
    if not (dry_run or yes or sys.stdin.isatty()):
        raise usage_error("stdin is not a terminal, so no one can confirm: pass --yes or --dry-run")
    store = open_store(home, location)
    cutoff = datetime.now(UTC) - span
    stale = [o for o in store.list_overviews() if _inactive(o, cutoff)]
    if not stale:
        render.note("no session to prune: each had activity since " + _day(cutoff))
        return
    render.sessions(stale, as_json=False)
    count = f"{len(stale)} session{'s' * (len(stale) != 1)}"
    if dry_run:
        render.note(f"would delete {count} (dry run: nothing was deleted)")
        return
    if not yes and not typer.confirm(f"Delete {count}?", default=False, err=True):
        render.note("not confirmed; nothing was deleted")
        raise typer.Exit(1)
    deleted = sum(_delete_if_inactive(store, o.session_id, cutoff) for o in stale)
    render.note(f"deleted {deleted} session{'s' * (deleted != 1)} inactive since {_day(cutoff)}")


def _retention(home: Path | None) -> timedelta:
    """The retention setting of config.toml; a usage error when it is missing or bad."""
    from zerda_cli.options.settings import ConfigError, configured_retention

    try:
        value = configured_retention(home)
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    if value is None:
        raise usage_error(
            'say how old: --older-than 30d, or retention = "90d" under [history] in config.toml'
        )
    try:
        return parse_age(value)
    except InputError as exc:
        raise usage_error(f"retention under [history] in config.toml: {exc}") from None


def _inactive(overview: SessionOverview, cutoff: datetime) -> bool:
    """True when the session was last active (its last message or its creation, whichever
    is later) before `cutoff`."""
    active = overview.activity
    return active is not None and active < cutoff


def _delete_if_inactive(store: Store, session_id: str, cutoff: datetime) -> bool:
    """Delete the session unless it had activity since it was listed (or is gone)."""
    try:
        return store.delete_session_if_inactive(session_id, cutoff)
    except NotFoundError:
        return False


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
