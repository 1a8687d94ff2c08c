"""`zerda browse`: the full-screen browser of the history (see `zerda_cli.browse.screen`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from zerda.store.base import Store
from zerda_cli.params import HomeOpt, StoreOpt, open_store, usage_error

RECHECK = 2.0  # seconds the browser trusts the archive index between checks of the files


def browse(home: HomeOpt = None, location: StoreOpt = None) -> None:
    """Find and manage sessions full-screen: type to search sessions and messages as you
    type, Enter to read one; rename, title, fork, export, delete or continue it in chat.

    Keys are shown at the bottom; Esc leaves. Needs a terminal on both sides.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise usage_error("zerda browse draws on a terminal: stdin and stdout must be one")
    store = open_store(home, location)
    if hasattr(store, "index_recheck_after"):
        store.index_recheck_after = RECHECK
    from zerda_cli.browse.screen import run

    chat = run(store)
    if chat is not None:
        argv = [sys.executable, "-m", "zerda_cli", "chat", chat]
        argv += ["--store", location] if location else ["--home", str(home)] if home else []
        os.execv(sys.executable, argv)


def export_to(store: Store, session_id: str, path: Path) -> Path:
    """The session as zerda's JSON Lines at `path` (0600, written whole or not at all)."""
    from zerda_cli import basics, render
    from zerda_cli.files import write_private

    details = store.get_session(session_id)
    write_private(path, render.document("jsonl", details, *basics.history(store, session_id, None)))
    return path
