"""The first messages of a session file, read a block at a time: for listings, which need
only the start of a session (its opening words) whatever the session's size."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

from zerda.messages import Message
from zerda.store.files._reader import RecordReader
from zerda.store.files._sessionfile import BLOCK


def head_messages(reader: RecordReader, records: int) -> Iterator[Message]:
    """The messages among the file's first `records` records, decoded as they are asked
    for (damaged lines raise, or are skipped when the reader is lenient)."""
    for number, line in _head_lines(reader, records):
        decoded = reader.decode(line, functools.partial(int, number))
        if decoded is not None and decoded[1] is not None:
            yield decoded[1]


def _head_lines(reader: RecordReader, count: int) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of the first `count` lines holding something."""
    with reader.file.snapshot() as (fd, end):
        pos, number = 0, 1
        pieces: list[bytes] = []
        while count > 0 and pos < end and (block := os.pread(fd, min(BLOCK, end - pos), pos)):
            pos += len(block)
            *lines, tail = block.split(b"\n")
            if lines:
                lines[0] = b"".join([*pieces, lines[0]])
                pieces = []
            pieces.append(tail)
            for line in lines:
                if line.strip() and count > 0:
                    count -= 1
                    yield number, line
                number += 1
