"""SessionStore: durable per-session history in append-only JSON Lines files."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from zerda.errors import NotFoundError, SessionChangedError, StoreError, UnsafePathError
from zerda.messages import Memory, Message, Session, utc_now
from zerda.paths import SESSION_ID, SUFFIX, default_home, private_dir, validate_session_id
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
    summary_record,
)
from zerda.search import search_messages
from zerda.sessionfile import SessionFile
from zerda.stats import SessionStats, collect_stats, scan_stats, stats_from_tally
from zerda.tally import Tally
from zerda.tokens import DEFAULT_ENCODING, count_tokens, get_counter

NO_POINTERS: dict[str, int | None] = {field: None for field in POINTERS.values()}


class SessionStore:
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
        if self.sessions_dir.is_symlink():
            raise UnsafePathError(f"{self.sessions_dir} is a symlink; refusing to use it")
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
            return render(records, size, pointers, Tally.from_record(last))

        with file.locked():
            file.append(render_after)

    # -- sessions ----------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        """True when the session has a file."""
        return self._file(session_id).exists()

    def create_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Create the session, or update the user and metadata given if it exists."""
        session = Session(
            id=session_id, user_id=user_id, metadata=metadata or {}, created_at=utc_now()
        )
        file = self._writable(session_id)
        with file.locked():  # checked under the lock: two creators never both write a header
            if not file.exists():
                self._append(session_id, [], session)
                return self.get_session(session_id)
            # Each update holds the full facts, so the latest one alone describes the session.
            current = self.get_session(session_id)
            update = {
                "type": UPDATE,
                "user_id": current.user_id if user_id is None else user_id,
                "metadata": current.metadata if metadata is None else metadata,
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
        """The ids of all sessions, sorted."""
        if not self.sessions_dir.is_dir():
            return []
        names = (p.name[: -len(SUFFIX)] for p in self.sessions_dir.glob(f"*{SUFFIX}"))
        return sorted(n for n in names if SESSION_ID.fullmatch(n))

    def list_sessions(self) -> list[SessionStats]:
        """Stats of every readable session, most recently active first."""
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

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Append the messages in one write (created on first write); returns them stored."""
        stored = [self._stamp(m) for m in memory.messages]
        records: list[dict[str, Any]] = [message_record(m) for m in stored]
        if memory.summary is not None:
            records.append(summary_record(memory.summary))
        self._append(session_id, records)
        return stored

    def add_message(self, session_id: str, message: Message) -> Message:
        """Append one message."""
        return self.add_memory(session_id, Memory(messages=[message]))[0]

    def append_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        metadata: dict[str, Any] | None = None,
        summary: str | None = None,
    ) -> tuple[Message, Message]:
        """Append a user message and its reply (and a new summary) in one write."""
        pair = [
            Message("user", user, dict(metadata or {})),
            Message("assistant", assistant, dict(metadata or {})),
        ]
        first, second = self.add_memory(session_id, Memory(messages=pair, summary=summary))
        return first, second

    def set_summary(self, session_id: str, summary: str) -> None:
        """Record the session's running summary (the latest one wins)."""
        self._append(session_id, [summary_record(summary)])

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
        """The running totals on the file's last record, or None."""
        for record, _ in self._reader(self._existing(session_id)).backward():
            return Tally.from_record(record)
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
        """The session's messages (the last `lastn` only, read from the end) and summary."""
        if lastn is None:
            messages = list(self.iter_messages(session_id))
        else:
            messages = []
            for message in self.iter_messages_reversed(session_id) if lastn > 0 else ():
                messages.append(message)
                if len(messages) >= lastn:
                    break
            messages.reverse()
            missing = [m for m in messages if m.token_count is None]
            counted = {m.uuid: m for m in self._fill_counts(session_id, missing)}
            messages = [counted.get(m.uuid, m) for m in messages]
        return Memory(messages=messages, summary=self.get_summary(session_id))

    def get_summary(self, session_id: str) -> str | None:
        """The latest summary recorded for the session, or None.

        The last record's summary pointer says where it is, so this reads two lines,
        not the file; files without pointers are scanned backwards.
        """
        reader = self._reader(self._existing(session_id))
        found = self._latest(reader, SUMMARY_AT, SUMMARY)
        if found is False:
            found = next((r for r, _ in reader.backward() if r["type"] == SUMMARY), None)
        return str(found["content"]) if isinstance(found, dict) else None

    def message_count(self, session_id: str) -> int:
        """How many messages the session holds, without counting any tokens."""
        tally = self._last_tally(session_id)
        if tally is not None:
            return tally.messages
        return sum(
            1
            for record, _ in self._reader(self._existing(session_id)).forward()
            if record["type"] == MESSAGE
        )

    def session_stats(self, session_id: str) -> SessionStats:
        """Counts, tokens, characters, activity and file size.

        Read from the running totals on the last record (one line), counting any
        messages stored without a count first; files without totals are scanned.
        """
        file = self._existing(session_id)
        tally = self._last_tally(session_id)
        if tally is not None and tally.pending:
            self._record_counts(session_id, [])
            tally = self._last_tally(session_id)
        if tally is not None and not tally.pending:
            stats = stats_from_tally(session_id, tally)
        else:
            stats = scan_stats(session_id, file.chunks()) or collect_stats(
                session_id, self.iter_messages(session_id)
            )
        return replace(stats, file_size=file.size(), encoding=self.encoding)

    def search(self, query: str, session_id: str | None = None) -> Iterator[tuple[str, Message]]:
        """(session id, message) for every message whose content holds `query`, any case."""
        ids = [session_id] if session_id else self.session_ids()
        for sid in ids:
            reader = self._reader(self._existing(sid))
            fill = functools.partial(self._fill_counts, sid)
            for message in search_messages(reader, query, fill):
                yield sid, message

    # -- rewriting -----------------------------------------------------------------

    def _rewrite(
        self,
        session_id: str,
        keep: Callable[[list[Message]], int],
        keep_summary: bool,
        added: tuple[Message, ...] = (),
    ) -> list[Message]:
        """Rewrite the file compacted: header with the latest facts, messages, summary.

        Keeps the first `keep(messages)` messages, decided under the lock so a
        concurrent writer's turn is never dropped by mistake, then `added`; returns
        the messages removed. `keep` may raise to leave the file as it is.
        """
        file = self._existing(session_id)
        with file.locked():
            session = self.get_session(session_id)
            # Counts still missing are counted in memory: the rewrite stores them anyway.
            messages = list(with_token_counts(self._reader(file).forward(), self._counted))
            summary = self.get_summary(session_id) if keep_summary else None
            kept = messages[: keep(messages)]
            records = [header_record(session, self.encoding)]
            records += [message_record(m) for m in [*kept, *added]]
            if summary is not None:
                records.append(summary_record(summary))
            file.rewrite(render(records, 0, NO_POINTERS, Tally()))
        return messages[len(kept) :]

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
        self._rewrite(session_id, keep=len, keep_summary=True)

    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last user message and everything after it; returns what was removed.

        The summary stays. A session with no user message keeps all its messages.
        """
        return self._rewrite(session_id, keep=_before_last_user, keep_summary=True)

    def replace_last_turn(
        self, session_id: str, user: str, assistant: str, *, replaces: str | None = None
    ) -> tuple[Message, Message]:
        """Swap the last turn (the last user message and all after it) for a new one.

        One rewrite under the lock (temp file, fsync, rename): a crash leaves the old
        turn or the new one, never neither. The summary stays. `replaces`, when given,
        is the uuid of the user message expected last; if the session has moved on,
        `SessionChangedError` is raised and nothing is written. A session with no user
        message gets the turn appended.
        """
        pair = (self._stamp(Message("user", user)), self._stamp(Message("assistant", assistant)))

        def keep(messages: list[Message]) -> int:
            at = _before_last_user(messages)
            found = messages[at].uuid if at < len(messages) else None
            if replaces is not None and found != replaces:
                raise SessionChangedError(
                    f"session {session_id} changed since its last turn was read; nothing written"
                )
            return at

        self._rewrite(session_id, keep=keep, keep_summary=True, added=pair)
        return pair


def _before_last_user(messages: list[Message]) -> int:
    """The index of the last user message (how many to keep), or all when there is none."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    return users[-1] if users else len(messages)


def _decoded(line: bytes) -> dict[str, Any] | None:
    """The record on `line`, or None when it is damaged (its pointer is then unknown)."""
    try:
        return loads(line)
    except ValueError:
        return None
