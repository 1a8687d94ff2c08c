"""Showing long terminal output through `$PAGER` (default `less`), falling back to printing."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterable
from contextlib import suppress


def pager_command() -> list[str]:
    """`$ZERDA_PAGER`, else `$PAGER`, else `less`, split like a shell would."""
    chosen = os.environ.get("ZERDA_PAGER") or os.environ.get("PAGER") or "less"
    return shlex.split(chosen)


def page_chunks(chunks: Iterable[str]) -> None:
    """Hand `chunks` (they may hold our own colour codes) to the pager; print them if none runs.

    `less` gets -R for colour, -F to quit when it fits and -X to leave the text on
    screen. Ctrl-C belongs to the pager while it runs; quitting it early stops the output.
    """
    env = dict(os.environ)
    env["LESS"] = (env.get("LESS", "") + " -FRX").strip()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            pager = subprocess.Popen(pager_command(), stdin=subprocess.PIPE, env=env)
        except (OSError, ValueError):
            sys.stdout.writelines(chunks)
            return
        _feed(pager, chunks)
    finally:
        signal.signal(signal.SIGINT, previous)


def _feed(pager: subprocess.Popen[bytes], chunks: Iterable[str]) -> None:
    """Write `chunks` to the pager until it has them all or has quit, then wait for it."""
    assert pager.stdin is not None  # Popen was given stdin=PIPE
    try:
        with suppress(BrokenPipeError), pager.stdin:
            for chunk in chunks:
                pager.stdin.write(chunk.encode())
    finally:
        pager.wait()
