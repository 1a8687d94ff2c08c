"""Concurrent writers on every store: 16 processes x 200 turns, on one session and on many;
nothing lost, no turn split, each writer's turns in its order, running totals exact."""

from __future__ import annotations

from collections import defaultdict

import pytest
from conftest import finish, go, line_within, start_python

from zerda.messages import Message
from zerda.store._stats import collect_stats
from zerda.store.base import Store

WRITERS, TURNS, SESSIONS = 16, 200, 8

WRITER = """
import sys
from zerda import open_store
store = open_store(sys.argv[1], fsync=False)
writer, turns, sessions = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sys.stdin.readline()  # start together
for i in range(turns):
    session = f"s{(writer + i) % sessions}"
    store.append_turn(session, f"user {writer} {i}", f"assistant {writer} {i}")
store.close() if hasattr(store, "close") else None
"""


def run_writers(location: str, sessions: int) -> None:
    procs = [
        start_python(WRITER, location, str(w), str(TURNS), str(sessions)) for w in range(WRITERS)
    ]
    go(procs)
    outcomes = [finish(proc) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * WRITERS, [err for _, err in outcomes]


def check_session(store: Store, session_id: str, done: dict[int, list[int]]) -> None:
    """Check one session: whole turns, each writer's in its order, exact totals; note
    in `done` which turns of each writer it holds."""
    messages = list(store.iter_messages(session_id))
    assert len(messages) % 2 == 0
    last: dict[int, int] = defaultdict(lambda: -1)
    for question, answer in zip(messages[::2], messages[1::2], strict=True):
        role, writer, index = question.content.split()
        assert (role, question.role, answer.role) == ("user", "user", "assistant")
        assert answer.content == f"assistant {writer} {index}"
        assert int(index) > last[int(writer)]  # each writer's turns in its own order
        last[int(writer)] = int(index)
        done[int(writer)].append(int(index))
    assert_exact_totals(store, session_id, messages)


def assert_exact_totals(store: Store, session_id: str, messages: list[Message]) -> None:
    """The running totals are those of a count over the messages."""
    stats = store.session_stats(session_id)
    counted = collect_stats(session_id, messages)
    fields = ("messages", "turn_count", "total_characters", "token_count")
    assert [getattr(stats, f) for f in fields] == [getattr(counted, f) for f in fields]
    assert (stats.first_activity, stats.last_activity) == (
        counted.first_activity,
        counted.last_activity,
    )
    assert store.message_count(session_id) == len(messages)
    assert store.get_memory(session_id, lastn=7).messages == messages[-7:]


@pytest.mark.parametrize("sessions", [1, SESSIONS], ids=["one session", "many sessions"])
def test_sixteen_processes_of_two_hundred_turns(store: Store, location: str, sessions: int) -> None:
    run_writers(location, sessions)
    assert store.session_ids() == sorted(f"s{n}" for n in range(sessions))
    done: dict[int, list[int]] = defaultdict(list)
    for n in range(sessions):
        check_session(store, f"s{n}", done)
    assert {w: sorted(turns) for w, turns in done.items()} == {
        w: list(range(TURNS)) for w in range(WRITERS)
    }


CREATOR = """
import sys
from zerda import open_store
store = open_store(sys.argv[1], fsync=False)
sys.stdin.readline()
store.create_session("s", user_id=sys.argv[2], metadata={sys.argv[2]: True})
store.append_turn("s", "q " + sys.argv[2], "a " + sys.argv[2])
"""


def test_racing_creators_make_one_session_with_every_fact(store: Store, location: str) -> None:
    procs = [start_python(CREATOR, location, f"user{n}") for n in range(4)]
    go(procs)
    assert [finish(proc)[1] for proc in procs] == [""] * 4
    session = store.get_session("s")
    assert session.metadata == {f"user{n}": True for n in range(4)}
    assert session.user_id in {f"user{n}" for n in range(4)}
    assert store.message_count("s") == 8 and store.session_stats("s").turn_count == 4


RETRIER = """
import sys
from zerda import open_store, SessionChangedError
store = open_store(sys.argv[1], fsync=False)
seen = store.get_memory("s", lastn=2).messages[0].uuid
print("ready", flush=True)
sys.stdin.readline()
try:
    store.replace_last_turn("s", "q", "retried by " + sys.argv[2], replaces=seen)
    print("replaced")
except SessionChangedError:
    print("changed")
"""


def test_racing_retries_replace_the_turn_once(store: Store, location: str) -> None:
    store.append_turn("s", "q", "first answer")
    procs = [start_python(RETRIER, location, str(n)) for n in range(4)]
    for proc in procs:  # every one has read the last turn before any retries
        assert proc.stdout is not None and line_within(proc.stdout) == "ready\n"
    go(procs)
    results = [finish(proc) for proc in procs]
    outputs = sorted(out.strip() for out, _ in results)
    assert outputs == ["changed"] * 3 + ["replaced"], results
    messages = list(store.iter_messages("s"))
    assert messages[0].content == "q" and len(messages) == 2
    assert messages[1].content.startswith("retried by ")
    assert_exact_totals(store, "s", messages)
