"""Reading a backend's reply in a worker thread, so Ctrl-C cancels it at once, and
stopping it at the size limit of a message.

Python raises KeyboardInterrupt in the main thread, but the kernel may hand SIGINT
to any thread of the process. When the main thread sits in a blocking read (a
program's stdout, a socket) and another thread took the signal, the interrupt
waits until data arrives: with a stalled backend, forever. Here the main thread
only waits on a queue, waking every tenth of a second, so the interrupt is raised
promptly; the reply in progress is then aborted with `cancel`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator

from zerda.limits import MAX_MESSAGE_BYTES, utf8_size

POLL = 0.1  # seconds between the main thread's looks for a pending Ctrl-C
_DONE = object()


def in_background(pieces: Iterator[str], cancel: Callable[[], None]) -> Generator[str, None, None]:
    """Yield what `pieces` yields, produced in a worker thread; its errors are re-raised here.

    If the consumer stops early (Ctrl-C, an error), `cancel` is called to end the
    reply in progress, and the worker is given a moment to finish.
    """
    items: queue.SimpleQueue[object] = queue.SimpleQueue()

    def produce() -> None:
        try:
            for piece in pieces:
                items.put(piece)
            items.put(_DONE)
        except BaseException as exc:  # handed to the consumer, who decides
            items.put(exc)

    worker = threading.Thread(target=produce, name="zerda-reply", daemon=True)
    try:
        worker.start()
        while True:
            try:
                item = items.get(timeout=POLL)
            except queue.Empty:
                continue
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield str(item)
    finally:
        if worker.is_alive():
            with contextlib.suppress(Exception):
                cancel()
            worker.join(timeout=2)


class ReplyTooLarge(Exception):
    """The reply grew past MAX_MESSAGE_BYTES: it was stopped there, and is not kept."""


def within_limit(pieces: Iterable[str]) -> Iterator[str]:
    """Yield what `pieces` yields, raising ReplyTooLarge as soon as it holds more than
    MAX_MESSAGE_BYTES of UTF-8: a reply that could not be recorded is not read whole."""
    size = 0
    for piece in pieces:
        size += utf8_size(piece)
        if size > MAX_MESSAGE_BYTES:
            raise ReplyTooLarge
        yield piece
