"""Every LangChain message kind comes back exactly, and stays a meaningful zerda message.

Through the store (a fresh store object reads what is on disk), through the async
methods, and as a property of the pure mapping (`zerda.formats.langchain`) over
generated messages. Beside exactness: the zerda role and role type each kind gets, and
that OpenAI's export of a LangChain message is a valid OpenAI message.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    HumanMessageChunk,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    ToolMessageChunk,
    message_to_dict,
    messages_from_dict,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call

from zerda import InvalidMessageError, Message, SessionStore
from zerda.formats.langchain import LANGCHAIN, from_langchain, to_langchain
from zerda.formats.openai import from_openai, to_openai
from zerda.integrations.langchain import ZerdaChatMessageHistory

USAGE = {
    "input_tokens": 10,
    "output_tokens": 3,
    "total_tokens": 13,
    "input_token_details": {"cache_read": 2},
}
BLOCKS = [
    "plain string block",
    {"type": "text", "text": "a text block"},
    {"type": "image", "url": "https://example.com/cat.png", "mime_type": "image/png"},
]
OPENAI_PARTS = [
    {"type": "text", "text": "look"},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
]

# (LangChain message, zerda role, zerda role type)
KINDS: list[tuple[BaseMessage, str, str]] = [
    (HumanMessage("hi"), "human", "user"),
    (HumanMessage("hi", name="bob", id="h1", additional_kwargs={"k": [1, 2]}), "human", "user"),
    (HumanMessage(BLOCKS), "human", "user"),
    (HumanMessage(OPENAI_PARTS), "human", "user"),
    (HumanMessage([]), "human", "user"),
    (AIMessage("plain"), "ai", "assistant"),
    (
        AIMessage(
            "",
            tool_calls=[
                tool_call(name="weather", args={"city": "Lisbon", "days": 3}, id="c1"),
                tool_call(name="time", args={}, id="c2"),
            ],
            invalid_tool_calls=[invalid_tool_call(name="bad", args="{oops", id="c3", error="JSON")],
            usage_metadata=USAGE,  # type: ignore[arg-type]
            response_metadata={"model_name": "m", "finish_reason": "tool_calls"},
            id="run-1",
            name="planner",
        ),
        "ai",
        "assistant",
    ),
    (
        AIMessage("thinking aloud", tool_calls=[tool_call(name="f", args={"a": None}, id=None)]),
        "ai",
        "assistant",
    ),
    (AIMessage(BLOCKS, additional_kwargs={"refusal": None}), "ai", "assistant"),
    (
        AIMessage("", additional_kwargs={"function_call": {"name": "f", "arguments": "{}"}}),
        "ai",
        "assistant",
    ),
    (AIMessageChunk("partial", id="chunk-1"), "ai", "assistant"),
    (SystemMessage("be brief"), "system", "system"),
    (
        SystemMessage("dev", additional_kwargs={"__openai_role__": "developer"}),
        "developer",
        "system",
    ),
    (SystemMessage(OPENAI_PARTS[:1], name="rules", id="s1"), "system", "system"),
    (ToolMessage("sunny", tool_call_id="c1"), "tool", "tool"),
    (
        ToolMessage(
            [{"type": "text", "text": "sunny"}],
            tool_call_id="c1",
            status="error",
            artifact={"raw": [1, 2.5, None, "x"]},
            name="weather",
            id="t1",
        ),
        "tool",
        "tool",
    ),
    (ToolMessageChunk("part", tool_call_id="c9"), "tool", "tool"),
    (ChatMessage("once upon a time", role="narrator"), "narrator", "norole"),
    (ChatMessage("I am the assistant", role="assistant"), "assistant", "assistant"),
    (ChatMessage("as the user", role="user", name="u"), "user", "user"),
    (ChatMessage("no name", role=""), "chat", "norole"),
    (ChatMessage("bell", role="ring\x07"), "chat", "norole"),
    (FunctionMessage("42", name="answer"), "function", "function"),
    (HumanMessageChunk("typing"), "human", "user"),
]
IDS = [f"{i}-{m.type}" for i, (m, _, _) in enumerate(KINDS)]


@pytest.mark.parametrize("message,role,role_type", KINDS, ids=IDS)
def test_every_kind_round_trips_through_the_store(
    store: SessionStore, message: BaseMessage, role: str, role_type: str
) -> None:
    ZerdaChatMessageHistory("s", store).add_messages([message])
    (read,) = ZerdaChatMessageHistory("s", SessionStore(store.home)).messages
    assert type(read) is type(message)
    assert read == message
    assert message_to_dict(read) == message_to_dict(message)
    (stored,) = store.get_memory("s").messages
    assert (stored.role, stored.role_type) == (role, role_type)


@pytest.mark.parametrize("message,role,role_type", KINDS, ids=IDS)
def test_every_kind_round_trips_through_the_async_methods(
    store: SessionStore, message: BaseMessage, role: str, role_type: str
) -> None:
    history = ZerdaChatMessageHistory("s", store)
    asyncio.run(history.aadd_messages([message, message]))
    assert asyncio.run(history.aget_messages()) == [message, message]


def test_all_kinds_in_one_session_keep_their_order(store: SessionStore) -> None:
    messages = [m for m, _, _ in KINDS]
    ZerdaChatMessageHistory("s", store).add_messages(messages)
    assert ZerdaChatMessageHistory("s", SessionStore(store.home)).messages == messages


def test_zerda_fields_stay_meaningful(store: SessionStore) -> None:
    """Text for search and token counts; the LangChain-only fields under one key."""
    ZerdaChatMessageHistory("s", store).add_messages(
        [HumanMessage(BLOCKS), AIMessage("x", id="run-7", usage_metadata=USAGE)]  # type: ignore[arg-type]
    )
    human, ai = store.get_memory("s").messages
    assert human.content == "plain string block\na text block"
    assert human.token_count and human.token_count > 0
    assert human.extra == {LANGCHAIN: {"content": BLOCKS}}
    assert ai.extra == {LANGCHAIN: {"id": "run-7", "usage_metadata": USAGE}}
    assert [hit.content for _, hit in store.search("text block")] == [human.content]


def test_a_plain_exchange_needs_no_extra(store: SessionStore) -> None:
    ZerdaChatMessageHistory("s", store).add_messages(
        [SystemMessage("s"), HumanMessage("q"), AIMessage("a"), ToolMessage("r", tool_call_id="c")]
    )
    assert [m.extra for m in store.get_memory("s").messages] == [{}, {}, {}, {"tool_call_id": "c"}]


# -- OpenAI's form of LangChain messages -----------------------------------------------------


def test_a_tool_call_exports_as_a_valid_openai_tool_call() -> None:
    message = AIMessage(
        "",
        tool_calls=[tool_call(name="weather", args={"city": "Lisbon"}, id="c1")],
        id="run-1",
        usage_metadata=USAGE,  # type: ignore[arg-type]
        response_metadata={"finish_reason": "tool_calls"},
    )
    stored = from_langchain(message_to_dict(message))
    assert (stored.role, stored.role_type, stored.part) == ("ai", "assistant", "inside")
    assert to_openai(stored) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Lisbon"}'},
            }
        ],
    }


@pytest.mark.parametrize(
    "message,sent",
    [
        (
            ToolMessage("sun", tool_call_id="c1", artifact=[1], status="error"),
            {"role": "tool", "content": "sun", "tool_call_id": "c1"},
        ),
        (HumanMessage("hi", name="bob", id="x"), {"role": "user", "content": "hi", "name": "bob"}),
        (HumanMessage(OPENAI_PARTS), {"role": "user", "content": OPENAI_PARTS}),
        (HumanMessage(BLOCKS), {"role": "user", "content": "plain string block\na text block"}),
        (
            SystemMessage("d", additional_kwargs={"__openai_role__": "developer"}),
            {"role": "developer", "content": "d"},
        ),
        (
            FunctionMessage("42", name="answer"),
            {"role": "function", "content": "42", "name": "answer"},
        ),
        (ChatMessage("hm", role="narrator"), {"role": "user", "content": "hm", "name": "narrator"}),
        (
            AIMessage("ok", additional_kwargs={"refusal": "no", "extra": 1}),
            {"role": "assistant", "content": "ok", "refusal": "no"},
        ),
    ],
)
def test_openai_export_sends_only_openai_keys(message: BaseMessage, sent: dict[str, Any]) -> None:
    assert to_openai(from_langchain(message_to_dict(message))) == sent


def test_an_openai_transcript_reads_as_langchain_messages() -> None:
    """OpenAI messages imported into zerda map the way langchain-openai reads them."""
    items = [
        {"role": "developer", "content": "d"},
        {"role": "user", "content": OPENAI_PARTS, "name": "bob"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "w", "arguments": '{"a":1}'}},
                {"id": "c2", "type": "function", "function": {"name": "v", "arguments": "{no"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sun"},
        {"role": "assistant", "content": "It is sunny.", "refusal": None},
    ]
    read = messages_from_dict([to_langchain(from_openai(item)) for item in items])
    assert read == [
        SystemMessage("d", additional_kwargs={"__openai_role__": "developer"}),
        HumanMessage(OPENAI_PARTS, name="bob"),
        AIMessage(
            "",
            tool_calls=[tool_call(name="w", args={"a": 1}, id="c1")],
            invalid_tool_calls=[invalid_tool_call(name="v", args="{no", id="c2", error=None)],
        ),
        ToolMessage("sun", tool_call_id="c1"),
        AIMessage("It is sunny.", additional_kwargs={"refusal": None}),
    ]


# -- the pure mapping ---------------------------------------------------------------------------


def stored_and_read(message: Message) -> Message:
    """The message after a trip through zerda's JSON form, as the store keeps it."""
    return Message.from_dict(json.loads(json.dumps(message.to_dict(), allow_nan=False)))


def round_trip(message: BaseMessage) -> BaseMessage:
    stored = stored_and_read(from_langchain(message_to_dict(message)))
    (read,) = messages_from_dict([to_langchain(stored)])
    return read


def test_file_chat_message_history_items_map_without_langchain(tmp_path: Path) -> None:
    """The pure mapping reads what FileChatMessageHistory writes, older fields included,
    and gives back the same message with the fields at their default left out."""
    item = {
        "type": "human",
        "data": {
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": None,
            "id": None,
            "example": False,
        },
    }
    message = from_langchain(item)
    assert (message.role, message.content, message.extra) == (
        "human",
        "hi",
        {LANGCHAIN: {"example": False}},
    )
    back = to_langchain(stored_and_read(message))
    assert back == {"type": "human", "data": {"content": "hi", "example": False}}  # no defaults
    assert messages_from_dict([back]) == messages_from_dict([item])


@pytest.mark.parametrize(
    "item",
    [
        message_to_dict(RemoveMessage(id="m1")),
        {"type": "human"},
        {"type": "human", "data": "hi"},
        {"type": "human", "data": {"content": 3}},
        "human: hi",
    ],
)
def test_what_is_not_a_chat_message_is_refused(item: Any) -> None:
    with pytest.raises(InvalidMessageError):
        from_langchain(item)


def test_tool_call_arguments_must_be_json(store: SessionStore) -> None:
    message = AIMessage("", tool_calls=[tool_call(name="f", args={"when": object()}, id="c")])
    with pytest.raises(InvalidMessageError, match="JSON"):
        ZerdaChatMessageHistory("s", store).add_messages([message])
    assert not store.exists("s")


def test_a_damaged_langchain_key_is_an_error() -> None:
    with pytest.raises(InvalidMessageError, match="langchain"):
        to_langchain(Message("human", "hi", extra={LANGCHAIN: "oops"}))


# Generated messages: every field LangChain has, with JSON values where it takes any.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
maybe_text = st.none() | texts
blocks = st.lists(
    texts
    | st.builds(lambda t: {"type": "text", "text": t}, texts)
    | st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, texts)
    | st.builds(lambda t, d: {"type": t, **d}, texts, json_objects),
    max_size=3,
)
contents = texts | blocks
common = {
    "content": contents,
    "name": maybe_text,
    "id": maybe_text,
    "additional_kwargs": json_objects,
    "response_metadata": json_objects,
}
tool_calls = st.lists(
    st.builds(tool_call, name=texts, args=json_objects, id=maybe_text), max_size=2
)
invalid_calls = st.lists(
    st.builds(invalid_tool_call, name=maybe_text, args=maybe_text, id=maybe_text, error=maybe_text),
    max_size=2,
)
usage = st.none() | st.builds(
    lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
messages = st.one_of(
    st.builds(HumanMessage, **common),
    st.builds(SystemMessage, **common),
    st.builds(
        AIMessage,
        **common,
        tool_calls=tool_calls,
        invalid_tool_calls=invalid_calls,
        usage_metadata=usage,
    ),
    st.builds(
        ToolMessage,
        **common,
        tool_call_id=texts,
        status=st.sampled_from(["success", "error"]),
        artifact=json_values,
    ),
    st.builds(ChatMessage, **common, role=texts),
    st.builds(FunctionMessage, **{**common, "name": texts}),
    st.builds(AIMessageChunk, **common),
)


@settings(max_examples=400, deadline=None)
@given(messages)
def test_generated_messages_round_trip_exactly(message: BaseMessage) -> None:
    read = round_trip(message)
    assert type(read) is type(message)
    assert message_to_dict(read) == message_to_dict(message)
