"""Starting the browser, without the command framework (the quick path runs this too)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

RECHECK = 2.0  # seconds the browser trusts the archive index between checks of the files


def launch(home: Path | None, location: str | None) -> None:
    """`zerda browse`: the browser on the store, then `zerda chat` if asked for there."""
    from zerda_cli.options.errors import UsageProblem
    from zerda_cli.options.opening import open_store

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
