"""Terminal and signal state that `zerda chat` holds while a reply streams or a turn is written."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold off Ctrl-C while a turn is written, so what is on disk and in memory agree."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def sigint_raises() -> Iterator[None]:
    """Let Ctrl-C raise KeyboardInterrupt here, even inside `sigint_deferred` (for a wait
    that must stay cancellable, such as a summary request made while a turn is saved)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def typing_hidden() -> Iterator[None]:
    """While a reply streams, keys typed (and the ^C of Ctrl-C) are not echoed into it."""
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
