"""How `zerda show` says where a reply came from (`models` adds them up per model).

A recorded reply carries its provenance (`zerda.clients.Provenance`): the backend and
model, how it finished, how long it took and the server's token counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zerda_cli.render.sanitize import one_line

if TYPE_CHECKING:
    from zerda.messages import Message

# `zerda.clients._base.PROVENANCE_KEY`: a message without it loads no client module.
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
    from zerda.clients._base import Provenance

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
