"""The command line of `zerda chat`: its argument and options, declared in one place."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli.params import check_optional_session, complete_session

ChatSessionArg = Annotated[
    str | None,
    typer.Argument(
        metavar="SESSION",
        help="Session to chat in (a new id is made and printed when omitted).",
        autocompletion=complete_session,
        callback=check_optional_session,
        show_default=False,
    ),
]
ContinueOpt = Annotated[
    bool, typer.Option("--continue", "-c", help="Reopen the most recently active session.")
]
BackendOpt = Annotated[
    str | None,
    typer.Option("--backend", "-b", metavar="manual|command|openai", help="Who answers (manual)."),
]
CommandOpt = Annotated[
    str | None,
    typer.Option("--command", help="Program run per turn (command backend).", metavar="CMD"),
]
CommandFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--command-format", metavar="json|text", help="Context on the program's stdin (json)."
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible API root, e.g. http://host:8080/v1."),
]
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Model name (openai).")]
TimeoutOpt = Annotated[
    float | None, typer.Option("--timeout", help="Seconds to wait for the API (openai).")
]
MemoryOpt = Annotated[
    str | None,
    typer.Option(
        "--memory",
        metavar="KIND[:N]",
        help="History in the context: buffer, window:K, token:N or summary:N (window:10).",
    ),
]
SystemOpt = Annotated[
    str | None, typer.Option("--system", help="System prompt for sessions without their own.")
]
ShowOpt = Annotated[int | None, typer.Option("--show", help="Turns shown on entry (3).", min=0)]
NoInputHistoryOpt = Annotated[
    bool, typer.Option("--no-input-history", help="Keep no input history file this time.")
]
JsonlOpt = Annotated[
    bool, typer.Option("--jsonl", help="Piped stdin: each recorded turn as a JSON object a line.")
]
