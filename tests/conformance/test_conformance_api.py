"""The store API, the same on every store: sessions, messages, summaries, rewrites,
search, stats, the async twins, and the memory classes on top."""

from __future__ import annotations

import asyncio
import uuid as uuidlib
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from zerda import (
    InvalidArgumentError,
    Memory,
    Message,
    NotFoundError,
    Session,
    SessionChangedError,
    StoreError,
    Summary,
)
from zerda.entities import stored_entities
from zerda.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from zerda.store.base import Store
from zerda.tokens import count_tokens


def add_turns(store: Store, session_id: str, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        store.append_turn(session_id, f"q{i}", f"a{i}")


def contents(store: Store, session_id: str) -> list[str]:
    return [m.content for m in store.iter_messages(session_id)]


def test_a_session_is_created_on_first_write(store: Store) -> None:
    assert not store.exists("s1")
    stored = store.add_memory("s1", Memory([Message("human", "hi"), Message("ai", "hello")]))
    assert store.exists("s1")
    assert [m.role for m in stored] == ["human", "ai"]
    assert [m.role_type for m in stored] == ["user", "assistant"]
    assert all(m.uuid and m.created_at and m.token_count is not None for m in stored)
    assert store.get_memory("s1").messages == stored
    session = store.get_session("s1")
    assert session == Session(id="s1", user_id=None, metadata={}, created_at=session.created_at)
    assert session.created_at is not None


def test_an_empty_memory_creates_an_empty_session(store: Store) -> None:
    assert store.add_memory("s", Memory()) == []
    assert store.exists("s") and store.get_memory("s") == Memory()
    assert store.set_summary("t", "only a summary").content == "only a summary"
    assert store.exists("t") and store.get_memory("t").messages == []


def test_create_and_update_session(store: Store) -> None:
    created = store.create_session("s", user_id="u1", metadata={"a": 1})
    assert (created.user_id, created.metadata) == ("u1", {"a": 1})
    again = store.create_session("s", metadata={"b": 2})
    assert again.metadata == {"a": 1, "b": 2} and again.user_id == "u1"
    assert again.created_at == created.created_at
    assert store.get_memory("s").messages == []
    when = datetime(2020, 1, 2, 3, 4, 5, 600000, tzinfo=UTC)
    assert store.create_session("t", created_at=when).created_at == when


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get_memory("nope"),
        lambda s: s.get_memory("nope", lastn=3),
        lambda s: s.get_session("nope"),
        lambda s: s.get_summary("nope"),
        lambda s: list(s.iter_messages("nope")),
        lambda s: list(s.iter_messages_reversed("nope")),
        lambda s: s.system_messages("nope"),
        lambda s: s.message_count("nope"),
        lambda s: s.clear("nope"),
        lambda s: s.delete_session("nope"),
        lambda s: s.delete_last_turn("nope"),
        lambda s: s.replace_last_turn("nope", "q", "a"),
        lambda s: s.session_stats("nope"),
        lambda s: s.update_session("nope", metadata={"a": 1}),
        lambda s: list(s.search("x", session_id="nope")),
    ],
)
def test_an_unknown_session_is_not_found(store: Store, call: Any) -> None:
    add_turns(store, "other", 1)
    with pytest.raises(NotFoundError, match="nope"):
        call(store)
    assert not store.exists("nope")
    assert store.session_ids() == ["other"]


def test_messages_stream_in_order_both_ways(store: Store) -> None:
    add_turns(store, "s", 3)
    assert contents(store, "s") == ["q0", "a0", "q1", "a1", "q2", "a2"]
    assert [m.content for m in store.iter_messages_reversed("s")] == [
        "a2",
        "q2",
        "a1",
        "q1",
        "a0",
        "q0",
    ]
    assert store.message_count("s") == 6


def test_a_long_session_streams_whole(store: Store) -> None:
    store.add_memory("s", Memory([Message("user", f"m{i}") for i in range(1234)]))
    assert contents(store, "s") == [f"m{i}" for i in range(1234)]
    assert len(list(store.iter_messages_reversed("s"))) == 1234
    first = next(iter(store.iter_messages("s")))  # an abandoned stream frees what it held
    assert first.content == "m0"
    assert store.message_count("s") == 1234


@pytest.mark.parametrize("lastn", [0, 1, 2, 5, 59, 60, 61, 1000])
def test_get_memory_lastn(store: Store, lastn: int) -> None:
    add_turns(store, "s", 30)
    everything = store.get_memory("s").messages
    assert len(everything) == 60
    assert store.get_memory("s", lastn=lastn).messages == (
        everything[-lastn:] if lastn else everything
    )


@pytest.mark.parametrize("lastn", [-1, 1.5, "3", True])
def test_a_bad_lastn_is_an_invalid_argument(store: Store, lastn: Any) -> None:
    add_turns(store, "s", 1)
    with pytest.raises(InvalidArgumentError):
        store.get_memory("s", lastn=lastn)


def test_token_counts_are_stored(store: Store) -> None:
    store.append_turn("s", "hello world", "The quick brown fox jumps over the lazy dog.")
    assert [m.token_count for m in store.iter_messages("s")] == [2, 10]
    given = store.add_message("s", Message("user", "counted elsewhere", token_count=99))
    assert given.token_count == 99 == store.get_memory("s", lastn=1).messages[0].token_count


def test_summary_is_a_value_and_the_latest_wins(store: Store) -> None:
    add_turns(store, "s", 1)
    assert store.get_summary("s") is None
    first = store.set_summary("s", "first")
    assert first.uuid and first.created_at and first.token_count == 1
    assert store.get_summary("s") == first
    store.append_turn("s", "q", "a", summary="second")
    assert (store.get_summary("s") or Summary("")).content == "second"
    given = Summary(
        "third",
        uuid=str(uuidlib.uuid4()),
        created_at=datetime(2024, 5, 1, tzinfo=UTC),
        token_count=7,
        metadata={"covers": [1, 2]},
    )
    store.add_memory("s", Memory([Message("user", "x")], summary=given))
    kept = replace(given, entities=stored_entities("third"))  # all as given, entities found
    assert store.get_summary("s") == kept == store.get_memory("s", lastn=1).summary


def test_delete_last_turn(store: Store) -> None:
    add_turns(store, "s", 3)
    store.set_summary("s", "kept summary")
    removed = store.delete_last_turn("s")
    assert [m.content for m in removed] == ["q2", "a2"]
    assert contents(store, "s") == ["q0", "a0", "q1", "a1"]
    assert (store.get_summary("s") or Summary("")).content == "kept summary"
    store.add_message("s", Message("user", "unanswered"))
    assert [m.content for m in store.delete_last_turn("s")] == ["unanswered"]
    assert [m.content for m in store.delete_last_turn("s")] == ["q1", "a1"]
    assert [m.content for m in store.delete_last_turn("s")] == ["q0", "a0"]
    assert store.delete_last_turn("s") == []
    stats = store.session_stats("s")
    assert (stats.messages, stats.turn_count, stats.token_count) == (0, 0, 0)
    assert stats.first_activity is None and stats.last_activity is None


def test_a_session_where_nothing_asks_keeps_its_messages(store: Store) -> None:
    store.add_message("s", Message("system", "be brief"))
    assert store.delete_last_turn("s") == []
    assert contents(store, "s") == ["be brief"]


def test_the_last_turn_starts_at_the_last_message_that_asks(store: Store) -> None:
    store.append_turn("s", "q0", "a0")
    store.add_memory("s", Memory([Message("Alice", "from a named speaker"), Message("ai", "ok")]))
    assert [m.content for m in store.delete_last_turn("s")] == ["from a named speaker", "ok"]


def test_replace_last_turn(store: Store) -> None:
    store.create_session("s", user_id="ana", metadata={"topic": "maps"})
    add_turns(store, "s", 3)
    store.set_summary("s", "earlier talk")
    old_user = store.get_memory("s", lastn=2).messages[0]
    user, assistant = store.replace_last_turn(
        "s", "q2", "a better a2", replaces=old_user.uuid, reply_metadata={"model": "m"}
    )
    stored = list(store.iter_messages("s"))
    assert [m.content for m in stored] == ["q0", "a0", "q1", "a1", "q2", "a better a2"]
    assert stored[-2:] == [user, assistant] and user.uuid != old_user.uuid
    assert assistant.metadata == {"model": "m"} and assistant.token_count == 4
    assert (store.get_summary("s") or Summary("")).content == "earlier talk"
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("ana", {"topic": "maps"})
    stats = store.session_stats("s")
    assert (stats.messages, stats.turn_count) == (6, 3)


def test_replace_last_turn_refuses_a_session_that_moved_on(store: Store) -> None:
    add_turns(store, "s", 2)
    seen = store.get_memory("s", lastn=2).messages[0]
    store.append_turn("s", "q2", "written by another process")
    before = store.get_memory("s")
    with pytest.raises(SessionChangedError) as caught:
        store.replace_last_turn("s", "q1", "new a1", replaces=seen.uuid)
    assert isinstance(caught.value, StoreError)
    assert store.get_memory("s") == before


def test_replace_last_turn_appends_where_nothing_asks(store: Store) -> None:
    store.add_message("s", Message("system", "Be brief."))
    store.replace_last_turn("s", "q", "a")
    assert contents(store, "s") == ["Be brief.", "q", "a"]
    with pytest.raises(SessionChangedError):
        store.replace_last_turn("s", "q", "b", replaces="not-there")


def test_clear_keeps_the_session(store: Store) -> None:
    store.create_session("s", user_id="u", metadata={"topic": "t"})
    add_turns(store, "s", 3)
    store.set_summary("s", "old")
    store.clear("s")
    assert store.get_memory("s") == Memory(messages=[], summary=None)
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("u", {"topic": "t"})
    assert store.session_stats("s").messages == 0
    add_turns(store, "s", 1)
    assert len(store.get_memory("s").messages) == 2
    assert store.session_stats("s").turn_count == 1


def test_delete_session(store: Store) -> None:
    add_turns(store, "s", 1)
    store.set_summary("s", "gone too")
    store.delete_session("s")
    assert not store.exists("s") and store.session_ids() == []
    with pytest.raises(NotFoundError):
        store.get_memory("s")
    add_turns(store, "s", 1)  # a new session of the same name starts afresh
    assert store.get_summary("s") is None and store.message_count("s") == 2


def test_search(store: Store) -> None:
    store.append_turn("a", "Where is Rome?", "In Italy.")
    store.append_turn("b", "Paris?", "France, like ROME is Italy")
    hits = [(sid, m.content) for sid, m in store.search("rome")]
    assert hits == [("b", "France, like ROME is Italy"), ("a", "Where is Rome?")]
    assert [sid for sid, _ in store.search("rome", session_id="b")] == ["b"]
    assert list(store.search("nowhere")) == []
    found = next(iter(store.search("italy", session_id="a")))[1]
    assert found == store.get_memory("a").messages[1]


@pytest.mark.parametrize(
    ("text", "query", "hit"),
    [
        ("Straße", "STRASSE", True),  # casefold: ß is ss
        ("STRASSE", "straße", True),
        ("ﬁne print", "FINE", True),  # a ligature folds to two letters
        ("Ὀδυσσεύς", "ὀδυσσεύσ", True),  # final sigma
        ("KELVIN", "\u212a", True),  # the Kelvin sign folds to k
        ("100% sure", "0% s", True),  # LIKE's wildcards are literal
        ("100 percent", "0% p", False),
        ("a_b", "a_b", True),
        ("axb", "a_b", False),
        ("back\\slash", "K\\S", True),
        ("nul\x00inside", "L\x00I", True),
        ("nul\ufffdinside", "l\x00i", False),
        ("tab\tand\nnewline", "\tAND\n", True),
        ('"quoted"', '"QUOTED"', True),
        ("日本語のテキスト", "のテ", True),
        ("emoji 🦊 fox", "🦊 FOX", True),
    ],
)
def test_search_matches_as_casefold(store: Store, text: str, query: str, hit: bool) -> None:
    store.append_turn("s", text, "reply")
    found = [m.content for _, m in store.search(query)]
    assert found == ([text] if hit else [])
    assert (query.casefold() in text.casefold()) == hit


def test_an_empty_query_finds_every_message(store: Store) -> None:
    add_turns(store, "a", 1)
    add_turns(store, "b", 1)
    assert [(sid, m.content) for sid, m in store.search("")] == [
        ("b", "a0"),
        ("b", "q0"),
        ("a", "a0"),
        ("a", "q0"),
    ]


def test_session_ids_and_list_sessions(store: Store) -> None:
    assert store.list_sessions() == [] and store.session_ids() == []
    add_turns(store, "old", 2)
    store.append_turn("new", "hello world", "hello world")
    store.create_session("empty")
    assert store.session_ids() == ["empty", "new", "old"]
    listed = store.list_sessions()
    assert [s.session_id for s in listed] == ["new", "old", "empty"]
    new = listed[0]
    assert (new.messages, new.turn_count, new.token_count) == (2, 1, 4)
    assert new.total_characters == 22 and new.estimated_tokens == 5
    assert new.encoding == store.encoding
    assert listed[1].messages == 4 and listed[2].messages == 0
    assert listed[2].last_activity is None


def test_stats_follow_every_write(store: Store) -> None:
    store.add_message("s", Message("system", "sys"))
    store.append_turn("s", "question", "answer")
    store.add_message("s", Message("user", "open"))
    store.add_memory("s", Memory([Message("assistant", "shut"), Message("tool", "t")]))
    stats = store.session_stats("s")
    messages = store.get_memory("s").messages
    assert stats.messages == 6 == store.message_count("s")
    assert stats.turn_count == 2
    assert stats.total_characters == len("questionansweropenshut")
    assert stats.token_count == sum(m.token_count or 0 for m in messages)
    assert stats.first_activity is not None and stats.last_activity is not None
    assert stats.first_activity <= stats.last_activity


def test_system_messages(store: Store) -> None:
    add_turns(store, "none", 2)
    assert store.system_messages("none") == []
    store.add_message("s", Message("system", "first"))
    add_turns(store, "s", 2)
    store.add_message("s", Message("developer", "second"))
    assert [(m.role, m.content) for m in store.system_messages("s")] == [
        ("system", "first"),
        ("developer", "second"),
    ]


def test_async_twins_return_what_the_calls_do(store: Store) -> None:
    async def scenario() -> tuple[Any, ...]:
        await store.acreate_session("s", user_id="u")
        await store.aadd_memory("s", Memory([Message("user", "q")]))
        await store.aadd_message("s", Message("assistant", "a"))
        await store.aset_summary("s", "sum")
        memory = await store.aget_memory("s", lastn=1)
        session = await store.aupdate_session("s", metadata={"k": 1})
        stats = await store.asession_stats("s")
        hits = await store.asearch("Q")
        return memory, session, stats, hits

    memory, session, stats, hits = asyncio.run(scenario())
    assert [m.content for m in memory.messages] == ["a"] and memory.summary.content == "sum"
    assert (session.user_id, session.metadata) == ("u", {"k": 1})
    assert stats.messages == 2 and [m.content for _, m in hits] == ["q"]


def test_memory_classes_work_on_the_store(store: Store) -> None:
    memory = ConversationBufferMemory(store=store, session_id="s")
    memory.save_context({"input": "Hi"}, {"output": "Hello!"})
    memory.save_context({"input": 42}, {"output": {"k": [None]}})
    restored = ConversationBufferMemory(store=store, session_id="s")
    assert turns(restored) == turns(memory) == [("Hi", "Hello!"), (42, {"k": [None]})]
    window = ConversationBufferWindowMemory(k=1, store=store, session_id="s")
    assert window.load_memory_variables({})["history"] == memory_text(memory, last=1)
    memory.clear()
    assert store.get_memory("s").messages == []


def turns(memory: ConversationBufferMemory) -> list[tuple[Any, Any]]:
    return [(turn["input"], turn["output"]) for turn in memory.chat_memory]


def memory_text(memory: ConversationBufferMemory, last: int) -> str:
    window = ConversationBufferWindowMemory(k=last)
    for turn in memory.chat_memory:
        window.save_context({"input": turn["input"]}, {"output": turn["output"]})
    return str(window.load_memory_variables({})["history"])


def test_two_store_objects_see_each_others_writes(store: Store, other_store: Store) -> None:
    add_turns(store, "s", 2)
    assert contents(other_store, "s") == contents(store, "s")
    other_store.append_turn("s", "from", "the other")
    assert store.get_memory("s", lastn=2).messages[1].content == "the other"
    assert store.session_stats("s").messages == 6
    assert count_tokens("the other") == store.get_memory("s", lastn=1).messages[0].token_count


ALL_MEMORIES = [
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationTokenBufferMemory,
    ConversationSummaryMemory,
    ConversationSummaryBufferMemory,
]


@pytest.mark.parametrize("cls", ALL_MEMORIES)
def test_every_memory_restores_from_the_store(cls: type, store: Store) -> None:
    store.add_message("s", Message("system", "You are terse."))
    live = cls(store=store, session_id="s")
    for value in (42, {"k": [None, "v"]}, "text"):
        live.save_context({"input": value}, {"output": value})
    restored = cls(store=store, session_id="s")
    if cls is not ConversationSummaryMemory:
        assert restored.chat_memory[-1]["input"] == "text"
        assert [t["output"] for t in restored.chat_memory][-3:-1] == [42, {"k": [None, "v"]}]
    assert restored.context_messages()[0] == {"role": "system", "content": "You are terse."}


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


def test_a_tool_call_exchange_comes_back_as_it_went_in(store: Store) -> None:
    from zerda.formats.openai import from_openai, to_openai

    store.append_turn("s", "Hi", "Hello.")
    store.add_memory("s", Memory([from_openai(m) for m in TOOL_TURN]))
    assert [to_openai(m) for m in store.get_memory("s", lastn=4).messages] == TOOL_TURN
    memory = ConversationBufferWindowMemory(k=1, store=store, session_id="s")
    assert memory.context_messages()[-4:] == TOOL_TURN
    assert store.session_stats("s").turn_count == 2


def test_the_langchain_history_works_on_the_store(store: Store) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from zerda.integrations.langchain import ZerdaChatMessageHistory

    history = ZerdaChatMessageHistory("lc", store)
    assert history.messages == []
    sent = [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[{"name": "w", "args": {}, "id": "c1"}]),
        ToolMessage("sun", tool_call_id="c1"),
        AIMessage("Sunny."),
    ]
    history.add_messages(sent)
    assert ZerdaChatMessageHistory("lc", store).messages == sent
    history.clear()
    assert history.messages == [] and store.exists("lc")
