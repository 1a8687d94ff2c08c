"""SessionStore: durable per-session history in append-only JSON Lines files."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import replace
from datetime import datetime
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from zerda._paths import (
    SESSION_ID,
    SUFFIX,
    default_home,
    private_dir,
    refuse_symlinks,
    validate_session_id,
)
from zerda.errors import (
    CorruptSessionError,
    InvalidArgumentError,
    NotFoundError,
    SessionChangedError,
    StoreError,
    ZerdaWarning,
)
from zerda.messages import Memory, Message, Session, Summary, parse_time, utc_now
from zerda.store._sources import ListSource, MessageSource, UuidSet
from zerda.store._stats import SessionStats, collect_stats, stats_from_tally, tally_of
from zerda.store._tally import TALLY, Tally
from zerda.store.base import Store, last_wins, merged_metadata
from zerda.store.files._heads import head_messages
from zerda.store.files._reader import RecordReader, newest_first, with_token_counts
from zerda.store.files._records import (
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
    render_stream,
    session_from,
    summary_from,
    summary_record,
)
from zerda.store.files._rewrites import Merge, SessionMessages, last_ask, uuids_held
from zerda.store.files._sessionfile import SessionFile
from zerda.store.files._trusted import trusted_tally
from zerda.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:  # what only listing, search and doctor need loads with them
    from zerda.store._checks import Finding, Repair
    from zerda.store._matching import Filters, Matcher, Query
    from zerda.store._overview import SessionOverview
    from zerda.store._ranking import Corpus
    from zerda.store.files._catalog import Catalog

INDEX_FROM = 64  # sessions from which listings and searches use the archive index
NO_POINTERS: dict[str, int | None] = {field: None for field in POINTERS.values()}


class FileStore(Store):
    """Sessions on disk under `<home>/sessions/<id>.jsonl`, created on first write.

    `fsync=False` trades durability against power loss for speed (a killed
    process never loses an acknowledged write either way). `count_on_write=False`
    stores messages without token counts; the first reader counts and records them.
    `lenient=True` skips damaged lines with a warning instead of raising.
    `extract_entities=False` stores messages and summaries without their entities
    (bulk imports: `zerda.entities.fill` finds them later).
    """

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        fsync: bool = True,
        lenient: bool = False,
        encoding: str = DEFAULT_ENCODING,
        count_on_write: bool = True,
        extract_entities: bool = True,
        use_index: bool = True,
        index_from: int = INDEX_FROM,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.use_index = use_index
        self.index_from = index_from
        # Called with (sessions read, sessions to read) while the archive index is
        # brought up to date (a progress line, say); None: quietly.
        self.index_progress: Callable[[int, int], None] | None = None
        # Seconds after a check of the archive index against the files in which it is
        # trusted without another (0: checked at every use; the browser sets a little).
        self.index_recheck_after = 0.0
        self._index_checked = float("-inf")
        self.sessions_dir = self.home / "sessions"
        self.fsync = fsync
        self.lenient = lenient
        self.encoding = encoding
        self.count_on_write = count_on_write
        self.extract_entities = extract_entities

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
        self._append_stream(session_id, records, header)

    def _append_stream(
        self,
        session_id: str,
        records: Iterable[dict[str, Any]],
        header: dict[str, Any] | None = None,
    ) -> None:
        """Append `records`, encoded as they come, in one locked write (see
        `SessionFile.append`); a new file gets `header` (a bare one by default) first."""
        header = header or header_record(Session(id=session_id), self.encoding)
        file = self._writable(session_id)

        def render_after(size: int, last_line: bytes | None) -> Iterator[bytes]:
            if last_line is None:
                return render_stream(chain([header], records), 0, NO_POINTERS, Tally())
            last = _decoded(last_line)
            if last is None:
                return render_stream(records, size, {}, None)
            pointers = pointers_of(last, size - len(last_line))
            tally = _carried_tally(file, last, last_line, size)
            return render_stream(records, size, pointers, tally)

        with file.locked():
            file.append(render_after)

    # -- sessions ----------------------------------------------------------------

    def exists(self, session_id: str) -> bool:
        """True when the session has a file."""
        return self._file(session_id).exists()

    def describe(self, session_id: str) -> str:
        """The session's file."""
        return str(self._file(session_id).path)

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
        metadata = merged_metadata({}, metadata or {})
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
                "metadata": merged_metadata(current.metadata, metadata or {}),
            }
            self._append(session_id, [update])
        return self.get_session(session_id)

    def get_session(self, session_id: str) -> Session:
        """The session's id, user, metadata and creation time.

        Reads the header and the latest update the last record points to; files
        written before that pointer are scanned. The id is the file's name (a renamed
        session's header keeps its old id until the file is next rewritten).
        """
        reader = self._reader(self._existing(session_id))
        header = reader.record_at(0, HEADER)
        if header is None:
            header = header_record(Session(id=session_id), self.encoding)
        header = {**header, "id": session_id}
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

    def delete_session_if_empty(self, session_id: str) -> bool:
        """Remove the session's file if it holds no message and no summary, checked
        under its lock (no writer slips one in between); True when it was removed."""
        if not self.exists(session_id):
            return False
        file = self._existing(session_id)
        with file.locked():
            if not file.exists() or self.message_count(session_id):
                return False
            if self.get_summary(session_id) is not None:
                return False
            file.remove()
        return True

    def delete_session_if_inactive(self, session_id: str, cutoff: datetime) -> bool:
        """Remove the session's file if it was last active before `cutoff` (see
        `Store.delete_session_if_inactive`), checked under its lock (no writer slips a
        message in between); True when it was removed."""
        if not self.exists(session_id):
            return False
        file = self._existing(session_id)
        with file.locked():
            if not file.exists() or self._active_since(session_id, cutoff):
                return False
            file.remove()
        return True

    def rename_session(self, old: str, new: str) -> None:
        """Rename the session's file (and side files) with one rename(2) under both
        sessions' locks: whatever its size, and damaged lines and all.

        See `Store.rename_session` and `zerda.store.files._moving`. The header keeps the
        old id until the file is next rewritten; nothing reads it (the id is the file's
        name).
        """
        from zerda.store.files._moving import both_locked, move_session

        source, target = self._existing(old), self._writable(new)
        with both_locked(source, target):
            move_session(source, target)

    def list_overviews(self) -> list[SessionOverview]:
        """Stats, title, creation time and opening words of every readable session,
        most recently active first: per session its last line (totals), header and
        latest update, and its first lines up to the first message that asks.

        One deleted since it was listed is left out; one that cannot be read is left
        out with a warning naming it.
        """
        catalog = self.catalog()
        if catalog is not None:
            try:
                self._refreshed(catalog)
                return catalog.overviews()
            except (StoreError, OSError) as exc:
                _index_failed(exc)
        found = []
        for session_id in self.session_ids():
            try:
                found.append(self._overview(session_id))
            except NotFoundError:
                continue
            except StoreError as exc:
                warnings.warn(f"skipped session {session_id}: {exc}", ZerdaWarning, stacklevel=2)
        return sorted(found, key=lambda o: o.stats.last_activity or "", reverse=True)

    def overviews(
        self,
        sort: str = "activity",
        reverse: bool = False,
        limit: int | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SessionOverview]:
        """`Store.overviews`, answered from the archive index (checked against the files
        first) when this Python's SQLite has one to offer; should the index fail (a disk
        error, a lock held too long), from the files, with a warning."""
        from zerda.store._overview import check_listing

        check_listing(sort, limit, since, until)
        catalog = self.catalog()
        if catalog is not None:
            try:
                self._refreshed(catalog)
                return catalog.overviews(sort, reverse, limit, since, until)
            except (StoreError, OSError) as exc:
                _index_failed(exc)
        return super().overviews(sort, reverse, limit, since, until)

    def catalog(self) -> Catalog | None:
        """The archive index of this store (`zerda.store.files._catalog`), or None when
        none is used: a store of fewer than `index_from` sessions (reading their files
        costs less than opening the index), SQLite without FTS5's trigram tokenizer, or a
        lenient store (which reads damaged sessions the index leaves out)."""
        if self.lenient or not self.use_index or not self._holds_at_least(self.index_from):
            return None
        from zerda.store.files import _catalog as catalog

        return catalog.Catalog(self) if catalog.available() else None

    def _holds_at_least(self, count: int) -> bool:
        """Whether the sessions directory holds `count` session files (or more)."""
        if count <= 0:
            return True
        try:
            with os.scandir(self.sessions_dir) as entries:
                found = 0
                for entry in entries:
                    found += entry.name.endswith(SUFFIX)
                    if found >= count:
                        return True
        except FileNotFoundError:
            return False
        return False

    def mark_index_stale(self) -> None:
        """Check the archive index against the files at its next use, whatever
        `index_recheck_after` says (after a write of one's own, say)."""
        self._index_checked = float("-inf")

    def _refreshed(self, catalog: Catalog) -> None:
        """Check the archive index against the files, unless that was done within
        `index_recheck_after` seconds."""
        import time

        now = time.monotonic()
        if now - self._index_checked >= self.index_recheck_after:
            catalog.refresh()
            self._index_checked = time.monotonic()

    def _overview(self, session_id: str) -> SessionOverview:
        from zerda.store._overview import OPENING_MESSAGES, SessionOverview, opening_of, title_of

        stats = self.session_stats(session_id)
        session = self.get_session(session_id)
        # The header, then messages: a few records more than the messages looked at.
        head = head_messages(self._reader(self._existing(session_id)), OPENING_MESSAGES + 4)
        opening = opening_of(head)
        return SessionOverview(stats, title_of(session.metadata), session.created_at, opening)

    # -- writing messages ----------------------------------------------------------

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Add the messages (and summary) in one write; returns the messages as stored.

        The session is created on first write. A message whose uuid the session
        already holds replaces that message in place (role, content, metadata and
        extra; its time is kept unless given), as Zep upserts: the file is then
        rewritten (temp file, fsync, rename), streamed. Within one call the last of a
        uuid wins.
        """
        batch = last_wins(memory.messages)
        given = {m.uuid.encode() for m in batch if m.uuid}
        summary = self._stamp_summary(memory.summary)
        file = self._writable(session_id)
        with file.locked():
            held = uuids_held(file, given.__contains__) if given and file.exists() else UuidSet()
            if held:
                return self._upsert(session_id, batch, held, summary)
            stored = [self._stamp(m) for m in batch]
            records = [message_record(m) for m in stored]
            records += [summary_record(summary)] if summary else []
            self._append(session_id, records)
        return stored

    def import_messages(
        self, session_id: str, source: MessageSource, summary: Summary | str | None = None
    ) -> int:
        """Add every message of `source` (and a summary) in one write; returns how many.

        For bulk imports: memory stays flat however many there are, since `source` is
        read as the write goes (and read again, not held, where needed). As with
        `add_memory`, the session is created on first write, a message whose uuid the
        session holds replaces it in place (one streamed rewrite), and a uuid carried
        by several messages is stored once, at its first place with its last value.
        Otherwise the messages are one append: a killed import leaves none of them.
        """
        stamped = self._stamp_summary(summary)
        file = self._writable(session_id)
        with file.locked():
            wanted = source.holds_uuids and file.exists()
            held = uuids_held(file, source.may_hold) if wanted else UuidSet()
            return self._merged_in(session_id, source, held, stamped)

    def _merged_in(
        self,
        session_id: str,
        source: MessageSource,
        held: UuidSet,
        summary: Summary | None,
        stored: Callable[[int, Message], None] | None = None,
    ) -> int:
        """Write `source` into the session (under its lock): a streamed rewrite when it
        replaces messages the session holds (`held`: uuids it may replace), else an append."""
        latest = source.latest(held)
        merge = Merge(source, latest, self._stamp, self._revised, stored)
        if any(uuid.encode() in held for uuid in latest):
            self._rewrite(session_id, merge.into, summary)
        else:
            messages = (message_record(m) for m in merge.rest())
            self._append_stream(session_id, chain(messages, _summary_records(summary)))
        return merge.count

    def _upsert(
        self, session_id: str, batch: list[Message], held: UuidSet, summary: Summary | None
    ) -> list[Message]:
        """Rewrite the session with `batch` replacing the messages of the same uuid."""
        check_storable([message_record(m) for m in batch])
        stored: dict[int, Message] = {}
        self._merged_in(session_id, ListSource(batch), held, summary, stored.__setitem__)
        return [stored[i] for i in range(len(batch))]

    def _revised(self, old: Message, new: Message) -> Message:
        """`new` in place of `old`: old's time unless new has one, counted now."""
        new = self._with_entities(new)
        count = new.token_count
        if count is None:
            count = count_tokens(new.content, self.encoding)
        return replace(new, created_at=new.created_at or old.created_at, token_count=count)

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
        count them twice. A lenient store never writes on a read: the file may be
        damaged, and what is damaged stays as it is for `repair` to save aside.
        """
        if self.lenient:
            return
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
        return newest_first(self._reader(self._existing(session_id)).backward())

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

    def search(
        self,
        query: Query,
        session_id: str | None = None,
        *,
        roles: Collection[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[tuple[str, Message]]:
        """(session id, message) for each message `query` finds, newest first (see
        `Store.search`).

        Each session whose times are in order (its totals say) is read from its end;
        sessions are merged by time and opened only when their newest message could come
        next, so a limit stops the read early. A session whose times are not in order is
        read through and its hits sorted (the newest `limit` kept in a bounded heap).
        Over all sessions, one deleted since it was listed is passed over; a session
        asked for by name must exist.
        """
        from zerda.store._matching import Filters, Matcher, check_limit
        from zerda.store._matching import newest_first as newest_hits

        check_limit(limit)
        matcher, filters = Matcher(query), Filters.of(roles, since, until)
        if session_id:
            hits = self._search_in(session_id, matcher, filters, limit)
        else:
            newest = ((sid, self._newest_time(sid)) for sid in self._may_hold(matcher))
            hits = newest_hits(
                newest, lambda sid: self._search_listed(sid, matcher, filters, limit)
            )
        return islice(hits, limit)

    def _may_hold(self, matcher: Matcher) -> list[str]:
        """The sessions a search must read: those the archive index says may hold the
        text (it is checked against the files first), else every one."""
        texts = [text for term in matcher.needles for text in term]
        catalog = self.catalog() if texts else None
        if catalog is None:
            return self.session_ids()
        try:
            self._refreshed(catalog)
            found = catalog.candidates(texts)
        except (StoreError, OSError) as exc:
            _index_failed(exc)
            found = None
        if found is None:
            return self.session_ids()
        return sorted(sid for sid in found if self.exists(sid))

    def ranked(
        self,
        query: Query,
        session_id: str | None = None,
        *,
        roles: Collection[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[tuple[str, Message, float]]:
        """`Store.ranked`, the archive index checked against the files once for both the
        search and the statistics ranking takes from it."""
        saved = self.index_recheck_after
        self.mark_index_stale()
        self.index_recheck_after = float("inf")
        try:
            return super().ranked(
                query, session_id, roles=roles, since=since, until=until, limit=limit
            )
        finally:
            self.index_recheck_after = saved

    def corpus(self, terms: Sequence[Sequence[str]]) -> Corpus:
        """What ranking needs of the store (see `Store.corpus`), from the archive index
        when there is one (checked against the files first), else read from the files."""
        catalog = self.catalog()
        if catalog is not None:
            try:
                self._refreshed(catalog)
                return catalog.corpus(terms)
            except (StoreError, OSError) as exc:
                _index_failed(exc)
        return super().corpus(terms)

    def _newest_time(self, session_id: str) -> float | None:
        """The time of the session's newest message (a timestamp), from its totals: that
        of the last one added when the times are in order, else None (unknown)."""
        try:
            tally = self._last_tally(session_id)
        except (NotFoundError, StoreError):
            return None
        if tally is None or not tally.ordered or tally.last is None:
            return None
        return parse_time(tally.last).timestamp()

    def _search_listed(
        self, session_id: str, matcher: Matcher, filters: Filters, limit: int | None
    ) -> Iterator[tuple[str, Message]]:
        """`_search_in`, ended quietly should the session be deleted since it was listed."""
        try:
            yield from self._search_in(session_id, matcher, filters, limit)
        except NotFoundError:
            return

    def _search_in(
        self, session_id: str, matcher: Matcher, filters: Filters, limit: int | None
    ) -> Iterator[tuple[str, Message]]:
        """The session's hits newest first: read from the end of the file, stopping early,
        when its times are in order (the common case); sorted (the newest `limit`, or all)
        when its running totals say they are not. A file whose totals do not say (written
        by hand, or before they kept it) is taken in the order it was written, so memory
        stays flat."""
        from zerda.store.files._search import by_time, search_messages

        tally = self._last_tally(session_id)
        found: Iterable[Message] = search_messages(
            self._reader(self._existing(session_id)), matcher, filters
        )
        if tally is not None and tally.ordered is False:
            found = by_time(iter(found), limit)
        for message in found:
            if message.token_count is None:
                message = self._counted([message])[0]
            yield session_id, message

    # -- checking --------------------------------------------------------------------

    def check(self, session_id: str | None = None) -> list[Finding]:
        """Damaged and torn lines, missing, unsealed or wrong running totals, unfinished
        writes, modes other than 0600, hard links, stray temp and lock files; see
        `zerda.store.files._doctor`."""
        from zerda.store.files import _doctor as doctor

        return doctor.check(self, session_id)

    def repair(self, session_id: str | None = None) -> Repair:
        """Save damaged lines aside and rewrite the session with sealed totals, remove
        stray files no process holds; see `zerda.store.files._doctor`."""
        from zerda.store.files import _doctor as doctor

        return doctor.repair(self, session_id)

    # -- rewriting -----------------------------------------------------------------

    def _rewrite(
        self,
        session_id: str,
        edit: Callable[[SessionMessages], Iterable[Message]],
        summary: Summary | None = None,
    ) -> SessionMessages:
        """Rewrite the file compacted: header with the latest facts, messages, summary.

        Streamed: the session is read once as the new file is written. The messages
        are `edit(messages)`, `messages` streaming the session's (see
        `SessionMessages`, returned); `edit` is called under the lock before anything
        is written, so a concurrent writer's turn is never dropped by mistake, and may
        raise to leave the file as it is. The summary is `summary` if given, else the
        session's latest.
        """
        file = self._existing(session_id)
        with file.locked():
            session = self.get_session(session_id)
            summary = summary or self.get_summary(session_id)
            # Counts still missing are counted as messages pass: the rewrite stores them.
            messages = self._session_messages(file, self._count)
            records = chain(
                [header_record(session, self.encoding)],
                (message_record(m) for m in edit(messages)),
                _summary_records(summary),
            )
            file.rewrite(render_stream(records, 0, NO_POINTERS, Tally()))
        return messages

    def _session_messages(self, file: SessionFile, count: Callable[[str], int]) -> SessionMessages:
        return SessionMessages(file, lenient=self.lenient, count=count)

    def _count(self, text: str) -> int:
        return count_tokens(text, self.encoding)

    def clear(self, session_id: str) -> None:
        """Empty the session (messages and summary); the session and its metadata stay."""
        file = self._existing(session_id)
        with file.locked():
            session = self.get_session(session_id)
            # Read through, counting nothing: a damaged line is reported (or, lenient,
            # saved aside), never lost unseen.
            for _ in self._session_messages(file, lambda text: 0):
                pass
            header = header_record(session, self.encoding)
            file.rewrite(render_stream([header], 0, NO_POINTERS, Tally()))

    def replace_messages(self, session_id: str, messages: list[Message]) -> None:
        """Make the session's messages exactly `messages` (see `Store.replace_messages`) in
        one streamed rewrite (temp file, fsync, rename)."""
        stored = [self._stamp(m) for m in last_wins(messages)]
        check_storable([message_record(m) for m in stored])

        def edit(held: SessionMessages) -> Iterable[Message]:
            for _ in held:  # read through: a damaged line is reported (or saved aside)
                pass
            return stored

        self._rewrite(session_id, edit)

    def fill_entities(self, session_id: str, *, again: bool = False) -> int:
        """Store the entities of messages and the summary held without them (every one
        with `again`; see `Store.fill_entities`): one streamed rewrite under the lock,
        when any message lacks them, then the summary."""
        from zerda.entities import stored_entities

        filled = 0

        def edit(held: SessionMessages) -> Iterator[Message]:
            nonlocal filled
            for message in held:
                if again or message.entities is None:
                    filled += 1
                    message = replace(message, entities=stored_entities(message.content))
                yield message

        if again or any(m.entities is None for m in self.iter_messages(session_id)):
            self._rewrite(session_id, edit)
        file = self._existing(session_id)
        with file.locked():
            summary = self.get_summary(session_id)
            if summary is not None and (again or summary.entities is None):
                found = replace(summary, entities=stored_entities(summary.content))
                self._append(session_id, [summary_record(found)])
        return filled

    def compact(self, session_id: str) -> None:
        """Fold updates, token records and old summaries into a fresh file."""
        self._rewrite(session_id, lambda messages: messages)

    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last turn: the last message that asks (a user, or a speaker of no
        known type; see `Message.part`) and everything after it. Returns what was removed.

        The summary stays. A session where no message asks keeps all its messages.
        """

        def edit(messages: SessionMessages) -> Iterable[Message]:
            last = last_ask(messages.file, lenient=self.lenient)
            messages.cut = None if last is None else last[0]
            return messages

        return self._rewrite(session_id, edit).left_out

    def replace_last_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        *,
        replaces: str | None = None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> tuple[Message, Message]:
        """Swap the last turn (as `delete_last_turn` finds it) for a new one.

        One streamed rewrite under the lock (temp file, fsync, rename): a crash leaves
        the old turn or the new one, never neither. The summary stays. `replaces`, when
        given, is the uuid of the message expected to open the last turn; if the session
        has moved on, `SessionChangedError` is raised and nothing is written. A session
        where no message asks gets the turn appended. `reply_metadata` is the new
        reply's metadata.
        """
        reply = Message("assistant", assistant, dict(reply_metadata or {}))
        pair = (self._stamp(Message("user", user)), self._stamp(reply))
        check_storable([message_record(m) for m in pair])

        def edit(messages: SessionMessages) -> Iterable[Message]:
            last = last_ask(messages.file, lenient=self.lenient)
            if replaces is not None and (last is None or last[1] != replaces):
                raise SessionChangedError(
                    f"session {session_id} changed since its last turn was read; nothing written"
                )
            messages.cut = None if last is None else last[0]
            return chain(messages, pair)

        self._rewrite(session_id, edit)
        return pair


def _summary_records(summary: Summary | None) -> list[dict[str, Any]]:
    return [summary_record(summary)] if summary is not None else []


def _carried_tally(
    file: SessionFile, last: dict[str, Any], last_line: bytes, size: int
) -> Tally | None:
    """The running totals a write carries on: the last record's, when they can be trusted.

    Totals that cannot be (the file was edited by hand), or that do not say whether the
    times are in order (written before that was kept), are counted afresh from the file,
    once: this write then carries good ones. A file without totals stays so (appends stay
    O(1)) until a rewrite, and one with a damaged line gets none, so readers report it.
    """
    if TALLY not in last:
        return None
    tally = trusted_tally(last_line[:-1], size - len(last_line))
    return tally if tally is not None and tally.ordered is not None else _recounted(file)


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


def _index_failed(exc: StoreError | OSError) -> None:
    """Say that the archive index could not be used (the files answer instead)."""
    warnings.warn(f"{exc}; reading the session files instead", ZerdaWarning, stacklevel=3)


SessionStore = FileStore  # the file store's first name, kept
