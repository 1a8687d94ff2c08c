"""A faster start for offline tiktoken encodings: their parsed tables, kept marshalled.

Parsing the shipped BPE file costs most of an encoder's load time; the parsed form,
cached under the user's cache dir, loads several times faster. The cache is private
(0700 dir, 0600 file, refused unless the user owns it), checksummed, keyed by the
source module's size and time, and any problem with it falls back to parsing.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any

from zerda._paths import env_dir

MAGIC = b"zerda-encoding-cache-1\n"
FIELDS = ("name", "pat_str", "mergeable_ranks", "special_tokens")


def cache_dir() -> Path:
    """`$ZERDA_CACHE_DIR`, else platformdirs' user cache dir for zerda."""
    return env_dir("ZERDA_CACHE_DIR", "cache")


def load_encoding(name: str) -> Any:
    """The tiktoken Encoding registered as `name`, from the cache when it is valid."""
    import tiktoken
    from tiktoken import registry

    registry.list_encoding_names()  # makes the plugins register their constructors
    constructor = (registry.ENCODING_CONSTRUCTORS or {})[name]
    path = _cache_path(name, constructor, tiktoken.__version__)
    spec = _read(path) if path is not None else None
    if spec is None:
        spec = constructor()
        if path is not None:
            _write(path, spec)
    return tiktoken.Encoding(**{field: spec[field] for field in FIELDS})


def _cache_path(name: str, constructor: Any, version: str) -> Path | None:
    module = sys.modules.get(constructor.__module__)
    source = getattr(module, "__file__", None)
    if source is None:
        return None
    info = os.stat(source)
    key = f"{name}|{version}|{source}|{info.st_size}|{info.st_mtime_ns}"
    return cache_dir() / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.marshal"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        data = handle.read()
    body = data[len(MAGIC) + 32 :]
    if not data.startswith(MAGIC) or data[len(MAGIC) : len(MAGIC) + 32] != _digest(body):
        return None
    try:
        spec = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    return spec if isinstance(spec, dict) and all(f in spec for f in FIELDS) else None


def _write(path: Path, spec: dict[str, Any]) -> None:
    body = marshal.dumps({field: spec[field] for field in FIELDS})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC + _digest(body) + body)
        os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink()


def _digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()
