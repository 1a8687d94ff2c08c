"""`zerda window` and `zerda context`: the history a memory class loads from a session, as
a program using it would get it (see `zerda_cli.options.contexts`)."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli import render
from zerda_cli.options.params import (
    HomeOpt,
    JsonOpt,
    LenientOpt,
    MemoryKind,
    SessionArg,
    StoreOpt,
    open_store,
)


def window(
    session: SessionArg,
    k: Annotated[int, typer.Option("-k", "--k", min=0, help="How many turns.")] = 5,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Exactly what ConversationBufferWindowMemory(k=K) loads from the session."""
    from zerda_cli.options.contexts import load_memory

    store = open_store(home, location, lenient=lenient)
    memory = load_memory(store, session, "window", k=k, max_tokens=0)
    data = None
    if as_json:
        history = memory.load_memory_variables({})[memory.memory_key]
        data = {"session_id": session, "k": k, "turns": memory.get_messages(), "history": history}
    render.memory_view(f"Session {session}: window, k={k}", memory, data)


def context(
    session: SessionArg,
    memory_kind: Annotated[
        MemoryKind, typer.Option("--memory", "-m", help="Which memory class picks the history.")
    ] = MemoryKind.buffer,
    k: Annotated[int, typer.Option("-k", "--k", min=0, help="Turns, for window.")] = 5,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=0, help="Budget, for token and summary-buffer.")
    ] = 2000,
    as_json: Annotated[
        bool, typer.Option("--json", help="OpenAI-style [{role, content}] messages.")
    ] = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """The history a memory class would hand a model: text, or --json messages."""
    from zerda_cli.options.contexts import load_memory

    kind = memory_kind.value
    store = open_store(home, location, lenient=lenient)
    memory = load_memory(store, session, kind, k=k, max_tokens=max_tokens)
    title = f"Session {session}: context from the {kind} memory"
    render.memory_view(title, memory, memory.context_messages() if as_json else None)
