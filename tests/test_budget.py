"""Budgets bound what a model receives: the text form and the chat messages, framing included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerda import Memory, Message, SessionStore
from zerda.formats.openai import from_openai
from zerda.memory import (
    BaseMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from zerda.memory._budget import chat_tokens, message_tokens
from zerda.tokens import count_tokens

BUDGETED = [ConversationTokenBufferMemory, ConversationSummaryBufferMemory]
texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)


def context_tokens(memory: BaseMemory) -> tuple[int, int]:
    """What the memory hands a model, counted with the same encoder: text, chat messages."""
    text = memory.load_memory_variables({})[memory.memory_key]
    return count_tokens(text, memory.encoding), chat_tokens(memory.context_messages())


def test_the_chat_rule() -> None:
    hi = {"role": "user", "content": "Hi"}
    assert message_tokens(hi) == 3 + count_tokens("user") + count_tokens("Hi")
    named = {"role": "user", "content": "Hi", "name": "Alice"}
    assert message_tokens(named) == message_tokens(hi) + 1 + count_tokens("Alice")
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]}
    assert message_tokens(call) == 3 + count_tokens("assistant") + count_tokens(
        '{"tool_calls":[{"id":"c1"}]}'
    )
    assert chat_tokens([hi, hi]) == 3 + 2 * message_tokens(hi)
    assert chat_tokens([]) == 3


@pytest.mark.parametrize("cls", BUDGETED, ids=lambda c: c.__name__)
@settings(max_examples=40, deadline=None)
@given(
    limit=st.integers(0, 160),
    system=st.none() | texts,
    turns=st.lists(st.tuples(st.none() | texts, st.none() | texts), max_size=25),
)
def test_the_context_fits_the_budget_unless_the_newest_turn_alone_does_not(
    cls: Any, limit: int, system: str | None, turns: list[tuple[str | None, str | None]]
) -> None:
    memory = cls(max_token_limit=limit)
    if system is not None:
        memory.system_messages = [Message("system", system)]
    for question, answer in turns:
        memory.save_context({"input": question}, {"output": answer})
        held = memory.get_messages()
        assert (held[-1]["input"], held[-1]["output"]) == (question, answer)
        text, chat = context_tokens(memory)
        over = max(text, chat) > limit
        assert memory.get_memory_stats()["over_budget"] is over
        assert memory.get_memory_stats()["context_tokens"] == max(text, chat)
        if over:
            assert len(held) == 1  # only the newest turn, kept though over the budget
            assert max(context_tokens(_alone(memory, question, answer))) > limit


def _alone(memory: BaseMemory, question: str | None, answer: str | None) -> BaseMemory:
    """A token memory with `memory`'s budget and system messages holding one turn only:
    the exception the budget makes (a summary never pushes a context over it)."""
    lone = ConversationTokenBufferMemory(max_token_limit=memory.max_token_limit)  # type: ignore[attr-defined]
    lone.system_messages = list(memory.system_messages)
    lone.save_context({"input": question}, {"output": answer})
    return lone


@pytest.mark.parametrize("limit", [34, 36, 38, 45])
def test_a_summary_gives_way_to_the_newest_turn_within_the_budget(limit: int) -> None:
    memory = ConversationSummaryBufferMemory(max_token_limit=limit)
    for n in range(6):
        memory.save_context({"input": f"Rome {n} is what"}, {"output": f"a capital {n}"})
    assert len(memory.chat_memory) == 1
    assert max(context_tokens(memory)) <= limit
    assert memory.get_memory_stats()["over_budget"] is False
    shown = memory.load_memory_variables({})["history"]
    assert shown.endswith("user: Rome 5 is what\nassistant: a capital 5")


@pytest.mark.parametrize("limit", [50, 200, 1000])
@pytest.mark.parametrize("cls", BUDGETED, ids=lambda c: c.__name__)
def test_long_conversations_stay_within_the_budget(cls: Any, limit: int) -> None:
    memory = cls(max_token_limit=limit)
    for n in range(400):
        memory.save_context({"input": f"Tell me about topic {n}."}, {"output": f"Topic {n}: ok."})
        assert max(context_tokens(memory)) <= limit
    assert len(memory.chat_memory) >= (2 if limit >= 200 else 1)


@pytest.mark.parametrize("limit", [30, 47, 100, 333])
def test_the_token_buffer_drops_only_what_it_must(limit: int) -> None:
    saved = [(f"question {n}", f"answer {n} " * (n % 4)) for n in range(30)]
    memory = ConversationTokenBufferMemory(max_token_limit=limit)
    for question, answer in saved:
        memory.save_context({"input": question}, {"output": answer})
    held = len(memory.chat_memory)
    one_more = ConversationTokenBufferMemory(max_token_limit=10**6)
    for question, answer in saved[-held - 1 :]:
        one_more.save_context({"input": question}, {"output": answer})
    assert max(context_tokens(memory)) <= limit < max(context_tokens(one_more))


def test_the_budget_counts_what_the_model_gets_not_just_the_words() -> None:
    memory = ConversationTokenBufferMemory(max_token_limit=40)
    for n in range(10):
        memory.save_context({"input": f"question {n}"}, {"output": f"answer {n}"})
    text, chat = context_tokens(memory)
    assert text <= 40 and chat <= 40
    content = sum(count_tokens(t["input"]) + count_tokens(t["output"]) for t in memory.chat_memory)
    assert content < chat  # per-message framing is counted


def test_the_newest_turn_alone_over_the_budget_stays() -> None:
    memory = ConversationTokenBufferMemory(max_token_limit=10)
    memory.save_context({"input": "a b"}, {"output": "c"})
    memory.save_context({"input": "word " * 50}, {"output": "long " * 50})
    assert [t["input"] for t in memory.get_messages()] == ["word " * 50]
    assert memory.get_memory_stats()["over_budget"] is True


def test_system_messages_count_and_are_never_dropped(store: SessionStore) -> None:
    store.add_message("s", Message("system", "You are a terse assistant. " * 4))
    for n in range(20):
        store.append_turn("s", f"question {n}", f"answer {n}")
    for cls in BUDGETED:
        memory = cls(max_token_limit=90, store=store, session_id="s")
        assert memory.context_messages()[0]["role"] == "system"
        assert max(context_tokens(memory)) <= 90
        assert 1 <= len(memory.chat_memory) < 20


def test_tool_call_turns_count_every_message_they_send(store: SessionStore) -> None:
    exchange = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18 C, sunny, light wind from the west"},
        {"role": "assistant", "content": "18 °C and sunny."},
    ]
    for _ in range(5):
        store.add_memory("s", Memory([from_openai(m) for m in exchange]))
    memory = ConversationTokenBufferMemory(max_token_limit=150, store=store, session_id="s")
    assert memory.context_messages()[-4:] == exchange
    assert chat_tokens(memory.context_messages()) <= 150
    assert (
        chat_tokens(exchange) * len(memory.chat_memory) + 3
        > chat_tokens(memory.context_messages()) - 3
    )


def test_a_restored_token_buffer_fits_the_budget(store: SessionStore) -> None:
    for n in range(300):
        store.append_turn("s", f"question number {n}", f"answer number {n}")
    memory = ConversationTokenBufferMemory(max_token_limit=120, store=store, session_id="s")
    assert max(context_tokens(memory)) <= 120
    assert memory.chat_memory[-1]["input"] == "question number 299"


def test_the_summary_memory_hands_over_its_bounded_summary() -> None:
    memory = ConversationSummaryMemory(max_summary_tokens=60)
    for n in range(300):
        memory.save_context({"input": f"Fact {n}: the code is {n * 7}."}, {"output": "Noted."})
    text, chat = context_tokens(memory)
    assert count_tokens(memory.summary) <= 60
    assert text <= 60 + count_tokens("summary: ")
    assert chat <= 60 + chat_tokens(
        [{"role": "system", "content": "Summary of the conversation so far:\n"}]
    )
