"""The command line of `zerda chat`: its argument and options, declared in one place."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated

import typer

from zerda_cli.chat.choices import BACKENDS, COMMAND_FORMATS, SUMMARIZERS
from zerda_cli.options.params import check_optional_session, complete_session


def _choices(values: tuple[str, ...]) -> Callable[[str], list[str]]:
    """Shell completion of an option's fixed values."""
    return lambda incomplete: [v for v in values if v.startswith(incomplete)]


def complete_memory(incomplete: str) -> list[str]:
    """Shell completion of --memory: each kind with its default size."""
    from zerda.memory._spec import DEFAULT_SIZES, MEMORY_KINDS

    specs = [k if k == "buffer" else f"{k}:{DEFAULT_SIZES[k]}" for k in MEMORY_KINDS]
    return [s for s in specs if s.startswith(incomplete)]


def check_timeout(value: float | None) -> float | None:
    """A usage error for a timeout that is not a number of seconds above 0."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise typer.BadParameter(f"{value:g} is not a number of seconds above 0")
    return value


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
    typer.Option(
        "--backend",
        "-b",
        metavar="manual|command|openai",
        help="Who answers (manual).",
        autocompletion=_choices(BACKENDS),
    ),
]
CommandOpt = Annotated[
    str | None,
    typer.Option("--command", help="Program run per turn (command backend).", metavar="CMD"),
]
CommandFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--command-format",
        metavar="json|text",
        help="Context on the program's stdin (json).",
        autocompletion=_choices(COMMAND_FORMATS),
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", metavar="URL", help="OpenAI-compatible API root, e.g. http://host:8080/v1."
    ),
]
ModelOpt = Annotated[
    str | None, typer.Option("--model", "-m", metavar="NAME", help="Model name (openai).")
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Seconds to wait for the API, more than 0 (openai).",
        callback=check_timeout,
    ),
]
MemoryOpt = Annotated[
    str | None,
    typer.Option(
        "--memory",
        metavar="KIND[:N]",
        help="History in the context: buffer, window:K, token:N or summary:N (window:10).",
        autocompletion=complete_memory,
    ),
]
SummarizerOpt = Annotated[
    str | None,
    typer.Option(
        "--summarizer",
        metavar="extractive|model",
        help="Who writes summary memory's summary: offline, or the chat's own model (extractive).",
        autocompletion=_choices(SUMMARIZERS),
    ),
]
SystemOpt = Annotated[
    str | None,
    typer.Option("--system", metavar="TEXT", help="System prompt for sessions without their own."),
]
ShowOpt = Annotated[
    int | None, typer.Option("--show", metavar="N", help="Turns shown on entry (3).", min=0)
]
NoInputHistoryOpt = Annotated[
    bool, typer.Option("--no-input-history", help="Keep no input history file this time.")
]
PlainOpt = Annotated[bool, typer.Option("--plain", help="Show replies as raw text, not Markdown.")]
JsonlOpt = Annotated[
    bool, typer.Option("--jsonl", help="Piped stdin: each recorded turn as a JSON object a line.")
]
