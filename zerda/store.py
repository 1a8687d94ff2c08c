"""SessionStore: durable per-session history in append-only JSON Lines files."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from zerda.errors import (
    CorruptSessionError,
    InvalidArgumentError,
    NotFoundError,
    SessionChangedError,
    StoreError,
)
from zerda.messages import Memory, Message, Session, Summary, utc_now
from zerda.paths import (
    SESSION_ID,
    SUFFIX,
    default_home,
    private_dir,
    refuse_symlinks,
    validate_session_id,
)
from zerda.reader import RecordReader, with_token_counts
from zerda.records import (
    HEADER,
    MESSAGE,
    POINTERS,
    SESSION_AT,
    SUMMARY,
    SUMMARY_AT,
    TOKENS,
    UPDATE,
    check_storable,
    header_record,
    loads,
    message_record,
    pointers_of,
    render,
    session_from,
    summary_from,
    summary_record,
)
from zerda.search import search_messages
from zerda.sessionfile import SessionFile
from zerda.stats import SessionStats, collect_stats, stats_from_tally, tally_of, trusted_tally
from zerda.storebase import Store
from zerda.tally import TALLY, Tally
from zerda.tokens import DEFAULT_ENCODING, count_tokens, get_counter

NO_POINTERS: dict[str, int | None] = {field: None for field in POINTERS.values()}
# The uuid of a message record as zerda writes it: found in raw lines without decoding.
_UUID_FIELD = re.compile(rb'"uuid":"([^"\\]+)"')


class SessionStore(Store):
    """Sessions on disk under `<home>/sessions/<id>.jsonl`, created on first write.

    `fsync=False` trades durability against power loss for speed (a killed
    process never loses an acknowledged write either way). `count_on_write=False`
    stores messages without token counts; the first reader counts and records them.
    `lenient=True` skips damaged lines with a warning instead of raising.
    """

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        fsync: bool = True,
        lenient: bool = False,
        encoding: str = DEFAULT_ENCODING,
        count_on_write: bool = True,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.sessions_dir = self.home / "sessions"
        self.fsync = fsync
        self.lenient = lenient
        self.encoding = encoding
        self.count_on_write = count_on_write

    # -- files -----------------------------------------------------------------

    def _file(self, session_id: str) -> SessionFile:
        validate_session_id(session_id)
        return SessionFile(
            self.sessions_dir / f"{session_id}{SUFFIX}",
            self.sessions_dir / f".{session_id}.lock",
            fsync=self.fsync,
        )

    def _writable(self, session_id: str) -> SessionFile:
        file = self._file(session_id)
        private_dir(self.home)
        private_dir(self.sessions_dir)
        return file

    def _existing(self, session_id: str) -> SessionFile:
        file = self._file(session_id)
        refuse_symlinks(self.home, self.sessions_dir)
        if not file.exists():
            raise NotFoundError(session_id)
        return file

    def _reader(self, file: SessionFile) -> RecordReader:
        return RecordReader(file, lenient=self.lenient)

    def _append(
        self, session_id: str, records: list[dict[str, Any]], session: Session | None = None
    ) -> None:
        """Append `records` in one locked write; a new file gets its header first."""
        header = header_record(session or Session(id=session_id), self.encoding)
        check_storable([header, *records])
        file = self._writable(session_id)

        def render_after(size: int, last_line: bytes | None) -> bytes:
            if last_line is None:
                return render([header, *records], 0, NO_POINTERS, Tally())
            last = _decoded(last_line)
            if last is None:
                return render(records, size, {}, None)
            pointers = pointers_of(last, size - len(last_line))
            return render(records, size, pointers, _carried_tally(file, last, last_line, size))

        with file.locked():
            file.append(render_after)

    # -- sessions ----------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        """True when the session has a file."""
        return self._file(session_id).exists()

    def create_session(
        self,
        session_id: str,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: datetime | None = None,
    ) -> Session:
        """Create the session, or update it as `update_session` does if it exists.

        `created_at` (default now) is used only when the session is new.
        """
        metadata = _merged({}, metadata or {})
        session = Session(session_id, user_id, metadata, created_at or utc_now())
        file = self._writable(session_id)
        with file.locked():  # checked under the lock: two creators never both write a header
            if not file.exists():
                self._append(session_id, [], session)
                return self.get_session(session_id)
            return self.update_session(session_id, user_id, metadata)

    def update_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Set the user (when given) and merge `metadata` into the session's.

        A key given as None is removed. NotFoundError for a session that does not exist.
        """
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidArgumentError("session metadata must be a dict")
        file = self._existing(session_id)
        with file.locked():
            if not file.exists():
                raise NotFoundError(session_id)
            current = self.get_session(session_id)
            # Each update holds the full facts, so the latest one alone describes the session.
            update = {
                "type": UPDATE,
                "user_id": current.user_id if user_id is None else user_id,
                "metadata": _merged(current.metadata, metadata or {}),
            }
            self._append(session_id, [update])
        return self.get_session(session_id)

    def get_session(self, session_id: str) -> Session:
        """The session's id, user, metadata and creation time.

        Reads the header and the latest update the last record points to; files
        written before that pointer are scanned.
        """
        reader = self._reader(self._existing(session_id))
        header = reader.record_at(0, HEADER)
        if header is None:
            header = header_record(Session(id=session_id), self.encoding)
        latest = self._latest(reader, SESSION_AT, UPDATE)
        if latest is not False:
            return session_from(header, [latest] if latest else [])
        updates = [r for r, _ in reader.forward() if r["type"] == UPDATE]
        return session_from(header, updates)

    @staticmethod
    def _latest(
        reader: RecordReader, field: str, kind: str
    ) -> dict[str, Any] | Literal[False] | None:
        """The latest `kind` record, found through the last record's pointer `field`.

        None when the file has none; False when the last record carries no pointer.
        """
        for record, _ in reader.backward():
            if record["type"] == kind:
                return record
            if field not in record:
                return False
            at = record[field]
            return None if at is None else reader.record_at(at, kind)
        return None

    def session_ids(self) -> list[str]:
        """The ids of all sessions, sorted: files holding a finished write (see `exists`)."""
        if not self.sessions_dir.is_dir():
            return []
        names = (p.name[: -len(SUFFIX)] for p in self.sessions_dir.glob(f"*{SUFFIX}"))
        return sorted(n for n in names if SESSION_ID.fullmatch(n) and self.exists(n))

    def list_sessions(self) -> list[SessionStats]:
        """Stats of every readable session, most recently active first.

        A session deleted since it was listed, or that cannot be read, is left out.
        """
        stats = []
        for session_id in self.session_ids():
            try:
                stats.append(self.session_stats(session_id))
            except (StoreError, NotFoundError):
                continue
        return sorted(stats, key=lambda s: s.last_activity or "", reverse=True)

    def delete_session(self, session_id: str) -> None:
        """Remove the session's file."""
        file = self._existing(session_id)
        with file.locked():
            file.remove()

    # -- writing messages ----------------------------------------------------------

    def _stamp(self, message: Message) -> Message:
        if message.token_count is not None or not self.count_on_write:
            return message.stamped(None)
        return message.stamped(get_counter(self.encoding).count(message.content))

    def _stamp_summary(self, summary: Summary | str | None) -> Summary | None:
        found = Summary.coerce(summary)
        if found is None or found.token_count is not None:
            return found.stamped(None) if found else None
        return found.stamped(count_tokens(found.content, self.encoding))

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Add the messages (and summary) in one write; returns the messages as stored.

        The session is created on first write. A message whose uuid the session
        already holds replaces that message in place (role, content, metadata and
        extra; its time is kept unless given), as Zep upserts: the file is then
        rewritten (temp file, fsync, rename). Within one call the last of a uuid wins.
        """
        batch = _last_wins(memory.messages)
        given = {m.uuid for m in batch if m.uuid}
        summary = self._stamp_summary(memory.summary)
        file = self._writable(session_id)
        with file.locked():
            if given and file.exists() and _holds_any(file, given):
                return self._upsert(session_id, batch, summary)
            stored = [self._stamp(m) for m in batch]
            records = [message_record(m) for m in stored]
            records += [summary_record(summary)] if summary else []
            self._append(session_id, records)
        return stored

    def _upsert(
        self, session_id: str, batch: list[Message], summary: Summary | None
    ) -> list[Message]:
        """Rewrite the session with `batch` replacing the messages of the same uuid."""
        wanted = {m.uuid: m for m in batch if m.uuid}
        done: dict[str, Message] = {}

        def edit(messages: list[Message]) -> list[Message]:
            kept = [
                self._revised(m, wanted[m.uuid], done) if m.uuid in wanted else m for m in messages
            ]
            added = [self._stamp(m) for m in batch if m.uuid not in done]
            done.update((m.uuid or "", m) for m in added)
            return kept + added

        self._rewrite(session_id, edit, summary=summary)
        return [done[m.uuid or ""] if m.uuid in done else m for m in batch]

    def _revised(self, old: Message, new: Message, done: dict[str, Message]) -> Message:
        """`new` in place of `old`: old's time unless new has one, counted now."""
        count = new.token_count
        if count is None:
            count = count_tokens(new.content, self.encoding)
        revised = replace(new, created_at=new.created_at or old.created_at, token_count=count)
        done[old.uuid or ""] = revised
        return revised

    def set_summary(self, session_id: str, summary: Summary | str) -> Summary:
        """Record the session's running summary (the latest one wins); returns it stored."""
        stored = self._stamp_summary(summary)
        assert stored is not None
        self._append(session_id, [summary_record(stored)])
        return stored

    # -- reading messages ----------------------------------------------------------

    def _fill_counts(self, session_id: str, messages: list[Message]) -> list[Message]:
        """Count messages stored without a count, and record the counts for next time."""
        if messages:
            self._record_counts(session_id, messages)
        return self._counted(messages)

    def _record_counts(self, session_id: str, fallback: list[Message]) -> None:
        """Append the counts of the messages the tally says are pending (else of `fallback`).

        Decided under the lock, so readers racing to fill the same messages never
        count them twice.
        """
        file = self._file(session_id)
        # A read-only store still answers; the counts are then recomputed next time.
        with suppress(OSError, StoreError), file.locked():
            if file.exists():  # never resurrect a session deleted while we read it
                pending = self._pending(session_id)
                todo = fallback if pending is None else pending
                counts = {m.uuid: count_tokens(m.content, self.encoding) for m in todo}
                if counts:
                    self._append(session_id, [{"type": TOKENS, "counts": counts}])

    def _counted(self, messages: list[Message]) -> list[Message]:
        """The messages with their token counts, counted here (nothing is written)."""
        return [replace(m, token_count=count_tokens(m.content, self.encoding)) for m in messages]

    def _pending(self, session_id: str) -> list[Message] | None:
        """The messages still waiting for a count, per the file's tally (None: no tally).

        They are the newest uncounted messages, so this reads back only until all are found.
        """
        tally = self._last_tally(session_id)
        if tally is None:
            return None
        found: list[Message] = []
        for message in self.iter_messages_reversed(session_id):
            if len(found) >= tally.pending:
                break
            if message.token_count is None:
                found.append(message)
        return found

    def _last_tally(self, session_id: str) -> Tally | None:
        """The running totals on the file's last line, or None when it carries none that
        can be trusted (`trusted_tally` says what is checked) or its first line is not a
        record: the caller then reads the file, which reports any damage.
        """
        file = self._existing(session_id)
        for offset, line in file.lines_reversed():
            if line.strip():
                return trusted_tally(line, offset) if _decoded(file.line_at(0)) else None
        return None

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """Every message, oldest first, streamed."""
        file = self._existing(session_id)
        return with_token_counts(
            self._reader(file).forward(), lambda ms: self._fill_counts(session_id, ms)
        )

    def iter_messages_reversed(self, session_id: str) -> Iterator[Message]:
        """Messages newest first, read backwards from the end of the file.

        Messages written with `count_on_write=False` may carry `token_count=None`.
        """
        counts: dict[str, int] = {}
        for record, message in self._reader(self._existing(session_id)).backward():
            if message is None:
                if record["type"] == TOKENS:
                    counts.update(record.get("counts") or {})
                continue
            if message.token_count is None and message.uuid in counts:
                message = replace(message, token_count=counts[message.uuid])
            yield message

    def get_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        """The session's messages (the last `lastn` only, read from the end) and summary.

        `lastn` None or 0 gives every message, as `get_messages(limit=0)` does.
        """
        if lastn is not None and (type(lastn) is not int or lastn < 0):
            raise InvalidArgumentError(f"lastn must be a non-negative integer, not {lastn!r}")
        if not lastn:
            messages = list(self.iter_messages(session_id))
        else:
            messages = []
            for message in self.iter_messages_reversed(session_id):
                messages.append(message)
                if len(messages) >= lastn:
                    break
            messages.reverse()
            missing = [m for m in messages if m.token_count is None]
            counted = {m.uuid: m for m in self._fill_counts(session_id, missing)}
            messages = [counted.get(m.uuid, m) for m in messages]
        return Memory(messages=messages, summary=self.get_summary(session_id))

    def get_summary(self, session_id: str) -> Summary | None:
        """The latest summary recorded for the session, or None.

        The last record's summary pointer says where it is, so this reads two lines,
        not the file; files without pointers are scanned backwards.
        """
        reader = self._reader(self._existing(session_id))
        found = self._latest(reader, SUMMARY_AT, SUMMARY)
        if found is False:
            found = next((r for r, _ in reader.backward() if r["type"] == SUMMARY), None)
        return summary_from(found) if isinstance(found, dict) else None

    def system_messages(self, session_id: str) -> list[Message]:
        """The session's system messages, oldest first.

        The running totals say how many there are, so a session without any costs one
        line, and the read stops at the last one (system prompts come first).
        """
        tally = self._last_tally(session_id)
        wanted = None if tally is None else tally.system
        found: list[Message] = []
        if wanted == 0:
            return found
        for message in self.iter_messages(session_id):
            if message.kind == "system":
                found.append(message)
                if wanted is not None and len(found) >= wanted:
                    break
        return found

    def message_count(self, session_id: str) -> int:
        """How many messages the session holds, without counting any tokens.

        Read from the running totals when they can be trusted; else the file is read,
        and a damaged line raises as `get_memory` would (or is skipped when lenient).
        """
        tally = self._last_tally(session_id)
        if tally is not None:
            return tally.messages
        return sum(
            1
            for record, _ in self._reader(self._existing(session_id)).forward()
            if record["type"] == MESSAGE
        )

    def session_stats(self, session_id: str) -> SessionStats:
        """Counts, tokens, characters, activity and file size: always those of the
        messages `get_memory` returns, or the error it raises.

        Read from the running totals on the last line (one line), counting any
        messages stored without a count first. When the file has no totals, or none
        that can be trusted (hand-edited, damaged; see `trusted_tally`), it is read
        through as `get_memory` reads it: a damaged line raises CorruptSessionError
        naming it, or, with `lenient=True`, is skipped with a warning and not counted.
        """
        file = self._existing(session_id)
        tally = self._last_tally(session_id)
        if tally is not None and tally.pending:
            self._record_counts(session_id, [])
            tally = self._last_tally(session_id)
        if tally is not None and not tally.pending:
            stats = stats_from_tally(session_id, tally)
        else:
            stats = collect_stats(session_id, self.iter_messages(session_id))
        return replace(stats, file_size=file.size(), encoding=self.encoding)

    def search(self, query: str, session_id: str | None = None) -> Iterator[tuple[str, Message]]:
        """(session id, message) for every message whose content holds `query`, any case.

        Streamed, one session after another. Over all sessions, one deleted since it
        was listed is passed over; a session asked for by name must exist.
        """
        if session_id:
            yield from self._search_in(session_id, query)
            return
        for sid in self.session_ids():
            try:
                yield from self._search_in(sid, query)
            except NotFoundError:
                continue  # deleted since it was listed (its file is opened on the first read)

    def _search_in(self, session_id: str, query: str) -> Iterator[tuple[str, Message]]:
        reader = self._reader(self._existing(session_id))
        fill = functools.partial(self._fill_counts, session_id)
        for message in search_messages(reader, query, fill):
            yield session_id, message

    # -- rewriting -----------------------------------------------------------------

    def _rewrite(
        self,
        session_id: str,
        edit: Callable[[list[Message]], list[Message]],
        summary: Summary | None = None,
    ) -> None:
        """Rewrite the file compacted: header with the latest facts, messages, summary.

        The messages are `edit(messages)`, decided under the lock so a concurrent
        writer's turn is never dropped by mistake; `edit` may raise to leave the file
        as it is. The summary is `summary` if given, else the session's latest.
        """
        file = self._existing(session_id)
        with file.locked():
            session = self.get_session(session_id)
            # Counts still missing are counted in memory: the rewrite stores them anyway.
            messages = list(with_token_counts(self._reader(file).forward(), self._counted))
            summary = summary or self.get_summary(session_id)
            records = [header_record(session, self.encoding)]
            records += [message_record(m) for m in edit(messages)]
            if summary is not None:
                records.append(summary_record(summary))
            file.rewrite(render(records, 0, NO_POINTERS, Tally()))

    def clear(self, session_id: str) -> None:
        """Empty the session (messages and summary); the session and its metadata stay."""
        file = self._existing(session_id)
        with file.locked():
            session = self.get_session(session_id)
            for _ in self._reader(file).forward():
                pass  # read through, counting nothing: a damaged file is reported, not replaced
            header = header_record(session, self.encoding)
            file.rewrite(render([header], 0, NO_POINTERS, Tally()))

    def compact(self, session_id: str) -> None:
        """Fold updates, token records and old summaries into a fresh file."""
        self._rewrite(session_id, list)

    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last user message and everything after it; returns what was removed.

        The summary stays. A session with no user message keeps all its messages.
        """
        removed: list[Message] = []

        def edit(messages: list[Message]) -> list[Message]:
            at = _before_last_user(messages)
            removed.extend(messages[at:])
            return messages[:at]

        self._rewrite(session_id, edit)
        return removed

    def replace_last_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        *,
        replaces: str | None = None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> tuple[Message, Message]:
        """Swap the last turn (the last user message and all after it) for a new one.

        One rewrite under the lock (temp file, fsync, rename): a crash leaves the old
        turn or the new one, never neither. The summary stays. `replaces`, when given,
        is the uuid of the user message expected last; if the session has moved on,
        `SessionChangedError` is raised and nothing is written. A session with no user
        message gets the turn appended. `reply_metadata` is the new reply's metadata.
        """
        reply = Message("assistant", assistant, dict(reply_metadata or {}))
        pair = (self._stamp(Message("user", user)), self._stamp(reply))

        def edit(messages: list[Message]) -> list[Message]:
            at = _before_last_user(messages)
            found = messages[at].uuid if at < len(messages) else None
            if replaces is not None and found != replaces:
                raise SessionChangedError(
                    f"session {session_id} changed since its last turn was read; nothing written"
                )
            return [*messages[:at], *pair]

        self._rewrite(session_id, edit)
        return pair


def _before_last_user(messages: list[Message]) -> int:
    """The index of the last user message (how many to keep), or all when there is none."""
    users = [i for i, m in enumerate(messages) if m.kind == "user"]
    return users[-1] if users else len(messages)


def _carried_tally(
    file: SessionFile, last: dict[str, Any], last_line: bytes, size: int
) -> Tally | None:
    """The running totals a write carries on: the last record's, when they can be trusted.

    Totals that cannot be (the file was edited by hand) are counted afresh from the file,
    once: this write then carries good ones. A file without totals stays so (appends stay
    O(1)) until a rewrite, and one with a damaged line gets none, so readers report it.
    """
    if TALLY not in last:
        return None
    tally = trusted_tally(last_line[:-1], size - len(last_line))
    return tally if tally is not None else _recounted(file)


def _recounted(file: SessionFile) -> Tally | None:
    """The running totals of the whole file read strictly; None when a line is damaged."""
    records = RecordReader(file, lenient=False).forward()
    try:
        return tally_of(with_token_counts(records, lambda pending: pending))
    except CorruptSessionError:
        return None


def _decoded(line: bytes) -> dict[str, Any] | None:
    """The record on `line`, or None when it is damaged (its pointer is then unknown)."""
    try:
        return loads(line)
    except ValueError:
        return None


def _last_wins(messages: list[Message]) -> list[Message]:
    """`messages` with each repeated uuid kept once: at its first place, its last value."""
    last = {m.uuid: m for m in messages if m.uuid}
    seen: set[str] = set()
    kept = []
    for message in messages:
        if message.uuid:
            if message.uuid in seen:
                continue
            seen.add(message.uuid)
            message = last[message.uuid]
        kept.append(message)
    return kept


def _holds_any(file: SessionFile, uuids: set[str]) -> bool:
    """True when a record of the file carries one of `uuids` (raw scan, no decoding)."""
    wanted = {u.encode() for u in uuids}
    for _, chunk in file.chunks():
        if any(found[1] in wanted for found in _UUID_FIELD.finditer(chunk)):
            return True
    return False


def _merged(metadata: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`metadata` with `changes` applied: a key set to None is removed."""
    merged = {**metadata, **changes}
    return {k: v for k, v in merged.items() if v is not None}
