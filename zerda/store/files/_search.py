"""Searching a session file fast: raw-byte scans pick out the few lines worth decoding."""

from __future__ import annotations

import functools
import heapq
import os
import re
import signal
import struct
import threading
from collections.abc import Iterator

from zerda.messages import Message
from zerda.store._matching import Filters, Matcher
from zerda.store.files._reader import Record, RecordReader, newest_first
from zerda.store.files._records import TOKENS
from zerda.store.files._sessionfile import BLOCK, CHUNK, newlines

# The characters outside ASCII whose casefold holds ASCII (Unicode 14 and 15;
# tests/test_search.py checks this against the running Python).
FOLDS_TO_ASCII = (
    "\xdf\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e"
    "\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
# Files at least this big are scanned in two processes when two cores are free.
PARALLEL_MIN = 64 << 20
_ASCII = bytes(range(128))
# How zerda writes a tokens record's start. A record written otherwise (by hand) goes
# unseen: the counts it gives are then counted again, never wrong.
_TOKENS_MARK = f'{{"type":"{TOKENS}"'.encode()
Pattern = re.Pattern[bytes]
_ENTRY = struct.Struct("<QQ")

Pair = tuple[Record, Message | None]
Span = tuple[int, int]


def search_messages(reader: RecordReader, matcher: Matcher, filters: Filters) -> Iterator[Message]:
    """The messages `matcher` finds that pass `filters`, newest first (the file read
    from its end), with the counts of later `tokens` records (None where none is).

    Exactly the messages a full decode would find. A string or words decode only the
    lines that may match, and token records, so a damaged line elsewhere goes unreported.
    """
    needle = matcher.longest
    if needle is None or not _scannable(needle):
        records: Iterator[Pair] = reader.backward()
    else:
        records = _candidate_records(reader, LineFinder(needle))
    for message in newest_first(records):
        if filters.admits(message) and matcher.found(message.content):
            yield message


def by_time(messages: Iterator[Message], limit: int | None) -> list[Message]:
    """`messages` (a session's, last added first) newest first by time, equal times in
    the order given; only the newest `limit` when given (held in a bounded heap)."""
    keyed = ((_age(m), n, m) for n, m in enumerate(messages))
    kept = heapq.nsmallest(limit, keyed) if limit else sorted(keyed)
    return [m for _, _, m in kept]


def _age(message: Message) -> float:
    """A sort key, smallest for the newest; a message without a time comes last."""
    at = message.created_at
    return -at.timestamp() if at is not None else float("inf")


def _scannable(needle: str) -> bool:
    """True when raw lines show every match: no characters JSON always escapes."""
    return bool(needle) and needle.isprintable() and not any(c in needle for c in '"\\')


class LineFinder:
    """Picks, from a run of raw JSON lines, each line that may hold a match of `needle`.

    Never misses one: an ASCII needle is looked for in the bytes lowercased, and
    lines holding characters whose casefold gives the needle's letters are kept
    too; a needle beyond ASCII is looked for in each line decoded and casefolded.
    Lines with `\\u` escapes (and `\\/` for a needle with a slash) are always kept,
    and so are token records, which carry counts for the messages found.
    """

    def __init__(self, needle: str) -> None:
        self.needle = needle
        self.ascii = _literal(needle.encode()) if needle.isascii() else None
        self.folds = [c.encode() for c in FOLDS_TO_ASCII if _overlaps(c.casefold(), needle)]
        marks: list[Pattern | bytes] = [_literal(b"\\u"), _TOKENS_MARK]
        self.marks = marks + ([_literal(b"\\/")] if "/" in needle else [])

    def spans(self, block: bytes, start: int, stop: int) -> list[Span]:
        """(start, end) in `block` of each line kept from the whole lines `block[start:stop]`,
        in order (`start` is a line start, `stop` just past a newline).

        The end excludes the newline. Taking `start` and `stop` spares copying the block.
        """
        lines: dict[int, int] = {}
        for mark in self.marks:
            _add_lines(block, mark, start, stop, lines)
        if self.ascii is None:
            self._add_folded(block[start:stop], start, lines)
        else:
            _add_lines(block.lower(), self.ascii, start, stop, lines)
            if self.folds and not block.isascii():
                rest = block.translate(None, _ASCII)  # UTF-8 keeps each character whole
                for fold in self.folds:
                    if fold in rest:
                        _add_lines(block, _literal(fold), start, stop, lines)
        return sorted(lines.items())

    def _add_folded(self, run: bytes, start: int, lines: dict[int, int]) -> None:
        if self.needle not in run.decode(errors="replace").casefold():
            return
        for line in run.split(b"\n")[:-1]:
            if self.needle in line.decode(errors="replace").casefold():
                lines[start] = start + len(line)
            start += len(line) + 1


def _overlaps(fold: str, needle: str) -> bool:
    """True when a match of `needle` can take in some of `fold` (a character's casefold)."""
    if fold in needle or needle in fold:
        return True
    return any(
        needle.startswith(fold[k:]) or needle.endswith(fold[:k]) for k in range(1, len(fold))
    )


def _literal(text: bytes) -> Pattern:
    # `re` finds a literal several times faster than `bytes.find` when its first byte
    # is rare (it skips ahead with memchr), and never much slower.
    return re.compile(re.escape(text))


def _add_lines(
    hay: bytes, pattern: Pattern | bytes, begin: int, stop: int, lines: dict[int, int]
) -> None:
    """Add the (start, end) of each line of `hay[begin:stop]` holding `pattern` to `lines`
    (a long literal is found with `bytes.find`, which skips ahead by its length)."""
    at = _first(hay, pattern, begin, stop)
    while at >= 0:
        start = hay.rfind(b"\n", 0, at) + 1
        end = hay.find(b"\n", at)
        lines[start] = end
        at = _first(hay, pattern, end, stop)


def _first(hay: bytes, pattern: Pattern | bytes, begin: int, stop: int) -> int:
    if isinstance(pattern, bytes):
        return hay.find(pattern, begin, stop)
    found = pattern.search(hay, begin, stop)
    return -1 if found is None else found.start()


def _candidate_records(reader: RecordReader, finder: LineFinder) -> Iterator[Pair]:
    """The records of the lines `finder` keeps, last first."""
    with reader.file.snapshot() as (fd, end):
        for offset, line in candidate_lines(fd, end, finder):
            if not line.strip():
                continue
            decoded = reader.decode(line, functools.partial(newlines_before, fd, offset))
            if decoded is not None:
                yield decoded


def newlines_before(fd: int, offset: int) -> int:
    """The 1-based number of the line starting at `offset` (counted only on errors)."""
    return newlines(fd, 0, offset) + 1


def candidate_lines(fd: int, end: int, finder: LineFinder) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of each line `finder` keeps in bytes [0, end) of `fd`, last first.

    A big file is split at a line start: a forked process scans the first half
    (backwards) while this one scans the second, then hands its lines over through a
    pipe as this one reads them (the pipe's buffer is all that waits there, however
    many lines match). Should the helper die, this one scans on from its last line.
    """
    mid = _line_start(fd, end // 2, end)
    if end < PARALLEL_MIN or mid >= end or not _can_fork():
        yield from _scan(fd, 0, end, finder)
        return
    receive, send = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(receive)
        _scan_for_parent(fd, 0, mid, finder, send)
    os.close(send)
    status = None
    try:
        yield from _scan(fd, mid, end, finder)
        resume = mid
        for offset, line in _received(receive):
            yield offset, line
            resume = offset
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        os.close(receive)
        if status is None:  # the reader stopped early: the helper may be waiting to write
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if status != 0:
        yield from _scan(fd, 0, resume, finder)


def _can_fork() -> bool:
    """Two cores free and no other thread (a forked child gets no copy of them)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return hasattr(os, "fork") and (cores or 1) > 1 and threading.active_count() == 1


def _line_start(fd: int, at: int, end: int) -> int:
    """The first line start at or after byte `at` (`end` when there is none)."""
    if at == 0:
        return 0
    pos = at - 1
    while pos < end:
        block = os.pread(fd, min(BLOCK, end - pos), pos)
        cut = block.find(b"\n")
        if cut >= 0:
            return pos + cut + 1
        if not block:
            break
        pos += len(block)
    return end


def _scan(fd: int, start: int, stop: int, finder: LineFinder) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of the lines `finder` keeps in [start, stop), both line starts,
    last first: runs of whole lines are read from the end backwards."""
    pos, size = stop, CHUNK
    while pos > start:
        begin = max(start, pos - size)
        block = os.pread(fd, pos - begin, begin)
        if len(block) < pos - begin:
            return  # the file shrank under us
        cut = 0 if begin == start else block.find(b"\n") + 1
        if begin > start and cut in (0, len(block)):
            size *= 2  # no whole line in the run (one longer than a chunk): read more
            continue
        for first, last in reversed(finder.spans(block, cut, len(block))):
            yield begin + first, block[first:last]
        pos, size = begin + cut, CHUNK


def _scan_for_parent(fd: int, start: int, stop: int, finder: LineFinder, send: int) -> None:
    """In the forked process: send each kept line as it is found, then exit (0: all sent)."""
    code = 1
    try:
        with os.fdopen(send, "wb") as out:
            for offset, line in _scan(fd, start, stop, finder):
                out.write(_ENTRY.pack(offset, len(line)) + line)
        code = 0
    finally:
        os._exit(code)


def _received(receive: int) -> Iterator[tuple[int, bytes]]:
    """The (offset, line) entries the helper sends, as they come; a cut entry ends them."""
    with os.fdopen(receive, "rb", closefd=False) as handle:
        while len(head := handle.read(_ENTRY.size)) == _ENTRY.size:
            offset, length = _ENTRY.unpack(head)
            line = handle.read(length)
            if len(line) < length:
                return
            yield offset, line
