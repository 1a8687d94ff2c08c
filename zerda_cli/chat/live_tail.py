"""The live area of a reply streaming in: its bottom screenful, drawn at a cost that does
not grow with the reply.

Rich's refresh thread draws the area a dozen times a second while the reader appends
pieces. Each drawing takes in only the pieces new since the last, keeps the last lines
of the reply (a window), and parses those as Markdown. What the lines dropped from the
window leave open is carried along (`Above`): a code block is opened again with its own
fence, and a table's rows get their header back, so the window renders as it would in
the whole reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.text import Text

FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")  # a code fence's marker, at a line's start
WINDOW_CHARACTERS = 64 * 1024  # a window longer than this (a huge line) is drawn by its end


class Above:
    """What the lines above the window leave open: a code block (its fence), or a table
    whose rows go on in the window (its header and delimiter rows)."""

    def __init__(self) -> None:
        self.fence: str | None = None
        self.table: list[str] = []

    def take(self, line: str) -> None:
        """Account for one more whole line leaving the window."""
        found = FENCE.match(line)
        marker = found.group(1) if found else None
        if found and marker and marker[0] == "`" and "`" in line[found.end() :]:
            marker = None  # ```sql``` is a code span: a backtick fence's info has no backtick
        if self.fence is not None:
            if marker is not None and line.strip() == marker and closes(marker, self.fence):
                self.fence = None
        elif marker is not None:
            self.fence, self.table = marker, []
        elif line.lstrip().startswith("|"):
            self.table = self.table if len(self.table) >= 2 else [*self.table, line]
        else:
            self.table = []

    def opening(self, window: str) -> str:
        """The lines that put `window` back in its context."""
        if self.fence is not None:
            return self.fence + "\n"
        if self.table and window.split("\n", 1)[0].lstrip(" ").startswith("|"):
            return "".join(row + "\n" for row in self.table)
        return ""


def closes(marker: str, fence: str) -> bool:
    """A bare `marker` line ends the block `fence` opened: same character, as long or longer."""
    return marker[0] == fence[0] and len(marker) >= len(fence)


class Tail:
    """The bottom screenful of the reply so far (a spinner until it starts).

    A live area taller than the screen cannot be redrawn in place; this one never is.
    `pieces` is appended to by the reader; `text()` is the whole reply.
    """

    def __init__(
        self, waiting: RenderableType, render: Callable[[str], RenderableType], plain: bool
    ) -> None:
        self.waiting = waiting
        self.render = render
        self.plain = plain
        self.pieces: list[str] = []
        self.taken = 0  # pieces already in the window
        self.window = ""  # the reply's last lines
        self.above = Above()
        self.cut = False  # lines have left the window

    def text(self) -> str:
        return "".join(self.pieces)

    def advance(self, keep: int) -> str:
        """Take the new pieces in and keep the last `keep` lines; the Markdown to draw."""
        count = len(self.pieces)
        window = self.window + "".join(self.pieces[self.taken : count])
        self.taken = count
        start = len(window)
        for _ in range(keep):
            start = window.rfind("\n", 0, start)
            if start < 0:
                break
        else:  # more than `keep` lines: those before the last `keep` leave the window
            window = self.drop(window, start)
        if len(window) > WINDOW_CHARACTERS:  # long lines: fewer of them, by characters
            start = window.find("\n", len(window) - WINDOW_CHARACTERS)
            window = self.drop(window, start) if start >= 0 else window
        self.window = window
        shown = window[-WINDOW_CHARACTERS:]  # one huge line: its end
        self.cut = self.cut or len(shown) < len(window)
        return shown if self.plain else self.above.opening(shown) + shown

    def drop(self, window: str, end: int) -> str:
        """`window` without its lines before the newline at `end`, which `above` takes."""
        for line in window[:end].split("\n"):
            self.above.take(line)
        self.cut = True
        return window[end + 1 :]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.pieces:
            yield Padding(self.waiting, (0, 0, 0, 2))
            return
        room = max(2, options.size.height - 4)
        shown = self.advance(2 * room)
        lines = console.render_lines(self.render(shown), options, pad=False)
        if self.cut or len(lines) > room:
            hidden = "" if self.cut else f"{len(lines) - room + 1} "
            yield Text(f"  … {hidden}more lines above", style="dim")
            lines = lines[-(room - 1) :]
        for line in lines:
            yield from line
            yield Segment.line()
