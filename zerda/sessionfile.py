"""One session file on disk: locked O(1) appends, forward and backward line reads, safe rewrites."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from zerda.errors import StorageWriteError, UnsafePathError, ZerdaWarning

BLOCK = 1 << 16
CHUNK = 1 << 20
FILE_MODE = 0o600


def _open(path: Path, flags: int) -> int:
    """os.open that refuses symlinks and anything but a regular file; creates files 0600."""
    try:
        # O_NONBLOCK: opening a FIFO planted at the path must not hang us.
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(f"{path} is a symlink; refusing to follow it") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafePathError(f"{path} is not a regular file; refusing to use it")
    if flags & os.O_CREAT:
        os.fchmod(fd, FILE_MODE)
    return fd


class SessionFile:
    """The JSON Lines file of one session and its lock file."""

    def __init__(self, path: Path, lock_path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.lock_path = lock_path
        self.fsync = fsync

    def exists(self) -> bool:
        """True when the session file is there (a symlink counts, and is refused on use)."""
        return os.path.lexists(self.path)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the session's exclusive lock: an flock on a sibling lock file.

        Re-entrant within a process (flock is per open file, so a nested open would
        deadlock); threads of one process queue on an in-process lock first.
        """
        held = _held_lock(self.lock_path)
        with held.mutex:
            if held.depth == 0:
                held.fd = self._acquire()
                self._undo_unfinished_write(held.fd)
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
                if held.depth == 0:
                    os.close(held.fd)

    def _acquire(self) -> int:
        """flock the lock file, retrying if it was deleted (delete_session) while we waited."""
        while True:
            fd = _open(self.lock_path, os.O_RDWR | os.O_CREAT)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.stat(self.lock_path, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            held = os.fstat(fd)
            if current and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
                return fd
            os.close(fd)

    def append(self, render: Callable[[int, bytes | None], bytes]) -> None:
        """Append what `render(size, last_line)` returns (whole lines) in one write.

        Call under `locked()`; the file is created if missing (`last_line` is then
        None and `size` 0). A torn last line left by a crash is cut off first, with a
        warning. On any failure the file is truncated back to its old size.
        """
        journal = _held_lock(self.lock_path).fd
        fd = _open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
        try:
            size = self._repair_tail(fd, os.fstat(fd).st_size)
            last = self._last_line(fd, size) if size else None
            data = render(size, last)
            os.pwrite(journal, b"%20d\n" % size, 0)  # where this write starts, until it is done
            self._write_all(fd, data, size)
            os.ftruncate(journal, 0)
        finally:
            os.close(fd)

    def _undo_unfinished_write(self, journal: int) -> None:
        """Cut off a write whose process died in it, whole: never half a turn.

        `append` notes in the lock file where each write starts and clears the note
        when the write is done, so a note found on taking the lock marks one that
        never finished (a crash can split a write of several lines at any byte).
        """
        note = os.pread(journal, 32, 0)
        if not note:
            return
        os.ftruncate(journal, 0)
        start = int(note) if note.strip().isdigit() else None
        if start is None or not os.path.lexists(self.path):
            return
        fd = _open(self.path, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            if size > start:
                os.ftruncate(fd, start)
                warnings.warn(
                    f"{self.path}: removed an unfinished write ({size - start} bytes) "
                    "left by a process that died in it",
                    ZerdaWarning,
                    stacklevel=5,
                )
        finally:
            os.close(fd)

    def _last_line(self, fd: int, size: int) -> bytes:
        """The file's last line (it ends with a newline, after `_repair_tail`)."""
        start = self._last_newline_end(fd, size - 1)
        return os.pread(fd, size - start, start)

    def line_at(self, offset: int) -> bytes:
        """The line that starts at byte `offset` (without its newline)."""
        fd = _open(self.path, os.O_RDONLY)
        try:
            parts = []
            while chunk := os.pread(fd, BLOCK, offset):
                cut = chunk.find(b"\n")
                if cut >= 0:
                    parts.append(chunk[:cut])
                    break
                parts.append(chunk)
                offset += len(chunk)
            return b"".join(parts)
        finally:
            os.close(fd)

    def _repair_tail(self, fd: int, size: int) -> int:
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return size
        keep = self._last_newline_end(fd, size)
        os.ftruncate(fd, keep)
        warnings.warn(
            f"{self.path}: repaired a torn last line ({size - keep} bytes of an "
            "unfinished write were dropped)",
            ZerdaWarning,
            stacklevel=4,
        )
        return keep

    @staticmethod
    def _last_newline_end(fd: int, size: int) -> int:
        pos = size
        while pos > 0:
            start = max(0, pos - BLOCK)
            chunk = os.pread(fd, pos - start, start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return start + cut + 1
            pos = start
        return 0

    def _write_all(self, fd: int, payload: bytes, size: int) -> None:
        try:
            written = os.write(fd, payload)
            if written != len(payload):
                raise OSError(errno.ENOSPC, "short write")
            if self.fsync:
                os.fsync(fd)
        except OSError as exc:
            _truncate_quietly(fd, size)
            raise StorageWriteError(
                f"cannot write {self.path}: {exc.strerror or exc}; nothing was written"
            ) from None

    def rewrite(self, data: bytes) -> None:
        """Replace the file's content: temp file, fsync, rename, fsync dir. Call under the lock.

        Readers and a crash at any point see the old file or the new one, never a mix.
        Temp files left by a rewrite that crashed earlier are removed first.
        """
        self._remove_stale_temps()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            try:
                self._write_all(fd, data, 0)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StorageWriteError(
                f"cannot rewrite {self.path}: {exc.strerror or exc}; the old file is unchanged"
            ) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.path.parent)

    def _remove_stale_temps(self) -> None:
        """Under the lock, any temp file of this session is from a rewrite that died."""
        prefix = f".{self.path.name}."
        for stale in self.path.parent.glob(f"{prefix}*.tmp"):
            # Only `.<name>.<pid>.tmp`: session `a.jsonl.x` has temps that also match the glob.
            if stale.name[len(prefix) : -len(".tmp")].isdigit():
                with suppress(OSError):
                    stale.unlink()

    def remove(self) -> None:
        """Delete the session file and its lock file (waiters notice, see `_acquire`)."""
        self._remove_stale_temps()
        self.path.unlink(missing_ok=True)
        self.lock_path.unlink(missing_ok=True)

    def size(self) -> int:
        """The file size in bytes."""
        return os.lstat(self.path).st_size

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, line) from the start; a torn last line is skipped with a warning."""
        fd = _open(self.path, os.O_RDONLY)
        with os.fdopen(fd, "rb", buffering=BLOCK) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith(b"\n"):
                    self._warn_torn()
                    return
                yield number, line

    def chunks(self) -> Iterator[tuple[int, bytes]]:
        """(number of its first line, a run of whole lines) from the start, about 1 MiB each.

        For scans that can rule out a whole run at once; a torn last line is left out
        with a warning, as `lines` does.
        """
        fd = _open(self.path, os.O_RDONLY)
        with os.fdopen(fd, "rb", buffering=0) as handle:
            number, carry = 1, b""
            while block := handle.read(CHUNK):
                data = carry + block
                cut = data.rfind(b"\n") + 1
                carry = data[cut:]
                if cut:
                    yield number, data[:cut]
                    number += data.count(b"\n", 0, cut)
            if carry:
                self._warn_torn()

    @contextmanager
    def snapshot(self) -> Iterator[tuple[int, int]]:
        """(read-only fd, end of its last whole line) of the file as it is now.

        For scans by byte range with `os.pread`, in several processes if need be:
        lines appended meanwhile are not seen; a torn last line is left out with a
        warning, as `lines` does.
        """
        fd = _open(self.path, os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            end = self._last_newline_end(fd, size)
            if end < size:
                self._warn_torn()
            yield fd, end
        finally:
            os.close(fd)

    def lines_reversed(self) -> Iterator[tuple[int, bytes]]:
        """(offset, line) from the end, reading blocks backwards: cost grows with lines read."""
        fd = _open(self.path, os.O_RDONLY)
        try:
            yield from self._reverse(fd)
        finally:
            os.close(fd)

    def _reverse(self, fd: int) -> Iterator[tuple[int, bytes]]:
        pos = os.fstat(fd).st_size
        carry = b""  # bytes after `pos` not yet yielded: a partial line, or the torn tail
        in_tail = True  # still inside the bytes after the file's last newline
        while pos > 0:
            start = max(0, pos - BLOCK)
            data = os.pread(fd, pos - start, start) + carry
            pos = start
            if in_tail:
                if b"\n" not in data and start:
                    carry = data
                    continue
                in_tail = False
                data, sep, torn = data.rpartition(b"\n")
                if torn:
                    self._warn_torn()
                if not sep:
                    continue
                data += b"\n"
            parts = data.split(b"\n")
            parts.pop()
            cursor = start + len(data)
            lowest = 0 if start == 0 else 1
            for line in reversed(parts[lowest:]):
                cursor -= len(line) + 1
                yield cursor, line
            carry = parts[0] + b"\n" if start else b""

    def line_number_at(self, offset: int) -> int:
        """The 1-based line number of the line starting at byte `offset`."""
        fd = _open(self.path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            return handle.read(offset).count(b"\n") + 1

    def _warn_torn(self) -> None:
        # One wording whichever way the file was read, so a reader sees it once.
        warnings.warn(
            f"{self.path}: the last line is torn (an unfinished write); skipped, "
            "the next write repairs it",
            ZerdaWarning,
            stacklevel=4,
        )


class _HeldLock:
    def __init__(self) -> None:
        self.mutex = threading.RLock()
        self.depth = 0
        self.fd = -1


_registry_mutex = threading.Lock()
_registry: dict[str, _HeldLock] = {}


def _held_lock(path: Path) -> _HeldLock:
    with _registry_mutex:
        return _registry.setdefault(str(path), _HeldLock())


def _truncate_quietly(fd: int, size: int) -> None:
    with suppress(OSError):
        os.ftruncate(fd, size)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
