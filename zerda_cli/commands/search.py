"""`zerda search`: messages matching a string, words or a pattern, newest or best first,
exiting as grep does."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated

import typer

from zerda.errors import ZerdaError
from zerda.messages import Message
from zerda.store.matching import Matcher, Query
from zerda.store.words import Words
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
WordsOpt = Annotated[
    bool,
    typer.Option(
        "--words",
        "-w",
        help="QUERY is words, each found whole in any case: a prefix ends in * (tok*), a "
        'phrase is in double quotes ("gin index").',
    ),
]
RankOpt = Annotated[
    bool,
    typer.Option(
        "--rank",
        help="Best matches first (BM25: rare terms, often, in short messages), not newest "
        "first; --json gives each score.",
    ),
]


def search(
    query: str,
    session: SessionOpt = None,
    role: RoleOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: LimitOpt = None,
    regex: RegexOpt = False,
    words: WordsOpt = False,
    rank: RankOpt = False,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Messages containing QUERY (any case), newest first, with session, time and role.

    QUERY is found as it is typed, inside words too; with --words, as words in any order
    (every one in the message), and with --rank, the best matches come first.

    Exit status 0 when a message matches, 1 when none does, 2 for a usage error or any
    other trouble (a missing session, a damaged file, a server down), as grep's.
    --json gives each match's session, message uuid, time, role and content, and the
    character offsets [start, end) of each match in the content.
    """
    wanted, label = _query(query, regex, words, rank)
    roles = role_names(role or [])
    scores: dict[tuple[str, str | None], float] | None = None
    try:
        store = open_store(home, location, lenient=lenient)
        with ProgressLine("indexing sessions") as progress:
            if hasattr(store, "index_progress"):
                store.index_progress = progress
            if rank:
                best = store.ranked(
                    wanted, session, roles=roles, since=since, until=until, limit=limit
                )
                scores = {(sid, m.uuid): score for sid, m, score in best}
                hits: Iterable[tuple[str, Message]] = [(sid, m) for sid, m, _ in best]
            else:
                hits = store.search(
                    wanted, session, roles=roles, since=since, until=until, limit=limit
                )
        found = render.search(hits, Matcher(wanted), label, as_json, scores)
    except BrokenPipeError:
        raise  # whoever read the matches stopped: no trouble of the search's
    except (ZerdaError, OSError) as exc:
        message = str(exc) if isinstance(exc, ZerdaError) else os_message(exc)
        raise ExitStatusError(message, 2) from exc
    if not found:
        raise typer.Exit(1)


def _query(query: str, regex: bool, words: bool, rank: bool) -> tuple[Query, str]:
    """What to search for, and how to name it to people; a usage error when it is bad."""
    if not query:
        raise usage_error("the query is empty")
    if regex and (words or rank):
        raise usage_error(f"--regex cannot go with {'--words' if words else '--rank'}")
    if regex:
        return compiled(query), f"/{query}/"
    if not words:
        return query, repr(query)
    try:
        return Words.parse(query), repr(query)
    except ZerdaError as exc:
        raise usage_error(str(exc)) from None


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
