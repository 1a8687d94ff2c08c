"""Running totals on the last record: stats in one line, always equal to a full count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerda import Memory, Message, SessionStore
from zerda.store._stats import SessionStats
from zerda.tokens import count_tokens


def truth(store: SessionStore, session_id: str = "s") -> SessionStats:
    """Stats counted from scratch: every message decoded, every token counted here."""
    messages = list(store.iter_messages(session_id))
    turns, after_user = 0, False
    for m in messages:
        if m.role == "user":
            turns, after_user = turns + 1, True
        elif m.role == "assistant":
            turns, after_user = turns + (0 if after_user else 1), False
    talk = [m for m in messages if m.role in ("user", "assistant")]
    return SessionStats(
        session_id=session_id,
        messages=len(messages),
        turn_count=turns,
        total_characters=sum(len(m.content) for m in talk),
        token_count=sum(count_tokens(m.content) for m in messages),
    )


def same_counts(got: SessionStats, want: SessionStats) -> None:
    fields = ("messages", "turn_count", "total_characters", "token_count")
    assert {f: getattr(got, f) for f in fields} == {f: getattr(want, f) for f in fields}


def last_record(store: SessionStore, session_id: str = "s") -> dict[str, object]:
    lines = (store.sessions_dir / f"{session_id}.jsonl").read_bytes().splitlines()
    record: dict[str, object] = json.loads(lines[-1])
    return record


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.text(max_size=30), st.text(max_size=30), st.booleans()),
        st.tuples(
            st.just("message"),
            st.sampled_from(["system", "user", "assistant", "tool"]),
            st.text(max_size=30),
            st.booleans(),
        ),
        st.tuples(st.just("stats"), st.none(), st.none(), st.none()),
        st.tuples(st.just("undo"), st.none(), st.none(), st.none()),
        st.tuples(st.just("summary"), st.text(max_size=20), st.none(), st.none()),
        st.tuples(st.just("compact"), st.none(), st.none(), st.none()),
        st.tuples(st.just("clear"), st.none(), st.none(), st.none()),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_totals_match_a_full_count_after_any_sequence(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[Any, Any, Any, Any]]
) -> None:
    home = tmp_path_factory.mktemp("home")
    eager = SessionStore(home, fsync=False)
    lazy = SessionStore(home, fsync=False, count_on_write=False)
    for op, a, b, counted in ops:
        writer = eager if counted else lazy
        if op == "turn":
            writer.append_turn("s", a, b)
        elif op == "message":
            writer.add_message("s", Message(role=a, content=b))
        elif not eager.exists("s"):
            continue
        elif op == "stats":
            eager.session_stats("s")
        elif op == "undo":
            eager.delete_last_turn("s")
        elif op == "summary":
            eager.set_summary("s", a)
        elif op == "compact":
            eager.compact("s")
        elif op == "clear":
            eager.clear("s")
    if not eager.exists("s"):
        return
    fast = eager.session_stats("s")
    assert "tally" in last_record(eager)
    same_counts(fast, truth(eager))


def test_stats_count_deferred_messages_once(store: SessionStore) -> None:
    lazy = SessionStore(store.home, fsync=False, count_on_write=False)
    lazy.append_turn("s", "hello there", "general kenobi")
    assert last_record(store)["tally"]["pending"] == 2  # type: ignore[index]
    first = store.session_stats("s")
    assert first.token_count == count_tokens("hello there") + count_tokens("general kenobi")
    after = last_record(store)
    assert after["type"] == "tokens" and after["tally"]["pending"] == 0  # type: ignore[index]
    size = (store.sessions_dir / "s.jsonl").stat().st_size
    assert store.session_stats("s") == first
    assert (store.sessions_dir / "s.jsonl").stat().st_size == size  # nothing counted twice


def test_files_without_totals_are_scanned(store: SessionStore) -> None:
    for n in range(5):
        store.append_turn("s", f"question {n}", f"answer {n}")
    path = store.sessions_dir / "s.jsonl"
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    for record in records:
        record.pop("tally", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    same_counts(store.session_stats("s"), truth(store))
    store.append_turn("s", "one more", "reply")  # still no totals: the last one had none
    assert "tally" not in last_record(store)
    same_counts(store.session_stats("s"), truth(store))
    store.compact("s")
    assert "tally" in last_record(store)
    same_counts(store.session_stats("s"), truth(store))


RACER = """
import sys
from zerda import SessionStore
home, me = sys.argv[1], int(sys.argv[2])
lazy = SessionStore(home, fsync=False, count_on_write=False)
reader = SessionStore(home, fsync=False)
for n in range(40):
    lazy.append_turn("s", f"writer {me} question {n}", f"writer {me} answer {n} " * (n % 5))
    if n % 3 == me % 3:
        reader.session_stats("s")
"""


def test_racing_writers_and_counting_readers_keep_totals_exact(home: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(home), str(me)]) for me in range(6)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    store = SessionStore(home, fsync=False)
    stats = store.session_stats("s")
    assert stats.messages == 6 * 40 * 2
    same_counts(stats, truth(store))
    assert last_record(store)["tally"]["pending"] == 0  # type: ignore[index]


def test_memory_round_trip_keeps_totals(store: SessionStore) -> None:
    store.add_memory("s", Memory(messages=[Message("system", "be brief"), Message("user", "hi")]))
    store.add_memory("s", Memory(messages=[Message("assistant", "hello")], summary="greeting"))
    same_counts(store.session_stats("s"), truth(store))
