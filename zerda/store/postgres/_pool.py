"""Connections to the server: a pool per store, URLs shown without their password, and
every failure of the server or the network turned into one StoreError line.

psycopg is imported here, when a store first connects, never by `import zerda`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

from zerda.errors import StoreError
from zerda.store.postgres._urls import is_url, redact, split_netloc

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

# Defaults for what the URL leaves unsaid: a dead host fails in seconds, not minutes,
# and the server's views name who is connected.
DEFAULTS = {"connect_timeout": "10", "application_name": "zerda"}
# How long a caller waits for a free connection before zerda looks for the reason
# (a server that went away is then reported at once; a busy pool is waited for).
FIRST_WAIT = 1.0
# A pooled connection unused for longer is checked (one round trip) before it is handed
# out, so a server restarted meanwhile is simply reconnected to; calls in quick
# succession (a memory loading a session makes several) skip the check.
IDLE_CHECK = 1.0


def _secrets(url: str) -> list[str]:
    """Every password the URL holds, as given and as decoded, longest first."""
    from psycopg.conninfo import conninfo_to_dict

    found = set()
    try:
        password = conninfo_to_dict(url).get("password")
    except Exception:  # an unparsable URL: whatever follows ':' before '@' may be one
        password = None
    if password:
        found.add(str(password))
    netloc = split_netloc(url.partition("://")[2])[0] if "://" in url else ""
    user = netloc.rpartition("@")[0]
    if ":" in user:
        found.add(user.partition(":")[2])
    return sorted((s for s in found if s), key=len, reverse=True)


def one_line(text: str) -> str:
    """A server or driver message on one line: lines joined, tabs and runs of spaces cut."""
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.splitlines()]
    return "; ".join(line for line in lines if line)


class Server:
    """A pool of connections to one database, opened on first use and closed with `close`.

    Every connection is autocommit, with the time zone set to UTC; writes open their
    own transactions. When no connection comes within FIRST_WAIT, one made directly
    says why (a bad URL, a server that is down, a wrong password, a missing database),
    with the server's reason.
    """

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        if not is_url(url):
            raise StoreError(f"not a PostgreSQL URL: {redact(str(url))!r}")
        self.url = url
        self.where = redact(url)
        self.min_size = min_size
        self.max_size = max_size
        self._pool: ConnectionPool[Connection[tuple[Any, ...]]] | None = None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[Any, Server] | None = None
        self._idle = _IdleCheck()

    def fail(self, exc: BaseException) -> NoReturn:
        """Raise the StoreError that says, on one line and without the password, why
        the server could not do what was asked."""
        raise StoreError(f"PostgreSQL at {self.where}: {self.scrub(one_line(str(exc)))}") from None

    def scrub(self, text: str) -> str:
        """`text` with every password of the URL replaced by `***`."""
        for secret in _secrets(self.url):
            text = text.replace(secret, "***")
        return text

    def _kwargs(self) -> dict[str, Any]:
        from psycopg.conninfo import conninfo_to_dict

        try:
            given = conninfo_to_dict(self.url)
        except Exception as exc:
            self.fail(exc)
        return {k: v for k, v in DEFAULTS.items() if k not in given}

    def connect(self) -> Connection[tuple[Any, ...]]:
        """One new connection outside the pool (for schema changes and diagnosis)."""
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True, **self._kwargs())
            _configure(conn)
        except psycopg.Error as exc:
            self.fail(exc)
        return conn

    def pool(self) -> ConnectionPool[Connection[tuple[Any, ...]]]:
        """The pool, opened on first use."""
        with self._lock:
            if self._pool is None:
                from psycopg_pool import ConnectionPool

                # The pool logs each failed reconnection as a warning of several lines;
                # zerda reports a failure once, as its error. An application that sets up
                # logging still gets them.
                logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
                idle = self._idle
                self._pool = ConnectionPool(
                    self.url,
                    kwargs={"autocommit": True, **self._kwargs()},
                    min_size=self.min_size,
                    max_size=self.max_size,
                    configure=_configure,
                    check=idle.check,
                    reset=idle.returned,
                    name="zerda",
                    open=True,
                )
                self._finalizer = weakref.finalize(self, self._pool.close, timeout=1.0)
            return self._pool

    @contextmanager
    def translated(self) -> Iterator[None]:
        """Turn the driver's and the server's errors in the block into StoreError."""
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            self.fail(exc)

    @contextmanager
    def connection(self) -> Iterator[Connection[tuple[Any, ...]]]:
        """A connection from the pool, for the `with` block; server errors become StoreError.

        When none is free within FIRST_WAIT, a direct connection tells a server that
        went away (reported now, with its reason) from a busy pool (waited for).
        """
        from psycopg_pool import PoolTimeout

        pool = self.pool()
        try:
            conn = pool.getconn(timeout=FIRST_WAIT)
        except PoolTimeout:
            self.connect().close()
            conn = self._wait(pool)
        try:
            with self.translated():
                yield from self._dropped_closed(conn)
        finally:
            pool.putconn(conn)

    def _dropped_closed(
        self, conn: Connection[tuple[Any, ...]]
    ) -> Iterator[Connection[tuple[Any, ...]]]:
        """Yield `conn`; if the block loses the server (it went away or restarted), close
        `conn`, so the pool never hands it out again, and have every other one checked
        before its next use (they were most likely lost with it)."""
        import psycopg

        try:
            yield conn
        except psycopg.OperationalError:
            conn.close()
            self._idle.since.clear()
            raise

    def _wait(
        self, pool: ConnectionPool[Connection[tuple[Any, ...]]]
    ) -> Connection[tuple[Any, ...]]:
        from psycopg_pool import PoolTimeout

        started = time.monotonic()
        try:
            return pool.getconn()
        except PoolTimeout:
            waited = FIRST_WAIT + time.monotonic() - started
            raise StoreError(
                f"PostgreSQL at {self.where}: no connection free after {waited:.0f} s "
                f"({self.max_size} in use)"
            ) from None

    def close(self) -> None:
        """Close every connection; the next use opens the pool again."""
        with self._lock:
            if self._finalizer is not None:
                self._finalizer()
            self._pool = None
            self._finalizer = None


class _IdleCheck:
    """The pool's check: a connection back in the pool for over IDLE_CHECK seconds is
    tried before it is handed out (a broken one is replaced); others are not."""

    def __init__(self) -> None:
        self.since: weakref.WeakKeyDictionary[Connection[tuple[Any, ...]], float] = (
            weakref.WeakKeyDictionary()
        )

    def returned(self, conn: Connection[tuple[Any, ...]]) -> None:
        self.since[conn] = time.monotonic()

    def check(self, conn: Connection[tuple[Any, ...]]) -> None:
        from psycopg_pool import ConnectionPool

        since = self.since.get(conn)
        if since is None or time.monotonic() - since > IDLE_CHECK:
            ConnectionPool.check_connection(conn)


def _configure(conn: Connection[tuple[Any, ...]]) -> None:
    """Times come back in UTC, as zerda stores and shows them; no JIT, which costs
    milliseconds to compile what zerda's indexed queries do in a fraction of one (a
    cursor over a long session is planned as if it read it all)."""
    conn.execute("SET TIME ZONE 'UTC'; SET jit = off")
