"""Writing output files whole or not at all, private to the user like the session files."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path


def write_private(path: Path, chunks: Iterable[str]) -> None:
    """Write `chunks` to `path` via a temp file and a rename, mode 0600.

    A failure part-way leaves any existing file at `path` as it was. Temp files of
    the same target left by a writer that died (killed mid-export) are removed.
    """
    path = path.expanduser()
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if not path.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such directory", str(path.parent))
    _remove_dead_temps(path)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _remove_dead_temps(path: Path) -> None:
    """Remove `.<name>.<pid>.tmp` files of `path` whose process is gone.

    A live writer's temp is kept: two exports to one file may run at once.
    """
    prefix = f".{path.name}."
    for temp in path.parent.glob(f"{prefix}*.tmp"):
        pid = temp.name[len(prefix) : -len(".tmp")]
        if pid.isdigit() and not _alive(int(pid)):
            with suppress(OSError):
                temp.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process, and alive
    return True
