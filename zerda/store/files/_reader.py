"""Reading a session file into records: strict (errors name file and line) or lenient."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from zerda.errors import CorruptSessionError, SkippedLineWarning
from zerda.messages import Message
from zerda.store.files._records import MESSAGE, TOKENS, loads, message_from
from zerda.store.files._sessionfile import SessionFile

Record = dict[str, Any]


class RecordReader:
    """Decodes the lines of one session file; bad lines raise, or warn when lenient."""

    def __init__(self, file: SessionFile, *, lenient: bool) -> None:
        self.file = file
        self.lenient = lenient

    def _bad(self, line_number: int, reason: str) -> None:
        if not self.lenient:
            raise CorruptSessionError(self.file.path, line_number, reason)
        warnings.warn(SkippedLineWarning(self.file.path, line_number, reason), stacklevel=5)

    def decode(
        self, line: bytes, line_number: Callable[[], int]
    ) -> tuple[Record, Message | None] | None:
        """The record on `line` and its Message, or None when the line is damaged.

        A damaged line raises, or warns when lenient; `line_number` is asked only
        then, so a scan that skips lines need not count them.
        """
        try:
            record = loads(line)
            message = message_from(record) if record["type"] == MESSAGE else None
        except ValueError as exc:
            self._bad(line_number(), str(exc))
            return None
        return record, message

    def forward(self) -> Iterator[tuple[Record, Message | None]]:
        """Every record from the start, with its Message for message records."""
        for first, chunk in self.file.chunks():
            for number, line in enumerate(chunk.split(b"\n")[:-1], start=first):
                if not line.strip():
                    continue
                decoded = self.decode(line, functools.partial(int, number))
                if decoded is not None:
                    yield decoded

    def backward(self) -> Iterator[tuple[Record, Message | None]]:
        """Every record from the end (line numbers are worked out only on error)."""
        for offset, line in self.file.lines_reversed():
            if not line.strip():
                continue
            decoded = self.decode(line, functools.partial(self.file.line_number_at, offset))
            if decoded is not None:
                yield decoded

    def record_at(self, offset: int, kind: str) -> Record | None:
        """The record of `kind` starting at `offset`, or the latest one found scanning back.

        A pointer that does not land on such a record (the file was edited by hand)
        is not trusted.
        """
        try:
            record = loads(self.file.line_at(offset))
            if record["type"] == kind:
                return record
        except ValueError:
            pass
        for record, _ in self.backward():
            if record["type"] == kind:
                return record
        return None


def with_token_counts(
    records: Iterator[tuple[Record, Message | None]],
    fill: Callable[[list[Message]], list[Message]],
) -> Iterator[Message]:
    """Messages in file order, counts taken from later `tokens` records.

    Messages that no record counted are handed to `fill` once, at the end, which
    returns them counted (and may persist the counts).
    """
    held: list[Message] = []
    waiting: dict[str, int] = {}
    for record, message in records:
        if message is not None:
            if message.token_count is None and message.uuid:
                waiting[message.uuid] = len(held)
            if waiting:
                held.append(message)
            else:
                yield message
        elif record["type"] == TOKENS and waiting:
            _resolve(held, waiting, record.get("counts") or {})
            if not waiting:
                yield from held
                held.clear()
    if waiting:
        indexes = sorted(waiting.values())
        for index, counted in zip(indexes, fill([held[i] for i in indexes]), strict=True):
            held[index] = counted
    yield from held


def newest_first(records: Iterator[tuple[Record, Message | None]]) -> Iterator[Message]:
    """The messages of `records` read last first, counts taken from the `tokens` records
    after them (seen first); None where no record counted one."""
    counts: dict[str, int] = {}
    for record, message in records:
        if message is None:
            if record["type"] == TOKENS:
                counts.update(record.get("counts") or {})
            continue
        if message.token_count is None and message.uuid in counts:
            message = replace(message, token_count=counts[message.uuid])
        yield message


def _resolve(held: list[Message], waiting: dict[str, int], counts: dict[str, Any]) -> None:
    for uuid, count in counts.items():
        index = waiting.pop(uuid, None)
        if index is not None and isinstance(count, int):
            held[index] = replace(held[index], token_count=count)
