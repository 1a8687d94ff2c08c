"""Every store, one suite: the `store` fixture is each implementation in turn.

PostgreSQL comes from `ZERDA_TEST_POSTGRES_URL` (a server the tests may create and drop
`zerda_test_*` databases on; `.ci/run` starts one), else from a throwaway server started
here (`tools.pgserver`). When neither can be had the PostgreSQL tests are
skipped with the reason, except under `CI=true`, where they fail: CI never skips them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tools import pgserver as throwaway
from zerda.errors import StoreError
from zerda.store._opening import open_store
from zerda.store.base import Store

STORES = ["file", "postgres", "memory"]
# The in-memory store (zerda.store._inmemory): the reference, held in this process only.
MEMORY = "memory"
# The file store answering from its archive index at any size (it reads the files when
# it holds fewer than `index_from` sessions): searching suites run on it too.
INDEXED = "indexed"


def unavailable(reason: str) -> None:
    """Skip with `reason`, or fail under CI, where nothing may be skipped."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is needed in CI: {reason}")
    pytest.skip(reason)


PREFIX = "zerda-test-pg-"


class Throwaway:
    """A throwaway server the tests own (they may stop, restart and reconfigure it).

    Its directory names the process that started it, so a run that was killed before it
    could stop its servers has them stopped by the next run (`reap`).
    """

    def __init__(self) -> None:
        reap()
        self.directory = Path(tempfile.mkdtemp(prefix=PREFIX))
        (self.directory / "owner").write_text(str(os.getpid()))
        try:
            self.server = throwaway.started(self.directory)
        except (StoreError, OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(self.directory, ignore_errors=True)
            unavailable(f"cannot start a throwaway PostgreSQL server: {exc}")

    def close(self) -> None:
        if self.server.running():
            self.server.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)


def reap() -> None:
    """Stop the throwaway servers of test runs that are gone, and remove their files."""
    for owner in Path(tempfile.gettempdir()).glob(f"{PREFIX}*/owner"):
        try:
            os.kill(int(owner.read_text()), 0)
            continue  # its run is still going
        except ProcessLookupError:
            pass
        except (ValueError, OSError):
            continue
        directory = owner.parent
        port = _port(directory)
        found = throwaway.find_bin()
        if port and found and (directory / "data" / "postmaster.pid").exists():
            with contextlib.suppress(StoreError, OSError, subprocess.SubprocessError):
                throwaway.Throwaway(directory, port, found).stop("immediate")
        shutil.rmtree(directory, ignore_errors=True)


def _port(directory: Path) -> int | None:
    """The port in a server's postmaster.pid (its fourth line)."""
    try:
        return int((directory / "data" / "postmaster.pid").read_text().splitlines()[3])
    except (OSError, IndexError, ValueError):
        return None


def new_database(admin_url: str) -> str:
    """A fresh, empty database on the server of `admin_url`; its URL."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = f"zerda_test_{uuidlib.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    params = conninfo_to_dict(admin_url)
    params["dbname"] = name
    return _as_url(make_conninfo(**params))


def _as_url(conninfo: str) -> str:
    """A key=value connection string as a postgresql:// URL (what the stores take)."""
    from urllib.parse import quote

    from psycopg.conninfo import conninfo_to_dict

    params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items()}
    user = quote(params.pop("user", ""), safe="")
    password = params.pop("password", None)
    host = params.pop("host", "")
    port = params.pop("port", "")
    dbname = quote(params.pop("dbname", ""), safe="")
    auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
    hostpart = (host if not host.startswith("/") else "") + (f":{port}" if port else "")
    if host.startswith("/"):
        params["host"] = host
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    return f"postgresql://{auth}{hostpart}/{dbname}" + (f"?{query}" if query else "")


def drop_database(admin_url: str, url: str) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[str]:
    """A superuser URL of a server the suite may create databases on."""
    given = os.environ.get(throwaway.URL_VARIABLE)
    if given:
        yield given
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    server = Throwaway()
    try:
        yield server.server.url()
    finally:
        server.close()


@pytest.fixture(scope="session")
def postgres_url(postgres_admin: str) -> Iterator[str]:
    """The URL of a database for this run, its schema made."""
    url = new_database(postgres_admin)
    store = open_store(url)
    store.init()  # type: ignore[attr-defined]
    store.close()
    yield url
    import psycopg

    # Cleanup only: the server is a throwaway one, and may already be stopped by its owner.
    with contextlib.suppress(psycopg.OperationalError):
        drop_database(postgres_admin, url)


@pytest.fixture(scope="session")
def shared_postgres(postgres_url: str) -> Iterator[Store]:
    store = open_store(postgres_url)
    yield store
    store.close()


def empty(store: Store) -> Store:
    """`store` with every session removed (a truncate on the server)."""
    with store.server.connection() as conn:  # type: ignore[attr-defined]
        conn.execute("TRUNCATE zerda_sessions, zerda_messages, zerda_summaries")
    return store


@pytest.fixture
def pg(shared_postgres: Store) -> Store:
    """The suite's PostgreSQL store alone, emptied (for what only a server has)."""
    return empty(shared_postgres)


@pytest.fixture(params=STORES)
def kind(request: pytest.FixtureRequest) -> str:
    """Which store this run of the test is for."""
    return str(request.param)


@pytest.fixture
def location(kind: str, home: Path, request: pytest.FixtureRequest) -> str:
    """Where the store of this run keeps its sessions (a directory or a URL), emptied.
    The in-memory store has none: what needs one (another process, the command) is
    skipped for it."""
    if kind == MEMORY:
        pytest.skip("an in-memory store has no location another store could open")
    if kind in ("file", INDEXED):
        return str(home)
    empty(request.getfixturevalue("shared_postgres"))
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(kind: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store of each kind (the file store with fsync off)."""
    if kind == MEMORY:
        from zerda.store._inmemory import InMemoryStore

        yield InMemoryStore()
        return
    location = str(request.getfixturevalue("location"))
    if kind in ("file", INDEXED):
        opened = open_store(location, fsync=False)
        if kind == INDEXED:
            opened.index_from = 0  # type: ignore[attr-defined]
        yield opened
        return
    yield request.getfixturevalue("shared_postgres")


@pytest.fixture
def other_store(kind: str, location: str) -> Iterator[Store]:
    """A second store on the same sessions (another process would see the same)."""
    opened = open_store(location, fsync=False)
    yield opened
    close(opened)


def close(store: Store) -> None:
    """Let go of what the store holds (a server's connections)."""
    getattr(store, "close", lambda: None)()


def run_python(code: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter with `args`; its output captured."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_python(code: str, *args: str) -> subprocess.Popen[str]:
    """Start `code` in a fresh interpreter with `args`; stdin, stdout and stderr pipes."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[str, str]:
    """(the rest of its stdout, its stderr) once `proc` has ended; stdin is closed first.

    Unlike `communicate`, lines already read ahead by `readline` are kept. Its stderr
    is read after its stdout, so it must stay small (it does: zerda writes none).
    """
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if not proc.stdin.closed:
        proc.stdin.close()
    found: list[str] = []
    reader = threading.Thread(
        target=lambda: found.extend([proc.stdout.read(), proc.stderr.read()]),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    reader.join(timeout)
    if len(found) < 2:
        proc.kill()
        pytest.fail(f"{proc.args!r} did not end within {timeout:g} s")
    proc.wait(timeout=timeout)
    return found[0], found[1]


def line_within(stream: IO[str], seconds: float = 120) -> str:
    """The next line of `stream`; the test fails, rather than hangs, if none comes."""
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    if not found:
        pytest.fail(f"no line came within {seconds:g} s")
    return found[0]


def go(procs: list[subprocess.Popen[str]]) -> None:
    """Tell each of `procs` (waiting on a line of stdin) to start."""
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
