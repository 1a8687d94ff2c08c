"""LangChain FileChatMessageHistory files import as sessions that convert back exactly."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from importer_helpers import conversations, store_all, store_bytes, zerda_import

from zerda import SessionStore
from zerda.errors import ImportFailed
from zerda.formats.langchain import to_langchain
from zerda.importers import _langchain as langchain
from zerda.importers._base import Problem

pytest.importorskip("langchain_community")
from langchain_community.chat_message_histories import FileChatMessageHistory
from langchain_core import messages as lc

WRITTEN = datetime(2025, 6, 7, 8, 9, 10, tzinfo=UTC)


def every_kind() -> list[lc.BaseMessage]:
    """One message of every kind LangChain stores, with the fields each kind has."""
    call = {"name": "weather", "args": {"city": "Zürich"}, "id": "call_1", "type": "tool_call"}
    return [
        lc.SystemMessage("Be brief.", id="sys-1"),
        lc.SystemMessage("Use metric units.", additional_kwargs={"__openai_role__": "developer"}),
        lc.HumanMessage("Wetter in Zürich? 🌦", id="h-1", name="ana"),
        lc.HumanMessage(
            [
                {"type": "text", "text": "and this photo?"},
                {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
            ]
        ),
        lc.AIMessage(
            "",
            id="run-1",
            tool_calls=[call],
            invalid_tool_calls=[
                {"name": "clock", "args": "{not json", "id": "call_2", "error": "bad json"}
            ],
            usage_metadata={"input_tokens": 12, "output_tokens": 3, "total_tokens": 15},
            response_metadata={"model_name": "gpt-4o-mini", "finish_reason": "tool_calls"},
            additional_kwargs={"refusal": None},
        ),
        lc.ToolMessage("18 °C, Regen", tool_call_id="call_1", artifact={"raw": [18, "rain"]}),
        lc.ToolMessage("no clock", tool_call_id="call_2", status="error"),
        lc.AIMessage("18 °C und Regen. 日本語も OK."),
        lc.ChatMessage(content="Too long.", role="critic"),
        lc.FunctionMessage(content="42", name="answer"),
        lc.AIMessageChunk(content="partial", id="chunk-1"),
        lc.HumanMessage(""),
    ]


@pytest.fixture
def history_file(tmp_path: Path) -> Path:
    """A FileChatMessageHistory of every kind, written by langchain-community itself."""
    path = tmp_path / "support_chat.json"
    FileChatMessageHistory(str(path)).add_messages(every_kind())
    os.utime(path, (WRITTEN.timestamp(), WRITTEN.timestamp()))
    return path


def test_the_history_converts_back_to_the_messages_langchain_wrote(history_file: Path) -> None:
    [history] = conversations(langchain.read(history_file))
    back = lc.messages_from_dict([to_langchain(m) for m in history.messages])
    assert back == FileChatMessageHistory(str(history_file)).messages == every_kind()


def test_roles_times_and_ids(history_file: Path) -> None:
    [history] = conversations(langchain.read(history_file))
    assert history.session_id == "langchain-support_chat"
    assert history.metadata == {
        "source": "langchain",
        "source_id": "support_chat",
        "title": "support_chat",
        "source_title": "support_chat",
    }
    assert [m.role for m in history.messages] == [
        "system", "developer", "human", "human", "ai", "tool", "tool", "ai",
        "critic", "function", "ai", "human",
    ]  # fmt: skip
    assert history.messages[2].content == "Wetter in Zürich? 🌦"
    assert history.messages[4].extra["tool_calls"][0]["function"]["name"] == "weather"
    assert {m.created_at for m in history.messages} == {WRITTEN} == {history.created_at}
    assert len({m.uuid for m in history.messages}) == 12


def test_uuids_follow_langchain_ids_not_positions(history_file: Path) -> None:
    [before] = conversations(langchain.read(history_file))
    items = json.loads(history_file.read_text())
    history_file.write_text(json.dumps(items[1:]))
    [after] = conversations(langchain.read(history_file))
    assert after.messages[1].uuid == before.messages[2].uuid  # id "h-1"


def test_reimport_adds_nothing(history_file: Path, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", fsync=False)
    assert store_all(store, conversations(langchain.read(history_file))) == 12
    before = store_bytes(store)
    assert store_all(store, conversations(langchain.read(history_file))) == 0
    assert store_bytes(store) == before
    stored = list(store.iter_messages("langchain-support_chat"))
    assert lc.messages_from_dict([to_langchain(m) for m in stored]) == every_kind()


def test_an_empty_history_is_an_empty_session(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    FileChatMessageHistory(str(path))
    [history] = conversations(langchain.read(path))
    assert history.messages == []


def test_a_directory_is_read_file_by_file(history_file: Path) -> None:
    (history_file.parent / "notes.txt").write_text("not a history")
    (history_file.parent / "broken.json").write_text("{}")
    found = list(langchain.read(history_file.parent))
    assert [str(p) for p in found if isinstance(p, Problem)] == [
        f"broken.json: {history_file.parent / 'broken.json'}: not a LangChain chat history"
        " (a JSON list of messages): the JSON is an object, not a list"
    ]
    assert [c.source_id for c in found if not isinstance(c, Problem)] == ["support_chat"]


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ({"type": "robot", "data": {"content": "x"}}, "not a LangChain chat message: type 'robot'"),
        ({"data": {"content": "x"}}, "not a LangChain message: KeyError"),
        ([1, 2], "a message must be a JSON object"),
        ({"type": "ai", "data": {"content": 5}}, "content must be a string or a list"),
    ],
)
def test_a_malformed_message_is_one_problem(tmp_path: Path, item: Any, reason: str) -> None:
    path = tmp_path / "h.json"
    good = {"type": "human", "data": {"content": "hi"}}
    path.write_text(json.dumps([good, item, good]))
    found = list(langchain.read(path))
    [problem] = [p for p in found if isinstance(p, Problem)]
    assert problem.where == "h.json: message 2"
    assert reason in problem.reason
    [history] = [c for c in found if not isinstance(c, Problem)]
    assert [m.content for m in history.messages] == ["hi", "hi"]
    assert history.skipped == {"malformed": 1}


@pytest.mark.parametrize("text", ['{"messages": []}', "", "[1,", '"hi"'])
def test_a_file_that_is_not_a_history_is_one_clear_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "h.json"
    path.write_text(text)
    with pytest.raises(ImportFailed, match="not a LangChain chat history"):
        list(langchain.read(path))


def test_zerda_import_from_langchain(history_file: Path, tmp_path: Path) -> None:
    first = zerda_import(tmp_path / "home", "--from", "langchain", str(history_file))
    assert (first.code, first.out) == (0, "")
    assert first.err == "imported 1 session, 12 messages; 0 problems\n"
    history_file.write_text("{}")
    bad = zerda_import(tmp_path / "home", "--from", "langchain", str(history_file))
    assert bad.code == 1
    assert bad.err == (
        f"error: {history_file}: not a LangChain chat history (a JSON list of messages):"
        " the JSON is an object, not a list\n"
    )
