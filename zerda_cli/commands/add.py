"""`zerda add`: record a turn, or one message from any role (`zerda_cli.basics.add` does
the work, for the quick path too)."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda.messages import ROLE_TYPE_OF
from zerda_cli import basics
from zerda_cli.options.params import (
    HomeOpt,
    JsonOpt,
    SessionArg,
    StoreOpt,
    check_role_option,
    parse_meta,
)


def add(
    session: SessionArg,
    texts: Annotated[
        list[str],
        typer.Argument(metavar="INPUT OUTPUT | CONTENT", help="'-' reads one of them from stdin."),
    ],
    role: Annotated[
        str | None,
        typer.Option(
            "--role",
            "-r",
            metavar="ROLE",
            help="Record one message from ROLE, kept as given (user, assistant, system, tool, "
            "human, ai, or any name such as Alice).",
            autocompletion=lambda: list(ROLE_TYPE_OF),
        ),
    ] = None,
    meta: Annotated[
        list[str] | None,
        typer.Option("--meta", "-m", metavar="KEY=VALUE", help="Message metadata (repeatable)."),
    ] = None,
    as_json: JsonOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Record a turn (the user's INPUT, the assistant's OUTPUT) or, with --role, one message."""
    basics.check_add_shape(texts, role)
    metadata = parse_meta(meta or [])
    if role is not None:
        check_role_option(role)
    basics.add(session, texts, role, metadata, as_json, home, location)
