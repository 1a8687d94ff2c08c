"""A progress line on stderr for work that takes more than a second (counting the tokens
of a very long message), shown only on a terminal and erased when the work is done."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

AFTER = 1.0  # seconds of work before the line appears


class ProgressLine:
    """Call with (done, total) as the work goes; `close` erases the line if it was shown."""

    def __init__(
        self,
        what: str,
        stream: TextIO | None = None,
        after: float = AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what = what
        self.stream = stream or sys.stderr
        self.after = after
        self.clock = clock
        self.started = clock()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.clock() - self.started < self.after or not self.stream.isatty():
            return
        percent = 100 * done // max(total, 1)
        self.stream.write(f"\r{self.what}: {percent}%")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Erase the line (when one was shown)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
