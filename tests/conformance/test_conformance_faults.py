"""Faults on every store: writers killed at any moment (and, on a server, inside an open
transaction), a server restarted mid-run, and bad input: no partial turn, ever, nothing
acknowledged lost, the running totals exact, and nothing written for refused input."""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import Throwaway, close, finish, line_within, run_python, start_python
from test_conformance_concurrency import assert_exact_totals

from zerda import (
    InvalidArgumentError,
    InvalidMessageError,
    InvalidSessionIdError,
    Memory,
    Message,
    PostgresStore,
    StoreError,
    ZerdaError,
)
from zerda.store.base import Store

ACKING_WRITER = """
import sys
from zerda import open_store, ZerdaError
store = open_store(sys.argv[1], fsync=False)
name = sys.argv[2]
i = 0
while True:
    try:
        user, _ = store.append_turn("s", f"user {name} {i}", f"assistant {name} {i}")
    except ZerdaError as exc:
        print("failed", str(exc).replace(chr(10), " "), flush=True)
        continue
    print("ok", user.uuid, flush=True)
    i += 1
    if len(sys.argv) > 3 and i >= int(sys.argv[3]):
        break
"""


def whole_turns(store: Store, session_id: str = "s") -> list[Message]:
    """The session's messages, checked to be whole turns with exact running totals."""
    messages = list(store.iter_messages(session_id))
    for question, answer in zip(messages[::2], messages[1::2], strict=True):
        assert question.content.replace("user", "assistant", 1) == answer.content
    assert_exact_totals(store, session_id, messages)
    return messages


def test_writers_killed_at_any_moment_leave_whole_turns(store: Store, location: str) -> None:
    acknowledged: set[str] = set()
    rng = random.Random(14)
    for round_ in range(4):
        proc = start_python(ACKING_WRITER, location, f"r{round_}")
        assert proc.stdout is not None
        for _ in range(rng.randrange(1, 40)):
            line = line_within(proc.stdout).split()
            assert line and line[0] == "ok", line
            acknowledged.add(line[1])
        time.sleep(rng.random() / 50)
        proc.kill()
        rest, _ = finish(proc)
        complete = rest.split("\n")[:-1]  # a line the kill cut short acknowledges nothing
        acknowledged.update(line.split()[1] for line in complete if line.startswith("ok "))
        messages = whole_turns(store)
        assert acknowledged <= {m.uuid for m in messages}
    store.append_turn("s", "user after", "assistant after")  # the store still takes writes
    whole_turns(store)


INSIDE_A_TRANSACTION = """
import os, sys, time
from zerda import PostgresStore, Memory, Message
import zerda.store.postgres._store as module
store = PostgresStore(sys.argv[1])
original = module.PostgresStore._insert
def insert_then_hang(self, conn, session_id, messages):
    original(self, conn, session_id, messages)
    print("inside", flush=True)
    time.sleep(600)
module.PostgresStore._insert = insert_then_hang
if sys.argv[2] == "retry":
    store.replace_last_turn("s", "new question", "new answer")
else:
    known = Message("user", "replaced?", uuid=sys.argv[3])
    store.add_memory("s", Memory([known, Message("user", "added?")]))
"""


@pytest.mark.parametrize("write", ["retry", "upsert"])
def test_a_client_killed_inside_a_transaction_leaves_no_trace(
    pg: Store, postgres_url: str, write: str
) -> None:
    store = pg
    store.append_turn("s", "user old", "assistant old")
    before = store.get_memory("s")
    proc = start_python(INSIDE_A_TRANSACTION, postgres_url, write, before.messages[0].uuid or "")
    assert proc.stdout is not None
    assert line_within(proc.stdout).strip() == "inside"
    proc.send_signal(signal.SIGKILL)
    finish(proc)
    assert store.get_memory("s") == before
    started = time.monotonic()
    store.append_turn("s", "user next", "assistant next")  # the row lock went with it
    assert time.monotonic() - started < 10
    assert [m.content for m in whole_turns(store)][-2:] == ["user next", "assistant next"]


@pytest.fixture(scope="module")
def restartable() -> Iterator[Throwaway]:
    """A server of this module's own, to restart."""
    server = Throwaway()
    yield server
    server.close()


def test_a_server_restarted_mid_run_loses_no_acknowledged_turn(restartable: Throwaway) -> None:
    url = restartable.server.url()
    store = PostgresStore(url)
    store.init()
    writers = [start_python(ACKING_WRITER, url, f"w{n}", "150") for n in range(4)]
    outputs: list[list[str]] = [[] for _ in writers]
    for n, proc in enumerate(writers):  # every writer is under way before the restart
        assert proc.stdout is not None
        outputs[n].append(line_within(proc.stdout))
    restartable.server.restart("immediate")
    for n, proc in enumerate(writers):
        rest, errors = finish(proc)
        assert proc.returncode == 0, errors
        outputs[n] += rest.splitlines()
    lines = [line.strip().split(" ", 1) for out in outputs for line in out if line.strip()]
    acknowledged = {rest for word, rest in lines if word == "ok"}
    failures = [rest for word, rest in lines if word == "failed"]
    assert len(acknowledged) == 4 * 150
    messages = whole_turns(store)
    assert acknowledged <= {m.uuid for m in messages}
    assert len(messages) // 2 - len(acknowledged) <= len(failures)  # committed, unacknowledged
    for failure in failures:  # one line naming the server, never a traceback
        assert failure.startswith(f"PostgreSQL at {url}: ")
    close(store)


# -- bad input -----------------------------------------------------------------------

HOSTILE = ["../x", "/etc/passwd", "", "a" * 129, "a\x00b", "a\nb", ".hidden", "a/b", "-x", " x"]
CALLS: list[Callable[[Store, str], Any]] = [
    lambda s, sid: s.exists(sid),
    lambda s, sid: s.create_session(sid),
    lambda s, sid: s.update_session(sid, metadata={}),
    lambda s, sid: s.get_session(sid),
    lambda s, sid: s.delete_session(sid),
    lambda s, sid: s.add_memory(sid, Memory([Message("user", "x")])),
    lambda s, sid: s.append_turn(sid, "q", "a"),
    lambda s, sid: s.set_summary(sid, "x"),
    lambda s, sid: s.get_summary(sid),
    lambda s, sid: s.get_memory(sid, lastn=2),
    lambda s, sid: list(s.iter_messages(sid)),
    lambda s, sid: list(s.iter_messages_reversed(sid)),
    lambda s, sid: s.system_messages(sid),
    lambda s, sid: s.message_count(sid),
    lambda s, sid: s.session_stats(sid),
    lambda s, sid: list(s.search("x", session_id=sid or "\n")),
    lambda s, sid: s.clear(sid),
    lambda s, sid: s.delete_last_turn(sid),
    lambda s, sid: s.replace_last_turn(sid, "q", "a"),
]


@pytest.mark.parametrize("session_id", HOSTILE)
def test_hostile_session_ids_are_refused_before_anything(store: Store, session_id: str) -> None:
    for call in CALLS:
        with pytest.raises(InvalidSessionIdError) as caught:
            call(store, session_id)
        assert "\n" not in str(caught.value) and "\x00" not in str(caught.value)
    assert store.session_ids() == []


UNSTORABLE = [
    Message("user", "lone \udcff surrogate"),
    Message("user", "ok", {"not json": object()}),
    Message("user", "ok", {"bad \ud800 key": 1}),
    Message("user", "ok", extra={"tool_calls": [object()]}),
    Message("user", "ok", {"v": float("nan")}),
    Message("user", "ok", {"v": [float("-inf")]}),
]


@pytest.mark.parametrize("message", UNSTORABLE)
def test_unstorable_messages_write_nothing(store: Store, message: Message) -> None:
    with pytest.raises(InvalidMessageError):
        store.add_message("s", message)
    assert not store.exists("s")
    store.append_turn("t", "q", "a")
    before = store.get_memory("t")
    with pytest.raises(InvalidMessageError):
        store.add_memory("t", Memory([Message("user", "fine"), message], summary="fine"))
    assert store.get_memory("t") == before
    assert store.session_stats("t").messages == 2


def test_bad_session_facts_are_refused(store: Store) -> None:
    with pytest.raises(InvalidMessageError):
        store.create_session("s", user_id=42)  # type: ignore[arg-type]
    with pytest.raises(InvalidMessageError):
        store.create_session("s", metadata={"x": object()})
    assert not store.exists("s")
    store.create_session("s", metadata={"a": 1})
    with pytest.raises(InvalidArgumentError):
        store.update_session("s", metadata=["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(InvalidMessageError):
        store.update_session("s", metadata={"x": "\udcff"})
    assert store.get_session("s").metadata == {"a": 1}


def test_text_comes_back_exactly(store: Store) -> None:
    texts = [
        '日本語 \u2028 tab\t nul\x00 \x1b[31m quote" \\ end',
        "\x00",
        "\x00\x00 starts and ends \x00",
        "🦊" * 1000,
        "lorem ipsum " * 200_000,
        "",
    ]
    metadata = {"model": "m", "n": [1, {"x": None}], "nul": "a\x00b", "big": 10**30, "f": 0.1}
    for text in texts:
        store.append_turn("s", text, text, metadata=metadata)
    messages = store.get_memory("s").messages
    assert [m.content for m in messages] == [t for t in texts for _ in range(2)]
    assert all(m.metadata == metadata for m in messages)
    assert all(m.content in {t for t in texts} for _, m in store.search("\x00"))
    assert {m.content for _, m in store.search("\x00")} == {t for t in texts if "\x00" in t}
    stored = store.set_summary("s", "sum\x00mary")
    assert store.get_summary("s") == stored and stored.content == "sum\x00mary"


def test_errors_are_zerda_errors_on_one_line(store: Store) -> None:
    for call in (lambda: store.get_memory("missing"), lambda: store.get_memory("s", lastn=-1)):
        with pytest.raises(ZerdaError) as caught:
            call()
        assert "\n" not in str(caught.value)
    assert issubclass(StoreError, ZerdaError)


def test_a_dead_server_url_in_a_subprocess_is_one_line() -> None:
    done = run_python(
        """
        import sys
        from zerda import open_store, ZerdaError
        try:
            open_store("postgresql://u:hunter2@127.0.0.1:1/db").append_turn("s", "q", "a")
        except ZerdaError as exc:
            print(exc)
        """
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.count("\n") == 1 and "hunter2" not in done.stdout
    assert done.stdout.startswith("PostgreSQL at postgresql://u@127.0.0.1:1/db: ")
