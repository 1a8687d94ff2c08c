"""Values of unexpected shapes are one Problem each, naming where: never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zerda.importers import Conversation, Problem, read

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
DEEP = 50_000


def _found(path: Path, fmt: str) -> tuple[list[Conversation], list[Problem]]:
    items = list(read(path, fmt))
    return (
        [i for i in items if isinstance(i, Conversation)],
        [i for i in items if isinstance(i, Problem)],
    )


def _chatgpt_with(tmp_path: Path, content: Any) -> Path:
    item: Any = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text())[0]
    item["mapping"]["m-a3"]["message"]["content"] = content
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([item, {**item, "id": "second"}]))
    return path


@pytest.mark.parametrize("kind", [["text"], {"a": 1}])
def test_a_chatgpt_content_type_not_a_string_is_skipped(tmp_path: Path, kind: Any) -> None:
    path = _chatgpt_with(tmp_path, {"content_type": kind, "parts": ["x"]})
    found, problems = _found(path, "chatgpt")
    assert problems == [] and len(found) == 2
    assert found[0].skipped["content type"] == 1


CLAUDE_MESSAGE = {"uuid": "m1", "sender": "human", "text": "hi"}
CLAUDE_ODD: list[dict[str, Any]] = [
    {"attachments": 5},
    {"files": {"file_name": "a.txt"}},
    {"content": [{"type": ["text"], "text": "x"}]},
]


@pytest.mark.parametrize("odd", CLAUDE_ODD)
def test_odd_claude_message_fields_are_read_around(tmp_path: Path, odd: dict[str, Any]) -> None:
    path = tmp_path / "conversations.json"
    conversation = {"uuid": "c1", "name": "n", "chat_messages": [{**CLAUDE_MESSAGE, **odd}]}
    path.write_text(json.dumps([conversation, {**conversation, "uuid": "c2"}]))
    found, problems = _found(path, "claude")
    assert problems == [] and len(found) == 2


def test_an_odd_claude_leaf_falls_back_to_the_last_message(tmp_path: Path) -> None:
    messages = [
        {**CLAUDE_MESSAGE, "parent_message_uuid": "root"},
        {"uuid": "m2", "sender": "assistant", "text": "yo", "parent_message_uuid": "m1"},
    ]
    item = {"uuid": "c1", "chat_messages": messages, "current_leaf_message_uuid": ["m1"]}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([item]))
    found, problems = _found(path, "claude")
    assert problems == [] and [m.content for m in found[0].messages] == ["hi", "yo"]


def test_an_unexpected_error_in_a_conversation_is_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerda.importers import _chatgpt as chatgpt

    def broken(content: Any) -> Any:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(chatgpt, "message_text", broken)
    path = _chatgpt_with(tmp_path, {"content_type": "text", "parts": ["x"]})
    found, problems = _found(path, "chatgpt")
    assert found == []
    assert [str(p) for p in problems] == [
        f"{path}: conversation {n}: cannot be read: TypeError: unhashable type: 'list'"
        for n in (1, 2)
    ]


@pytest.mark.parametrize(
    "fmt,name",
    [("sgpt", "chat"), ("langchain", "history.json"), ("aichat", "session.yaml")],
)
def test_deep_nesting_in_a_local_file_is_one_problem(tmp_path: Path, fmt: str, name: str) -> None:
    (tmp_path / name).write_text("[" * DEEP + "]" * DEEP)
    (tmp_path / "other").mkdir()
    found, problems = _found(tmp_path, fmt)
    assert found == []
    assert [p.reason for p in problems] == [
        f"{tmp_path / name}: not {_what(fmt)}: nested too deeply"
    ]


def _what(fmt: str) -> str:
    return {
        "sgpt": "a shell_gpt chat (a JSON list of messages)",
        "langchain": "a LangChain chat history (a JSON list of messages)",
        "aichat": "an aichat session",
    }[fmt]


def test_an_aichat_problem_names_its_list_and_place(tmp_path: Path) -> None:
    session = {
        "model": "m",
        "compressed_messages": [{"role": "user", "content": "old"}],
        "messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": ["x", 5]}],
    }
    (tmp_path / "s.yaml").write_text(json.dumps(session))
    found, problems = _found(tmp_path / "s.yaml", "aichat")
    assert [p.where for p in problems] == ["s.yaml: messages item 2"]
    assert [m.content for m in found[0].messages] == ["old", "hi"]


def test_a_chatgpt_conversation_without_current_node_ends_at_its_newest_leaf(
    tmp_path: Path,
) -> None:
    items: Any = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text())
    with_node = read(FIXTURES / "chatgpt" / "conversations.json", "chatgpt")
    expected = [
        m.content for m in next(i for i in with_node if isinstance(i, Conversation)).messages
    ]
    del items[0]["current_node"]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(items[:1]))
    found, problems = _found(path, "chatgpt")
    assert problems == [] and [m.content for m in found[0].messages] == expected
    assert len(expected) == 4
