"""The file store's archive index: a catalog of sessions and a trigram index of their
messages' text, in one SQLite file beside the sessions (`<home>/index.sqlite3`, 0600).

Derived, never the truth. Before each use it is checked against the session files, one
`stat` each (inode, size, modification time): a session written since, by any process or
version, is read again (only its new lines when it grew by appending, the whole file
when it was rewritten), one deleted is dropped. The session files are never read to
answer from the index alone: a listing's rows are the overviews the store gathered from
the files when they last changed, and a search takes from the index only which sessions
may hold the text (every trigram of the casefolded query is in the casefolded text of
one of their messages), then reads those sessions to match exactly. Deleting the file
loses nothing: the next command builds it again. A damaged session is never indexed: a
listing warns about it and a search reads it, as without an index.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import pickle
import sqlite3
import stat
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zerda._paths import SESSION_ID, SUFFIX
from zerda.errors import NotFoundError, StoreError
from zerda.store._ranking import Corpus
from zerda.store.files._records import MESSAGE, loads

if TYPE_CHECKING:
    from zerda.store._overview import SessionOverview
    from zerda.store.files._store import SessionStore

NAME = "index.sqlite3"
VERSION = "5"
TAIL = 64  # bytes before the indexed end kept to tell an append from a rewrite
GRAM = 3  # the trigram tokenizer's length: shorter queries cannot use the index
BATCH = 256  # sessions indexed in one transaction
BLOCK = 1 << 20  # bytes of a session file read at once
COMPRESSION = 6  # zlib level of the kept texts (the trigram index's deletes need them)
MAX_GRAMS = 32  # trigrams of a query asked for at most (fewer only widen the candidates)
Progress = Callable[[int, int], None]
TABLES = ("meta", "sessions", "texts", "owners", "grams")
SORTED = ("last_activity", "created_ts", "messages", "tokens")  # what listings sort by
SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE sessions(id TEXT PRIMARY KEY, ino INTEGER, size INTEGER, mtime_ns INTEGER,"
    " indexed_to INTEGER, tail BLOB, damage TEXT, encoding TEXT, overview TEXT,"
    " last_activity TEXT, last_ts REAL, created_ts REAL, messages INTEGER, tokens INTEGER,"
    " text_bytes INTEGER)",
    "CREATE TABLE texts(session TEXT, first INTEGER, count INTEGER, packed BLOB)",
    "CREATE INDEX texts_by_session ON texts(session)",
    "CREATE TABLE owners(rowid INTEGER PRIMARY KEY, session TEXT)",
    *(f"CREATE INDEX sessions_by_{key} ON sessions({key} DESC, id)" for key in SORTED),
    "CREATE VIRTUAL TABLE grams USING fts5(folded, content='', columnsize=0,"
    " tokenize='trigram case_sensitive 1', detail=none)",
)
# ORDER BY of each `zerda sessions --sort` key, largest (newest) first; ties by name.
ORDERS = {
    "activity": "last_activity",
    "created": "created_ts",
    "messages": "messages",
    "tokens": "tokens",
    "name": "id",
}


@dataclass(frozen=True)
class Freshness:
    """What a check of the index against the session files found and did."""

    sessions: int  # session files now in the index (damaged ones included)
    refreshed: int  # read again (new, appended to or rewritten)
    dropped: int  # gone from disk, dropped from the index
    damaged: int  # sessions that could not be read: never indexed

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@functools.cache
def available() -> bool:
    """Whether this Python's SQLite has FTS5 with the trigram tokenizer (3.34 and later;
    asked of its compile options, which costs less than making a table)."""
    if sqlite3.sqlite_version_info < (3, 34, 0):
        return False
    with closing(sqlite3.connect(":memory:")) as db:
        options = {row[0] for row in db.execute("PRAGMA compile_options")}
    return "ENABLE_FTS5" in options


class Files:
    """The session files as one check found them: each name the directory lists with its
    `lstat` (None when it went meanwhile), and `digest`, a hash of them all in the order
    listed, which any write to a file (a new size or time), a new, removed or renamed
    file changes (two files trading names too). When it is the one stored after the last
    check, no file changed and no row is read."""

    def __init__(self, names: list[str], stats: list[os.stat_result | None]) -> None:
        self.names, self.stats = names, stats
        fields = [None if s is None else (s.st_ino, s.st_size, s.st_mtime_ns) for s in stats]
        digest = hashlib.blake2b("\0".join(names).encode("utf-8", "surrogateescape"))
        digest.update(pickle.dumps(fields, protocol=5))
        self.digest = f"{len(names)}:{digest.hexdigest()}"

    def sessions(self) -> dict[str, tuple[int, int, int]]:
        """(inode, size, modification time) by session id, of each file with content."""
        found = {}
        for name, info in zip(self.names, self.stats, strict=True):
            if (
                info is not None
                and info.st_size
                and SESSION_ID.fullmatch(sid := name[: -len(SUFFIX)])
            ):
                found[sid] = (info.st_ino, info.st_size, info.st_mtime_ns)
        return found


def _lstat(name: str, fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


class Catalog:
    """The archive index of one file store (see the module docstring)."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.path = store.home / NAME
        self.incomplete = False

    # -- the database -------------------------------------------------------------------

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection to the index (see `_open`); its failures are StoreError."""
        try:
            db = self._open()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: the archive index cannot be used: {exc}") from exc
        try:
            yield db
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: the archive index cannot be used: {exc}") from exc
        finally:
            db.close()

    def _open(self) -> sqlite3.Connection:
        """A connection to the index, made (0600, with this version's schema) if need be;
        a file that is not a database, or a damaged one, is made again."""
        try:
            return self._connect()
        except sqlite3.OperationalError:
            raise  # busy, or the disk: the file itself is fine
        except sqlite3.DatabaseError:
            self._remove()
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        from zerda._paths import private_dir

        private_dir(self.store.home)
        with suppress(FileExistsError):
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if _version(db) != VERSION:
                with _transaction(db):  # another version's tables: made again, in place
                    if _version(db) != VERSION:
                        for table in TABLES:
                            db.execute(f"DROP TABLE IF EXISTS {table}")
                        for statement in SCHEMA:
                            db.execute(statement)
                        db.execute("INSERT INTO meta VALUES('version', ?)", (VERSION,))
            return db
        except BaseException:
            db.close()
            raise

    def _remove(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    # -- keeping it true ----------------------------------------------------------------

    def refresh(self, progress: Progress | None = None) -> Freshness:
        """Bring the index up to date with the session files (see the module docstring)."""
        progress = progress or self.store.index_progress
        try:
            files = self._files()
        except OSError as exc:
            raise StoreError(f"{self.store.sessions_dir}: {exc.strerror or exc}") from exc
        self.incomplete = False  # a file could not be read this time: no digest is kept
        with self._db() as db:
            encoding = self.store.encoding
            state = f"{encoding} {files.digest}"
            db.execute("BEGIN")  # one snapshot: the digest, the rows and the generation
            held = db.execute("SELECT value FROM meta WHERE key='files'").fetchone()
            if held is not None and held[0] == state:
                db.execute("COMMIT")
                return self._unchanged(db)
            known = {row[0]: row[1:] for row in db.execute(
                "SELECT id, ino, size, mtime_ns, coalesce(encoding, ?) FROM sessions", (encoding,)
            )}  # fmt: skip
            generation = _generation(db)
            db.execute("COMMIT")
            on_disk = files.sessions()
            stale = [
                sid
                for sid, seen in on_disk.items()
                if known.get(sid, (None,) * 4)[:3] != seen or known[sid][3] != encoding
            ]
            gone = [sid for sid in known if sid not in on_disk]
            ours = 1
            with _transaction(db):
                for sid in gone:
                    self._forget(db, sid)
            for first in range(0, len(stale), BATCH):
                with _transaction(db):  # one commit a batch: a killed build keeps whole ones
                    for sid in stale[first : first + BATCH]:
                        self._reindex(db, sid)
                ours += 1
                if progress is not None:
                    progress(min(first + BATCH, len(stale)), len(stale))
            with _transaction(db):  # what the files were when the index last matched them,
                # kept only when no other process changed the index meanwhile
                if _generation(db) == generation + ours and not self.incomplete:
                    db.execute("INSERT OR REPLACE INTO meta VALUES('files', ?)", (state,))
                else:
                    db.execute("DELETE FROM meta WHERE key='files'")
            if not known and stale:
                _compacted(db)  # built from nothing: give back the pages building freed
            return self._unchanged(db, len(stale), len(gone), len(on_disk))

    def _unchanged(
        self,
        db: sqlite3.Connection,
        refreshed: int = 0,
        dropped: int = 0,
        sessions: int | None = None,
    ) -> Freshness:
        """What a check found: `sessions` files (when not given, none changed since the
        last complete check, so the index holds one row a file)."""
        if sessions is None:
            sessions = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
        damaged = db.execute("SELECT count(*) FROM sessions WHERE damage IS NOT NULL")
        return Freshness(sessions, refreshed, dropped, damaged.fetchone()[0])

    def _files(self) -> Files:
        """Each session file's (inode, size, modification time), as one `lstat` each of
        the names the directory lists (see `Files`)."""
        try:
            fd = os.open(self.store.sessions_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            return Files([], [])
        try:
            names = [name for name in os.listdir(fd) if name.endswith(SUFFIX)]
            try:  # one call a file where none goes meanwhile (as good as always)
                lstat = os.lstat
                return Files(names, [lstat(name, dir_fd=fd) for name in names])
            except FileNotFoundError:
                return Files(names, [_lstat(name, fd) for name in names])
        finally:
            os.close(fd)

    def _reindex(self, db: sqlite3.Connection, sid: str) -> None:
        """Read the session again, only its new lines when it grew by appending; nothing
        when another process brought it up to date meanwhile. A path that is not a
        regular file, or cannot be read, is recorded as damaged."""
        path = self.store.sessions_dir / f"{sid}{SUFFIX}"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            self._forget(db, sid)
            return
        except OSError as exc:
            if exc.errno != errno.ELOOP:  # unreadable now (access, too many files): next time
                self._forget(db, sid)
                self.incomplete = True
                return
            with suppress(FileNotFoundError):
                self._damaged(db, sid, os.lstat(path), "is a symbolic link")
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self._damaged(db, sid, info, "is not a regular file")
                return
            seen = (info.st_ino, info.st_size, info.st_mtime_ns)
            row = db.execute(
                "SELECT ino, indexed_to, tail, damage, size, mtime_ns, encoding"
                " FROM sessions WHERE id=?",
                (sid,),
            ).fetchone()
            if (
                row is not None
                and (row[0], row[4], row[5]) == seen
                and (row[3] is not None or row[6] == self.store.encoding)
            ):
                return  # done by another process since this one looked
            start = _appended_from(row, seen, fd)
            if start == 0:
                self._forget(db, sid)
            self._record(db, sid, seen, fd, start)
        finally:
            os.close(fd)

    def _damaged(self, db: sqlite3.Connection, sid: str, info: os.stat_result, why: str) -> None:
        self._forget(db, sid)
        seen = (info.st_ino, info.st_size, info.st_mtime_ns)
        self._write_row(db, sid, seen, 0, b"", why, None, 0)

    def _record(
        self, db: sqlite3.Connection, sid: str, seen: tuple[int, int, int], fd: int, start: int
    ) -> None:
        """Index the message lines of the file from `start`, and the session's overview."""
        damage, overview, added, end = None, None, 0, start
        try:
            for block in _blocks(fd, start, seen[1]):
                added += self._index_lines(db, sid, block)
                end += len(block)
            overview = self.store._overview(sid)
        except NotFoundError:
            self._forget(db, sid)
            return
        except OSError:  # a read error, perhaps passing: not recorded as damage
            self._forget(db, sid)
            self.incomplete = True
            return
        except (StoreError, ValueError) as exc:
            damage = str(exc)
        if damage is not None:
            self._damaged(db, sid, os.fstat(fd), damage)
            return
        before = db.execute("SELECT text_bytes FROM sessions WHERE id=?", (sid,)).fetchone()
        text_bytes = (before[0] if before and start else 0) + added
        tail = os.pread(fd, min(TAIL, end), max(0, end - TAIL))
        self._write_row(db, sid, seen, end, tail, None, overview, text_bytes)

    def _write_row(
        self,
        db: sqlite3.Connection,
        sid: str,
        seen: tuple[int, int, int],
        end: int,
        tail: bytes,
        damage: str | None,
        overview: SessionOverview | None,
        text_bytes: int,
    ) -> None:
        encoding = None if damage is not None else self.store.encoding
        db.execute(
            "INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (sid, *seen, end, tail, damage, encoding, *_columns(overview), text_bytes),
        )

    def _index_lines(self, db: sqlite3.Connection, sid: str, lines: bytes) -> int:
        """Add the text of each message line; the bytes of text added."""
        added, folded = 0, []
        for line in lines.split(b"\n"):
            if b'"message"' not in line and b"\\u" not in line:  # the type may be escaped
                continue
            record = loads(line)
            if record.get("type") != MESSAGE or not isinstance(record.get("content"), str):
                continue
            folded.append(_encodable(record["content"].casefold()))
            added += len(record["content"].encode("utf-8", "surrogatepass"))
        if not folded:
            return 0
        first = db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM owners").fetchone()[0]
        rowids = range(first, first + len(folded))
        packed = zlib.compress(json.dumps(folded, ensure_ascii=False).encode("utf-8"), COMPRESSION)
        db.execute("INSERT INTO texts VALUES (?, ?, ?, ?)", (sid, first, len(folded), packed))
        db.executemany("INSERT INTO owners VALUES (?, ?)", ((rowid, sid) for rowid in rowids))
        pairs = zip(rowids, folded, strict=True)
        db.executemany("INSERT INTO grams(rowid, folded) VALUES (?, ?)", pairs)
        return added

    def _forget(self, db: sqlite3.Connection, sid: str) -> None:
        """Drop the session's texts (from the trigram index too) and its row."""
        runs = db.execute("SELECT first, count, packed FROM texts WHERE session=?", (sid,))
        for first, count, packed in runs.fetchall():
            folded = json.loads(zlib.decompress(packed))
            db.executemany(
                "INSERT INTO grams(grams, rowid, folded) VALUES('delete', ?, ?)",
                zip(range(first, first + count), folded, strict=True),
            )
            db.execute("DELETE FROM owners WHERE rowid >= ? AND rowid < ?", (first, first + count))
        db.execute("DELETE FROM texts WHERE session=?", (sid,))
        db.execute("DELETE FROM sessions WHERE id=?", (sid,))

    def rebuild(self, progress: Progress | None = None) -> Freshness:
        """Empty the index and build it again from the session files (in place, so other
        processes using it meanwhile see an index being built, never a missing one)."""
        self.clear()
        return self.refresh(progress)

    def clear(self) -> None:
        """Empty the index (the next use builds it again)."""
        with self._db() as db:
            with _transaction(db):
                for table in ("sessions", "texts", "owners"):
                    db.execute(f"DELETE FROM {table}")
                db.execute("DELETE FROM meta WHERE key='files'")
                db.execute("INSERT INTO grams(grams) VALUES('delete-all')")
            db.execute("VACUUM")

    # -- answering ----------------------------------------------------------------------

    def overviews(
        self,
        sort: str = "activity",
        reverse: bool = False,
        limit: int | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SessionOverview]:
        """The sessions' overviews in `sort`'s order (see `ORDERS`), last active in
        [since, until) if either is given, at most `limit`; a damaged session is left out
        with a warning, as `SessionStore.list_overviews` does."""
        import warnings

        from zerda.errors import InvalidArgumentError, ZerdaWarning

        if any(moment is not None and moment.tzinfo is None for moment in (since, until)):
            raise InvalidArgumentError("since and until must be timezone-aware datetimes")
        largest_first = sort != "name"
        direction = "DESC" if largest_first != reverse else "ASC"
        where, params = ["damage IS NULL"], []
        if since is not None:
            where.append("last_ts >= ?")
            params.append(since.timestamp())
        if until is not None:
            where.append("last_ts < ?")
            params.append(until.timestamp())
        query = (
            f"SELECT overview FROM sessions WHERE {' AND '.join(where)} "
            f"ORDER BY {ORDERS[sort]} {direction}, id ASC"
        )
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        with self._db() as db:
            rows = db.execute(query, params).fetchall()
            for sid, damage in db.execute(
                "SELECT id, damage FROM sessions WHERE damage IS NOT NULL"
            ):
                warnings.warn(f"skipped session {sid}: {damage}", ZerdaWarning, stacklevel=3)
        return [overview_from(json.loads(row[0])) for row in rows]

    def candidates(self, texts: Sequence[str]) -> set[str] | None:
        """The sessions with a message that may hold every one of `texts` (casefolded),
        damaged ones included; None when they are too short for the index to narrow
        anything."""
        wanted = _match_all(texts)
        if wanted is None:
            return None
        with self._db() as db:
            found = {row[0] for row in db.execute(
                "SELECT DISTINCT o.session FROM grams JOIN owners o ON o.rowid = grams.rowid "
                "WHERE grams MATCH ?", (wanted,),
            )}  # fmt: skip
            found |= {r[0] for r in db.execute("SELECT id FROM sessions WHERE damage IS NOT NULL")}
        return found

    def corpus(self, terms: Sequence[Sequence[str]]) -> Corpus:
        """How many messages the index holds, their characters, and for each term (the
        texts a match of it holds) how many messages may hold it: an estimate from the
        trigrams, never below the true count (all of them for a term of short words)."""
        with self._db() as db:
            messages = db.execute("SELECT count(*) FROM owners").fetchone()[0]
            characters = db.execute(
                "SELECT coalesce(sum(json_extract(overview, '$.total_characters')), 0)"
                " FROM sessions WHERE damage IS NULL"
            ).fetchone()[0]
            holding = []
            for texts in terms:
                wanted = _match_all(texts)
                count = messages if wanted is None else db.execute(
                    "SELECT count(*) FROM grams WHERE grams MATCH ?", (wanted,)
                ).fetchone()[0]  # fmt: skip
                holding.append(count)
        return Corpus(messages, characters, tuple(holding))

    def status(self) -> dict[str, Any]:
        """How big the index is and what it holds (after a refresh, it is fresh)."""
        with self._db() as db:
            sessions, damaged, text = db.execute(
                "SELECT count(*), count(damage), coalesce(sum(text_bytes), 0) FROM sessions"
            ).fetchone()
            messages = db.execute("SELECT count(*) FROM owners").fetchone()[0]
        size = sum(
            os.path.getsize(f"{self.path}{suffix}")
            for suffix in ("", "-wal")
            if os.path.exists(f"{self.path}{suffix}")
        )
        return {
            "path": str(self.path),
            "sessions": sessions,
            "damaged": damaged,
            "messages": messages,
            "text_bytes": text,
            "index_bytes": size,
        }


def _match_all(texts: Sequence[str]) -> str | None:
    """The trigram index's query for a message holding all of `texts` (at most MAX_GRAMS
    of their trigrams: fewer only widen it); None when none has a trigram to ask for."""
    grams = sorted({
        text[at : at + GRAM]
        for text in texts if not _unencodable(text)
        for at in range(len(text) - GRAM + 1)
    })  # fmt: skip
    if not grams:
        return None
    return " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams[:MAX_GRAMS])


def _compacted(db: sqlite3.Connection) -> None:
    """The database file rewritten without its free pages, unless another process is
    using the index (then it is left as it is: the space is reused by later writes)."""
    with suppress(sqlite3.OperationalError):
        db.execute("PRAGMA busy_timeout=0")
        db.execute("VACUUM")
    db.execute("PRAGMA busy_timeout=60000")


def _generation(db: sqlite3.Connection) -> int:
    """How many changes the index has had (every transaction of `_transaction` counts)."""
    found = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
    return int(found[0]) if found else 0


def _version(db: sqlite3.Connection) -> str | None:
    """The schema version the index was made with, None when it has none."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone() is None:
        return None
    found = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
    return None if found is None else str(found[0])


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
            db.execute(
                "INSERT INTO meta VALUES('generation', 1)"
                " ON CONFLICT(key) DO UPDATE SET value = value + 1"
            )
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _unencodable(text: str) -> bool:
    """Whether `text` holds a lone surrogate, which SQLite cannot take, or a NUL, at which
    its tokenizer stops."""
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _encodable(text: str) -> str:
    """`text` with each lone surrogate and NUL replaced, for SQLite: a query holding one
    is never answered from the index, and no trigram without one changes."""
    if not _unencodable(text):
        return text
    return text.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")


def _appended_from(row: Any, seen: tuple[int, int, int], fd: int) -> int:
    """Where the session's unindexed lines start: the indexed end when the file is the
    one indexed (same inode), grown past that end by appending (its bytes before the end
    unchanged), else 0. A file that changed without growing was rewritten."""
    if row is None or row[3] is not None or row[0] != seen[0] or not row[1]:
        return 0
    if seen[1] <= int(row[1]):
        return 0
    indexed_to, tail = int(row[1]), bytes(row[2])
    if os.pread(fd, len(tail), indexed_to - len(tail)) != tail:
        return 0
    return indexed_to


def _blocks(fd: int, start: int, size: int) -> Iterator[bytes]:
    """The file's whole lines from `start` to `size`, about BLOCK bytes at a time (a line
    longer than that whole); a last line without its newline (a write under way) is left."""
    pending = b""
    at = start
    while at < size:
        data = os.pread(fd, min(BLOCK, size - at), at)
        if not data:
            break
        at += len(data)
        pending += data
        cut = pending.rfind(b"\n") + 1
        if cut:
            yield pending[:cut]
            pending = pending[cut:]


def _columns(overview: SessionOverview | None) -> tuple[Any, ...]:
    """The catalog's columns of an overview: its JSON, then what listings sort by."""
    if overview is None:
        return None, "", None, None, 0, 0
    from zerda.messages import parse_time

    stats = overview.stats
    stamp = stats.last_activity
    created = overview.created_at.timestamp() if overview.created_at else None
    return (
        json.dumps(overview.to_dict(), ensure_ascii=False),
        stamp or "",
        parse_time(stamp).timestamp() if stamp else None,
        created,
        stats.messages,
        stats.token_count,
    )


def overview_from(data: dict[str, Any]) -> SessionOverview:
    """The SessionOverview whose `to_dict()` is `data`."""
    from dataclasses import fields

    from zerda.messages import parse_time
    from zerda.store._overview import SessionOverview
    from zerda.store._stats import SessionStats

    names = {f.name for f in fields(SessionStats)}
    stats = SessionStats(**{k: v for k, v in data.items() if k in names})
    created = parse_time(data["created_at"]) if data.get("created_at") else None
    return SessionOverview(stats, data.get("title"), created, data.get("opening"))


def index_path(home: Path) -> Path:
    """Where the archive index of the sessions under `home` is kept."""
    return home / NAME
