"""`zerda stats --models`: the replies of a session and their tokens, per backend and model
(from the provenance each reply records, see `provenance`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from zerda_cli import render
from zerda_cli.render.formats import table_lines

if TYPE_CHECKING:
    from zerda._usage import ModelUsage
    from zerda.store.base import Store


def model_table_lines(figures: list[ModelUsage]) -> Iterator[str]:
    """`zerda stats --models` for people: one row per backend and model."""
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
    from zerda._usage import usage_by_model

    figures = usage_by_model(store.iter_messages(session_id))
    if as_json:
        render.write_json({"session_id": session_id, "models": [u.as_dict() for u in figures]})
    elif figures:
        render.write_lines(model_table_lines(figures))
    else:
        render.note(f"session {session_id} holds no replies")
