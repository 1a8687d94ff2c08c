"""One session file on disk: locked O(1) appends, forward and backward line reads, safe rewrites."""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

from zerda._paths import SUFFIX
from zerda.errors import NotFoundError, StorageWriteError, UnsafePathError, ZerdaWarning

BLOCK = 1 << 16
CHUNK = 1 << 20
FILE_MODE = 0o600
NOTE = b"%20d\n"  # the journal note in the lock file: where an unfinished write starts
# Crash tests name a point here (ZERDA_FAULT=repair-cut) to be killed there; read once.
FAULT = os.environ.get("ZERDA_FAULT", "")


def _fault(point: str) -> None:
    """Die at `point`, as SIGKILL leaves things, when $ZERDA_FAULT names it."""
    if point == FAULT:
        os.kill(os.getpid(), signal.SIGKILL)


def _open(path: Path, flags: int) -> int:
    """os.open that refuses symlinks and anything but a regular file; creates files 0600.

    A file opened for writing must be ours alone: one with another hard link (a
    planted link to someone else's file) or another owner is refused before any
    byte or mode of it changes.
    """
    try:
        # O_NONBLOCK: opening a FIFO planted at the path must not hang us.
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(f"{path} is a symlink; refusing to follow it") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafePathError(f"{path} is not a regular file; refusing to use it")
    if flags & (os.O_WRONLY | os.O_RDWR) and (info.st_nlink > 1 or info.st_uid != os.geteuid()):
        os.close(fd)
        raise UnsafePathError(f"{path} has another hard link or owner; refusing to write to it")
    if flags & os.O_CREAT:
        os.fchmod(fd, FILE_MODE)
    return fd


def _parse_note(note: bytes) -> int | None:
    return int(note) if note.strip().isdigit() else None


class SessionFile:
    """The JSON Lines file of one session and its lock file."""

    def __init__(self, path: Path, lock_path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.lock_path = lock_path
        self.fsync = fsync

    def exists(self) -> bool:
        """True when the file holds a finished line (anything but a regular file counts,
        and is refused on use).

        An empty file, or one holding only an unfinished first write, is a session
        that was never created.
        """
        try:
            if not stat.S_ISREG(os.lstat(self.path).st_mode):
                return True
            fd = _open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            end = self._finished_end(fd, quiet=True)
            head = os.pread(fd, min(end, BLOCK), 0)
            return b"\n" in head or self._last_newline_end(fd, end) > 0
        finally:
            os.close(fd)

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
                try:
                    self._undo_unfinished_write(held.fd)
                except BaseException:
                    os.close(held.fd)
                    raise
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
                if held.depth == 0:
                    self._release(held.fd)

    def _acquire(self) -> int:
        """flock the lock file, retrying if it was deleted (delete_session) while we waited."""
        while True:
            with _storage_errors(self.lock_path, "nothing was written", only=_FULL):
                fd = _open(self.lock_path, os.O_RDWR | os.O_CREAT)
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _is_at(fd, self.lock_path):
                return fd
            os.close(fd)

    def _release(self, fd: int) -> None:
        """Unlock; a lock file beside no session (a reader's, a failed first write's) goes.

        Only the lock's holder removes it from its path, so it is still ours here.
        """
        with suppress(OSError):
            if not os.path.lexists(self.path) and _is_at(fd, self.lock_path):
                self.lock_path.unlink()
        os.close(fd)

    def append(self, render: Callable[[int, bytes | None], bytes | Iterable[bytes]]) -> None:
        """Append what `render(size, last_line)` returns (whole lines) in one write.

        `render` may return the bytes, or chunks of them made as they are written (a
        bulk import): they land in order under the one journal note. Call under
        `locked()`; the file is created if missing (`last_line` is then None and
        `size` 0). A torn last line left by a crash is cut off first, with a warning.
        On any failure (raised by the chunks' maker too) the file is truncated back to
        its old size, and a file this write created is removed.
        """
        journal = _held_lock(self.lock_path).fd
        with _storage_errors(self.path, "nothing was written"):
            fd = _open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
        try:
            size = self._repair_tail(fd, os.fstat(fd).st_size)
            data = render(size, self._last_line(fd, size) if size else None)
            self._write_noted(journal, fd, data, size)
        except BaseException:
            if os.fstat(fd).st_size == 0:  # a session whose first write failed was never made
                self.path.unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)

    def _write_noted(self, journal: int, fd: int, data: bytes | Iterable[bytes], size: int) -> None:
        """Write `data` at `size`, noted in the lock file as unfinished until it is done."""
        try:
            os.pwrite(journal, NOTE % size, 0)
            self._write_all(fd, data)
            os.ftruncate(journal, 0)
        except OSError as exc:
            _truncate_quietly(fd, size)  # the note stays if this fails: readers stop at it
            raise StorageWriteError(
                f"cannot write {self.path}: {exc.strerror or exc}; nothing was written"
            ) from None
        except BaseException:
            _truncate_quietly(fd, size)  # the chunks' maker failed, or an interrupt came
            raise

    def _undo_unfinished_write(self, journal: int) -> None:
        """Cut off a write whose process died in it, whole: never half a turn.

        `append` notes in the lock file where each write starts and clears the note
        when the write is done, so a note found on taking the lock marks one that
        never finished (a crash can split a write of several lines at any byte). The
        note is forgotten only once the cut is on disk: a crash between the two
        leaves the note, and the next holder cuts again (a no-op).
        """
        start = _parse_note(os.pread(journal, 32, 0))
        if start is None:
            return
        if os.path.lexists(self.path):
            self._cut_back(start)
        _fault("repair-cut")
        os.ftruncate(journal, 0)

    def _cut_back(self, start: int) -> None:
        fd = _open(self.path, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            if size > start:
                os.ftruncate(fd, start)
                os.fsync(fd)
                warnings.warn(
                    f"{self.path}: removed an unfinished write ({size - start} bytes) "
                    "left by a process that died in it",
                    ZerdaWarning,
                    stacklevel=6,
                )
            if start == 0:  # its first write never finished: the session was never made
                self.path.unlink()
        finally:
            os.close(fd)

    def _last_line(self, fd: int, size: int) -> bytes:
        """The file's last line (it ends with a newline, after `_repair_tail`)."""
        start = self._last_newline_end(fd, size - 1)
        return os.pread(fd, size - start, start)

    def line_at(self, offset: int) -> bytes:
        """The line that starts at byte `offset` (without its newline)."""
        fd = self._open_read()
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

    def _write_all(self, fd: int, data: bytes | Iterable[bytes]) -> None:
        """Write all of `data` (bytes, or chunks in order, gathered into writes of about
        CHUNK bytes, so memory stays flat); a short write is retried so a full disk says so."""
        for payload in _gathered([data] if isinstance(data, bytes) else data):
            if FAULT == "write-half":
                os.write(fd, payload[: len(payload) // 2])
                _fault("write-half")
            written = os.write(fd, payload)
            while written < len(payload):
                more = os.write(fd, payload[written:])
                if not more:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += more
        if self.fsync:
            os.fsync(fd)

    def rewrite(self, chunks: Iterable[bytes]) -> None:
        """Replace the file's content with `chunks`, written as they are made: temp file,
        fsync, rename, fsync dir. Call under the lock.

        Readers and a crash at any point see the old file or the new one, never a mix;
        so does an error raised by the chunks' maker (the temp file is removed). Temp
        files left by a rewrite that crashed earlier are removed first.
        """
        self._remove_stale_temps()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            # O_EXCL: a file planted at the temp name is never written through.
            fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            try:
                self._write_all(fd, chunks)
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

    def side_file(self, label: str) -> SideFile:
        """A file beside the session, `<id>.jsonl.<label>-<UTC time>`, made on its first line.

        Not named `*.jsonl`, so it is never taken for a session.
        """
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        return SideFile(self.path.with_name(f"{self.path.name}.{label}-{stamp}"))

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

    # -- reading: only finished writes are seen --------------------------------------

    def _open_read(self) -> int:
        try:
            return _open(self.path, os.O_RDONLY)
        except FileNotFoundError:  # deleted since it was found
            raise NotFoundError(self.path.name.removesuffix(SUFFIX)) from None

    def _finished_end(self, fd: int, *, quiet: bool = False) -> int:
        """Where the finished writes of the open file end.

        A write noted in the lock file as unfinished was never acknowledged, whether
        its writer is still at it or died in it, so readers stop where it began. The
        size is taken before the note is read: a write noted later starts past it.
        """
        size = os.fstat(fd).st_size
        try:
            # Most reads find no note: an empty lock file says so without opening it.
            if os.stat(self.lock_path, follow_symlinks=False).st_size == 0:
                return size
            lock = _open(self.lock_path, os.O_RDONLY)
        except FileNotFoundError:
            return size
        try:
            start = _parse_note(os.pread(lock, 32, 0))
            # A note belongs to the file at the path: one replaced since we opened ours is whole.
            if start is None or start >= size or not _is_at(fd, self.path):
                return size
            if not quiet and unlocked(lock):
                warnings.warn(
                    f"{self.path}: skipped an unfinished write ({size - start} bytes) left "
                    "by a process that died in it; the next write removes it",
                    ZerdaWarning,
                    stacklevel=5,
                )
            return start
        finally:
            os.close(lock)

    def _whole_end(self, fd: int) -> int:
        """The end of the last whole line among the finished writes; a torn tail warns."""
        end = self._finished_end(fd)
        if end == 0 or os.pread(fd, 1, end - 1) == b"\n":
            return end
        self._warn_torn()
        return self._last_newline_end(fd, end)

    def size(self) -> int:
        """The size in bytes of the file's finished writes."""
        fd = self._open_read()
        try:
            return self._finished_end(fd, quiet=True)
        finally:
            os.close(fd)

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, line with its newline) from the start; a torn last line is skipped
        with a warning."""
        for first, chunk in self.chunks():
            for number, line in enumerate(chunk.split(b"\n")[:-1], start=first):
                yield number, line + b"\n"

    def chunks(self) -> Iterator[tuple[int, bytes]]:
        """(number of its first line, a run of whole lines) from the start, about 1 MiB each.

        For scans that can rule out a whole run at once; a torn last line is left out
        with a warning. A line longer than a chunk is gathered block by block and
        joined once.
        """
        fd = self._open_read()
        try:
            end = self._finished_end(fd)
            number, pos, pieces = 1, 0, []
            while pos < end and (block := os.pread(fd, min(CHUNK, end - pos), pos)):
                pos += len(block)
                cut = block.rfind(b"\n") + 1
                if not cut:
                    pieces.append(block)
                    continue
                pieces.append(block[:cut])
                data = b"".join(pieces)
                yield number, data
                number += data.count(b"\n")
                pieces = [block[cut:]]
            if any(pieces):
                self._warn_torn()
        finally:
            os.close(fd)

    @contextmanager
    def snapshot(self) -> Iterator[tuple[int, int]]:
        """(read-only fd, end of its last whole line) of the file's finished writes.

        For scans by byte range with `os.pread`, in several processes if need be:
        lines appended meanwhile are not seen; a torn last line is left out with a
        warning, as `lines` does.
        """
        fd = self._open_read()
        try:
            yield fd, self._whole_end(fd)
        finally:
            os.close(fd)

    def lines_reversed(self) -> Iterator[tuple[int, bytes]]:
        """(offset, line) from the end, reading blocks backwards: cost grows with bytes read."""
        fd = self._open_read()
        try:
            yield from _lines_back(fd, self._whole_end(fd))
        finally:
            os.close(fd)

    def line_number_at(self, offset: int) -> int:
        """The 1-based line number of the line starting at byte `offset`; memory stays
        flat however far into the file it is."""
        fd = self._open_read()
        try:
            return newlines(fd, 0, offset) + 1
        finally:
            os.close(fd)

    def _warn_torn(self) -> None:
        # One wording whichever way the file was read, so a reader sees it once.
        warnings.warn(
            f"{self.path}: the last line is torn (an unfinished write); skipped, "
            "the next write repairs it",
            ZerdaWarning,
            stacklevel=5,
        )


class SideFile:
    """Lines kept aside (a rewrite's damaged lines), as they were, one a line.

    Made on the first line, mode 0600 and O_EXCL (never written through a planted
    file); `close` syncs it to disk, so it is there before the rewrite that drops
    the lines is.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def add(self, line: bytes) -> None:
        """Keep `line` (without its newline)."""
        if self._fd is None:
            self._fd = _open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND)
        data = line + b"\n"
        while data:
            written = os.write(self._fd, data)
            if not written:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = data[written:]

    def close(self) -> None:
        """Sync and close the file, if a line was kept."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def newlines(fd: int, start: int, end: int) -> int:
    """How many newlines bytes [start, end) of `fd` hold, counted a chunk at a time."""
    count = 0
    while start < end and (block := os.pread(fd, min(CHUNK, end - start), start)):
        count += block.count(b"\n")
        start += len(block)
    return count


def _lines_back(fd: int, end: int) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of the whole lines before `end` (just past a newline), last first.

    A line is gathered block by block and joined once, so reading one costs its length.
    """
    if end == 0:
        return
    pos = line_end = end - 1  # the newline ending the line being gathered
    gathered: list[bytes] = []  # its blocks, last first
    while pos > 0:
        start = max(0, pos - BLOCK)
        block = os.pread(fd, pos - start, start)
        pos = start
        if b"\n" not in block:
            gathered.append(block)
            continue
        parts = block.split(b"\n")
        gathered.append(parts[-1])
        parts[-1] = b"".join(reversed(gathered))
        for line in reversed(parts[1:]):
            line_end -= len(line)
            yield line_end, line
            line_end -= 1
        gathered = [parts[0]]
    yield 0, b"".join(reversed(gathered))


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


_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


@contextmanager
def _storage_errors(path: Path, outcome: str, only: frozenset[int] | None = None) -> Iterator[None]:
    """OSErrors (those of `only`, if given) become StorageWriteError naming the real cause."""
    try:
        yield
    except OSError as exc:
        if only is not None and exc.errno not in only:
            raise
        raise StorageWriteError(f"cannot write {path}: {exc.strerror or exc}; {outcome}") from None


def _is_at(fd: int, path: Path) -> bool:
    """True when `path` names the file open as `fd` (not deleted nor replaced since)."""
    try:
        current = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino)


def unlocked(fd: int) -> bool:
    """True when no process holds the lock file open as `fd` (its writer is gone)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return True


def _gathered(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """`chunks` joined into runs of at least CHUNK bytes (the last may be shorter)."""
    run: list[bytes] = []
    size = 0
    for chunk in chunks:
        run.append(chunk)
        size += len(chunk)
        if size >= CHUNK:
            yield b"".join(run)
            run, size = [], 0
    if run:
        yield b"".join(run)


def _truncate_quietly(fd: int, size: int) -> None:
    with suppress(OSError):
        os.ftruncate(fd, size)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
