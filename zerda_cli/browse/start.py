"""Starting the browser, without the command framework (the quick path runs this too),
and the export it shares with `zerda export`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from zerda.store.base import Store

RECHECK = 2.0  # seconds the browser trusts the archive index between checks of the files


def launch(home: Path | None, location: str | None) -> None:
    """`zerda browse`: the browser on the store, then `zerda chat` if asked for there."""
    from zerda_cli.basics import UsageProblem
    from zerda_cli.opening import open_store

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        message = "zerda browse draws on a terminal: stdin and stdout must be one"
        raise UsageProblem(message, "browse")
    store = open_store(home, location, command="browse")
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
