"""Checking session files and repairing them: damaged and torn lines, running totals,
unfinished writes, modes, hard links, stray temp and lock files.

A repair loses nothing: damaged lines, a torn last line and an unfinished write are
copied as they were to side files beside the session (`<id>.jsonl.<label>-<time>`)
before a lenient rewrite (temp file, fsync, rename) drops them and seals fresh
running totals; stray temp and lock files go only when no process holds the lock.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from zerda._paths import SESSION_ID, SUFFIX, validate_session_id
from zerda.errors import NotFoundError, ZerdaWarning
from zerda.store._checks import Finding, Repair
from zerda.store._stats import tally_time
from zerda.store._tally import TALLY, Tally, sealed
from zerda.store.files._reader import RecordReader
from zerda.store.files._records import MESSAGE, TOKENS, loads, message_from
from zerda.store.files._sessionfile import FILE_MODE, SessionFile, _parse_note, unlocked
from zerda.store.files._trusted import trusted_tally

if TYPE_CHECKING:
    from zerda.store.files._store import SessionStore

_TEMP = re.compile(r"\.(?P<sid>.+)\.jsonl\.\d+\.tmp")
_LOCK = re.compile(r"\.(?P<sid>.+)\.lock")
_REWRITTEN = {"damaged", "torn", "totals", "link"}
_STRAY = {"temp", "lock"}


def check(store: SessionStore, session_id: str | None = None) -> list[Finding]:
    """Every problem with the store's session files (or `session_id`'s), in file order.

    Quiet: what reads would warn about (a torn line, an unfinished write) is a finding.
    """
    found: list[Finding] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)
        for sid in _session_ids(store, session_id):
            found += check_session(store._file(sid), sid)
    return found + list(_strays(store.sessions_dir, session_id))


def repair(store: SessionStore, session_id: str | None = None) -> Repair:
    """Fix what `check` finds (see the module's docstring); what cannot be fixed is left."""
    before = check(store, session_id)
    saved: list[str] = []
    strays = [f for f in before if f.kind in _STRAY]
    for sid in sorted({f.session_id or "" for f in before if f.repairable} - {""}):
        kinds = {f.kind for f in before if f.session_id == sid and f.kind not in _STRAY}
        if kinds:
            saved += _repair_session(store, sid, kinds)
    for finding in strays:
        _remove_stray(Path(finding.where), store.sessions_dir, finding.session_id or "")
    after = check(store, session_id)
    return Repair([f for f in before if f not in after], saved, after)


def _session_ids(store: SessionStore, session_id: str | None) -> list[str]:
    if session_id is not None:
        validate_session_id(session_id)
        if not os.path.lexists(store._file(session_id).path):
            raise NotFoundError(session_id)
        return [session_id]
    if not store.sessions_dir.is_dir():
        return []
    names = (p.name[: -len(SUFFIX)] for p in store.sessions_dir.glob(f"*{SUFFIX}"))
    return sorted(n for n in names if SESSION_ID.fullmatch(n))


def check_session(file: SessionFile, sid: str) -> list[Finding]:
    """The problems of one session file."""
    info = os.lstat(file.path)
    if not stat.S_ISREG(info.st_mode):
        problem = "not a regular file; zerda refuses to use it"
        return [Finding(str(file.path), "type", problem, None, sid, repairable=False)]
    end = unfinished_start(file, info.st_size)
    found = list(_inode_findings(file, sid, info, end))
    lines = list(_line_findings(file, sid, info.st_size if end is None else end))
    return found + lines + ([] if lines else _totals_findings(file, sid))


def _inode_findings(
    file: SessionFile, sid: str, info: os.stat_result, end: int | None
) -> Iterator[Finding]:
    """A mode other than 0600, another hard link, an unfinished write (from `end` on)."""
    where, mode = str(file.path), stat.S_IMODE(info.st_mode)
    if mode != FILE_MODE:
        yield Finding(where, "mode", f"mode {mode:04o}, not 0600", None, sid)
    if info.st_nlink > 1:
        problem = f"has {info.st_nlink} hard links; zerda refuses to write to it"
        yield Finding(where, "link", problem, None, sid)
    if end is not None:
        problem = (
            f"an unfinished write ({info.st_size - end} bytes) left by a process that died in it"
        )
        yield Finding(where, "unfinished", problem, None, sid)


def unfinished_start(file: SessionFile, size: int) -> int | None:
    """Where a write that a dead process left unfinished starts (None: there is none, or
    its writer is still at it)."""
    try:
        fd = os.open(file.lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        start = _parse_note(os.pread(fd, 32, 0))
        if start is None or start >= size or not unlocked(fd):
            return None
        return start
    finally:
        os.close(fd)


def _line_findings(file: SessionFile, sid: str, end: int) -> Iterator[Finding]:
    """A finding for each damaged line of bytes [0, end), and for a torn last one."""
    where, offset = str(file.path), 0
    with open(file.path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            line = line[: max(0, end - offset)]
            offset += len(line)
            if not line:
                return
            if not line.endswith(b"\n"):
                yield Finding(
                    where,
                    "torn",
                    f"torn last line ({len(line)} bytes of an unfinished write)",
                    number,
                    sid,
                )
                return
            reason = _damage(line[:-1])
            if reason is not None:
                yield Finding(where, "damaged", f"damaged line: {reason}", number, sid)


def _damage(line: bytes) -> str | None:
    """Why `line` cannot be read (None: it can, or it is blank)."""
    if not line.strip():
        return None
    try:
        record = loads(line)
        if record["type"] == MESSAGE:
            message_from(record)
    except ValueError as exc:
        return str(exc)
    return None


def _totals_findings(file: SessionFile, sid: str) -> list[Finding]:
    """A finding when the last line's running totals are missing, unsealed or wrong."""
    last = next(((o, line) for o, line in file.lines_reversed() if line.strip()), None)
    if last is None:
        return []
    offset, line = last
    problem = _totals_problem(file, loads(line), line, offset)
    return [] if problem is None else [Finding(str(file.path), "totals", problem, None, sid)]


def _totals_problem(
    file: SessionFile, record: dict[str, object], line: bytes, at: int
) -> str | None:
    if TALLY not in record:
        return "no running totals on the last line (stats read the whole file)"
    if not sealed(line):
        return "the running totals are not sealed (the last line was edited)"
    carried = trusted_tally(line, at)
    if carried is None:
        return "the running totals cannot be trusted (a line before them changed)"
    counted = _counted(file)
    known_order = carried.ordered in (None, counted.ordered)
    if _facts(carried) != _facts(counted) or not known_order:
        return "the running totals disagree with the messages"
    return None


def _counted(file: SessionFile) -> Tally:
    """The running totals of the file's messages, counted as they stream by: a count a
    later tokens record gives is added when it comes. Of a message waiting for one only
    its uuid's hash is kept (a few dozen bytes, not the message)."""
    tally = Tally()
    waiting: set[int] = set()
    for record, message in RecordReader(file, lenient=False).forward():
        if message is not None:
            stamp = tally_time(message.created_at) if message.created_at is not None else None
            tally.add(message.kind, message.part, len(message.content), message.token_count, stamp)
            if message.token_count is None and message.uuid:
                waiting.add(hash(message.uuid))
        elif record["type"] == TOKENS and waiting:
            for uuid, count in (record.get("counts") or {}).items():
                if hash(uuid) in waiting and isinstance(count, int):
                    waiting.discard(hash(uuid))
                    tally.tokens += count
                    tally.pending -= 1
    return tally


def _facts(tally: Tally) -> Tally:
    return replace(tally, at=None, system=None, ordered=None)


def _strays(directory: Path, session_id: str | None) -> Iterator[Finding]:
    """Temp files of rewrites that died, and lock files beside no session, none held."""
    if not directory.is_dir():
        return
    for path in sorted(directory.iterdir()):
        found = _TEMP.fullmatch(path.name) or _LOCK.fullmatch(path.name)
        if found is None or (session_id is not None and found["sid"] != session_id):
            continue
        sid, temp = found["sid"], found.re is _TEMP
        if _lock_free(directory, sid) and (temp or not (directory / f"{sid}{SUFFIX}").exists()):
            what = "temp file of a rewrite that died" if temp else "lock file beside no session"
            yield Finding(str(path), "temp" if temp else "lock", f"stray {what}", None, sid)


def _lock_free(directory: Path, sid: str) -> bool:
    """True when no process holds session `sid`'s lock."""
    try:
        fd = os.open(directory / f".{sid}.lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        return unlocked(fd)
    finally:
        os.close(fd)


def _remove_stray(path: Path, directory: Path, sid: str) -> None:
    if _lock_free(directory, sid):
        path.unlink(missing_ok=True)


def _repair_session(store: SessionStore, sid: str, kinds: set[str]) -> list[str]:
    """Repair session `sid` with problems of `kinds`; returns the side files made."""
    file = store._file(sid)
    sides = set(file.path.parent.glob(f"{file.path.name}.*"))
    if "unfinished" in kinds:
        _save_tail(file, unfinished_start(file, os.lstat(file.path).st_size), "unfinished")
    with file.locked(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)  # Repair.saved names the side files
        if "torn" in kinds:
            _save_tail(file, None, "torn")
        if not file.exists():
            file.path.unlink()
        elif kinds & _REWRITTEN:
            lenient = type(store)(
                store.home, fsync=store.fsync, lenient=True, encoding=store.encoding
            )
            lenient.compact(sid)
        elif "mode" in kinds:
            os.chmod(file.path, FILE_MODE, follow_symlinks=False)
    return sorted(str(p) for p in set(file.path.parent.glob(f"{file.path.name}.*")) - sides)


def _save_tail(file: SessionFile, start: int | None, label: str) -> None:
    """Copy the file's bytes from `start` (None: the end of its last whole line) on to a
    side file, as they are."""
    fd = os.open(file.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        if start is None:
            start = SessionFile._last_newline_end(fd, size)
        tail = os.pread(fd, size - start, start) if size > start else b""
    finally:
        os.close(fd)
    if tail:
        aside = file.side_file(label)
        aside.add(tail.removesuffix(b"\n"))
        aside.close()
