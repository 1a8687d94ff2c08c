"""Ctrl-C cancels a stalled reply even when SIGINT lands on a thread other than the main one."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from zerda_cli.chat.streaming import in_background

FAILSAFE = 20.0  # seconds; only reached when the interrupt was lost


def stalled_reply(read_fd: int, started: threading.Event) -> Iterator[str]:
    """A backend whose program has said nothing yet: a read that blocks."""
    started.set()
    data = os.read(read_fd, 100)
    yield data.decode()


def interrupt_via_other_thread(started: threading.Event) -> threading.Thread:
    """SIGINT sent to a helper thread: Python then owes the main thread a KeyboardInterrupt."""

    def send() -> None:
        started.wait()
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    thread = threading.Thread(target=send)
    thread.start()
    return thread


def test_interrupt_taken_by_another_thread_still_cancels_the_reply() -> None:
    read_fd, write_fd = os.pipe()
    started = threading.Event()
    cancelled = threading.Event()
    failsafe = threading.Timer(FAILSAFE, os.write, (write_fd, b"too late"))
    failsafe.start()

    def cancel() -> None:
        cancelled.set()
        os.write(write_fd, b"")
        os.close(write_fd)  # the stalled read now ends

    received: list[str] = []
    sender = interrupt_via_other_thread(started)
    try:
        with pytest.raises(KeyboardInterrupt):
            received.extend(in_background(stalled_reply(read_fd, started), cancel))
    finally:
        failsafe.cancel()
        sender.join()
    assert received == []  # interrupted while stalled, not after the fail-safe's data
    assert cancelled.is_set()


def test_pieces_and_errors_arrive_in_order() -> None:
    def pieces() -> Iterator[str]:
        yield "a"
        yield "b"
        raise ValueError("the backend broke")

    got: list[str] = []
    with pytest.raises(ValueError, match="the backend broke"):
        got.extend(in_background(pieces(), lambda: None))
    assert got == ["a", "b"]


def test_a_finished_reply_needs_no_cancel() -> None:
    calls: list[str] = []
    assert list(in_background(iter(["x", "y"]), lambda: calls.append("cancel"))) == ["x", "y"]
    assert calls == []
