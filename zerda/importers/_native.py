"""zerda's own exports (JSON Lines, JSON) and OpenAI message arrays: one session's
messages, read as a stream (what `zerda import SESSION FILE` reads).

A file is read twice and never held whole. `check_import` reads it once and checks
every item: the first problem is an ImportFailed naming the line or item, and nothing
is written. The `ImportFile` it returns is read again as the store writes (it is a
`zerda.store._sources.MessageSource`). A JSON document is read one element at a time
through a window of its text that slides along; stdin, which can be read only once,
is copied to a private temp file first. A zerda export brings its session facts
(user, metadata, creation time) and summary along.
"""

from __future__ import annotations

import codecs
import dataclasses
import io
import itertools
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from zerda.errors import ImportFailed, InvalidMessageError, NotADocument
from zerda.formats.openai import from_openai
from zerda.messages import Message, Session, Summary, entities_of
from zerda.store._copying import new_session_undone_on_failure
from zerda.store._sources import UuidSet
from zerda.store._tally import TALLY
from zerda.store.base import Store
from zerda.store.files._records import POINTERS, check_storable

# Records of a raw session file that carry nothing to import.
SKIPPED_RECORDS = frozenset({"session_update", "tokens"})
# What the last record of a write in a session file carries besides its own fields.
FILE_FIELDS = frozenset({*POINTERS.values(), TALLY})
WINDOW = 1 << 20  # bytes read at a time on a pass
PEEK = 1 << 12  # bytes read first to fetch one message alone (more as it needs)
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class Item:
    """One value of an import file, where it is, and how to take it."""

    where: str  # "FILE: line 3", "FILE: item 3", "FILE: summary"
    offset: int  # the byte offset of its text, to read it again alone
    value: Any
    records: bool  # a line of JSON Lines: session, summary and skipped records allowed
    escapes: bool  # its text holds a \uD... escape, so may hold a lone surrogate


@contextmanager
def opened(source: str) -> Iterator[tuple[int, str]]:
    """(file descriptor, name for messages) of the file to import, `-` being stdin.

    Stdin, or a file that cannot be read twice (a pipe), is copied to a private temp
    file first (mode 0600, removed after).
    """
    if source == "-":
        with _spooled(sys.stdin.buffer) as fd:
            yield fd, "stdin"
        return
    if "\x00" in source:
        raise ImportFailed("a file name cannot hold a NUL character")
    path = Path(source).expanduser()
    if path.is_dir():
        raise ImportFailed(f"{source} is a directory")
    with path.open("rb") as handle:
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            yield handle.fileno(), source
        else:
            with _spooled(handle) as fd:
                yield fd, source


@contextmanager
def _spooled(stream: IO[bytes]) -> Iterator[int]:
    # TemporaryFile is mode 0600, and unnamed where the system allows: even a killed
    # import leaves nothing behind.
    with tempfile.TemporaryFile() as spool:
        while chunk := stream.read(WINDOW):
            spool.write(chunk)
        spool.flush()
        yield spool.fileno()


def check_import(fd: int, name: str) -> ImportFile:
    """Read the file once, checking every item: one JSON document (an array, or zerda's
    export object), else JSON Lines. ImportFailed for the first bad item."""
    opening = _opening(fd)
    if not opening:
        raise ImportFailed(f"{name} is empty; nothing was imported")
    if opening in b"[{":
        try:
            return ImportFile(fd, name, document=True).checked()
        except NotADocument:
            pass
    return ImportFile(fd, name, document=False).checked()


def import_file(store: Store, session_id: str, found: ImportFile) -> int:
    """Write a checked file's messages (and a zerda export's session facts and summary)
    into session `session_id`; how many messages. A session this creates is removed
    again if the write fails."""
    with new_session_undone_on_failure(store, session_id):
        if found.session is not None:
            facts = found.session
            store.create_session(
                session_id, facts.user_id, facts.metadata, created_at=facts.created_at
            )
        return store.import_messages(session_id, found, found.summary)


class ImportFile:
    """An import file as the store reads it: its messages, read afresh on each pass.

    `checked` (the first pass) notes the session and summary of a zerda export, how
    many messages there are, and their uuids.
    """

    def __init__(self, fd: int, name: str, *, document: bool) -> None:
        self.fd, self.name, self.document = fd, name, document
        self.session: Session | None = None
        self.summary: Summary | None = None
        self.messages = 0
        self.uuids = UuidSet()

    def checked(self) -> ImportFile:
        """Pass one: every item checked, and what the import needs noted."""
        for item in self._items():
            found = _decoded(item)
            if isinstance(found, Message):
                self.messages += 1
                if found.uuid:
                    self.uuids.add(found.uuid.encode())
            elif isinstance(found, Session):
                self.session = found
            elif isinstance(found, Summary):
                self.summary = found
        if not self.messages and self.session is None:
            raise ImportFailed(f"{self.name} holds no messages; nothing was imported")
        self.uuids.sort()
        return self

    def _items(self) -> Iterator[Item]:
        if self.document:
            return _document_items(self.fd, self.name)
        return _line_items(self.fd, self.name)

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        for item in self._items():
            found = _decoded(item)
            if isinstance(found, Message):
                yield item.offset, found

    def at(self, key: int) -> Message:
        """The message whose text starts at byte `key`."""
        where = f"{self.name}: the message at byte {key}"
        if self.document:
            _, value, escapes = _Window(self.fd, key, self.name, PEEK).value(where)
            item = Item(where, key, value, False, escapes)
        else:
            item = _line_item(io.BufferedReader(_Pread(self.fd, key), PEEK).readline(), key, where)
        found = _decoded(item)
        if not isinstance(found, Message):
            raise ImportFailed(f"{where}: the file changed while it was imported")
        return found

    @property
    def holds_uuids(self) -> bool:
        return bool(self.uuids)

    def may_hold(self, uuid: bytes) -> bool:
        return uuid in self.uuids

    def latest(self, uuids: UuidSet) -> dict[str, int]:
        found: dict[str, int] = {}
        if not uuids and not self.uuids.repeated:
            return found  # nothing to look for: no pass
        for key, message in self:
            uuid = message.uuid or ""
            if uuid and (uuid.encode() in uuids or self.uuids.repeats(uuid.encode())):
                found[uuid] = key
        return found


# -- items ------------------------------------------------------------------------------


def _decoded(item: Item) -> Message | Session | Summary | None:
    """What `item` holds: a message (zerda's or OpenAI's), a session or summary record, or
    None for a record with nothing to import. ImportFailed naming it when it is bad."""
    value = item.value
    if not isinstance(value, dict):
        raise ImportFailed(f"{item.where}: expected a JSON object with role and content")
    kind = value.get("type")
    try:
        found = _taken(value, kind, item)
        if found is not None:  # refused now, before anything is written (NaN, surrogates)
            check_storable([{"type": kind or "message", **found.to_dict()}])
    except (InvalidMessageError, TypeError, ValueError, OverflowError) as exc:
        raise ImportFailed(f"{item.where}: {exc}") from None
    return found


def _taken(value: dict[str, Any], kind: Any, item: Item) -> Message | Session | Summary | None:
    if item.records and kind in SKIPPED_RECORDS:
        return None
    if item.records and kind == "session":
        return Session.from_dict(value)
    if item.records and kind == "summary":
        return Summary.coerce(_without_damaged_entities(value))
    if not item.records and kind is not None:  # an array item's own "type": kept with it
        found = from_openai(value)
        return dataclasses.replace(found, extra={**found.extra, "type": kind})
    if kind == "message":  # a raw session file's record: its pointers and totals are not data
        return from_openai({k: v for k, v in value.items() if k not in FILE_FIELDS})
    if kind is None:
        return from_openai(value)
    raise ImportFailed(f"{item.where}: unknown record type {kind!r}")


def _without_damaged_entities(value: dict[str, Any]) -> dict[str, Any]:
    """A summary record's fields; entities that do not read are left out (they are found
    from the text again, as the stores do on reading), never a reason to refuse it."""
    found = {k: v for k, v in value.items() if k != "type"}
    try:
        entities_of(found.get("entities"))
    except InvalidMessageError:
        del found["entities"]
    return found


def _opening(fd: int) -> bytes:
    """The first byte of the file that is not whitespace (nor a BOM); b'' when none is."""
    at = _bom(fd)
    while block := os.pread(fd, WINDOW, at):
        rest = block.lstrip()
        if rest:
            return rest[:1]
        at += len(block)
    return b""


def _bom(fd: int) -> int:
    """The length of the file's UTF-8 byte order mark (dropped, as `utf-8-sig` does)."""
    return len(codecs.BOM_UTF8) if os.pread(fd, 3, 0) == codecs.BOM_UTF8 else 0


def _line_items(fd: int, name: str) -> Iterator[Item]:
    """The values of a JSON Lines file, one a line; blank lines are skipped."""
    offset = _bom(fd)
    lines = io.BufferedReader(_Pread(fd, offset), WINDOW)
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield _line_item(line, offset, f"{name}: line {number}", name)
        offset += len(line)


def _line_item(line: bytes, offset: int, where: str, name: str | None = None) -> Item:
    text = _text(line, offset, name or where)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(f"{where}: not valid JSON ({exc.msg})") from None
    except (RecursionError, ValueError) as exc:
        raise ImportFailed(f"{where}: {_why(exc)}") from None
    return Item(where, offset, value, True, "\\ud" in text or "\\uD" in text)


def _text(data: bytes, offset: int, name: str) -> str:
    """`data`, found at byte `offset`, as strict UTF-8; ImportFailed naming the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, data[exc.start : exc.start + 1], offset + exc.start) from None


def _not_utf8(name: str, byte: bytes, offset: int) -> ImportFailed:
    return ImportFailed(
        f"{name} is not valid UTF-8 (byte 0x{byte.hex()} at offset {offset}); nothing was written"
    )


def _why(exc: Exception) -> str:
    """A short reason for JSON Python cannot decode (too deep, huge numbers)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return "holds a number too long to read"


# -- JSON documents, an element at a time ---------------------------------------------


def _document_items(fd: int, name: str) -> Iterator[Item]:
    """The items of one JSON document: an array's elements, or the messages, session and
    summary of zerda's export. NotADocument when the file is not one (nor only one)."""
    window = _Window(fd, _bom(fd), name)
    opening = window.peek()
    if opening == "[":
        yield from _elements(window, name)
    elif opening == "{":
        yield from _export(window, name)
    else:
        raise NotADocument(name)
    if window.peek():
        raise NotADocument(name)  # more after it: JSON Lines


def _elements(window: _Window, name: str) -> Iterator[Item]:
    """The elements of the array at the reading position, one at a time."""
    window.take("[")
    if window.peek() == "]":
        window.take("]")
        return
    for number in itertools.count(1):
        where = f"{name}: item {number}"
        offset, value, escapes = window.value(where)
        yield Item(where, offset, value, False, escapes)
        if window.peek() == "]":
            window.take("]")
            return
        window.take(",")


def _export(window: _Window, name: str) -> Iterator[Item]:
    """zerda's JSON export, `{"session", "summary", "messages": [...]}`, its messages streamed.

    An object without a `messages` array is not one (it may be the first line of
    JSON Lines).
    """
    window.take("{")
    listed = False
    ended = window.peek() == "}"
    while not ended:
        key = window.value(name)[1]
        if not isinstance(key, str):
            raise NotADocument(name)
        window.take(":")
        if key == "messages" and window.peek() == "[":
            if listed:
                raise ImportFailed(f'{name} holds two "messages" arrays; nothing was imported')
            listed = True
            yield from _elements(window, name)
        else:
            offset, value, escapes = window.value(f"{name}: {key}")
            if key in ("session", "summary") and value is not None:
                record = {**_object(value), "type": key}
                yield Item(f"{name}: {key}", offset, record, True, escapes)
        ended = window.peek() == "}"
        if not ended:
            window.take(",")
    window.take("}")
    if not listed:
        raise NotADocument(name)


def _object(value: Any) -> dict[str, Any]:
    """A session or summary object; a bare summary string is its content."""
    return value if isinstance(value, dict) else {"content": value}


class _Window:
    """JSON values read one at a time from a UTF-8 file through a window of its text that
    slides along: memory holds about WINDOW bytes of it, or the largest value.

    Byte offsets of values are worked out as reading goes, each character measured once.
    """

    def __init__(self, fd: int, offset: int, name: str, step: int = WINDOW) -> None:
        self.fd, self.name, self.step = fd, name, step
        self.next = offset  # the byte offset of the next read
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0  # the reading position in `text`
        self.mark, self.mark_offset = 0, offset  # a position in `text` and its byte offset
        self.ended = False

    def peek(self) -> str:
        """The next character past whitespace; '' at the end of the file."""
        while True:
            self.pos = _skip_space(self.text, self.pos)
            if self.pos < len(self.text) or self.ended:
                return self.text[self.pos : self.pos + 1]
            self._more(self.step)

    def take(self, char: str) -> None:
        """Read past `char`, which must come next; else the file is not one document."""
        if self.peek() != char:
            raise NotADocument(self.name)
        self.pos += 1

    def value(self, where: str) -> tuple[int, Any, bool]:
        """(byte offset, value, whether its text holds a \\uD... escape) of the JSON value
        that comes next; reading goes past it."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
                if end < len(self.text) or self.ended:  # a number may go on past the window
                    escapes = _escapes(self.text, self.pos, end)
                    return self._past(end), value, escapes
            except json.JSONDecodeError as exc:
                if self.ended or not _cut_short(exc, len(self.text)):
                    raise NotADocument(self.name) from None
            except (RecursionError, ValueError) as exc:
                raise ImportFailed(f"{where}: {_why(exc)}") from None
            self._more(len(self.text) - self.pos)  # at least double what the value has

    def _past(self, end: int) -> int:
        offset = self.offset(self.pos)
        self.pos = end
        return offset

    def offset(self, at: int) -> int:
        """The byte offset in the file of `text[at]` (never before the last one asked)."""
        piece = self.text[self.mark : at]
        self.mark_offset += len(piece) if piece.isascii() else len(piece.encode())
        self.mark = at
        return self.mark_offset

    def _more(self, wanted: int) -> None:
        """Read at least `wanted` more bytes (or to the end), dropping text already read."""
        self.offset(self.pos)
        self.text, self.pos, self.mark = self.text[self.pos :], 0, 0
        data = os.pread(self.fd, max(wanted, self.step), self.next)
        self.text += self._decoded(data)
        self.next += len(data)
        self.ended = not data

    def _decoded(self, data: bytes) -> str:
        held = self.decoder.getstate()[0]  # the start of a character cut by the last read
        try:
            return self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            bad = (held + data)[exc.start : exc.start + 1]
            raise _not_utf8(self.name, bad, self.next - len(held) + exc.start) from None


def _skip_space(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def _escapes(text: str, start: int, end: int) -> bool:
    return text.find("\\ud", start, end) >= 0 or text.find("\\uD", start, end) >= 0


def _cut_short(exc: json.JSONDecodeError, length: int) -> bool:
    """True when decoding failed only because the window ends inside the value."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= length - 8


class _Pread(io.RawIOBase):
    """A file read through its descriptor with pread, from a position of its own, so
    passes and single fetches never move each other."""

    def __init__(self, fd: int, offset: int) -> None:
        self.fd, self.offset = fd, offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.pread(self.fd, len(buffer), self.offset)
        memoryview(buffer)[: len(data)] = data
        self.offset += len(data)
        return len(data)
