"""Where session files live, and the one check a session id passes before any path is built."""

from __future__ import annotations

import os
import re
from pathlib import Path

from zerda.errors import InvalidSessionIdError, UnsafePathError

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


def platform_dir(kind: str) -> Path:
    """platformdirs' user `kind` dir for zerda: "data", "cache", "config" or "state"."""
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")("zerda"))


def env_dir(variable: str, kind: str) -> Path:
    """`$variable` if set, else `platform_dir(kind)`."""
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else platform_dir(kind)


def default_home() -> Path:
    """`$ZERDA_HOME`, else platformdirs' user data dir for zerda."""
    return env_dir("ZERDA_HOME", "data")


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) if needed, mode 0700 whatever the umask; refuse a symlink."""
    if path.is_symlink():
        raise UnsafePathError(f"{path} is a symlink; refusing to use it")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)
    except OSError as exc:
        raise UnsafePathError(f"cannot use {path}: {exc.strerror or exc}") from None
    return path
