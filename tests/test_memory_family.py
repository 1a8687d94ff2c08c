"""Every memory class shares one behaviour; the window, token and stats invariants hold."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerda.memory import (
    BaseMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from zerda.tokens import count_tokens

Factory = Callable[..., BaseMemory]

FAMILY: dict[str, Factory] = {
    "buffer": ConversationBufferMemory,
    "window": lambda **kw: ConversationBufferWindowMemory(k=1000, **kw),
    "token": lambda **kw: ConversationTokenBufferMemory(max_token_limit=100_000, **kw),
    "summary": ConversationSummaryMemory,
    "summary_buffer": lambda **kw: ConversationSummaryBufferMemory(max_token_limit=100_000, **kw),
}
CLASSES = [
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationTokenBufferMemory,
    ConversationSummaryMemory,
    ConversationSummaryBufferMemory,
]


@pytest.fixture(params=sorted(FAMILY))
def make(request: pytest.FixtureRequest) -> Factory:
    return FAMILY[request.param]


# ConversationSummaryMemory folds each turn into its summary at once and holds none
# (tests/test_summary_memory.py); the others hold their turns verbatim.
@pytest.fixture(params=sorted(set(FAMILY) - {"summary"}))
def make_holding(request: pytest.FixtureRequest) -> Factory:
    return FAMILY[request.param]


def test_family_shares_one_base() -> None:
    assert all(issubclass(cls, BaseMemory) for cls in CLASSES)
    assert len({cls().get_memory_stats()["type"] for cls in CLASSES}) == len(CLASSES)


def test_save_and_get_messages(make_holding: Factory) -> None:
    mem = make_holding()
    for i in range(4):
        mem.save_context({"input": f"q{i}"}, {"output": f"a{i}"})
    turns = mem.get_messages()
    assert [(t["input"], t["output"]) for t in turns] == [(f"q{i}", f"a{i}") for i in range(4)]
    assert [t["input"] for t in mem.get_messages(limit=2)] == ["q2", "q3"]
    assert len(mem.get_messages(limit=0)) == 4


def test_custom_keys_and_missing_key(make_holding: Factory) -> None:
    mem = make_holding(input_key="q", output_key="a", memory_key="ctx")
    mem.save_context({"q": "question"}, {})
    assert mem.get_messages()[0]["input"] == "question"
    assert mem.get_messages()[0]["output"] is None
    assert set(mem.load_memory_variables({})) >= {"ctx"}


def test_return_messages_gives_the_list(make: Factory) -> None:
    mem = make(return_messages=True)
    mem.save_context({"input": "a"}, {"output": "b"})
    assert mem.load_memory_variables({"ignored": 1})["history"] is mem.chat_memory


def test_text_form_holds_the_turns(make: Factory) -> None:
    mem = make()
    mem.save_context({"input": "Bonjour"}, {"output": "Salut"})
    text = mem.load_memory_variables({})["history"]
    assert "Bonjour" in text and "Salut" in text
    assert mem.load_memory_variables({"input": "x"}) == mem.load_memory_variables({})


def test_clear(make: Factory) -> None:
    mem = make()
    mem.save_context({"input": "a"}, {"output": "b"})
    mem.clear()
    assert mem.get_messages() == []
    assert mem.get_memory_stats()["message_count"] == 0
    assert mem.load_memory_variables({})["history"] == ""


def test_stats_keys(make_holding: Factory) -> None:
    mem = make_holding()
    mem.save_context({"input": "hello"}, {"output": "world!"})
    stats = mem.get_memory_stats()
    assert stats["message_count"] == 1
    assert stats["total_characters"] == 11
    assert stats["estimated_tokens"] == 2
    assert stats["token_count"] == count_tokens("hello") + count_tokens("world!")
    assert isinstance(stats["type"], str)


def test_async_twins(make: Factory) -> None:
    mem = make()

    async def run() -> dict[str, Any]:
        await mem.asave_context({"input": "Hi"}, {"output": "Hello!"})
        return await mem.aload_memory_variables({})

    assert "Hello!" in asyncio.run(run())["history"]


def test_store_and_session_id_go_together(make: Factory, tmp_path: Any) -> None:
    from zerda import SessionStore

    with pytest.raises(ValueError):
        make(session_id="x")
    with pytest.raises(ValueError):
        make(store=SessionStore(tmp_path))


# -- the window ---------------------------------------------------------------


def test_window_get_messages_with_limit() -> None:
    """The original raised TypeError here (a deque cannot be sliced)."""
    mem = ConversationBufferWindowMemory(k=3)
    for i in range(6):
        mem.save_context({"input": f"q{i}"}, {"output": f"a{i}"})
    assert [t["input"] for t in mem.get_messages(limit=2)] == ["q4", "q5"]
    assert [t["input"] for t in mem.get_messages(limit=5)] == ["q3", "q4", "q5"]
    assert [t["input"] for t in mem.get_messages()] == ["q3", "q4", "q5"]
    assert mem.load_memory_variables({})["history"].startswith("user: q3\n")


def test_window_zero_holds_nothing() -> None:
    mem = ConversationBufferWindowMemory(k=0)
    mem.save_context({"input": "a"}, {"output": "b"})
    assert mem.get_messages() == []


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 6), ops=st.lists(st.sampled_from(["save", "clear"]), max_size=40))
def test_window_never_holds_more_than_k(k: int, ops: list[str]) -> None:
    mem = ConversationBufferWindowMemory(k=k)
    saved: list[int] = []
    for n, op in enumerate(ops):
        if op == "save":
            mem.save_context({"input": n}, {"output": -n})
            saved.append(n)
        else:
            mem.clear()
            saved.clear()
        assert len(mem.chat_memory) <= k
        assert [t["input"] for t in mem.get_messages()] == (saved[-k:] if k else [])


# -- the token budget (the budget rule itself: tests/test_budget.py) -----------------

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)


def test_token_buffer_keeps_single_oversized_turn() -> None:
    mem = ConversationTokenBufferMemory(max_token_limit=3)
    mem.save_context({"input": "a b"}, {"output": "c"})
    mem.save_context({"input": "word " * 50}, {"output": "long " * 50})
    assert len(mem.get_messages()) == 1
    assert mem.get_messages()[0]["input"] == "word " * 50
    assert mem.get_memory_stats()["over_budget"] is True


# -- stats follow the turns held -------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=25, deadline=None)
@given(
    ops=st.lists(
        st.one_of(
            st.just(("clear", None, None)),
            st.tuples(st.just("save"), st.none() | texts, st.none() | texts),
        ),
        max_size=20,
    )
)
def test_stats_match_turns_held(
    cls: type[BaseMemory], ops: list[tuple[str, str | None, str | None]]
) -> None:
    mem = cls()
    for op, question, answer in ops:
        if op == "clear":
            mem.clear()
        else:
            mem.save_context({"input": question}, {"output": answer})
        held = list(mem.chat_memory)  # what the stats count (a summary memory holds none)
        chars = sum(len(str(t["input"])) + len(str(t["output"])) for t in held)
        stats = mem.get_memory_stats()
        assert stats["message_count"] == len(held)
        assert stats["total_characters"] == chars
        assert stats["estimated_tokens"] == chars // 4
        assert stats["token_count"] == sum(
            count_tokens(t["input"] or "") + count_tokens(t["output"] or "") for t in held
        )


# -- threads ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_threads_lose_nothing(cls: type[BaseMemory]) -> None:
    threads, per_thread = 8, 1000
    if cls is ConversationBufferWindowMemory:
        mem: BaseMemory = cls(k=threads * per_thread)
    elif cls in (ConversationTokenBufferMemory, ConversationSummaryBufferMemory):
        mem = cls(max_token_limit=10**9)
    else:
        mem = cls()
    folded: list[dict[str, Any]] = []  # turns a summary memory folded, in order
    if isinstance(mem, ConversationSummaryMemory | ConversationSummaryBufferMemory):
        mem.summarizer = lambda previous, new: folded.extend(new) or previous
    barrier = threading.Barrier(threads)

    def work(t: int) -> None:
        barrier.wait()
        for i in range(per_thread):
            mem.save_context({"input": f"{t}:{i}"}, {"output": f"{t}:{i}"})

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    held = folded + mem.chat_memory
    assert len(held) == threads * per_thread
    assert all(t["input"] == t["output"] for t in held)
    assert {t["input"] for t in held} == {f"{t}:{i}" for t in range(threads) for i in range(1000)}
    for t in range(threads):
        mine = [int(x["input"].split(":")[1]) for x in held if x["input"].startswith(f"{t}:")]
        assert mine == list(range(per_thread))
    assert mem.get_memory_stats()["message_count"] == len(mem.chat_memory)


def test_token_buffer_recounts_after_clear() -> None:
    mem = ConversationTokenBufferMemory(max_token_limit=5)
    mem.save_context({"input": "a"}, {"output": "b"})
    mem.clear()
    mem.save_context({"input": "one two"}, {"output": "three"})
    mem.save_context({"input": "four five"}, {"output": "six"})
    assert [t["input"] for t in mem.get_messages()] == ["four five"]
