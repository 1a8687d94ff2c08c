"""`zerda stats`: a session's numbers (`zerda_cli.basics.stats`, for the quick path too), or
with --models its replies per backend and model."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli import basics
from zerda_cli.options.params import (
    HomeOpt,
    JsonOpt,
    LenientOpt,
    SessionArg,
    StoreOpt,
    open_store,
)


def stats(
    session: SessionArg,
    models: Annotated[
        bool,
        typer.Option(
            "--models", help="Replies and tokens per backend and model (reads the whole session)."
        ),
    ] = False,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Counts, characters, exact tokens, activity and file size of a session."""
    if not models:
        basics.stats(session, as_json, lenient, home, location)
        return
    from zerda_cli.render.models import show_models

    show_models(open_store(home, location, lenient=lenient), session, as_json)
