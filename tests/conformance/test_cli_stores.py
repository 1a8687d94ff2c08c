"""The command on either store: `--store`, `$ZERDA_STORE` and `store =` in config.toml
choose it; `zerda store init`; `zerda copy` between stores, lossless and idempotent;
a server that cannot be used is one error line, never its password."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_runner import ZERDA, Env, process
from conftest import Throwaway, line_within

from zerda import Memory, Message, SessionStore, open_store
from zerda.store.base import Store


def ok(home: Path | None, *args: str, env: Env | None = None) -> str:
    done = process(home, *args, env=env)
    assert done.code == 0, done.err
    return done.out


def test_every_command_works_on_the_chosen_store(location: str, store: Store, home: Path) -> None:
    flag = ["--store", location]
    ok(home, "add", "trip", "Where in May?", "Lisbon.", *flag)
    ok(home, "add", "trip", "--role", "system", "Be brief.", *flag)
    assert "Lisbon." in ok(home, "show", "trip", *flag)
    assert '"messages": 3' in ok(home, "stats", "trip", "--json", *flag)
    assert "trip" in ok(home, "sessions", *flag)
    assert "Lisbon" in ok(home, "search", "lisbon", *flag)
    assert "Lisbon." in ok(home, "window", "trip", "-k", "1", *flag)
    assert "Be brief." in ok(home, "context", "trip", *flag)
    exported = ok(home, "export", "trip", *flag)
    done = process(home, "import", "copy", "-", *flag, stdin=exported)
    assert done.code == 0, done.err
    assert ok(home, "export", "copy", *flag) == exported.replace('"id": "trip"', '"id": "copy"', 1)
    assert [m.content for m in store.iter_messages("trip")] == [
        "Where in May?",
        "Lisbon.",
        "Be brief.",
    ]
    ok(home, "clear", "trip", "--yes", *flag)
    assert store.message_count("trip") == 0
    ok(home, "delete", "trip", "--yes", *flag)
    assert store.session_ids() == ["copy"]


def test_the_store_comes_from_the_environment_then_the_config(
    postgres_url: str, pg: Store, home: Path
) -> None:
    ok(home, "add", "from-env", "q", "a", env={"ZERDA_STORE": postgres_url})
    assert pg.session_ids() == ["from-env"]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'store = "{postgres_url}"\n')
    ok(home, "add", "from-config", "q", "a")
    assert pg.session_ids() == ["from-config", "from-env"]
    ok(home, "add", "in-files", "q", "a", "--home", str(home))  # a flag wins over the config
    assert SessionStore(home).session_ids() == ["in-files"]
    assert pg.session_ids() == ["from-config", "from-env"]


def test_store_and_home_together_are_a_usage_error(home: Path) -> None:
    done = process(home, "show", "s", "--store", str(home), "--home", str(home))
    assert done.code == 2 and "--store and --home" in done.err


def test_an_unusable_server_is_one_line_without_its_password() -> None:
    done = process(None, "show", "s", "--store", "postgresql://ana:hunter2@127.0.0.1:1/db")
    assert done.code == 1 and done.out == ""
    assert done.one_error_line() and "hunter2" not in done.err
    assert done.err.startswith("error: PostgreSQL at postgresql://ana@127.0.0.1:1/db: ")
    done = process(None, "show", "s", "--store", "mysql://ana:hunter2@h/db")
    assert done.code == 1 and "hunter2" not in done.err


def test_store_init(postgres_admin: str) -> None:
    from conftest import drop_database, new_database

    from zerda.store.postgres._schema import LATEST

    url = new_database(postgres_admin)
    try:
        first = process(None, "store", "init", "--store", url)
        assert first.code == 0 and f"schema now at version {LATEST}" in first.err
        again = process(None, "store", "init", "--store", url)
        assert again.code == 0 and f"already at version {LATEST}" in again.err
    finally:
        drop_database(postgres_admin, url)
    files = process(None, "store", "init")
    assert files.code == 0 and "session files need no set-up" in files.err


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
    exported = ok(home, "export", "rich", "--store", str(home))
    done = process(home, "copy", "--from", str(home), "--to", postgres_url)
    assert done.code == 0, done.err
    count = sum(files.message_count(s) for s in names)
    assert f"copied 3 sessions ({count} messages) from {home} to {postgres_url}" in done.err
    assert "\x1b" not in done.err  # no progress line off a terminal
    assert held(pg, names) == before
    assert ok(home, "export", "rich", "--store", postgres_url) == exported
    again = process(home, "copy", "--from", str(home), "--to", postgres_url, "rich", "long")
    assert again.code == 0, again.err
    assert held(pg, names) == before
    back = home.parent / "back"
    done = process(home, "copy", "--from", postgres_url, "--to", str(back))
    assert done.code == 0, done.err
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
    done = process(home, "copy", "--from", str(home), "--to", postgres_url)
    assert done.code == 1
    assert "error: session bad: cannot store this message's metadata" in done.err
    assert "copied 1 session (2 messages)" in done.err
    assert pg.session_ids() == ["good"]  # the session it could not fill is not left empty


def test_copy_refuses_the_same_store_twice(home: Path) -> None:
    done = process(home, "copy", "--from", str(home), "--to", str(home))
    assert done.code == 2 and "the same store" in done.err


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
