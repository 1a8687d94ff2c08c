"""Writes that touch a whole session, streamed: memory stays flat in the session's size.

A rewrite (compact, undo, retry, an upsert) reads the session forward once and writes
the new file as it reads; where the last turn starts is found first, reading
backwards. A bulk add (`SessionStore.import_messages`) reads its messages from a
`MessageSource`, which can be read more than once, so neither side is ever held whole.
"""

from __future__ import annotations

import heapq
import re
import warnings
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Protocol

from zerda.errors import CorruptSessionError, ZerdaWarning
from zerda.messages import ASK, Message
from zerda.store.files.records import MESSAGE, loads, message_from
from zerda.store.files.sessionfile import SessionFile, SideFile

# The uuid of a record as zerda writes it: found in raw lines without decoding.
UUID_FIELD = re.compile(rb'"uuid":"([^"\\]+)"')
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


class Merge:
    """A source's messages merged into a session's as a stream: each one whose uuid the
    session holds replaces that message in place; the others follow, each uuid once (at
    its first place, with its last value).

    `latest` maps those uuids to the key of their last message (`MessageSource.latest`);
    a key is marked placed by flipping it negative, so no second set is kept. `fresh`
    stamps a message added, `revised(old, new)` makes a replacement, and
    `stored(key, message)`, if given, hears of each message as it is written.
    """

    def __init__(
        self,
        source: MessageSource,
        latest: dict[str, int],
        fresh: Callable[[Message], Message],
        revised: Callable[[Message, Message], Message],
        stored: Callable[[int, Message], None] | None = None,
    ) -> None:
        self.source, self.latest = source, latest
        self.fresh, self.revised, self.stored = fresh, revised, stored
        self.count = 0

    def into(self, messages: Iterable[Message]) -> Iterator[Message]:
        """The session's `messages` with replacements, then the source's others."""
        for message in messages:
            key = self.latest.get(message.uuid or "")
            if key is None:
                yield message
                continue
            key = self._place(message.uuid or "", key)
            yield self._noted(key, self.revised(message, self.source.at(key)))
        yield from self.rest()

    def rest(self) -> Iterator[Message]:
        """The source's messages not placed yet, in order."""
        for key, message in self.source:
            planned = self.latest.get(message.uuid or "")
            if planned is not None:
                if planned < 0:
                    continue  # placed already
                key = self._place(message.uuid or "", planned)
                message = self.source.at(key)
            yield self._noted(key, self.fresh(message))

    def _place(self, uuid: str, key: int) -> int:
        """Mark `uuid` placed (its key flipped negative); returns its key."""
        self.latest[uuid] = ~key if key >= 0 else key
        return key if key >= 0 else ~key

    def _noted(self, key: int, message: Message) -> Message:
        self.count += 1
        if self.stored is not None:
            self.stored(key, message)
        return message


class SessionMessages:
    """A session's messages streamed for a rewrite, oldest first, counted as they pass.

    Every line is read, strictly: a damaged one raises CorruptSessionError naming it;
    with `lenient`, it is copied as it was to a side file beside the session first
    (synced before the rewrite replaces the session), then dropped with a warning
    saying where it went. Messages from byte `cut` on are read but left out, and
    kept in `left_out`: the turn a rewrite removes.
    """

    def __init__(self, file: SessionFile, *, lenient: bool, count: Callable[[str], int]) -> None:
        self.file = file
        self.lenient = lenient
        self.count = count
        self.cut: int | None = None
        self.left_out: list[Message] = []

    def __iter__(self) -> Iterator[Message]:
        aside = self.file.side_file("damaged") if self.lenient else None
        try:
            for offset, number, line in _lines(self.file):
                message = self._decoded(line, number, aside)
                if message is None:
                    continue
                if message.token_count is None:
                    message = replace(message, token_count=self.count(message.content))
                if self.cut is not None and offset >= self.cut:
                    self.left_out.append(message)
                else:
                    yield message
        finally:
            if aside is not None:
                aside.close()

    def _decoded(self, line: bytes, number: int, aside: SideFile | None) -> Message | None:
        try:
            return _message_on(line)
        except ValueError as exc:
            error = CorruptSessionError(self.file.path, number, str(exc))
            if aside is None:
                raise error from None
            aside.add(line)
            warnings.warn(
                f"{error}; dropped by this rewrite, saved first to {aside.path}",
                ZerdaWarning,
                stacklevel=4,
            )
            return None


def last_ask(file: SessionFile, *, lenient: bool) -> tuple[int, str | None] | None:
    """Where the last turn starts: (byte offset, uuid) of the last message that asks
    (`Message.part` is ASK), read backwards; None when no message asks.

    A damaged line on the way raises CorruptSessionError naming it; when lenient it is
    passed over here (the forward pass of the rewrite saves it aside).
    """
    for offset, line in file.lines_reversed():
        if not line.strip():
            continue
        try:
            message = _message_on(line)
        except ValueError as exc:
            if lenient:
                continue
            raise CorruptSessionError(file.path, file.line_number_at(offset), str(exc)) from None
        if message is not None and message.part == ASK:
            return offset, message.uuid
    return None


def uuids_held(file: SessionFile, wanted: Callable[[bytes], bool]) -> UuidSet:
    """The uuids of the file's records for which `wanted` is true (a raw scan, no decoding)."""
    found = UuidSet()
    for _, chunk in file.chunks():
        for uuid in UUID_FIELD.findall(chunk):
            if wanted(uuid):
                found.add(uuid)
    return found.sort()


def _message_on(line: bytes) -> Message | None:
    """The message on `line`, None for another record; ValueError when it is damaged."""
    record = loads(line)
    return message_from(record) if record["type"] == MESSAGE else None


def _lines(file: SessionFile) -> Iterator[tuple[int, int, bytes]]:
    """(byte offset, line number, line) of each line holding something, from the start."""
    offset = 0
    for first, chunk in file.chunks():
        for number, line in enumerate(chunk.split(b"\n")[:-1], start=first):
            if line.strip():
                yield offset, number, line
            offset += len(line) + 1
