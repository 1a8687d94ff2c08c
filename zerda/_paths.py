"""Where session files live, and the one check a session id passes before any path is built."""

from __future__ import annotations

import errno
import os
import re
import sys
from contextlib import suppress
from pathlib import Path

from zerda.errors import InvalidSessionIdError, StorageWriteError, UnsafePathError

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
SUFFIX = ".jsonl"


def validate_session_id(session_id: object) -> str:
    """Return `session_id` if it is a safe id, else raise InvalidSessionIdError."""
    if not isinstance(session_id, str) or not SESSION_ID.fullmatch(session_id):
        shown = repr(session_id)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise InvalidSessionIdError(
            f"invalid session id {shown}: use 1-128 of A-Z a-z 0-9 . _ -, "
            "starting with a letter or digit"
        )
    return session_id


# The XDG base directories platformdirs gives on Linux: variable, default under ~.
XDG = {
    "data": ("XDG_DATA_HOME", ".local/share"),
    "cache": ("XDG_CACHE_HOME", ".cache"),
    "config": ("XDG_CONFIG_HOME", ".config"),
    "state": ("XDG_STATE_HOME", ".local/state"),
}


def platform_dir(kind: str) -> Path:
    """platformdirs' user `kind` dir for zerda: "data", "cache", "config" or "state".

    On Linux, with an absolute (or no) $HOME, it is worked out here as platformdirs does
    (the XDG variable when it is an absolute path, else its default under the home
    directory), sparing every start the import of platformdirs, which loads tempfile,
    shutil and random; anything else is left to platformdirs."""
    home = os.environ.get("HOME")
    if sys.platform.startswith("linux") and (home is None or os.path.isabs(home)):
        variable, default = XDG[kind]
        base = os.environ.get(variable, "")
        return Path(base if os.path.isabs(base) else os.path.expanduser(f"~/{default}")) / "zerda"
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")("zerda"))


def env_dir(variable: str, kind: str) -> Path:
    """`$variable` if set, else `platform_dir(kind)`."""
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else platform_dir(kind)


def default_home() -> Path:
    """`$ZERDA_HOME`, else platformdirs' user data dir for zerda."""
    return env_dir("ZERDA_HOME", "data")


def refuse_symlinks(*paths: Path) -> None:
    """Raise UnsafePathError if any of `paths` is a symlink: reads and writes refuse alike."""
    for path in paths:
        if path.is_symlink():
            raise UnsafePathError(f"{path} is a symlink; refusing to use it")


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parents, each 0700 whatever the umask; refuse a symlink.

    `path` itself is made 0700 even if it existed; parents that existed keep their mode.
    """
    refuse_symlinks(path)
    missing = []
    parent = path
    while not os.path.lexists(parent) and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    try:
        for directory in reversed(missing):
            with suppress(FileExistsError):  # another process made it meanwhile
                os.mkdir(directory, 0o700)
                _make_private(directory)  # mkdir's mode is cut by the umask, never widened
        _make_private(path)
    except OSError as exc:
        raise StorageWriteError(f"cannot create {path}: {exc.strerror or exc}") from None
    return path


def _make_private(directory: Path) -> None:
    """chmod 0700 through a handle that refuses a symlink swapped in since the check."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(f"{directory} is a symlink; refusing to use it") from None
        raise
    try:
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
