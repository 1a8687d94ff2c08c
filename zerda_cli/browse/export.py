"""The browser's export of a session: zerda's JSON Lines, as `zerda export` writes them."""

from __future__ import annotations

from pathlib import Path

from zerda.store.base import Store


def export_to(store: Store, session_id: str, path: Path) -> Path:
    """The session as zerda's JSON Lines at `path` (0600, written whole or not at all)."""
    from zerda_cli import basics, render
    from zerda_cli.options.files import write_private

    details = store.get_session(session_id)
    write_private(path, render.document("jsonl", details, *basics.history(store, session_id, None)))
    return path
