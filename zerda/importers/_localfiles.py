"""What the readers of local tools' history files share (aichat, shell_gpt, LangChain):
a file or a directory of them, their times, and whole-file JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zerda.errors import ImportFailed
from zerda.importers._base import UNREADABLE, Found, Problem, unreadable

_JSON_TYPES = {dict: "an object", str: "a string", int: "a number", float: "a number"}


def read_each(
    path: Path, read_file: Callable[[Path], Iterator[Found]], suffixes: tuple[str, ...] = ()
) -> Iterator[Found]:
    """What `read_file` finds in the file `path`, or in each file of the directory `path`,
    where a file that is not of the format is a Problem, not the end of the run (nor is a
    value of a shape the reader did not expect, in any file)."""
    if path.is_file():
        yield from _guarded(read_file, path)
        return
    for file in files_in(path, suffixes):
        try:
            yield from _guarded(read_file, file)
        except ImportFailed as exc:
            yield Problem(file.name, str(exc))


def _guarded(read_file: Callable[[Path], Iterator[Found]], file: Path) -> Iterator[Found]:
    try:
        yield from read_file(file)
    except UNREADABLE as exc:
        yield Problem(file.name, unreadable(exc))


def files_in(path: Path, suffixes: tuple[str, ...] = ()) -> Iterator[Path]:
    """The regular files of the directory `path` (not hidden, not symlinks, ending in
    one of `suffixes` when given), by name."""
    if not path.is_dir():
        raise ImportFailed(f"{path}: no such file or directory")
    for child in sorted(path.iterdir()):
        if child.name.startswith(".") or child.is_symlink() or not child.is_file():
            continue
        if not suffixes or child.suffix in suffixes:
            yield child


def modified_at(path: Path) -> datetime:
    """When `path` was last written, in UTC: the time of a source that records none."""
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def read_text(path: Path) -> str:
    """The UTF-8 text of `path`; ImportFailed when it cannot be read as such."""
    try:
        return path.read_text(encoding="utf-8-sig")  # a byte order mark is no text
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{path}: cannot be read as UTF-8 text: {exc}") from None


def read_json_list(path: Path, what: str) -> list[Any]:
    """The JSON array held by `path`; ImportFailed naming `what` was expected otherwise."""
    try:
        value = json.loads(read_text(path), parse_constant=_no_constant)
    except ValueError as exc:
        raise ImportFailed(f"{path}: not {what}: invalid JSON ({exc})") from None
    except RecursionError:
        raise ImportFailed(f"{path}: not {what}: nested too deeply") from None
    if not isinstance(value, list):
        held = _JSON_TYPES.get(type(value), "null or a boolean")
        raise ImportFailed(f"{path}: not {what}: the JSON is {held}, not a list")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
