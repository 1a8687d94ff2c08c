"""ZerdaChatMessageHistory as a BaseChatMessageHistory: langchain-core's own tests, then zerda's.

Ported from langchain-ai/langchain, libs/core/tests/unit_tests/:
- chat_history/test_chat_history.py (commit b8f83d7f076098e10d001e67c782acc2e4c96a42, and
  the async test of 186b4a39939df67931a0bfc381e2a50112e317c3): the original subclasses
  BaseChatMessageHistory twice, once with only `add_message` and once with only
  `add_messages`, over a list. ZerdaChatMessageHistory implements `add_messages`; both
  tests run against it unchanged, with "the store" read back as `messages`. The async
  test drives `aadd_messages` / `aget_messages` / `aclear` through `asyncio.run`.
- test_chat_history.py (commit 9c97e5ddce46435e88de33af8fbe38ded36f02c8), which checks
  that InMemoryChatMessageHistory's pydantic serialization keeps `tool_calls`: here the
  serialization is the session file, so each test reads the messages back through a
  fresh store and history, and checks the tool calls there (and on zerda's own message).
- chat_history/test_file_chat_message_history.py (commit 379b996c...): the
  FileChatMessageHistory fixture becomes a history on a temporary store; "a second
  session" reopens the same session through a new store object.

Then what zerda adds: a session never written, memory specs, any Store, import isolation.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
)
from langchain_core.messages.tool import invalid_tool_call as create_invalid_tool_call
from langchain_core.messages.tool import tool_call as create_tool_call

from zerda import InvalidArgumentError, InvalidSessionIdError, SessionStore
from zerda.errors import InvalidMessageError, NotFoundError
from zerda.formats.langchain import from_langchain
from zerda.formats.openai import to_openai
from zerda.integrations.langchain import ZerdaChatMessageHistory
from zerda.memory._spec import MemorySpec, bind_memory
from zerda.messages import Memory, Message, Session, Summary
from zerda.store._stats import SessionStats
from zerda.store.base import Store

# -- langchain-core: chat_history/test_chat_history.py -----------------------------------


def test_add_message_implementation_only(store: SessionStore) -> None:
    """Test implementation of add_message only."""
    chat_history = ZerdaChatMessageHistory("s", store)
    chat_history.add_message(HumanMessage(content="Hello"))
    assert len(chat_history.messages) == 1
    assert chat_history.messages[0] == HumanMessage(content="Hello")
    chat_history.add_message(HumanMessage(content="World"))
    assert len(chat_history.messages) == 2
    assert chat_history.messages[1] == HumanMessage(content="World")

    chat_history.add_messages([HumanMessage(content="Hello"), HumanMessage(content="World")])
    assert len(chat_history.messages) == 4
    assert chat_history.messages[2] == HumanMessage(content="Hello")
    assert chat_history.messages[3] == HumanMessage(content="World")


def test_bulk_message_implementation_only(store: SessionStore) -> None:
    """Test that SampleChatHistory works as expected."""
    chat_history = ZerdaChatMessageHistory("s", store)
    chat_history.add_message(HumanMessage(content="Hello"))
    assert len(chat_history.messages) == 1
    assert chat_history.messages[0] == HumanMessage(content="Hello")
    chat_history.add_message(HumanMessage(content="World"))
    assert len(chat_history.messages) == 2
    assert chat_history.messages[1] == HumanMessage(content="World")

    chat_history.add_messages([HumanMessage(content="Hello"), HumanMessage(content="World")])
    assert len(chat_history.messages) == 4
    assert chat_history.messages[2] == HumanMessage(content="Hello")
    assert chat_history.messages[3] == HumanMessage(content="World")


def test_async_interface(store: SessionStore) -> None:
    """Test async interface for BaseChatMessageHistory."""

    async def scenario() -> None:
        chat_history = ZerdaChatMessageHistory("s", store)
        await chat_history.aadd_messages(
            [HumanMessage(content="Hello"), HumanMessage(content="World")]
        )
        assert await chat_history.aget_messages() == [
            HumanMessage(content="Hello"),
            HumanMessage(content="World"),
        ]
        await chat_history.aadd_messages([HumanMessage(content="!")])
        assert await chat_history.aget_messages() == [
            HumanMessage(content="Hello"),
            HumanMessage(content="World"),
            HumanMessage(content="!"),
        ]
        await chat_history.aclear()
        assert await chat_history.aget_messages() == []

    asyncio.run(scenario())


# -- langchain-core: test_chat_history.py (tool calls survive serialization) -----------------


def reread(store: SessionStore, session_id: str = "s") -> list[BaseMessage]:
    """The session's messages through a new store object and history: what is on disk."""
    return ZerdaChatMessageHistory(session_id, SessionStore(store.home)).messages


def test_history_preserves_tool_calls(store: SessionStore) -> None:
    """Test that tool_calls are preserved after the session is written and read back."""
    history = ZerdaChatMessageHistory("s", store)
    ai_msg = AIMessage(
        content="I'll help you with that.",
        tool_calls=[create_tool_call(name="get_weather", args={"city": "NYC"}, id="1")],
    )
    history.add_message(ai_msg)

    (read,) = reread(store)
    assert isinstance(read, AIMessage)
    assert len(read.tool_calls) == 1
    assert read.tool_calls[0]["name"] == "get_weather"
    assert read.tool_calls[0]["args"] == {"city": "NYC"}
    assert read.tool_calls[0]["id"] == "1"
    assert read == ai_msg


def test_history_preserves_tool_calls_in_the_zerda_message(store: SessionStore) -> None:
    """Test that tool_calls are present in zerda's stored message, in OpenAI's shape."""
    history = ZerdaChatMessageHistory("s", store)
    history.add_message(
        AIMessage(
            content="Let me search for that.",
            tool_calls=[create_tool_call(name="search", args={"query": "langchain"}, id="abc123")],
        )
    )
    (stored,) = store.get_memory("s").messages
    (call,) = stored.extra["tool_calls"]
    assert call["function"]["name"] == "search"
    assert call["function"]["arguments"] == '{"query": "langchain"}'
    assert call["id"] == "abc123"


def test_history_preserves_multiple_tool_calls(store: SessionStore) -> None:
    """Test that multiple tool_calls are preserved."""
    history = ZerdaChatMessageHistory("s", store)
    history.add_message(
        AIMessage(
            content="I'll get the weather and search for restaurants.",
            tool_calls=[
                create_tool_call(name="get_weather", args={"city": "NYC"}, id="1"),
                create_tool_call(name="search_restaurants", args={"cuisine": "italian"}, id="2"),
            ],
        )
    )
    (read,) = reread(store)
    assert isinstance(read, AIMessage)
    assert [c["name"] for c in read.tool_calls] == ["get_weather", "search_restaurants"]


def test_history_keeps_mixed_message_types(store: SessionStore) -> None:
    """Test that mixed message types with tool_calls are kept, each with its type."""
    history = ZerdaChatMessageHistory("s", store)
    history.add_message(SystemMessage(content="You are a helpful assistant."))
    history.add_message(HumanMessage(content="What's the weather in NYC?"))
    history.add_message(
        AIMessage(
            content="Let me check that for you.",
            tool_calls=[create_tool_call(name="get_weather", args={"city": "NYC"}, id="tool_1")],
        )
    )
    read = reread(store)
    assert [m.type for m in read] == ["system", "human", "ai"]
    assert isinstance(read[2], AIMessage)
    assert read[2].tool_calls[0]["name"] == "get_weather"
    assert read[2].tool_calls[0]["args"] == {"city": "NYC"}
    assert [m.role_type for m in store.get_memory("s").messages] == ["system", "user", "assistant"]


def test_history_preserves_invalid_tool_calls(store: SessionStore) -> None:
    """Test that invalid_tool_calls are also preserved."""
    history = ZerdaChatMessageHistory("s", store)
    ai_msg = AIMessage(
        content="",
        tool_calls=[create_tool_call(name="valid_tool", args={"key": "value"}, id="1")],
        invalid_tool_calls=[
            create_invalid_tool_call(
                name="invalid_tool", args="not valid json", id="2", error="parse error"
            )
        ],
    )
    history.add_message(ai_msg)
    (read,) = reread(store)
    assert isinstance(read, AIMessage)
    assert len(read.tool_calls) == 1
    assert len(read.invalid_tool_calls) == 1
    assert read.invalid_tool_calls[0]["name"] == "invalid_tool"
    assert read.invalid_tool_calls[0]["error"] == "parse error"
    assert read == ai_msg


def test_history_empty_tool_calls(store: SessionStore) -> None:
    """Test that an AIMessage without tool_calls reads back with an empty list."""
    history = ZerdaChatMessageHistory("s", store)
    history.add_message(AIMessage(content="Hello! How can I help you today?"))
    (read,) = reread(store)
    assert isinstance(read, AIMessage)
    assert read.tool_calls == []
    assert read.content == "Hello! How can I help you today?"
    assert store.get_memory("s").messages[0].extra == {}  # nothing zerda cannot say itself


# -- langchain-core: chat_history/test_file_chat_message_history.py ------------------------


@pytest.fixture
def file_chat_message_history(store: SessionStore) -> Iterator[ZerdaChatMessageHistory]:
    yield ZerdaChatMessageHistory("test_chat_history", store)


def test_add_messages(file_chat_message_history: ZerdaChatMessageHistory) -> None:
    file_chat_message_history.add_user_message("Hello!")
    file_chat_message_history.add_ai_message("Hi there!")

    messages = file_chat_message_history.messages
    assert len(messages) == 2
    assert isinstance(messages[0], HumanMessage)
    assert isinstance(messages[1], AIMessage)
    assert messages[0].content == "Hello!"
    assert messages[1].content == "Hi there!"


def test_clear_messages(file_chat_message_history: ZerdaChatMessageHistory) -> None:
    file_chat_message_history.add_user_message("Hello!")
    file_chat_message_history.add_ai_message("Hi there!")

    file_chat_message_history.clear()
    messages = file_chat_message_history.messages
    assert len(messages) == 0


def test_multiple_sessions(file_chat_message_history: ZerdaChatMessageHistory) -> None:
    # First session
    file_chat_message_history.add_user_message("Hello, AI!")
    file_chat_message_history.add_ai_message("Hello, how can I help you?")
    file_chat_message_history.add_user_message("Tell me a joke.")
    file_chat_message_history.add_ai_message(
        "Why did the chicken cross the road? To get to the other side!"
    )

    # Ensure the messages are added correctly in the first session
    messages = file_chat_message_history.messages
    assert len(messages) == 4
    assert messages[0].content == "Hello, AI!"
    assert messages[1].content == "Hello, how can I help you?"
    assert messages[2].content == "Tell me a joke."
    expected_content = "Why did the chicken cross the road? To get to the other side!"
    assert messages[3].content == expected_content

    # Second session (a new store object on the same home)
    store = file_chat_message_history.store
    assert isinstance(store, SessionStore)
    second_session_chat_message_history = ZerdaChatMessageHistory(
        "test_chat_history", SessionStore(store.home)
    )

    # Ensure the history is maintained in the second session
    messages = second_session_chat_message_history.messages
    assert len(messages) == 4
    assert messages[0].content == "Hello, AI!"
    assert messages[1].content == "Hello, how can I help you?"
    assert messages[2].content == "Tell me a joke."
    assert messages[3].content == expected_content


# -- zerda: sessions, errors, stores ------------------------------------------------------------


def test_a_session_never_written_reads_empty_and_clears(store: SessionStore) -> None:
    history = ZerdaChatMessageHistory("never", store)
    assert history.messages == []
    history.clear()
    history.add_messages([])
    assert asyncio.run(history.aget_messages()) == []
    asyncio.run(history.aclear())
    assert not store.exists("never")  # reading, clearing or adding nothing creates nothing
    for spec in ("buffer", "window:3", "token:50", "summary:50"):
        assert ZerdaChatMessageHistory("never", store, memory=spec).messages == []
    assert not store.exists("never")


def test_clear_keeps_the_session(store: SessionStore) -> None:
    store.create_session("s", user_id="u", metadata={"k": 1})
    history = ZerdaChatMessageHistory("s", store)
    history.add_messages([HumanMessage("a"), AIMessage("b")])
    history.clear()
    assert history.messages == []
    assert store.get_session("s").metadata == {"k": 1}


def test_default_store_is_zerda_home(home: Path) -> None:
    history = ZerdaChatMessageHistory("s")
    history.add_user_message("hi")
    assert SessionStore(home).get_memory("s").messages[0].content == "hi"


def test_bad_session_ids_and_specs_are_refused_at_once(store: SessionStore) -> None:
    with pytest.raises(InvalidSessionIdError):
        ZerdaChatMessageHistory("../etc", store)
    with pytest.raises(InvalidArgumentError, match="bad memory"):
        ZerdaChatMessageHistory("s", store, memory="forever")
    with pytest.raises(InvalidArgumentError):
        ZerdaChatMessageHistory("s", store, memory="window:0")


def test_a_message_json_cannot_hold_writes_nothing(store: SessionStore) -> None:
    history = ZerdaChatMessageHistory("s", store)
    history.add_messages([HumanMessage("kept")])
    bad = ToolMessage("x", tool_call_id="c", artifact=object())
    with pytest.raises(InvalidMessageError, match="cannot store"):
        history.add_messages([HumanMessage("lost"), bad])
    assert history.messages == [HumanMessage("kept")]


def test_zerda_sessions_read_as_langchain_messages(store: SessionStore) -> None:
    """Sessions written by zerda itself (memories, OpenAI imports, named speakers)."""
    from zerda.formats.openai import from_openai
    from zerda.memory import ConversationBufferMemory

    store.add_message("s", Message("system", "be brief"))
    memory = ConversationBufferMemory(store=store, session_id="s")
    memory.save_context({"input": "hi"}, {"output": "hello"})
    memory.save_context({"input": "no reply"}, {})
    store.add_message("s", Message(role="Alice", content="Rain in Lisbon?"))
    store.add_message(
        "s",
        from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
                ],
            }
        ),
    )
    store.add_message("s", from_openai({"role": "tool", "tool_call_id": "c1", "content": "sun"}))
    from langchain_core.messages import ChatMessage

    assert ZerdaChatMessageHistory("s", store).messages == [
        SystemMessage("be brief"),
        HumanMessage("hi"),
        AIMessage("hello"),
        HumanMessage("no reply"),  # the reply saved as None is not a message
        ChatMessage(role="Alice", content="Rain in Lisbon?"),
        AIMessage("", tool_calls=[create_tool_call(name="w", args={}, id="c1")]),
        ToolMessage("sun", tool_call_id="c1"),
    ]


class ListStore(Store):
    """A store of plain lists: only the interface, none of the file store's code.

    Methods the LangChain history does not need raise NotImplementedError, so this
    also shows which part of the interface it uses.
    """

    encoding = "cl100k_base"

    def __init__(self) -> None:
        self.sessions: dict[str, list[Message]] = {}
        self.summaries: dict[str, Summary] = {}

    def _held(self, session_id: str) -> list[Message]:
        if session_id not in self.sessions:
            raise NotFoundError(session_id)
        return self.sessions[session_id]

    def exists(self, session_id: str) -> bool:
        return session_id in self.sessions

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        stored = [m.stamped(len(m.content.split())) for m in memory.messages]
        self.sessions.setdefault(session_id, []).extend(stored)
        if memory.summary is not None:
            self.summaries[session_id] = memory.summary
        return stored

    def set_summary(self, session_id: str, summary: Summary | str) -> Summary:
        value = Summary.coerce(summary)
        assert value is not None
        self.summaries[session_id] = value
        return value

    def get_summary(self, session_id: str) -> Summary | None:
        self._held(session_id)
        return self.summaries.get(session_id)

    def get_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        messages = self._held(session_id)
        return Memory(
            messages[-lastn:] if lastn else list(messages), self.summaries.get(session_id)
        )

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        return iter(list(self._held(session_id)))

    def iter_messages_reversed(self, session_id: str) -> Iterator[Message]:
        return reversed(list(self._held(session_id)))

    def system_messages(self, session_id: str) -> list[Message]:
        return [m for m in self._held(session_id) if m.kind == "system"]

    def clear(self, session_id: str) -> None:
        self._held(session_id).clear()
        self.summaries.pop(session_id, None)

    def create_session(
        self,
        session_id: str,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: datetime | None = None,
    ) -> Session:
        raise NotImplementedError

    def update_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        raise NotImplementedError

    def get_session(self, session_id: str) -> Session:
        raise NotImplementedError

    def session_ids(self) -> list[str]:
        raise NotImplementedError

    def list_sessions(self) -> list[SessionStats]:
        raise NotImplementedError

    def delete_session(self, session_id: str) -> None:
        raise NotImplementedError

    def list_overviews(self) -> list[Any]:
        raise NotImplementedError

    def rename_session(self, old: str, new: str) -> None:
        raise NotImplementedError

    def replace_messages(self, session_id: str, messages: list[Message]) -> None:
        raise NotImplementedError

    def message_count(self, session_id: str) -> int:
        raise NotImplementedError

    def session_stats(self, session_id: str) -> SessionStats:
        raise NotImplementedError

    def search(
        self, query: Any, session_id: str | None = None, **filters: Any
    ) -> Iterator[tuple[str, Message]]:
        raise NotImplementedError

    def delete_last_turn(self, session_id: str) -> list[Message]:
        raise NotImplementedError

    def check(self, session_id: str | None = None) -> Any:
        raise NotImplementedError

    def repair(self, session_id: str | None = None) -> Any:
        raise NotImplementedError

    def replace_last_turn(
        self, session_id: str, user: str, assistant: str, *, replaces: str | None = None
    ) -> tuple[Message, Message]:
        raise NotImplementedError


def conversation(turns: int) -> list[BaseMessage]:
    """A system prompt, then `turns` turns, one of them a tool-call exchange."""
    messages: list[BaseMessage] = [SystemMessage("be brief", id="sys")]
    for n in range(turns):
        messages.append(HumanMessage(f"question {n}", id=f"h{n}"))
        if n == 1:
            call = create_tool_call(name="lookup", args={"n": n}, id=f"c{n}")
            messages.append(AIMessage("", tool_calls=[call], id=f"call{n}"))
            messages.append(ToolMessage(f"found {n}", tool_call_id=f"c{n}", artifact=[n]))
        reply = AIMessage(f"answer {n}. More.", id=f"a{n}", usage_metadata=usage(n))
        messages.append(reply)
    return messages


def usage(n: int) -> Any:
    return {"input_tokens": n, "output_tokens": 1, "total_tokens": n + 1}


@pytest.mark.parametrize("make_store", [ListStore, "file"], ids=["ListStore", "SessionStore"])
def test_any_store(make_store: Any, tmp_path: Path) -> None:
    store = SessionStore(tmp_path, fsync=False) if make_store == "file" else make_store()
    history = ZerdaChatMessageHistory("s", store)
    messages = conversation(3)
    history.add_messages(messages[:4])
    asyncio.run(history.aadd_messages(messages[4:]))
    assert history.messages == messages
    assert asyncio.run(history.aget_messages()) == messages
    window = ZerdaChatMessageHistory("s", store, memory="window:1")
    assert window.messages == [messages[0], *messages[-2:]]
    history.clear()
    assert history.messages == []


# -- zerda: memory specs -----------------------------------------------------------------------


SPECS = ["buffer", "window:1", "window:2", "token:12", "token:1000", "summary:12", "summary:1000"]


@pytest.mark.parametrize("spec", SPECS)
def test_memory_gives_what_the_memory_class_hands_a_model(store: SessionStore, spec: str) -> None:
    ZerdaChatMessageHistory("s", store).add_messages(conversation(4))
    history = ZerdaChatMessageHistory("s", store, memory=spec)
    read = history.messages
    sent = bind_memory(history.memory or MemorySpec(), store, "s").context_messages()
    assert [to_openai(from_langchain(message_to_dict(m))) for m in read] == sent
    assert asyncio.run(history.aget_messages()) == read
    everything = conversation(4)
    originals = [m for m in read if m.id is not None]
    assert all(m in everything for m in originals)  # the turns come back exactly
    assert store.message_count("s") == len(everything)  # reading trims nothing


def test_window_memory_keeps_the_last_turns_exactly(store: SessionStore) -> None:
    messages = conversation(4)
    ZerdaChatMessageHistory("s", store).add_messages(messages)
    window = ZerdaChatMessageHistory("s", store, memory="window:3")
    # the system prompt, then turns 1 (with its tool-call exchange), 2 and 3
    assert window.messages == [messages[0], *messages[3:]]
    window.add_messages([HumanMessage("question 4"), AIMessage("answer 4")])
    assert window.messages[-2:] == [HumanMessage("question 4"), AIMessage("answer 4")]
    assert len(ZerdaChatMessageHistory("s", store).messages) == len(messages) + 2


def test_summary_memory_persists_its_summary(store: SessionStore) -> None:
    """LangChain writes messages, not turns through a memory: the summary of the turns
    the memory no longer holds verbatim is made and stored when the history is read."""
    messages = conversation(6)
    ZerdaChatMessageHistory("s", store).add_messages(messages)
    history = ZerdaChatMessageHistory("s", store, memory="summary:60")  # too small for all
    read = history.messages
    assert read[0] == messages[0]
    assert isinstance(read[1], SystemMessage)
    assert str(read[1].content).startswith("Summary of the conversation so far:\n")
    assert read[-2:] == messages[-2:]
    summary = store.get_summary("s")
    assert summary is not None and summary.content and summary.content in str(read[1].content)
    assert history.messages == read  # a second read finds the summary current


def test_token_memory_fits_the_budget(store: SessionStore) -> None:
    ZerdaChatMessageHistory("s", store).add_messages(conversation(5))
    read = ZerdaChatMessageHistory("s", store, memory="token:12").messages
    assert read == [conversation(5)[0], HumanMessage("question 4", id="h4"), conversation(5)[-1]]


def test_memory_accepts_a_spec_value(store: SessionStore) -> None:
    history = ZerdaChatMessageHistory("s", store, memory=MemorySpec("window", 1))
    history.add_messages(conversation(2))
    assert history.messages == [conversation(2)[0], *conversation(2)[3:]]  # with its tool call


# -- zerda: imports -----------------------------------------------------------------------------


def test_import_zerda_imports_no_langchain() -> None:
    code = (
        "import sys, zerda, zerda.memory, zerda.memory._spec, zerda.integrations, "
        "zerda.formats.langchain, zerda.store\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0].startswith('langchain'))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_without_langchain_the_integration_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['langchain_core'] = None\n"
        "try:\n"
        "    import zerda.integrations.langchain\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pip install 'zerda[langchain]'" in result.stdout, result.stderr
