"""`--lenient`: the damaged lines a read skips, told in one warning when the command ends."""

from __future__ import annotations

import atexit
import warnings
from pathlib import Path
from typing import TextIO

from typer._click.globals import get_current_context

from zerda.errors import SkippedLineWarning
from zerda_cli.render import note
from zerda_cli.render.sanitize import one_line


def count_skipped_lines() -> None:
    """Hold back the warning of each line a lenient read skips; when the command ends,
    say in one line how many were skipped (each counted once, however often it was met)."""
    skipped: dict[Path, set[int]] = {}
    shown = warnings.showwarning

    def hold(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if isinstance(message, SkippedLineWarning):
            skipped.setdefault(message.path, set()).add(message.line)
        else:
            shown(message, category, filename, lineno, file, line)

    def tell() -> None:
        warnings.showwarning = shown
        if skipped:
            note(f"warning: {summary(skipped)}")

    warnings.showwarning = hold
    context = get_current_context(silent=True)
    if context is None:  # called outside a command: tell at exit
        atexit.register(tell)
    else:
        context.call_on_close(tell)


def summary(skipped: dict[Path, set[int]]) -> str:
    """`--lenient skipped 2 damaged lines (s.jsonl lines 3, 9); ...`"""
    count = sum(len(lines) for lines in skipped.values())
    where = "; ".join(
        f"{path.name} line{'s' * (len(lines) > 1)} {', '.join(map(str, sorted(lines)[:10]))}"
        + (", ..." if len(lines) > 10 else "")
        for path, lines in sorted(skipped.items())
    )
    plural = "line" if count == 1 else "lines"
    return one_line(
        f"--lenient skipped {count} damaged {plural} ({where}); "
        "zerda doctor --repair saves them aside and repairs the file"
    )
