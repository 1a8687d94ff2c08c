"""`zerda entities`: find and store the entities of history kept without them.

Messages written by `zerda chat`, `zerda serve`, `zerda mcp` and the library get their
entities as they are stored; `zerda add`, `zerda import` and `zerda copy` leave them to
this command, as do versions of zerda that predate them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from zerda.errors import NotFoundError
from zerda_cli import render
from zerda_cli.options.params import (
    HomeOpt,
    JsonOpt,
    StoreOpt,
    check_session,
    open_store,
    usage_error,
)
from zerda_cli.render.progress import ProgressLine


def _checked(values: list[str] | None) -> list[str] | None:
    """A usage error for a session id the store would refuse, before anything is read."""
    return None if values is None else [check_session(value) for value in values]


def entities(
    sessions: Annotated[
        list[str] | None,
        typer.Argument(metavar="[SESSION]...", show_default=False, callback=_checked),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every session.")] = False,
    again: Annotated[
        bool, typer.Option("--again", help="Every message, not only those without entities.")
    ] = False,
    as_json: JsonOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Extract and store the entities of messages and summaries held without them."""
    if bool(sessions) == every:
        raise usage_error("name the sessions, or give --all (not both)")
    store = open_store(home, location)
    chosen = store.session_ids() if every else list(dict.fromkeys(sessions or []))
    if not every:
        for session in chosen:
            store.get_session(session)  # NotFoundError before anything is written
    filled = 0
    with ProgressLine("extracting entities") as progress:
        for done, session in enumerate(chosen):
            try:
                filled += store.fill_entities(session, again=again)
            except NotFoundError:
                if not every:
                    raise
                # --all: deleted since it was listed
            progress(done + 1, len(chosen))
    if as_json:
        render.write_json({"sessions": len(chosen), "messages": filled})
        return
    render.note(f"stored the entities of {filled} messages in {len(chosen)} sessions")
