"""Summarizers: `(previous_summary, new_turns) -> str`. The default needs no model."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

Summarizer = Callable[[str, Sequence[dict[str, Any]]], str]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
OMITTED = "(earlier turns omitted)"


def first_sentence(text: Any, limit: int = 160) -> str:
    """The first sentence of `text` on one line, cut to `limit` characters."""
    flat = " ".join(str(text or "").split())
    sentence = _SENTENCE_END.split(flat, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


class ExtractiveSummarizer:
    """Deterministic, offline: one line per turn with the first sentence of each side.

    When the summary grows past `max_chars`, the oldest lines give way to a marker.
    """

    def __init__(self, max_chars: int = 2000) -> None:
        self.max_chars = max_chars

    def __call__(self, previous_summary: str, new_turns: Sequence[dict[str, Any]]) -> str:
        lines = [line for line in previous_summary.splitlines() if line and line != OMITTED]
        for turn in new_turns:
            lines.append(
                f"- user: {first_sentence(turn.get('input'))}"
                f" | assistant: {first_sentence(turn.get('output'))}"
            )
        trimmed = False
        while lines and len("\n".join(lines)) > self.max_chars:
            lines.pop(0)
            trimmed = True
        return "\n".join([OMITTED, *lines] if trimmed else lines)
