"""`zerda summarize SESSION`: make a summary of every turn and store it as the session's summary.

The summarizer is the offline extractive one, or a model configured as for `zerda chat`
(config file, environment, then these flags; the API key from the environment only).
Nothing is stored unless the whole summary was made.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zerda.summarizers._base import DEFAULT_SUMMARY_TOKENS
from zerda_cli import render
from zerda_cli.options.params import HomeOpt, JsonOpt, SessionArg, StoreOpt, open_store, usage_error

if TYPE_CHECKING:
    from pathlib import Path

    from zerda.summarizers import Summarizer


class SummarizerKind(StrEnum):
    """Who writes the summary."""

    extractive = "extractive"
    openai = "openai"
    command = "command"


def summarize(
    session: SessionArg,
    summarizer: Annotated[
        SummarizerKind,
        typer.Option(
            "--summarizer",
            "-s",
            help="extractive (offline), openai or command (configured as for zerda chat).",
        ),
    ] = SummarizerKind.extractive,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="The summary's bound, in tokens.")
    ] = DEFAULT_SUMMARY_TOKENS,
    command: Annotated[
        str | None,
        typer.Option("--command", metavar="CMD", help="Program that writes it (command)."),
    ] = None,
    command_format: Annotated[
        str | None,
        typer.Option("--command-format", metavar="json|text", help="Its stdin (json)."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", metavar="URL", help="API base URL (openai).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (openai).")] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds to wait for the API (openai).")
    ] = None,
    as_json: JsonOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Summarize every turn of a session and store it; `zerda show` shows it first."""
    from zerda.memory._summary import summarize_session

    flags = {
        "command": command,
        "command_format": command_format,
        "base_url": base_url,
        "model": model,
        "timeout": timeout,
    }
    store = open_store(home, location, extract_entities=True)
    store.get_session(session)  # NotFoundError before any model is asked
    chosen = _summarizer(summarizer, max_tokens, home, flags)
    made = summarize_session(store, session, chosen, max_summary_tokens=max_tokens)
    stored = store.set_summary(session, made)
    if as_json:
        render.write_json(stored.to_dict())
        return
    covered = stored.metadata.get("turns", 0)
    render.note(
        f"summarized session {session}: {covered} turns into {stored.token_count} tokens "
        f"({stored.metadata.get('summarizer')})"
    )


def _summarizer(
    kind: SummarizerKind, max_tokens: int, home: Path | None, flags: dict[str, Any]
) -> Summarizer:
    """The summarizer `kind` names, a model one configured as `zerda chat` is."""
    from zerda import summarizers

    if kind is SummarizerKind.extractive:
        return summarizers.ExtractiveSummarizer(max_tokens)
    from zerda_cli.chat.config import ConfigError, load_config

    try:
        config = load_config(home, flags)
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    if kind is SummarizerKind.openai:
        return summarizers.OpenAISummarizer(
            config.base_url, config.model, max_tokens, timeout=config.timeout
        )
    if not (config.command or "").strip():
        raise usage_error(
            "the command summarizer needs --command 'PROGRAM ARGS' (or ZERDA_COMMAND)"
        )
    return summarizers.CommandSummarizer(
        config.command or "", max_tokens, text_format=config.command_format == "text"
    )
