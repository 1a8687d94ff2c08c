"""The one exception tree of zerda: catch `ZerdaError` for anything zerda raises."""

from __future__ import annotations

from pathlib import Path


class ZerdaError(Exception):
    """Base class of every error zerda raises on purpose."""


class NotFoundError(ZerdaError, LookupError):
    """A session that does not exist was asked for."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"session not found: {session_id}")
        self.session_id = session_id


class SessionExistsError(ZerdaError):
    """A session was to be made under a name another session holds; nothing was changed."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"session already exists: {session_id}")
        self.session_id = session_id


class InvalidSessionIdError(ZerdaError, ValueError):
    """A session id does not match `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`."""


class InvalidMessageError(ZerdaError, ValueError):
    """A message or record is malformed (bad role, content or metadata)."""


class InvalidArgumentError(ZerdaError, ValueError):
    """An argument is out of range or of the wrong kind (a negative `lastn`, `k=-1`)."""


class MessageTooLargeError(InvalidMessageError):
    """A message is over `zerda.limits.MAX_MESSAGE_BYTES`; nothing was written."""


class ImportFailed(ZerdaError):
    """An import source cannot be read (not its format, not valid JSON), or a `strict`
    run met a problem; what was imported before it stays."""


class UnsafeArchiveError(ImportFailed):
    """A zip export holds a member no export holds (a traversal path, a symlink, an
    encrypted or inflating-too-far member); nothing of it is read."""


class NotADocument(ImportFailed):
    """The file is not one JSON document (so it is read as JSON Lines)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not one JSON document; nothing was imported")


class StoreError(ZerdaError):
    """The session store cannot read or write its files."""


class CorruptSessionError(StoreError):
    """A session file holds a line that is not a valid record."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}: line {line}: {reason}")
        self.path = path
        self.line = line


class UnsafePathError(StoreError):
    """A session path is a symlink or otherwise not a plain file we own."""


class StorageWriteError(StoreError):
    """A write failed (disk full, file too large, I/O error); nothing was written."""


class SessionChangedError(StoreError):
    """A session changed between reading it and a rewrite that depended on it; nothing written."""


class ClientError(ZerdaError):
    """A model client (HTTP or command) gave no complete reply; the message is one line."""


class SummarizerError(ZerdaError):
    """A summarizer failed or returned no text; the previous summary stands, nothing is written."""


class ZerdaWarning(UserWarning):
    """Something was skipped or repaired (a torn last line, a bad line in lenient mode)."""


class SkippedLineWarning(ZerdaWarning):
    """A lenient read skipped a damaged line of a session file (`path`, `line`)."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}: line {line}: {reason}; skipped (lenient read)")
        self.path = path
        self.line = line
