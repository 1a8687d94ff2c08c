"""`zerda rename`, `zerda fork` and `zerda title`: naming sessions and branching them."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda.errors import InvalidArgumentError
from zerda_cli import render
from zerda_cli.options.inputs import argument
from zerda_cli.options.params import (
    HomeOpt,
    SessionArg,
    StoreOpt,
    check_session,
    open_store,
    usage_error,
)
from zerda_cli.render.sanitize import one_line

NewSessionArg = Annotated[
    str,
    typer.Argument(
        metavar="NEW",
        help="The new session's id: 1-128 of A-Z a-z 0-9 . _ -",
        callback=check_session,
        show_default=False,
    ),
]


def rename(
    old: SessionArg, new: NewSessionArg, home: HomeOpt = None, location: StoreOpt = None
) -> None:
    """Give a session a new id, in one step; NEW must not exist (nothing changes if it does).

    A chat still writing to the old id goes on under the old id, as a new session.
    """
    open_store(home, location).rename_session(old, new)
    render.note(f"renamed session {old} to {new}")


def fork(
    session: SessionArg,
    new: NewSessionArg,
    at: Annotated[
        int | None,
        typer.Option(
            "--at", metavar="N", help="Take the first N turns (default: all).", show_default=False
        ),
    ] = None,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """A new session NEW holding the first N turns of SESSION, which stays as it is.

    Messages keep their times and get new uuids (the original is kept in their
    metadata as forked_from); NEW's metadata says where it came from (forked_from:
    session, turn, message). The summary goes along if it covers at most N turns.
    """
    if at is not None and at < 1:
        raise usage_error(f"--at must be 1 or more, not {at}")
    store = open_store(home, location)
    try:
        made = store.fork_session(session, new, at)
    except InvalidArgumentError as exc:
        raise usage_error(str(exc)) from None
    turn = made.metadata["forked_from"]["turn"]
    render.note(f"forked session {session} at turn {turn} into {new}")


def title(
    session: SessionArg,
    text: Annotated[
        str | None,
        typer.Argument(
            metavar="[TITLE]", help="The new title; '-' removes it.", show_default=False
        ),
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the title.")] = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Print a session's title, or set it (stored in its metadata as title)."""
    if clear and text is not None:
        raise usage_error("give a TITLE or --clear, not both")
    store = open_store(home, location)
    if text is None and not clear:
        found = store.get_session(session).metadata.get("title")
        if isinstance(found, str) and found:
            typer.echo(one_line(found))
        return
    value = None if clear or text == "-" else argument(text or "", "TITLE").strip()
    if value == "":
        raise usage_error("the title is empty (--clear removes it)")
    store.update_session(session, metadata={"title": value})
    render.note(f"session {session}: title {'removed' if value is None else 'set'}")
