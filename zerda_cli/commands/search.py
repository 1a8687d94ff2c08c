"""`zerda search`: messages matching a string, words or a pattern, newest or best first,
exiting as grep does."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli import basics
from zerda_cli.options.params import HomeOpt, JsonOpt, LenientOpt, SessionOpt, StoreOpt
from zerda_cli.options.spans import SinceOpt, UntilOpt

QueryArg = Annotated[
    str,
    typer.Argument(
        metavar="QUERY",
        help="What to find: a string, or words (--words), or a pattern (--regex).",
        show_default=False,
    ),
]
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
    typer.Option(
        "--limit", metavar="N", min=1, help="At most N matches: the newest (the best with --rank)."
    ),
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
    query: QueryArg,
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
    wanted, label = basics.search_query(query, regex, words, rank)
    where = basics.Filters(
        session, basics.role_names(role or []), since, until, limit, lenient, home, location
    )
    if not basics.search(wanted, label, where, rank, as_json):
        raise typer.Exit(1)
