"""How `zerda show` and `zerda stats --models` say where replies came from.

A recorded reply carries its provenance (`zerda.clients.Provenance`): the backend and
model, how it finished, how long it took and the server's token counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from zerda_cli.render.sanitize import one_line

if TYPE_CHECKING:
    from zerda.messages import Message
    from zerda.store.base import Store
    from zerda.usage import ModelUsage

# `zerda.clients.base.PROVENANCE_KEY`: a message without it loads no client module.
PROVENANCE_KEY = "zerda.provenance"


def seconds(ms: int) -> str:
    """`850 ms`, `1.2 s`, `74 s`."""
    if ms < 1000:
        return f"{ms} ms"
    return f"{ms / 1000:.1f} s" if ms < 10_000 else f"{ms / 1000:.0f} s"


def provenance_label(message: Message) -> str | None:
    """One line about how a reply was made, or None when it records nothing.

    `gpt-4o-mini (openai) · first byte 310 ms · 1.2 s · 35 in, 12 out`, with
    `cut short: length` when the model stopped early.
    """
    if PROVENANCE_KEY not in message.metadata:
        return None
    from zerda.clients.base import Provenance

    made = Provenance.from_metadata(message.metadata)
    if made is None:
        return None
    parts = [f"{made.model} ({made.backend})" if made.model else made.backend]
    if made.truncated:
        parts.append(f"cut short: {made.finish_reason}")
    if made.first_byte_ms is not None:
        parts.append(f"first byte {seconds(made.first_byte_ms)}")
    if made.total_ms is not None:
        parts.append(seconds(made.total_ms))
    if made.usage:
        sent, got = made.usage.get("prompt_tokens"), made.usage.get("completion_tokens")
        if sent is not None and got is not None:
            parts.append(f"{sent:,} in, {got:,} out")
    return one_line(" · ".join(parts))


def model_table_lines(figures: list[ModelUsage]) -> Iterator[str]:
    """`zerda stats --models` for people: one row per backend and model."""
    from zerda_cli.render.formats import table_lines  # formats labels replies with this module

    header = ["BACKEND", "MODEL", "REPLIES", "TOKENS", "TRUNCATED", "SERVER_IN", "SERVER_OUT"]
    rows = [
        [
            u.backend,
            u.model,
            f"{u.replies:,}",
            f"{u.tokens:,}",
            f"{u.truncated:,}",
            f"{u.prompt_tokens:,}" if u.reported else "-",
            f"{u.completion_tokens:,}" if u.reported else "-",
        ]
        for u in figures
    ]
    yield from table_lines(header, rows)


def show_models(store: Store, session_id: str, as_json: bool) -> None:
    """`zerda stats SESSION --models`: the figures per backend and model, as a table or JSON."""
    from zerda.usage import usage_by_model
    from zerda_cli import render

    figures = usage_by_model(store.iter_messages(session_id))
    if as_json:
        render.write_json({"session_id": session_id, "models": [u.as_dict() for u in figures]})
    elif figures:
        render.write_lines(model_table_lines(figures))
    else:
        render.note(f"session {session_id} holds no replies")
