"""`zerda export`: write a session as JSON Lines (what `zerda import` reads), JSON, OpenAI
messages, Markdown or text, to stdout or a file written whole or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zerda_cli import basics, render
from zerda_cli.options.params import (
    ExportFormat,
    HomeOpt,
    LenientOpt,
    SessionArg,
    StoreOpt,
    open_store,
)
from zerda_cli.options.spans import SinceOpt, UntilOpt


def export(
    session: SessionArg,
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f")] = ExportFormat.jsonl,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write here.")
    ] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Write a session as JSON Lines (what import reads), JSON, OpenAI messages or Markdown.

    --since/--until write only the messages created in that range.
    """
    store = open_store(home, location, lenient=lenient)
    details = store.get_session(session)
    chunks = render.document(
        fmt.value, details, *basics.history(store, session, None, since, until)
    )
    if output is None or str(output) == "-":
        render.write_lines(chunks)
        return
    from zerda_cli.options.files import write_private

    write_private(output, chunks)
    render.note(f"exported session {session} to {output}")
