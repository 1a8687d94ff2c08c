"""Showing long terminal output through `$PAGER` (default `less`), falling back to printing."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys


def pager_command() -> list[str]:
    """`$ZERDA_PAGER`, else `$PAGER`, else `less`, split like a shell would."""
    chosen = os.environ.get("ZERDA_PAGER") or os.environ.get("PAGER") or "less"
    return shlex.split(chosen)


def page_text(text: str) -> None:
    """Hand `text` (which may hold our own colour codes) to the pager; print it if none runs.

    `less` gets -R for colour, -F to quit when it fits and -X to leave the text on
    screen. Ctrl-C belongs to the pager while it runs.
    """
    env = dict(os.environ)
    env["LESS"] = (env.get("LESS", "") + " -FRX").strip()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        subprocess.run(pager_command(), input=text.encode(), env=env, check=False)
    except (OSError, ValueError):
        sys.stdout.write(text)
    finally:
        signal.signal(signal.SIGINT, previous)
