"""The arguments and options the `zerda` commands share, and their completion and parsing."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._click.exceptions import UsageError

from zerda._paths import SESSION_ID
from zerda.errors import ZerdaError
from zerda.store.base import Store
from zerda_cli.options.inputs import argument


def complete_session(ctx: typer.Context, incomplete: str) -> list[str]:
    """Names of existing sessions starting with `incomplete` (for shell completion)."""
    try:
        ids = open_store(ctx.params.get("home"), ctx.params.get("location")).session_ids()
    except Exception:  # completion must never print a traceback into the user's shell
        return []
    return [s for s in ids if s.startswith(incomplete)]


def check_session(value: str) -> str:
    """A usage error for a session id the store would refuse, before any input is read."""
    if not SESSION_ID.fullmatch(value):
        raise typer.BadParameter(
            f"{value!r} is not a session id: use 1-128 of A-Z a-z 0-9 . _ -, "
            "starting with a letter or digit"
        )
    return value


def check_optional_session(value: str | None) -> str | None:
    """`check_session` for an optional --session."""
    return None if value is None else check_session(value)


SessionArg = Annotated[
    str,
    typer.Argument(
        metavar="SESSION",
        help="Session id: 1-128 of A-Z a-z 0-9 . _ -",
        autocompletion=complete_session,
        callback=check_session,
        show_default=False,
    ),
]
HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home",
        metavar="PATH",
        help="Data directory (default: $ZERDA_HOME, else the platform's user data dir).",
        show_default=False,
    ),
]
StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL|PATH",
        help="Where sessions are: a postgresql:// URL or a data directory (default: "
        "$ZERDA_STORE, else store = in config.toml, else the data directory).",
        show_default=False,
    ),
]
SessionOpt = Annotated[
    str | None,
    typer.Option(
        "--session",
        "-s",
        metavar="SESSION",
        help="Only this session.",
        autocompletion=complete_session,
        callback=check_optional_session,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
LenientOpt = Annotated[
    bool,
    typer.Option(
        "--lenient",
        help="Show what can be read of a damaged session: damaged lines are skipped, and one "
        "warning says how many (zerda doctor --repair saves them aside).",
    ),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]


def open_store(
    home: Path | None,
    store: str | None = None,
    *,
    count_on_write: bool = True,
    lenient: bool = False,
    extract_entities: bool = False,
) -> Store:
    """`zerda_cli.options.opening.open_store` for a Typer command: its usage errors are Typer's,
    so they name the command being run."""
    from zerda_cli.options.errors import UsageProblem
    from zerda_cli.options.opening import open_store as open_for_command

    try:
        return open_for_command(
            home,
            store,
            count_on_write=count_on_write,
            lenient=lenient,
            extract_entities=extract_entities,
        )
    except UsageProblem as exc:
        raise usage_error(str(exc)) from None


def parse_meta(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings as a dict (later keys win); a usage error for anything else."""
    meta: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = argument(pair, "--meta").partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--meta")
        meta[key.strip()] = value
    return meta


def check_role_option(role: str) -> str:
    """`--role` as given, or a usage error saying why it cannot be a role."""
    from zerda.errors import InvalidMessageError
    from zerda.messages import check_role

    try:
        return check_role(argument(role, "--role"))
    except InvalidMessageError as exc:
        raise typer.BadParameter(str(exc), param_hint="--role") from None


class ShowFormat(StrEnum):
    """Renderings of a transcript other than the terminal view."""

    text = "text"
    markdown = "markdown"
    openai = "openai"


class ExportFormat(StrEnum):
    """Formats `zerda export` writes."""

    jsonl = "jsonl"
    json = "json"
    openai = "openai"
    markdown = "markdown"
    text = "text"


class MemoryKind(StrEnum):
    """The memory classes `zerda context` can load."""

    buffer = "buffer"
    window = "window"
    token = "token"
    summary = "summary"
    summary_buffer = "summary-buffer"


def usage_error(message: str) -> UsageError:
    """A usage error (exit 2) for argument combinations no single option can check."""
    return UsageError(message)


class NotConfirmed(ZerdaError):
    """A destructive command was not confirmed."""


def confirm(question: str, yes: bool) -> None:
    """Ask on the terminal unless `yes`; without a terminal, refuse and say to pass --yes."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise NotConfirmed("stdin is not a terminal, so there is no one to confirm: pass --yes")
    if not typer.confirm(question, default=False, err=True):
        raise NotConfirmed("not confirmed; nothing was changed")
