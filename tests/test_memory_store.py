"""Memory classes bound to a store session write every turn and restore from disk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from zerda import SessionStore
from zerda.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)


def fill(mem: Any, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        mem.save_context({"input": f"q{i}"}, {"output": f"a{i}"})


def test_buffer_appends_every_turn_and_restores(store: SessionStore) -> None:
    mem = ConversationBufferMemory(store=store, session_id="demo")
    assert not store.exists("demo")
    fill(mem, 3)
    messages = store.get_memory("demo").messages
    assert [(m.role, m.content) for m in messages] == [
        (role, f"{r[0]}{i}") for i in range(3) for role, r in (("user", "q"), ("assistant", "a"))
    ]
    again = ConversationBufferMemory(store=store, session_id="demo")
    assert [(t["input"], t["output"]) for t in again.get_messages()] == [
        (f"q{i}", f"a{i}") for i in range(3)
    ]
    assert again.load_memory_variables({}) == mem.load_memory_variables({})


def test_unbound_memory_writes_nothing(store: SessionStore) -> None:
    fill(ConversationBufferMemory(), 2)
    assert store.session_ids() == []
    assert not store.home.exists()


def test_window_restores_only_last_k(store: SessionStore) -> None:
    fill(ConversationBufferMemory(store=store, session_id="w"), 10)
    window = ConversationBufferWindowMemory(k=3, store=store, session_id="w")
    assert [t["input"] for t in window.get_messages()] == ["q7", "q8", "q9"]
    fill(window, 1, start=10)
    assert [t["input"] for t in window.get_messages()] == ["q8", "q9", "q10"]
    assert len(store.get_memory("w").messages) == 22


@pytest.mark.parametrize("limit", [0, 3, 9, 12, 100])
def test_token_buffer_restores_what_it_held(store: SessionStore, limit: int) -> None:
    live = ConversationTokenBufferMemory(max_token_limit=limit, store=store, session_id="t")
    fill(live, 10)
    restored = ConversationTokenBufferMemory(max_token_limit=limit, store=store, session_id="t")
    assert restored.get_messages() and len(restored.get_messages()) == len(live.get_messages())
    assert [t["input"] for t in restored.get_messages()] == [
        t["input"] for t in live.get_messages()
    ]


def test_clear_empties_session_but_keeps_it(store: SessionStore) -> None:
    mem = ConversationBufferMemory(store=store, session_id="c")
    fill(mem, 2)
    mem.clear()
    assert store.exists("c")
    assert store.get_memory("c").messages == []
    assert ConversationBufferMemory(store=store, session_id="c").get_messages() == []


def test_clear_before_any_write(store: SessionStore) -> None:
    mem = ConversationBufferMemory(store=store, session_id="fresh")
    mem.clear()
    assert mem.get_messages() == []
    fill(mem, 1)
    assert len(store.get_memory("fresh").messages) == 2


def test_summary_persists_and_restores(store: SessionStore) -> None:
    def summarizer(previous: str, new_turns: Sequence[dict[str, Any]]) -> str:
        return (previous + " " + " ".join(t["input"] for t in new_turns)).strip()

    mem = ConversationSummaryMemory(summarizer=summarizer, store=store, session_id="s")
    fill(mem, 3)
    summary = store.get_memory("s").summary
    assert summary is not None and summary.content == "q0 q1 q2"
    again = ConversationSummaryMemory(summarizer=summarizer, store=store, session_id="s")
    assert again.summary == "q0 q1 q2"
    assert again.load_memory_variables({})["history"] == "summary: q0 q1 q2"
    fill(again, 1, start=3)
    summary = store.get_memory("s").summary
    assert summary is not None and summary.content == "q0 q1 q2 q3"


def test_summary_buffer_persists_and_restores(store: SessionStore) -> None:
    def summarizer(previous: str, new_turns: Sequence[dict[str, Any]]) -> str:
        return (previous + " " + " ".join(t["input"] for t in new_turns)).strip()

    def bound() -> ConversationSummaryBufferMemory:  # room for two turns and the summary
        return ConversationSummaryBufferMemory(
            48, summarizer, max_summary_tokens=10, store=store, session_id="sb"
        )

    mem = bound()
    fill(mem, 5)
    assert mem.summary == "q0 q1 q2"
    again = bound()
    assert again.summary == "q0 q1 q2"
    assert [t["input"] for t in again.get_messages()] == ["q3", "q4"]


def test_missing_key_is_stored_as_empty_text(store: SessionStore) -> None:
    mem = ConversationBufferMemory(store=store, session_id="m")
    mem.save_context({}, {"output": "only output"})
    assert mem.get_messages()[0]["input"] is None
    assert [m.content for m in store.get_memory("m").messages] == ["", "only output"]


def test_failed_write_leaves_memory_unchanged(store: SessionStore) -> None:
    mem = ConversationBufferMemory(store=store, session_id="x")
    store.sessions_dir.mkdir(parents=True)
    (store.sessions_dir / "x.jsonl").symlink_to(store.home / "elsewhere")
    from zerda import UnsafePathError

    with pytest.raises(UnsafePathError):
        mem.save_context({"input": "q"}, {"output": "a"})
    assert mem.get_messages() == []


def test_threads_sharing_a_bound_memory_lose_nothing(store: SessionStore) -> None:
    import threading

    mem = ConversationBufferMemory(store=store, session_id="threads")
    threads, per_thread = 8, 125

    def work(t: int) -> None:
        for i in range(per_thread):
            mem.save_context({"input": f"{t}:{i}"}, {"output": f"{t}:{i}"})

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    messages = store.get_memory("threads").messages
    assert len(messages) == 2 * threads * per_thread
    pairs = list(zip(messages[::2], messages[1::2], strict=True))
    assert all(u.role == "user" and a.role == "assistant" for u, a in pairs)
    assert all(u.content == a.content for u, a in pairs)
    assert [u.content for u, _ in pairs] == [t["input"] for t in mem.get_messages()]
    restored = ConversationBufferMemory(store=store, session_id="threads").get_messages()
    assert [t["input"] for t in restored] == [t["input"] for t in mem.get_messages()]
