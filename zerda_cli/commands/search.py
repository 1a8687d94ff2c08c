"""`zerda search`: messages matching a string or a pattern, newest first, as grep exits."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from zerda.errors import ZerdaError
from zerda.store.matching import Matcher
from zerda_cli import render
from zerda_cli.inputs import ExitStatusError, os_message
from zerda_cli.params import (
    HomeOpt,
    JsonOpt,
    LenientOpt,
    SessionOpt,
    StoreOpt,
    open_store,
    usage_error,
)
from zerda_cli.render.progress import ProgressLine
from zerda_cli.spans import SinceOpt, UntilOpt

RoleOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--role",
        metavar="ROLE",
        help="Only messages of this role or role type (user, assistant, system, tool, ...); "
        "repeat it or give a comma list.",
        show_default=False,
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", metavar="N", min=1, help="At most N matches, the newest."),
]
RegexOpt = Annotated[
    bool,
    typer.Option("--regex", help="QUERY is a Python regular expression, matched in any case."),
]


def search(
    query: str,
    session: SessionOpt = None,
    role: RoleOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: LimitOpt = None,
    regex: RegexOpt = False,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Messages containing QUERY (any case), newest first, with session, time and role.

    Exit status 0 when a message matches, 1 when none does, 2 for a usage error or any
    other trouble (a missing session, a damaged file, a server down), as grep's.
    --json gives each match's session, message uuid, time, role and content, and the
    character offsets [start, end) of each match in the content.
    """
    if not query:
        raise usage_error("the query is empty")
    wanted = compiled(query) if regex else query
    label = f"/{query}/" if regex else repr(query)
    try:
        store = open_store(home, location, lenient=lenient)
        with ProgressLine("indexing sessions") as progress:
            if hasattr(store, "index_progress"):
                store.index_progress = progress
            hits = store.search(
                wanted, session, roles=role_names(role or []), since=since, until=until, limit=limit
            )
        found = render.search(hits, Matcher(wanted), label, as_json)
    except BrokenPipeError:
        raise  # whoever read the matches stopped: no trouble of the search's
    except (ZerdaError, OSError) as exc:
        message = str(exc) if isinstance(exc, ZerdaError) else os_message(exc)
        raise ExitStatusError(message, 2) from exc
    if not found:
        raise typer.Exit(1)


def compiled(pattern: str) -> re.Pattern[str]:
    """`--regex`'s QUERY compiled to match in any case; a usage error when it is bad."""
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise usage_error(f"bad regular expression {pattern!r}: {exc}") from None


def role_names(values: list[str]) -> list[str]:
    """The roles of every `--role` (each may be a comma list); a usage error for an empty one."""
    names = [name.strip() for value in values for name in value.split(",")]
    if any(not name for name in names):
        raise usage_error("--role needs a role name (an empty one was given)")
    return names
