"""Importers: other tools' chat histories as zerda sessions.

`detect(path)` names the format of an export, `read(path, fmt)` yields its
conversations one at a time (`base.Conversation`, or a `base.Problem` in place of one
that cannot be read), and `import_conversations(store, found)` checks and writes them,
returning a `Report`. Each format is a module `zerda.importers._<format>` with a
`read(path)`, imported only when used.

zerda's own export and OpenAI message arrays (`zerda`, `openai`) are one session's
messages: `native.check_import` reads such a file once, checking every item, and
`native.import_file(store, session_id, checked)` writes it, streamed both times.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

from zerda.errors import ImportFailed, UnsafeArchiveError
from zerda.importers._base import Conversation, Found, Problem, stable_uuid
from zerda.importers._detection import SINGLE_SESSION, detect
from zerda.importers._writing import Report, import_conversations

# Formats of many conversations, each read by its own module.
FORMATS = ("chatgpt", "claude", "llm", "aichat", "sgpt", "langchain")

__all__ = [
    "FORMATS",
    "SINGLE_SESSION",
    "Conversation",
    "Found",
    "ImportFailed",
    "Problem",
    "Report",
    "UnsafeArchiveError",
    "detect",
    "import_conversations",
    "read",
    "stable_uuid",
]


def read(path: Path, fmt: str) -> Iterator[Found]:
    """The conversations of the `fmt` export at `path`, one at a time."""
    if fmt not in FORMATS:
        raise ImportFailed(f"unknown import format {fmt!r} (one of {', '.join(FORMATS)})")
    try:
        module = importlib.import_module(f"zerda.importers._{fmt}")
    except ModuleNotFoundError as exc:
        if exc.name != f"zerda.importers._{fmt}":
            raise
        raise ImportFailed(f"this zerda cannot read {fmt} exports yet") from None
    found: Iterator[Found] = module.read(path)
    return found
