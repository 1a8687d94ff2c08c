"""What a bulk write reads its messages from, on any store.

A `MessageSource` can be read more than once, in the same order, and fetch one message
again by its key, so a write that merges it into a session never holds it whole.
`UuidSet` is a compact set of uuids (hashes, sorted in runs) for finding which of a
source's messages a session already holds.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from typing import Protocol

from zerda.messages import Message

_RUN = 1 << 16  # uuid hashes sorted at a time


class MessageSource(Protocol):
    """Messages to add in one write, read afresh (in the same order) on each pass.

    Each comes with a key that reads it again alone (`at`), so a message that
    replaces one deep in a session is fetched when the rewrite gets there.
    """

    @property
    def holds_uuids(self) -> bool:
        """True when some message carries a uuid (and so may replace one)."""
        ...

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        """(key, message) for each message, in order."""
        ...

    def at(self, key: int) -> Message:
        """The message of `key`."""
        ...

    def may_hold(self, uuid: bytes) -> bool:
        """True when a message may carry `uuid` (a wrong True costs time, never data)."""
        ...

    def latest(self, uuids: UuidSet) -> dict[str, int]:
        """The key of the last message of each uuid in `uuids`, and of each uuid carried
        by more than one message (no pass over the messages when there are none)."""
        ...


class ListSource:
    """A `MessageSource` over a list of messages whose uuids are distinct (`add_memory`)."""

    def __init__(self, messages: list[Message]) -> None:
        self.messages = messages
        self.uuids = {m.uuid.encode() for m in messages if m.uuid}
        self.holds_uuids = bool(self.uuids)

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        return enumerate(self.messages)

    def at(self, key: int) -> Message:
        return self.messages[key]

    def may_hold(self, uuid: bytes) -> bool:
        return uuid in self.uuids

    def latest(self, uuids: UuidSet) -> dict[str, int]:
        return {
            m.uuid: i for i, m in enumerate(self.messages) if m.uuid and m.uuid.encode() in uuids
        }


class UuidSet:
    """A set of uuids kept as their 64-bit hashes, sorted: 8 bytes a uuid where a set of
    them takes over a hundred. Filled by `add`, then `sort`ed once. It may hold a uuid
    it was never given (a hash shared by chance): callers pay for that in time only."""

    def __init__(self) -> None:
        self.hashes = array("Q")
        self.repeated: set[int] = set()

    def add(self, uuid: bytes) -> None:
        self.hashes.append(_hash(uuid))

    def sort(self) -> UuidSet:
        """Sort the hashes (in runs, then merged: never a list of all of them), keeping
        each once and noting those added more than once."""
        size = len(self.hashes)
        runs = [array("Q", sorted(self.hashes[i : i + _RUN])) for i in range(0, size, _RUN)]
        self.hashes = array("Q")
        previous = None
        for value in heapq.merge(*runs):
            if value == previous:
                self.repeated.add(value)
            else:
                self.hashes.append(value)
            previous = value
        return self

    def __bool__(self) -> bool:
        return bool(self.hashes)

    def __contains__(self, uuid: object) -> bool:
        if not isinstance(uuid, bytes):
            return False
        value = _hash(uuid)
        at = bisect_left(self.hashes, value)
        return at < len(self.hashes) and self.hashes[at] == value

    def repeats(self, uuid: bytes) -> bool:
        """True when `uuid` may have been added more than once."""
        return _hash(uuid) in self.repeated


def _hash(uuid: bytes) -> int:
    return hash(uuid) & 0xFFFF_FFFF_FFFF_FFFF
