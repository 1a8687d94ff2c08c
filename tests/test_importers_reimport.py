"""Importing a newer export of the same conversations: what the session becomes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from zerda import SessionStore
from zerda.importers import import_conversations, read

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
FIRST = "chatgpt-6571a2b3-0000-4000-8000-000000000001"
T = 1700000000.0


def contents(store: SessionStore, session_id: str) -> list[str]:
    return [m.content for m in store.iter_messages(session_id)]


def _chatgpt_edited(tmp_path: Path, current: str = "m-a3e") -> Path:
    """The fixture after the user edited its third message and got a new reply (and,
    with `current` "m-a3", went back to the first version)."""
    items: list[Any] = json.loads(CHATGPT.read_text())
    mapping = items[0]["mapping"]
    mapping["m-a2b"]["children"].append("m-u3e")
    turns = [("m-u3e", "m-a2b", "user", "And in Korean?"), ("m-a3e", "m-u3e", "assistant", "평화")]
    for key, parent, role, text in turns:
        content = {"content_type": "text", "parts": [text]}
        message = {"id": key, "author": {"role": role}, "create_time": T + 60, "content": content}
        mapping[key] = {"id": key, "message": message, "parent": parent, "children": []}
    items[0]["current_node"] = current
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(items[:1]))
    return path


def test_an_edit_at_the_source_leaves_the_session_on_the_current_path(
    store: SessionStore, tmp_path: Path
) -> None:
    import_conversations(store, read(CHATGPT, "chatgpt"))
    before = contents(store, FIRST)
    store.append_turn(FIRST, "asked in zerda", "answered in zerda")
    report = import_conversations(store, read(_chatgpt_edited(tmp_path), "chatgpt"))
    assert contents(store, FIRST) == [
        *before[:2], "And in Korean?", "평화", "asked in zerda", "answered in zerda",
    ]  # fmt: skip
    assert (report.sessions, report.messages, report.removed) == (1, 2, 2)
    assert "2 messages of left branches removed" in report.summary()
    again = import_conversations(store, read(_chatgpt_edited(tmp_path), "chatgpt"))
    assert (again.sessions, again.unchanged) == (0, 1)


def test_going_back_to_a_branch_brings_it_back(store: SessionStore, tmp_path: Path) -> None:
    import_conversations(store, read(_chatgpt_edited(tmp_path), "chatgpt"))
    edited = contents(store, FIRST)
    import_conversations(store, read(_chatgpt_edited(tmp_path, "m-a3"), "chatgpt"))
    assert contents(store, FIRST) == [*edited[:2], "And in Japanese?", "平和 (heiwa)."]


def _claude(tmp_path: Path, leaf: str, *extra: tuple[str, str, str, str]) -> Path:
    """A Claude conversation q1 r1 q2 r2 (and `extra` messages), current at `leaf`."""
    chain = [("q1", "", "human", "q1"), ("r1", "q1", "assistant", "r1")]
    chain += [("q2", "r1", "human", "q2"), ("r2", "q2", "assistant", "r2"), *extra]
    messages = [
        {"uuid": u, "parent_message_uuid": p or None, "sender": s, "text": t}
        for u, p, s, t in chain
    ]
    item = {"uuid": "c1", "name": "Chat", "chat_messages": messages}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{**item, "current_leaf_message_uuid": leaf}]))
    return path


def test_a_claude_edit_leaves_the_session_on_the_current_path(
    store: SessionStore, tmp_path: Path
) -> None:
    import_conversations(store, read(_claude(tmp_path, "r2"), "claude"))
    edit = [("q2e", "r1", "human", "q2 edited"), ("r2e", "q2e", "assistant", "r2 new")]
    import_conversations(store, read(_claude(tmp_path, "r2e", *edit), "claude"))
    assert contents(store, "claude-c1") == ["q1", "r1", "q2 edited", "r2 new"]


def _rewritten(path: Path, items: list[Any], at: float) -> Path:
    """`path` written anew with `items`, as the tool does after each reply, at time `at`."""
    path.write_text(json.dumps(items))
    os.utime(path, (at, at))
    return path


SGPT = [{"role": "user", "content": "ls?"}, {"role": "assistant", "content": "ls -la"}]
LANGCHAIN = [
    {"type": "human", "data": {"content": "hi", "type": "human"}},
    {"type": "ai", "data": {"content": "hello", "type": "ai"}},
]
AICHAT = {"model": "openai:gpt-4o", "messages": SGPT}


@pytest.mark.parametrize(
    "fmt,name,items,more",
    [
        ("sgpt", "chat", SGPT, {"role": "user", "content": "and pwd?"}),
        ("langchain", "history.json", LANGCHAIN, {"type": "human", "data": {"content": "bye"}}),
        ("aichat", "s.yaml", AICHAT, {"role": "user", "content": "and pwd?"}),
    ],
)
def test_a_source_without_times_keeps_the_times_of_held_messages(
    store: SessionStore, tmp_path: Path, fmt: str, name: str, items: Any, more: Any
) -> None:
    path = _rewritten(tmp_path / name, items, T)
    import_conversations(store, read(path, fmt))
    (session_id,) = store.session_ids()
    grown = {**items, "messages": [*SGPT, more]} if fmt == "aichat" else [*items, more]
    report = import_conversations(store, read(_rewritten(path, grown, T + 3600), fmt))
    assert (report.sessions, report.messages) == (1, 1)
    times = [m.created_at.timestamp() for m in store.iter_messages(session_id)]  # type: ignore[union-attr]
    assert times == [T, T, T + 3600]


def test_a_title_changed_in_zerda_stays(store: SessionStore, tmp_path: Path) -> None:
    import_conversations(store, read(CHATGPT, "chatgpt"))
    store.update_session(FIRST, metadata={"title": "My own name"})
    items: list[Any] = json.loads(CHATGPT.read_text())
    items[0]["title"] = "Renamed in ChatGPT"
    newer = tmp_path / "conversations.json"
    newer.write_text(json.dumps(items))
    import_conversations(store, read(newer, "chatgpt"))
    assert store.get_session(FIRST).metadata["title"] == "My own name"
    other = "chatgpt-6571a2b3-0000-4000-8000-000000000002"
    items[1]["title"] = "Also renamed"
    newer.write_text(json.dumps(items))
    import_conversations(store, read(newer, "chatgpt"))
    assert store.get_session(other).metadata["title"] == "Also renamed"  # not changed here


def _first(tmp_path: Path, count: int) -> Path:
    path = tmp_path / f"first-{count}.json"
    path.write_text(json.dumps(json.loads(CHATGPT.read_text())[:count]))
    return path


def test_a_session_prefix_finds_the_session_it_named_before(
    store: SessionStore, tmp_path: Path
) -> None:
    import_conversations(store, read(_first(tmp_path, 1), "chatgpt"), prefix="mine")
    assert store.session_ids() == ["mine"]
    report = import_conversations(store, read(_first(tmp_path, 2), "chatgpt"), prefix="mine")
    assert store.session_ids() == ["mine", "mine-chatgpt-6571a2b3-0000-4000-8000-000000000002"]
    assert (report.sessions, report.unchanged) == (1, 1)
    import_conversations(store, read(_first(tmp_path, 1), "chatgpt"), prefix="mine")
    assert len(store.session_ids()) == 2
