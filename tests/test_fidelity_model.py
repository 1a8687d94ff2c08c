"""The message model against its two sources: Zep's Memories page and the
ConversationBufferMemory page (../shared/seeds), statement by statement."""

from __future__ import annotations

import asyncio
import re
import subprocess
import uuid as uuidlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cli_runner import ZERDA

from zerda import (
    InvalidArgumentError,
    Memory,
    Message,
    NotFoundError,
    SessionStore,
    Summary,
    ZerdaError,
)
from zerda.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from zerda.tokens import count_tokens

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ZEP_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
# Zep's own example history, as the Memories page gives it.
HISTORY = [
    {"role": "human", "content": "Who was Octavia Butler?"},
    {
        "role": "ai",
        "content": "Octavia Estelle Butler (June 22, 1947 – February 24, 2006) was an American"  # noqa: RUF001 (as the seed has it)
        " science fiction author.",
    },
    {
        "role": "human",
        "content": "Which books of hers were made into movies?",
        "metadata": {"foo": "bar"},
    },
]
ALL_MEMORIES = [
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationTokenBufferMemory,
    ConversationSummaryMemory,
    ConversationSummaryBufferMemory,
]


# -- Zep: Memories ------------------------------------------------------------


def test_zep_example_round_trips_through_the_async_client_names(store: SessionStore) -> None:
    session_id = uuidlib.uuid4().hex  # "A new session identifier"
    messages = [Message(role=m["role"], content=m["content"]) for m in HISTORY]
    messages[2] = Message(**HISTORY[2])  # "you can even store custom metadata"

    async def scenario() -> Memory:
        await store.aadd_memory(session_id, Memory(messages=messages))
        return await store.aget_memory(session_id)

    memory = asyncio.run(scenario())  # "Sessions don't need to be explicitly created"
    dicts = [m.to_dict() for m in memory.messages]
    assert [(d["role"], d["content"]) for d in dicts] == [
        (m["role"], m["content"]) for m in HISTORY
    ]
    assert dicts[2]["metadata"] == {"foo": "bar"}
    for data in dicts:  # "returned with UUIDs, token counts, timestamps"
        assert UUID.fullmatch(data["uuid"]) and ZEP_TIME.fullmatch(data["created_at"])
        assert data["token_count"] == count_tokens(data["content"])
        assert data["role_type"] in ("user", "assistant")


def test_an_unknown_session_is_not_found(store: SessionStore) -> None:
    with pytest.raises(NotFoundError):
        asyncio.run(store.aget_memory("never-written"))
    with pytest.raises(NotFoundError):
        store.update_session("never-written", metadata={"a": 1})


def test_a_message_with_a_known_uuid_is_upserted_in_place(store: SessionStore) -> None:
    first = store.add_memory("s", Memory([Message("human", "q"), Message("ai", "draft")]))
    store.add_message("s", Message("user", "after"))
    fixed = Message("ai", "the final answer", {"edited": True}, uuid=first[1].uuid)
    stored = store.add_message("s", fixed)
    messages = store.get_memory("s").messages
    assert [m.content for m in messages] == ["q", "the final answer", "after"]
    assert messages[1].uuid == first[1].uuid and messages[1].created_at == first[1].created_at
    assert stored == messages[1] and messages[1].metadata == {"edited": True}
    stats = store.session_stats("s")
    assert stats.messages == 3
    assert stats.token_count == sum(count_tokens(m.content) for m in messages)
    assert stats.total_characters == len("q") + len("the final answer") + len("after")


def test_within_one_write_the_last_of_a_uuid_wins(store: SessionStore) -> None:
    given = str(uuidlib.uuid4())
    batch = [Message("user", "one", uuid=given), Message("user", "two", uuid=given)]
    stored = store.add_memory("s", Memory(batch))
    assert [m.content for m in stored] == ["two"]
    assert [m.content for m in store.get_memory("s").messages] == ["two"]


def test_session_metadata_merges_and_none_removes(store: SessionStore) -> None:
    store.create_session("s", user_id="u", metadata={"a": 1, "b": 2})
    session = store.update_session("s", metadata={"b": None, "c": 3})
    assert (session.user_id, session.metadata) == ("u", {"a": 1, "c": 3})
    assert asyncio.run(store.aupdate_session("s", user_id="v")).metadata == {"a": 1, "c": 3}


def test_lastn_zero_is_everything_and_negative_is_an_error(store: SessionStore) -> None:
    store.append_turn("s", "q", "a")
    assert len(store.get_memory("s", lastn=0).messages) == 2
    with pytest.raises(InvalidArgumentError) as caught:
        store.get_memory("s", lastn=-1)
    assert isinstance(caught.value, ZerdaError) and isinstance(caught.value, ValueError)


def test_the_summary_is_a_value(store: SessionStore) -> None:
    store.append_turn("s", "q", "a", summary="They greeted.")
    summary = store.get_summary("s")
    assert summary is not None and summary.content == "They greeted."
    assert UUID.fullmatch(summary.uuid or "") and summary.token_count == 3
    data = store.get_memory("s").to_dict()["summary"]
    assert set(data) == {"uuid", "created_at", "content", "token_count", "metadata", "entities"}
    assert Memory.from_dict({"messages": [], "summary": "plain"}).summary == Summary("plain")
    assert asyncio.run(store.aget_summary("s")) == summary


def test_whole_second_times_keep_their_microseconds(store: SessionStore) -> None:
    moment = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    stored = store.add_message("s", Message("user", "x", created_at=moment))
    assert stored.to_dict()["created_at"] == "2024-05-01T12:00:00.000000Z"
    assert store.get_memory("s").messages[0].created_at == moment


# -- ConversationBufferMemory and family -----------------------------------------


@pytest.mark.parametrize("value", [42, 4.5, True, ["a", 1], {"k": [None, "v"]}, "", "text"])
@pytest.mark.parametrize("cls", [c for c in ALL_MEMORIES if c is not ConversationSummaryMemory])
def test_a_restored_memory_holds_the_values_the_live_one_held(
    cls: type, value: Any, store: SessionStore
) -> None:
    live = cls(store=store, session_id="s")
    live.save_context({"input": value}, {"output": value})
    restored = cls(store=store, session_id="s")
    assert restored.chat_memory[-1]["input"] == live.chat_memory[-1]["input"]
    assert type(restored.chat_memory[-1]["output"]) is type(value)


@pytest.mark.parametrize("cls", ALL_MEMORIES)
def test_aclear_empties_every_memory(cls: type, store: SessionStore) -> None:
    memory = cls(store=store, session_id="s")
    memory.save_context({"input": "q"}, {"output": "a"})
    asyncio.run(memory.aclear())
    assert memory.chat_memory == [] and store.get_memory("s").messages == []


@pytest.mark.parametrize(
    "make",
    [
        lambda: ConversationBufferWindowMemory(k=-1),
        lambda: ConversationTokenBufferMemory(max_token_limit=-1),
        lambda: ConversationBufferMemory(store=SessionStore("/nonexistent")),
    ],
)
def test_bad_arguments_are_zerda_errors(make: Any) -> None:
    with pytest.raises(ZerdaError) as caught:
        make()
    assert isinstance(caught.value, ValueError)  # callers catching ValueError still work


@pytest.mark.parametrize("cls", ALL_MEMORIES)
def test_stored_system_messages_open_every_context(cls: type, store: SessionStore) -> None:
    store.add_message("s", Message("system", "You are terse."))
    for n in range(6):
        store.append_turn("s", f"question {n} " * 20, f"answer {n} " * 20)
    kwargs: dict[str, Any] = {"k": 1} if cls is ConversationBufferWindowMemory else {}
    if cls in (ConversationTokenBufferMemory, ConversationSummaryBufferMemory):
        kwargs = {"max_token_limit": 10}
    memory = cls(store=store, session_id="s", **kwargs)
    context = memory.context_messages()
    assert context[0] == {"role": "system", "content": "You are terse."}
    text = memory.load_memory_variables({})["history"]
    assert text.startswith("system: You are terse.")


def test_a_question_without_a_reply_reads_none_as_the_seed_says(store: SessionStore) -> None:
    store.append_turn("s", "q1", "a1")
    store.add_message("s", Message("user", "q2"))
    memory = ConversationBufferMemory(store=store, session_id="s")
    expected = "user: q1\nassistant: a1\nuser: q2\nassistant: None"
    assert memory.load_memory_variables({})["history"] == expected
    assert memory.context_messages()[-1] == {"role": "user", "content": "q2"}  # no None sent


def test_zerda_context_carries_the_system_prompt_and_sends_no_none(
    home: Path, store: SessionStore
) -> None:
    store.add_message("s", Message("system", "Be brief."))
    store.append_turn("s", "q1", "a1")
    store.add_message("s", Message("user", "q2"))
    env = {"ZERDA_HOME": str(home), "PATH": "/usr/bin:/bin"}
    for kind in ("buffer", "window", "token", "summary", "summary-buffer"):
        args = [ZERDA, "context", "s", "--memory", kind, "-k", "1"]
        text = subprocess.run(args, capture_output=True, env=env, check=True, text=True).stdout
        assert "system: Be brief." in text, kind
        if kind != "summary":  # the seed's text form: the missing reply reads None
            assert text.endswith("user: q2\nassistant: None\n"), kind
        sent = subprocess.run([*args, "--json"], capture_output=True, env=env, check=True).stdout
        assert b"None" not in sent and b"null" not in sent, kind


# -- tool calls reach the model as they were stored ---------------------------------

TOOL_TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "18 C"},
    {"role": "assistant", "content": "18 °C."},
]


def store_tool_turn(store: SessionStore) -> None:
    from zerda.formats.openai import from_openai

    store.add_message("s", Message("system", "Use tools."))
    store.append_turn("s", "Hi", "Hello.")
    store.add_memory("s", Memory([from_openai(m) for m in TOOL_TURN]))


@pytest.mark.parametrize("cls", [c for c in ALL_MEMORIES if c is not ConversationSummaryMemory])
def test_a_tool_call_exchange_is_one_turn_sent_exactly(cls: type, store: SessionStore) -> None:
    store_tool_turn(store)
    kwargs = {"k": 1} if cls is ConversationBufferWindowMemory else {}
    memory = cls(store=store, session_id="s", **kwargs)
    assert memory.chat_memory[-1]["input"] == "Weather in Paris?"
    assert memory.chat_memory[-1]["output"] == "18 °C."
    context = memory.context_messages()
    assert context[0] == {"role": "system", "content": "Use tools."}
    assert context[-4:] == TOOL_TURN
    assert store.session_stats("s").turn_count == len(
        ConversationBufferMemory(store=store, session_id="s").chat_memory
    )


def test_zerda_chat_sends_stored_tool_calls_to_the_server(home: Path, store: SessionStore) -> None:
    from chat_server import chat_server

    store_tool_turn(store)
    env = {"ZERDA_HOME": str(home), "PATH": "/usr/bin:/bin", "ZERDA_API_KEY": "sk-test"}
    with chat_server() as server:
        args = [ZERDA, "chat", "s", "--backend", "openai", "--base-url", server.url("stream")]
        done = subprocess.run(
            [*args, "--model", "m"],
            input=b"And tomorrow?\n",
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    sent = server.requests[0]["body"]["messages"]
    assert sent[0] == {"role": "system", "content": "Use tools."}
    assert sent[-5:-1] == TOOL_TURN
    assert sent[-1] == {"role": "user", "content": "And tomorrow?"}
