"""The summary memories stay bounded in RAM and in prompt, and record what their summary covers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench.summaries import FACTS, kept, planted_turns
from zerda import Message, SessionStore
from zerda.errors import SummarizerError, ZerdaError
from zerda.memory import (
    ConversationBufferMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
)
from zerda.memory._budget import chat_tokens
from zerda.memory._summary import summarize_session
from zerda.messages import covered_turns
from zerda.summarizers import ExtractiveSummarizer
from zerda.tokens import count_tokens

Turn = dict[str, Any]


def fill(memory: Any, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        memory.save_context({"input": f"Question {n} about item {n}?"}, {"output": f"Answer {n}."})


def joining(previous: str, new_turns: Sequence[Turn]) -> str:
    """A summarizer that lists every input it folded."""
    return " ".join([previous, *(str(t["input"]) for t in new_turns)]).strip()


# -- bounded in RAM and in prompt --------------------------------------------------


@pytest.mark.parametrize("count", [1, 10, 100, 1000, 5000])
def test_summary_memory_holds_no_turns_and_a_bounded_summary(count: int) -> None:
    memory = ConversationSummaryMemory(max_summary_tokens=200)
    fill(memory, count)
    assert memory.chat_memory == []  # every turn folded at once
    recent = [t["input"] for t in memory.get_messages()]  # the ones it folded last, bounded
    assert recent == [f"Question {n} about item {n}?" for n in range(max(0, count - 64), count)]
    assert memory.summary_turns == count
    assert count_tokens(memory.summary) <= 200
    text = memory.load_memory_variables({})["history"]
    assert text == f"summary: {memory.summary}"
    assert chat_tokens(memory.context_messages()) <= 200 + 20  # the summary and its framing


@pytest.mark.parametrize("count", [1, 10, 100, 1000, 5000])
def test_summary_buffer_holds_recent_turns_within_the_budget(count: int) -> None:
    memory = ConversationSummaryBufferMemory(max_token_limit=300)
    fill(memory, count)
    assert memory.summary_turns + len(memory.chat_memory) == count
    assert memory.chat_memory[-1]["input"] == f"Question {count - 1} about item {count - 1}?"
    assert count_tokens(memory.summary) <= memory.max_summary_tokens == 75
    assert count_tokens(memory.load_memory_variables({})["history"]) <= 300
    assert chat_tokens(memory.context_messages()) <= 300
    assert memory.get_memory_stats()["over_budget"] is False


def test_return_messages_hands_over_chat_memory_and_the_summary() -> None:
    memory = ConversationSummaryMemory(return_messages=True)
    fill(memory, 3)
    loaded = memory.load_memory_variables({})
    assert loaded["history"] is memory.chat_memory and loaded["history"] == []
    assert "Answer 2." in loaded["summary"]


def test_a_bound_summary_memory_keeps_every_turn_on_disk(store: SessionStore) -> None:
    memory = ConversationSummaryMemory(store=store, session_id="s", max_summary_tokens=100)
    fill(memory, 300)
    assert memory.chat_memory == []
    assert len(store.get_memory("s").messages) == 600
    assert ConversationBufferMemory(store=store, session_id="s").get_messages()[-1] == {
        "input": "Question 299 about item 299?",
        "output": "Answer 299.",
        "timestamp": pytest.approx(memory_time(store), abs=1),
    }


def memory_time(store: SessionStore) -> float:
    last = store.get_memory("s", lastn=2).messages[0]
    assert last.created_at is not None
    return last.created_at.timestamp()


# -- what a stored summary records ------------------------------------------------


@pytest.mark.parametrize("kind", ["summary", "summary_buffer"])
def test_the_stored_summary_says_what_made_it_and_what_it_covers(
    kind: str, store: SessionStore
) -> None:
    memory: Any = (
        ConversationSummaryMemory(store=store, session_id="s")
        if kind == "summary"
        else ConversationSummaryBufferMemory(max_token_limit=60, store=store, session_id="s")
    )
    fill(memory, 12)
    stored = store.get_summary("s")
    assert stored is not None and stored.content == memory.summary
    assert stored.metadata == {
        "summarizer": "extractive",
        "turns": memory.summary_turns,
        "turn_tokens": memory.summary_turn_tokens,
        "through": memory.summary_through,
    }
    assert memory.summary_turns == 12 - len(memory.chat_memory) > 0
    assert stored.token_count == count_tokens(memory.summary)


def test_a_custom_summarizer_is_named_by_its_function(store: SessionStore) -> None:
    memory = ConversationSummaryMemory(joining, store=store, session_id="s")
    fill(memory, 2)
    stored = store.get_summary("s")
    assert stored is not None and stored.metadata["summarizer"] == "joining"
    assert stored.content == "Question 0 about item 0? Question 1 about item 1?"


# -- restoring ----------------------------------------------------------------------


def test_a_restored_memory_reads_only_the_newest_turn_its_summary_covers(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It reads that turn to see that it is still the one the summary covers (see below).
    fill(ConversationSummaryMemory(store=store, session_id="s"), 50)
    read: list[Message] = []
    backwards = SessionStore.iter_messages_reversed

    def counted(self: SessionStore, session_id: str) -> Iterator[Message]:
        for message in backwards(self, session_id):
            read.append(message)
            yield message

    monkeypatch.setattr(SessionStore, "iter_messages", fail_if_called)
    monkeypatch.setattr(SessionStore, "iter_messages_reversed", counted)
    restored = ConversationSummaryMemory(store=store, session_id="s")
    assert restored.summary_turns == 50 and restored.chat_memory == []
    assert len(read) <= 3  # the newest turn's two messages, and the one before them


@pytest.mark.parametrize("kind", ["summary", "summary_buffer"])
def test_a_summary_of_turns_undone_and_replaced_is_made_again(
    kind: str, store: SessionStore
) -> None:
    def made() -> Any:
        if kind == "summary":
            return ConversationSummaryMemory(joining, store=store, session_id="s")
        return ConversationSummaryBufferMemory(
            60, joining, store=store, session_id="s", max_summary_tokens=500
        )

    fill(made(), 12)
    covered = covered_turns(store.get_summary("s")) or 0
    assert covered > 0
    # Turns the summary covers are undone and as many others written, by other means:
    # the count matches again, the turns do not.
    for _ in range(12 - covered + 2):
        store.delete_last_turn("s")
    for number in range(12 - covered + 2):
        store.append_turn("s", f"Replacement {number}?", "Yes.")
    restored = made()
    assert "Question 11 about item 11" not in restored.summary
    assert f"Question {covered - 1} about item {covered - 1}" not in restored.summary
    assert "Replacement" in restored.summary or restored.chat_memory


def fail_if_called(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("read the session's messages")


def test_a_restored_memory_folds_turns_written_behind_its_back(store: SessionStore) -> None:
    live = ConversationSummaryMemory(joining, store=store, session_id="s")
    fill(live, 3)
    store.append_turn("s", "Added by zerda add", "ok")
    store.add_message("s", Message("system", "Be brief."))
    restored = ConversationSummaryMemory(joining, store=store, session_id="s")
    assert restored.summary.endswith("Question 2 about item 2? Added by zerda add")
    assert restored.summary_turns == 4
    assert restored.load_memory_variables({})["history"].startswith("system: Be brief.\nsummary:")
    stored = store.get_summary("s")
    assert stored is not None and stored.metadata["turns"] == 3  # written with the next save
    fill(restored, 1, start=3)
    stored = store.get_summary("s")
    assert stored is not None and stored.metadata["turns"] == 5


def test_a_session_without_summary_is_folded_when_the_memory_is_made(store: SessionStore) -> None:
    for question, answer in planted_turns(60):
        store.append_turn("s", question, answer)
    memory = ConversationSummaryMemory(store=store, session_id="s")
    assert memory.summary_turns == 60 and kept(memory.summary) >= len(FACTS) // 2
    assert store.get_summary("s") is None  # nothing written until a save


def test_catching_up_with_a_long_session_streams_it_in_batches(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerda.memory import _summary as module

    for n in range(module.TAIL_TURNS + 200):
        store.append_turn("s", f"Question {n}?", f"Answer {n}.")
    folds: list[int] = []

    def counting(previous: str, new_turns: Sequence[Turn]) -> str:
        folds.append(len(new_turns))
        return previous

    memory = ConversationSummaryMemory(counting, store=store, session_id="s")
    assert sum(folds) == memory.summary_turns == module.TAIL_TURNS + 200
    assert max(folds) == module.FOLD_BATCH


def test_the_buffer_holds_the_newest_turn_a_stored_summary_covers(store: SessionStore) -> None:
    for n in range(30):
        store.append_turn("s", f"Question {n}?", f"Answer {n}.")
    store.set_summary("s", summarize_session(store, "s"))  # covers all 30, as zerda summarize
    memory = ConversationSummaryBufferMemory(max_token_limit=200, store=store, session_id="s")
    assert memory.chat_memory[-1]["input"] == "Question 29?"
    assert memory.summary_turns + len(memory.chat_memory) == 30
    assert count_tokens(memory.load_memory_variables({})["history"]) <= 200


def test_a_summary_covering_undone_turns_is_made_again(store: SessionStore) -> None:
    fill(ConversationSummaryMemory(joining, store=store, session_id="s"), 3)
    store.delete_last_turn("s")
    restored = ConversationSummaryMemory(joining, store=store, session_id="s")
    assert restored.summary == "Question 0 about item 0? Question 1 about item 1?"
    assert restored.summary_turns == 2


def test_a_summary_made_under_a_larger_bound_is_brought_within_the_new_one(
    store: SessionStore,
) -> None:
    fill(ConversationSummaryMemory(store=store, session_id="s", max_summary_tokens=400), 200)
    restored = ConversationSummaryMemory(store=store, session_id="s", max_summary_tokens=60)
    assert count_tokens(restored.summary) <= 60


def test_a_summary_without_coverage_is_taken_as_covering_what_is_not_held(
    store: SessionStore,
) -> None:
    for n in range(6):
        store.append_turn("s", f"q{n}", f"a{n}")
    store.set_summary("s", "An old summary.")  # plain text, as zerda 0.1 stored it
    memory = ConversationSummaryMemory(joining, store=store, session_id="s")
    assert memory.summary == "An old summary." and memory.summary_turns == 6
    buffer = ConversationSummaryBufferMemory(40, joining, store=store, session_id="s")
    assert buffer.summary.startswith("An old summary.")  # the turns not held folded into it
    assert buffer.summary_turns + len(buffer.chat_memory) == 6


def test_summary_buffer_restores_what_it_held(store: SessionStore) -> None:
    live = ConversationSummaryBufferMemory(max_token_limit=80, store=store, session_id="s")
    fill(live, 40)
    again = ConversationSummaryBufferMemory(max_token_limit=80, store=store, session_id="s")
    assert again.summary == live.summary
    assert again.summary_turns == live.summary_turns
    assert again.chat_memory == [
        {**turn, "timestamp": again.chat_memory[i]["timestamp"]}
        for i, turn in enumerate(live.chat_memory)
    ]


def test_resummarize_makes_the_summary_again_and_stores_it(store: SessionStore) -> None:
    def bound() -> ConversationSummaryBufferMemory:
        return ConversationSummaryBufferMemory(
            60, joining, max_summary_tokens=200, store=store, session_id="s"
        )

    fill(bound(), 6)
    first = store.get_memory("s").messages[0]
    store.add_message("s", Message("user", "Rewritten question", uuid=first.uuid))  # in place
    reopened = bound()
    assert reopened.summary.startswith("Question 0")  # its count of turns did not change
    value = reopened.resummarize()
    assert value is not None and value.content.startswith("Rewritten question Question 1")
    assert reopened.summary == value.content
    stored = store.get_summary("s")
    assert stored is not None and (stored.content, stored.metadata) == (
        value.content,
        value.metadata,
    )
    assert ConversationSummaryMemory(joining).resummarize() is None  # not bound


def test_summarize_session_covers_every_turn(store: SessionStore) -> None:
    for question, answer in planted_turns(100):
        store.append_turn("s", question, answer)
    summary = summarize_session(store, "s", max_summary_tokens=300)
    assert summary.metadata == {
        "summarizer": "extractive",
        "turns": 100,
        "turn_tokens": summary.metadata["turn_tokens"],
        "through": summary.metadata["through"],
    }
    assert count_tokens(summary.content) <= 300 and kept(summary.content) >= len(FACTS) // 2
    assert store.get_summary("s") is None


# -- a failing summarizer ------------------------------------------------------------


class Flaky:
    """Works until told to fail."""

    def __init__(self) -> None:
        self.failing = False

    def __call__(self, previous: str, new_turns: Sequence[Turn]) -> str:
        if self.failing:
            raise ConnectionError("model unreachable")
        return joining(previous, new_turns)


@pytest.mark.parametrize("kind", ["summary", "summary_buffer"])
def test_a_failing_summarizer_keeps_the_old_summary_and_writes_nothing(
    kind: str, store: SessionStore
) -> None:
    flaky = Flaky()
    memory: Any = (
        ConversationSummaryMemory(flaky, store=store, session_id="s")
        if kind == "summary"
        else ConversationSummaryBufferMemory(30, flaky, store=store, session_id="s")
    )
    fill(memory, 5)
    before = (memory.summary, memory.summary_turns, list(memory.chat_memory))
    file = store.sessions_dir / "s.jsonl"
    on_disk = file.read_bytes()
    flaky.failing = True
    with pytest.raises(SummarizerError) as caught:
        fill(memory, 1, start=5)
    assert isinstance(caught.value, ZerdaError)
    assert (memory.summary, memory.summary_turns, list(memory.chat_memory)) == before
    assert file.read_bytes() == on_disk
    flaky.failing = False
    fill(memory, 1, start=5)
    stored = store.get_summary("s")
    assert stored is not None and stored.content == memory.summary
    assert "Question 5" in memory.summary or memory.chat_memory[-1]["input"].startswith(
        "Question 5"
    )


def test_a_model_summarizer_failure_is_its_client_error(tmp_path: Path) -> None:
    from zerda.summarizers import CommandSummarizer

    script = tmp_path / "fails"
    script.write_text("#!/bin/sh\necho 'no model here' >&2\nexit 3\n")
    script.chmod(0o755)
    memory = ConversationSummaryMemory(CommandSummarizer(str(script)))
    with pytest.raises(ZerdaError, match="no model here"):
        fill(memory, 1)
    assert memory.summary == "" and memory.summary_turns == 0


def test_the_default_summarizer_uses_the_memorys_bound() -> None:
    memory = ConversationSummaryMemory(max_summary_tokens=77)
    assert isinstance(memory.summarizer, ExtractiveSummarizer)
    assert memory.summarizer.max_summary_tokens == 77
    own = ConversationSummaryMemory(ExtractiveSummarizer(max_summary_tokens=33))
    assert own.max_summary_tokens == 33
    assert ConversationSummaryBufferMemory(max_token_limit=2000).max_summary_tokens == 500
    assert ConversationSummaryBufferMemory(max_token_limit=300).max_summary_tokens == 75


def test_stats_report_the_summary() -> None:
    memory = ConversationSummaryMemory()
    fill(memory, 4)
    stats = memory.get_memory_stats()
    assert stats["message_count"] == 0 and stats["summary_turns"] == 4
    assert stats["summary_tokens"] == count_tokens(memory.summary)
    assert stats["max_summary_tokens"] == 512
    json.dumps(stats)


class Counting:
    """A summarizer standing for a model: it counts the requests it gets."""

    def __init__(self) -> None:
        self.calls = 0

    def describe(self) -> dict[str, Any]:
        return {"summarizer": "counting"}

    def __call__(self, previous: str, new_turns: Sequence[Turn]) -> str:
        self.calls += 1
        return joining(previous, new_turns)


def test_binding_a_model_stores_no_summary_it_did_not_make(store: SessionStore) -> None:
    from zerda.memory._spec import MemorySpec, bind_memory

    fill(ConversationSummaryBufferMemory(60, store=store, session_id="s"), 12)
    before = store.get_summary("s")
    assert before is not None and before.metadata["summarizer"] == "extractive"
    model = Counting()
    bind_memory(MemorySpec("summary", 60), store, "s", model)
    assert model.calls == 0
    assert store.get_summary("s") == before


def test_undoing_turns_held_verbatim_asks_a_model_nothing(store: SessionStore) -> None:
    model = Counting()
    fill(ConversationSummaryBufferMemory(60, model, store=store, session_id="s"), 20)
    covered = covered_turns(store.get_summary("s")) or 0
    while store.session_stats("s").turn_count > covered:
        store.delete_last_turn("s")  # /undo of every turn the summary does not cover
    model.calls = 0
    restored = ConversationSummaryBufferMemory(60, model, store=store, session_id="s")
    assert model.calls == 0  # the summary still covers exactly these turns: kept
    assert restored.summary_turns == covered and restored.chat_memory == []


def test_turns_of_any_value_keep_their_summary_when_restored(store: SessionStore) -> None:
    # Sides that are not text come back as the store keeps them (JSON, or their text):
    # the fingerprint of the newest covered turn is taken in that form, so it matches.
    model = Counting()
    memory = ConversationSummaryBufferMemory(40, model, store=store, session_id="s")
    sides: list[Any] = [{(1, 2): "tuple key"}, {1: "a", "b": 2}, ("a", 1), float("nan"), 7]
    for number in range(10):
        side = sides[number % len(sides)]
        memory.save_context({"input": side}, {"output": f"reply {number} " + "words " * 10})
    assert memory.summary_turns > 0
    model.calls = 0
    restored = ConversationSummaryBufferMemory(40, model, store=store, session_id="s")
    assert model.calls == 0 and restored.summary == memory.summary
