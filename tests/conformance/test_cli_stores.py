"""The command on either store: `--store`, `$ZERDA_STORE` and `store =` in config.toml
choose it; `zerda store init`; `zerda copy` between stores, lossless and idempotent;
a server that cannot be used is one error line, never its password."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Throwaway, line_within

from zerda import Memory, Message, SessionStore, open_store
from zerda.store.base import Store

ZERDA = str(Path(sys.executable).parent / "zerda")


def zerda(
    *args: str, env: dict[str, str] | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed command; stdin empty unless given."""
    return subprocess.run(
        [ZERDA, *args],
        capture_output=True,
        text=True,
        input=input_text or "",
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def ok(*args: str, env: dict[str, str] | None = None) -> str:
    done = zerda(*args, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_command_works_on_the_chosen_store(location: str, store: Store) -> None:
    flag = ["--store", location]
    ok("add", "trip", "Where in May?", "Lisbon.", *flag)
    ok("add", "trip", "--role", "system", "Be brief.", *flag)
    assert "Lisbon." in ok("show", "trip", *flag)
    assert '"messages": 3' in ok("stats", "trip", "--json", *flag)
    assert "trip" in ok("sessions", *flag)
    assert "Lisbon" in ok("search", "lisbon", *flag)
    assert "Lisbon." in ok("window", "trip", "-k", "1", *flag)
    assert "Be brief." in ok("context", "trip", *flag)
    exported = ok("export", "trip", *flag)
    done = zerda("import", "copy", "-", *flag, input_text=exported)
    assert done.returncode == 0, done.stderr
    assert ok("export", "copy", *flag) == exported.replace('"id": "trip"', '"id": "copy"', 1)
    assert [m.content for m in store.iter_messages("trip")] == [
        "Where in May?",
        "Lisbon.",
        "Be brief.",
    ]
    ok("clear", "trip", "--yes", *flag)
    assert store.message_count("trip") == 0
    ok("delete", "trip", "--yes", *flag)
    assert store.session_ids() == ["copy"]


def test_the_store_comes_from_the_environment_then_the_config(
    postgres_url: str, pg: Store, home: Path
) -> None:
    ok("add", "from-env", "q", "a", env={"ZERDA_STORE": postgres_url})
    assert pg.session_ids() == ["from-env"]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'store = "{postgres_url}"\n')
    ok("add", "from-config", "q", "a")
    assert pg.session_ids() == ["from-config", "from-env"]
    ok("add", "in-files", "q", "a", "--home", str(home))  # a flag wins over the config
    assert SessionStore(home).session_ids() == ["in-files"]
    assert pg.session_ids() == ["from-config", "from-env"]


def test_store_and_home_together_are_a_usage_error(home: Path) -> None:
    done = zerda("show", "s", "--store", str(home), "--home", str(home))
    assert done.returncode == 2 and "--store and --home" in done.stderr


def test_an_unusable_server_is_one_line_without_its_password() -> None:
    done = zerda("show", "s", "--store", "postgresql://ana:hunter2@127.0.0.1:1/db")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "hunter2" not in done.stderr
    assert done.stderr.startswith("error: PostgreSQL at postgresql://ana@127.0.0.1:1/db: ")
    done = zerda("show", "s", "--store", "mysql://ana:hunter2@h/db")
    assert done.returncode == 1 and "hunter2" not in done.stderr


def test_store_init(postgres_admin: str) -> None:
    from conftest import drop_database, new_database

    from zerda.store.postgres._schema import LATEST

    url = new_database(postgres_admin)
    try:
        first = zerda("store", "init", "--store", url)
        assert first.returncode == 0 and f"schema now at version {LATEST}" in first.stderr
        again = zerda("store", "init", "--store", url)
        assert again.returncode == 0 and f"already at version {LATEST}" in again.stderr
    finally:
        drop_database(postgres_admin, url)
    files = zerda("store", "init")
    assert files.returncode == 0 and "session files need no set-up" in files.stderr


def fill(store: Store) -> None:
    """Sessions holding everything a copy must carry."""
    store.create_session("rich", user_id="ana", metadata={"topic": "maps", "n": [1, None]})
    store.add_message("rich", Message("system", "Be brief.", {"source": "cli"}))
    store.append_turn("rich", "Hi\x00there 🦊", "Hello!", metadata={"model": "m"})
    store.add_message("rich", Message("Alice", "a named speaker", token_count=99))
    store.add_message(
        "rich",
        Message(
            "assistant",
            "",
            extra={"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w"}}]},
        ),
    )
    store.add_message("rich", Message("tool", "sun", extra={"tool_call_id": "c1"}))
    store.set_summary("rich", "They talked about maps.")
    store.add_memory(  # more than the server takes in one batch
        "long", Memory([Message("user" if n % 2 else "ai", f"message {n}") for n in range(1200)])
    )
    store.create_session("empty", metadata={"k": "v"})


def held(store: Store, names: list[str]) -> dict[str, Any]:
    """Everything the sessions hold, uuids, times and counts included."""
    return {
        s: (
            store.get_session(s),
            store.get_summary(s),
            list(store.iter_messages(s)),
            store.session_stats(s).to_dict() | {"file_size": 0},
        )
        for s in names
    }


def test_copy_is_lossless_and_idempotent(home: Path, postgres_url: str, pg: Store) -> None:
    files = SessionStore(home, fsync=False)
    fill(files)
    names = ["empty", "long", "rich"]
    before = held(files, names)
    exported = ok("export", "rich", "--store", str(home))
    done = zerda("copy", "--from", str(home), "--to", postgres_url)
    assert done.returncode == 0, done.stderr
    count = sum(files.message_count(s) for s in names)
    assert f"copied 3 sessions ({count} messages) from {home} to {postgres_url}" in done.stderr
    assert "\x1b" not in done.stderr  # no progress line off a terminal
    assert held(pg, names) == before
    assert ok("export", "rich", "--store", postgres_url) == exported
    again = zerda("copy", "--from", str(home), "--to", postgres_url, "rich", "long")
    assert again.returncode == 0, again.stderr
    assert held(pg, names) == before
    back = home.parent / "back"
    done = zerda("copy", "--from", postgres_url, "--to", str(back))
    assert done.returncode == 0, done.stderr
    assert held(SessionStore(back), names) == before


def test_copy_reports_a_session_it_cannot_copy_and_goes_on(
    home: Path, postgres_url: str, pg: Store
) -> None:
    files = SessionStore(home, fsync=False)
    files.append_turn("good", "q", "a")
    # zerda writes no NaN, but a file written by hand may hold one, which JSON has no form for.
    files.add_message("bad", Message("user", "x", {"v": 1.5}))
    path = files.sessions_dir / "bad.jsonl"
    path.write_bytes(path.read_bytes().replace(b'{"v":1.5}', b'{"v":NaN}'))
    done = zerda("copy", "--from", str(home), "--to", postgres_url)
    assert done.returncode == 1
    assert "error: session bad: cannot store this message's metadata" in done.stderr
    assert "copied 1 session (2 messages)" in done.stderr
    assert pg.session_ids() == ["good"]  # the session it could not fill is not left empty


def test_copy_refuses_the_same_store_twice(home: Path) -> None:
    done = zerda("copy", "--from", str(home), "--to", str(home))
    assert done.returncode == 2 and "the same store" in done.stderr


def test_copy_shows_progress_on_a_terminal(home: Path, postgres_url: str, pg: Store) -> None:
    import pexpect

    files = SessionStore(home, fsync=False)
    files.add_memory("big", _many(3000))
    child = pexpect.spawn(
        ZERDA, ["copy", "--from", str(home), "--to", postgres_url], encoding="utf-8", timeout=120
    )
    child.expect_exact("[1/1] big")
    child.expect_exact("copied 1 session (3000 messages)")
    child.expect(pexpect.EOF)
    assert open_store(postgres_url).message_count("big") == 3000


def _many(n: int) -> Memory:
    return Memory([Message("user", f"m{i}") for i in range(n)])


@pytest.fixture(scope="module")
def own_server() -> Any:
    """A server of this module's own, to stop and start."""
    server = Throwaway()
    yield server
    server.close()


def test_zerda_chat_stays_up_while_the_server_is_away(own_server: Any, home: Path) -> None:
    url = own_server.server.url()
    chat = subprocess.Popen(
        [ZERDA, "chat", "s", "--store", url, "--jsonl", "--command", REPLIER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ZERDA_HOME": str(home)},
    )
    assert chat.stdin is not None and chat.stdout is not None and chat.stderr is not None

    def say(line: str) -> None:
        assert chat.stdin is not None
        chat.stdin.write(line + "\n")
        chat.stdin.flush()

    say("first")
    assert '"input": "first"' in line_within(chat.stdout)
    own_server.server.stop()
    say("second")
    error = line_within(chat.stderr)
    assert error.startswith("error: ") and f"PostgreSQL at {url}: " in error, error
    assert "not recorded" in error  # the server went away under it, or refused it
    own_server.server.start()
    say("third")
    assert '"input": "third"' in line_within(chat.stdout)
    chat.stdin.close()
    assert chat.wait(timeout=60) == 1  # a line failed
    store = open_store(url)
    assert [m.content.strip() for m in store.iter_messages("s")] == [
        "first",
        "pong",
        "third",
        "pong",
    ]
    store.close()


REPLIER = "sh -c 'cat >/dev/null; echo pong'"
