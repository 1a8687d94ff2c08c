"""Renaming a session's files: the session file in one rename(2), then its side files.

Both sessions' locks are held throughout (taken in name order, so two renames never
wait on each other), so no zerda writer is inside either file. A writer waiting on
the old name's lock finds, once it is let go, that the lock file is gone (its holder
removes it, see `SessionFile._release`), takes a new one and writes under the old
name afresh: never to the renamed file through a stale name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from zerda._paths import SUFFIX
from zerda.errors import NotFoundError, SessionExistsError, StorageWriteError
from zerda.store.files._sessionfile import SessionFile

# What follows `<id>.jsonl.` in a side file's name (`SessionFile.side_file`).
SIDE_LABEL = re.compile(r"[a-z][a-z-]*-\d{8}T\d{12}Z")


@contextmanager
def both_locked(first: SessionFile, second: SessionFile) -> Iterator[None]:
    """Hold the locks of two sessions, taken in the order of their paths."""
    with ExitStack() as stack:
        for file in sorted((first, second), key=lambda f: str(f.path)):
            stack.enter_context(file.locked())
        yield


def move_session(source: SessionFile, target: SessionFile) -> None:
    """Rename `source`'s file (and side files) to `target`'s names; call under both locks.

    Checked first: `source` holds a session, `target` none (SessionExistsError). A
    file at `target` holding no finished write was never a session and is replaced.
    """
    if not source.exists():
        raise NotFoundError(_session_id(source.path))
    if target.exists():
        raise SessionExistsError(_session_id(target.path))
    source._remove_stale_temps()  # temps of a rewrite that died belong to the old name
    try:
        os.rename(source.path, target.path)
    except OSError as exc:
        raise StorageWriteError(
            f"cannot rename {source.path}: {exc.strerror or exc}; nothing was changed"
        ) from None
    for side, name in _side_files(source.path, target.path):
        if not os.path.lexists(name):
            os.rename(side, name)
    fd = os.open(target.path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _side_files(old: Path, new: Path) -> Iterator[tuple[Path, Path]]:
    """(a side file of the session at `old`, its name beside `new`)."""
    prefix = f"{old.name}."
    for side in sorted(old.parent.glob(f"{prefix}*")):
        label = side.name[len(prefix) :]
        if SIDE_LABEL.fullmatch(label) and side.is_file() and not side.is_symlink():
            yield side, new.with_name(f"{new.name}.{label}")


def _session_id(path: Path) -> str:
    return path.name.removesuffix(SUFFIX)
