"""Writes that touch a whole session file, streamed: memory stays flat in its size.

A rewrite (compact, undo, retry, an upsert) reads the session forward once and writes
the new file as it reads; where the last turn starts is found first, reading
backwards. A bulk add (`SessionStore.import_messages`) reads its messages from a
`MessageSource` (zerda.store._sources), merged in as a stream (`Merge`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from zerda.errors import CorruptSessionError, ZerdaWarning
from zerda.messages import ASK, Message
from zerda.store._sources import MessageSource, UuidSet
from zerda.store.files._records import MESSAGE, loads, message_from
from zerda.store.files._sessionfile import SessionFile, SideFile

# The uuid of a record as zerda writes it: found in raw lines without decoding.
UUID_FIELD = re.compile(rb'"uuid":"([^"\\]+)"')


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
