"""`zerda copy`: sessions from one store to another, losslessly (see `zerda.store._copying`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Annotated

import typer

from zerda.errors import ZerdaError
from zerda_cli import render
from zerda_cli.options.params import check_session

# How often a terminal's progress line is redrawn, in seconds.
REDRAW = 0.25


def copy(
    source: Annotated[
        str,
        typer.Option(
            "--from", metavar="URL|PATH", help="The store to copy from.", show_default=False
        ),
    ],
    target: Annotated[
        str,
        typer.Option(
            "--to", metavar="URL|PATH", help="The store to copy into.", show_default=False
        ),
    ],
    sessions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[SESSION]...",
            help="Sessions to copy (default: every session of --from).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Copy sessions between stores (files or postgresql:// URLs), losslessly.

    uuids, times, roles, metadata, summaries, token counts and entities go across as they are.
    Copying again adds nothing: messages are matched by uuid and replaced in place.
    """
    from zerda.store._copying import copy_session
    from zerda.store._opening import open_store
    from zerda_cli.options.location import describe
    from zerda_cli.options.params import usage_error

    names = [check_session(s) for s in sessions or []]
    if describe(source) == describe(target):
        raise usage_error("--from and --to are the same store")
    origin, destination = open_store(source), open_store(target, extract_entities=False)
    try:
        wanted = names or origin.session_ids()
        progress = _Progress(len(wanted)) if sys.stderr.isatty() else None
        copied = failed = messages = 0
        for number, session_id in enumerate(wanted, 1):
            tell = progress.reader(number, session_id) if progress else None
            try:
                messages += copy_session(origin, destination, session_id, tell)
                copied += 1
            except ZerdaError as exc:
                failed += 1
                if progress:
                    progress.clear()
                render.note(f"error: session {session_id}: {exc}")
        if progress:
            progress.clear()
    finally:
        origin.close()
        destination.close()
    plural = "" if copied == 1 else "s"
    render.note(
        f"copied {copied} session{plural} ({messages} messages) "
        f"from {describe(source)} to {describe(target)}"
    )
    if failed:
        raise _Failed(f"{failed} of {len(wanted)} sessions were not copied (see above)")


class _Failed(ZerdaError):
    """Some sessions could not be copied; each was reported as it failed."""


class _Progress:
    """One line on the terminal's stderr: the session being copied and messages read."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.drawn = 0.0

    def reader(self, number: int, session_id: str) -> Callable[[int], None]:
        self._draw(f"[{number}/{self.total}] {session_id}")

        def read(count: int) -> None:
            now = time.monotonic()
            if now - self.drawn >= REDRAW:
                self._draw(f"[{number}/{self.total}] {session_id}: {count:,} messages read")

        return read

    def _draw(self, text: str) -> None:
        from zerda_cli.render.sanitize import one_line

        self.drawn = time.monotonic()
        sys.stderr.write(f"\r\x1b[K{one_line(text)}")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
