"""What importers read: a file, a directory's files or a zip export's members, as byte
streams, and JSON arrays in them an element at a time.

Zip members are read as streams, never extracted, and only those at the archive's top
(where an export's files are). An archive is refused whole when it holds more than
`MAX_MEMBERS` members or any member has an absolute or `..` path, is a symlink or is
encrypted; a member is refused as it is read when it inflates past `MAX_RATIO` times
its compressed size or past `MAX_BYTES` (bytes are counted as they come: headers may
lie). A damaged archive or member (bad CRC, corrupt data, a compression zipfile cannot
read) is one ImportFailed line.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

import ijson  # type: ignore[import-untyped]

from zerda.errors import ImportFailed, UnsafeArchiveError

MAX_RATIO = 200  # inflated bytes per compressed byte a member may reach
RATIO_FREE = 1 << 20  # the first MiB of a member is not held to the ratio
MAX_BYTES = 16 << 30  # inflated bytes a member may reach
MAX_DEPTH = 1000  # nesting of arrays and objects an item may reach
MAX_MEMBERS = 100_000  # members an archive may hold
# What reading a damaged archive raises: a bad header or CRC, corrupt compressed data,
# a compression method zipfile cannot read.
DAMAGED = (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError)
BOM = b"\xef\xbb\xbf"
ZIP_MAGIC = b"PK\x03\x04"
Wanted = Callable[[str], bool]
OPENING = frozenset({"start_map", "start_array"})
CLOSING = frozenset({"end_map", "end_array"})


def is_zip(path: Path) -> bool:
    """True when `path` is a file starting as a zip archive does."""
    with path.open("rb") as handle:
        return handle.read(4) == ZIP_MAGIC


def streams(path: Path, wanted: Wanted) -> Generator[tuple[str, IO[bytes]]]:
    """(name, byte stream) of each file of `path` whose base name is `wanted`: `path`
    itself when it is a plain file, else a directory's files or a zip's members, sorted;
    ImportFailed when a directory or zip holds none."""
    if not path.is_dir() and not is_zip(path):
        with path.open("rb") as handle:
            yield str(path), handle
        return
    found = _files(path, wanted) if path.is_dir() else _members(path, wanted)
    if (first := next(found, None)) is None:
        raise ImportFailed(f"{path}: holds no conversations.json")
    yield first
    yield from found


def _files(path: Path, wanted: Wanted) -> Iterator[tuple[str, IO[bytes]]]:
    for child in sorted(p for p in path.iterdir() if p.is_file() and wanted(p.name)):
        with child.open("rb") as handle:
            yield str(child), handle


def _members(path: Path, wanted: Wanted) -> Iterator[tuple[str, IO[bytes]]]:
    """The wanted members at the top of the archive (an export's files are there)."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise UnsafeArchiveError(f"{path}: refused: more than {MAX_MEMBERS:,} members")
            for info in infos:
                _check_member(path, info)
            for info in sorted(infos, key=lambda i: i.filename):
                if "/" not in info.filename and wanted(info.filename):
                    with archive.open(info) as member:
                        yield f"{path}:{info.filename}", _capped(path, info, member)
    except DAMAGED as exc:
        raise ImportFailed(f"{path}: not a readable zip archive ({_short(exc)})") from None


def _check_member(path: Path, info: zipfile.ZipInfo) -> None:
    """UnsafeArchiveError for a member no export holds: one line naming it."""
    name = info.filename
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"{path}: refused: member {name!r} has an unsafe path")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise UnsafeArchiveError(f"{path}: refused: member {name!r} is a symlink")
    if info.flag_bits & 0x1:
        raise UnsafeArchiveError(f"{path}: refused: member {name!r} is encrypted")
    if info.file_size > MAX_BYTES or info.file_size > _allowed(info):
        raise UnsafeArchiveError(f"{path}: refused: member {name!r} inflates too far (zip bomb)")


def _allowed(info: zipfile.ZipInfo) -> int:
    return max(RATIO_FREE, MAX_RATIO * info.compress_size)


def _capped(path: Path, info: zipfile.ZipInfo, member: IO[bytes]) -> IO[bytes]:
    return io.BufferedReader(_Capped(path, info, member), 1 << 16)


class _Capped(io.RawIOBase):
    """A zip member's bytes, counted as they are read, refused past its allowance."""

    def __init__(self, path: Path, info: zipfile.ZipInfo, member: IO[bytes]) -> None:
        self.path, self.info, self.member = path, info, member
        self.limit = min(MAX_BYTES, _allowed(info))
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.member.read(len(buffer))
        except DAMAGED as exc:
            name = self.info.filename
            raise ImportFailed(f"{self.path}: member {name!r} is damaged ({_short(exc)})") from None
        self.count += len(data)
        if self.count > self.limit:
            name = self.info.filename
            raise UnsafeArchiveError(
                f"{self.path}: refused: member {name!r} inflates too far (zip bomb)"
            )
        memoryview(buffer)[: len(data)] = data
        return len(data)


def json_items(stream: IO[bytes], name: str) -> Iterator[Any]:
    """The elements of the JSON array `stream` holds, one at a time (numbers as floats).
    ImportFailed, naming the file, when it is not one or nests deeper than MAX_DEPTH."""
    reader = stream if isinstance(stream, io.BufferedReader) else io.BufferedReader(_Raw(stream))
    if reader.peek(3).startswith(BOM):
        reader.read(3)
    opening = reader.peek(64).lstrip(b" \t\r\n")[:1]
    if opening != b"[":
        raise ImportFailed(f"{name}: not a JSON array of conversations")
    try:
        yield from _elements(ijson.basic_parse(reader, use_float=True), name)
    except ijson.JSONError as exc:
        raise ImportFailed(f"{name}: not valid JSON ({_short(exc)})") from None
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"{name}: not valid UTF-8 ({exc.reason})") from None


def _elements(events: Iterator[tuple[str, Any]], name: str) -> Iterator[Any]:
    """The elements built from the parse events of an array. Built here rather than by
    `ijson.items`, whose path of each nesting level makes deep nesting cost memory
    quadratic in its depth."""
    next(events)  # the array's start
    for event, value in events:
        if event == "end_array":
            return
        yield _built(event, events, name) if event in OPENING else value


def _built(opening: str, events: Iterator[tuple[str, Any]], name: str) -> Any:
    """The object or array `opening` starts, from the events up to its end (a plain
    loop: this is where a big export's time goes)."""
    root: Any = {} if opening == "start_map" else []
    stack, top, key = [root], root, None
    for event, value in events:
        if event == "map_key":
            key = value
            continue
        if event in CLOSING:
            stack.pop()
            if not stack:
                break
            top = stack[-1]
            continue
        new = ({} if event == "start_map" else []) if event in OPENING else value
        if type(top) is dict:
            top[key] = new
        else:
            top.append(new)
        if event in OPENING:
            stack.append(new)
            top = new
            if len(stack) > MAX_DEPTH:
                raise ImportFailed(f"{name}: nested deeper than {MAX_DEPTH} levels")
    return root


class _Raw(io.RawIOBase):
    """Any byte stream as a raw one, for a BufferedReader to peek into."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.stream.read(len(buffer))
        memoryview(buffer)[: len(data)] = data
        return len(data)


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:120]
