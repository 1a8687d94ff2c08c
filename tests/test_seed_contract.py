"""The seed page's contract, on every memory class: the text form with a missing side, and
`get_messages(limit)` that never answers empty where turns exist."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from zerda import SessionStore
from zerda.errors import InvalidArgumentError, SummarizerError
from zerda.memory import (
    BaseMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)

VERBATIM: dict[str, Callable[..., BaseMemory]] = {
    "buffer": ConversationBufferMemory,
    "window": lambda **kw: ConversationBufferWindowMemory(k=5, **kw),
    "token": lambda **kw: ConversationTokenBufferMemory(max_token_limit=10**6, **kw),
    "summary_buffer": lambda **kw: ConversationSummaryBufferMemory(max_token_limit=10**6, **kw),
}
EVERY: dict[str, Callable[..., BaseMemory]] = {**VERBATIM, "summary": ConversationSummaryMemory}


@pytest.mark.parametrize("kind", sorted(VERBATIM))
def test_a_missing_side_reads_none_in_the_text(kind: str, store: SessionStore) -> None:
    for memory in (VERBATIM[kind](), VERBATIM[kind](store=store, session_id=kind)):
        memory.save_context({}, {"output": "b"})
        memory.save_context({"input": "q"}, {})
        expected = "user: None\nassistant: b\nuser: q\nassistant: None"
        assert memory.load_memory_variables({})["history"] == expected
        # A model is sent the sides that were said, never a message saying None.
        assert memory.context_messages() == [
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "q"},
        ]
    restored = VERBATIM[kind](store=store, session_id=kind)
    assert restored.load_memory_variables({})["history"] == expected


def test_the_seed_example_four_prints_none() -> None:
    mem4 = ConversationBufferMemory()
    mem4.save_context({}, {"output": "..."})
    assert mem4.get_messages()[0]["input"] is None
    assert mem4.load_memory_variables({})["history"] == "user: None\nassistant: ..."


@pytest.mark.parametrize("kind", sorted(EVERY))
def test_get_messages_gives_the_turns_on_every_class(kind: str, store: SessionStore) -> None:
    for memory in (EVERY[kind](), EVERY[kind](store=store, session_id="s")):
        for n in range(3):
            memory.save_context({"input": f"q{n}"}, {"output": f"a{n}"})
        said = [(t["input"], t["output"]) for t in memory.get_messages()]
        assert said == [("q0", "a0"), ("q1", "a1"), ("q2", "a2")]
        assert [t["input"] for t in memory.get_messages(limit=2)] == ["q1", "q2"]
        assert len(memory.get_messages(limit=0)) == 3  # 0 is falsy: everything
    again = EVERY[kind](store=store, session_id="s")
    assert [t["input"] for t in again.get_messages(limit=1)] == ["q2"]


def test_an_unbound_summary_memory_keeps_only_its_recent_turns() -> None:
    memory = ConversationSummaryMemory(recent_turns=2)
    for n in range(5):
        memory.save_context({"input": f"q{n}"}, {"output": f"a{n}"})
    assert memory.chat_memory == []  # the seed's raw list: every turn was folded
    assert [t["input"] for t in memory.get_messages()] == ["q3", "q4"]
    memory.clear()
    assert memory.get_messages() == []
    with pytest.raises(InvalidArgumentError):
        ConversationSummaryMemory(recent_turns=-1)


def test_a_failed_save_is_not_among_the_recent_turns() -> None:
    class Failing:
        max_summary_tokens = 50

        def summarize(self, *args: object, **kwargs: object) -> str:
            raise SummarizerError("down")

    memory = ConversationSummaryMemory(Failing())  # type: ignore[arg-type]
    with pytest.raises(SummarizerError):
        memory.save_context({"input": "q"}, {"output": "a"})
    assert memory.get_messages() == []


def test_a_bound_summary_memory_reads_an_unwritten_session_as_empty(home: Path) -> None:
    memory = ConversationSummaryMemory(store=SessionStore(home), session_id="never")
    assert memory.get_messages() == [] and memory.get_messages(limit=3) == []


def test_a_bound_summary_never_takes_the_context_over_the_budget(store: SessionStore) -> None:
    def long_summary(previous: str, new_turns: Sequence[dict[str, Any]]) -> str:
        return (previous + " " + " ".join(f"{t['input']} {t['output']}" for t in new_turns)).strip()

    writer = ConversationSummaryMemory(
        long_summary, max_summary_tokens=200, store=store, session_id="s"
    )
    for n in range(12):
        writer.save_context({"input": f"Fact {n}: the vault code is {n * 7}."}, {"output": "ok"})
    reader = ConversationSummaryBufferMemory(
        max_token_limit=60, summarizer=long_summary, max_summary_tokens=200,
        store=store, session_id="s",
    )  # fmt: skip
    assert reader.chat_memory == [] and reader.summary  # the summary covers every turn
    stats = reader.get_memory_stats()
    assert stats["context_tokens"] <= 60 and stats["over_budget"] is False
    assert reader.load_memory_variables({})["history"].endswith("…")


def test_the_cut_follows_a_held_turn_edited_in_place() -> None:
    memory = ConversationSummaryBufferMemory(max_token_limit=45)
    for n in range(6):
        memory.save_context({"input": f"Rome {n} is what"}, {"output": f"a capital {n}"})
    assert len(memory.chat_memory) == 1 and memory.summary
    assert memory.get_memory_stats()["context_tokens"] <= 45
    memory.chat_memory[0]["input"] = "a longer question about Rome and its hills"
    assert memory.get_memory_stats()["context_tokens"] <= 45  # the cut is made again


def test_a_negative_limit_slices_alike_bound_or_not(store: SessionStore) -> None:
    for memory in (
        ConversationSummaryMemory(),
        ConversationSummaryMemory(store=store, session_id="n"),
    ):
        for n in range(4):
            memory.save_context({"input": f"q{n}"}, {"output": f"a{n}"})
        assert [t["input"] for t in memory.get_messages(limit=-3)] == ["q3"]
