"""`zerda show`: a session's transcript, on a terminal or as text, Markdown, JSON or JSON
Lines (`zerda_cli.basics.show` does the work, for the quick path too)."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli import basics
from zerda_cli.options.params import HomeOpt, LenientOpt, SessionArg, ShowFormat, StoreOpt
from zerda_cli.options.spans import SinceOpt, UntilOpt


def show(
    session: SessionArg,
    last: Annotated[
        int | None, typer.Option("--last", "-n", min=0, help="Only the last N messages.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
    jsonl: Annotated[
        bool, typer.Option("--jsonl", help="One JSON message a line, nothing else.")
    ] = False,
    with_session: Annotated[
        bool,
        typer.Option(
            "--with-session",
            help="With --jsonl: the session record and the summary record first, as export "
            "writes them.",
        ),
    ] = False,
    fmt: Annotated[
        ShowFormat | None, typer.Option("--format", "-f", help="Another rendering.")
    ] = None,
    pager: Annotated[
        bool, typer.Option("--pager/--no-pager", help="Page long transcripts on a terminal.")
    ] = True,
    entities: Annotated[
        bool,
        typer.Option(
            "--entities",
            "-e",
            help="Each message's entities (people, places, dates, ...): those stored, else "
            "found now.",
        ),
    ] = False,
    since: SinceOpt = None,
    until: UntilOpt = None,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """The transcript: who said what, when, and how many tokens it took.

    --since/--until keep the messages created in that range (the last N of them with
    --last); the summary is shown as ever.
    """
    rendering = basics.show_format(as_json, jsonl, with_session, fmt.value if fmt else None)
    where = (lenient, home, location)
    basics.show(session, last, rendering, pager, since, until, *where, entities=entities)
