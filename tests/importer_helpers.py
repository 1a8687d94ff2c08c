"""What the importer tests share: storing what a reader found, and the store's bytes."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cli_runner import Result, process

from zerda import SessionStore
from zerda.importers import import_conversations
from zerda.importers._base import Conversation, Found, Problem


def conversations(found: Iterable[Found]) -> list[Conversation]:
    """The conversations of `found`, asserting there was no problem."""
    items = list(found)
    problems = [str(item) for item in items if isinstance(item, Problem)]
    assert problems == []
    return [item for item in items if isinstance(item, Conversation)]


def store_all(store: SessionStore, found: Iterable[Conversation]) -> int:
    """Import every conversation as zerda.importers does; returns how many messages
    were written (none for a session that already holds them all)."""
    return import_conversations(store, found).messages


def store_bytes(store: SessionStore) -> dict[str, bytes]:
    """Every session file of `store`, by name."""
    return {p.name: p.read_bytes() for p in sorted(Path(store.sessions_dir).iterdir())}


def zerda_import(home: Path, *args: str) -> Result:
    """The installed `zerda import ARGS` on data directory `home` (given as `--home`, with
    ZERDA_HOME unset), as a real process."""
    return process(None, "import", "--home", str(home), *args)
