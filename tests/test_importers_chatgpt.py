"""ChatGPT's export imported: the current branch of each conversation, exactly, once."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from importer_helpers import conversations, store_bytes

from zerda import SessionStore
from zerda.importers import ImportFailed, Problem, detect, import_conversations, read

FIXTURE = Path(__file__).parent / "fixtures" / "importers" / "chatgpt" / "conversations.json"
FIRST = "chatgpt-6571a2b3-0000-4000-8000-000000000001"
T = 1700000000.0


def at(offset: float) -> datetime:
    return datetime.fromtimestamp(T + offset, UTC)


def test_the_fixture_is_detected_as_chatgpt() -> None:
    assert detect(FIXTURE) == "chatgpt"
    assert detect(FIXTURE.parent) == "chatgpt"


def test_the_current_branch_is_read_and_the_rest_counted() -> None:
    first, tools, pictures, empty = conversations(read(FIXTURE, "chatgpt"))
    assert first.title == "Édition — 編集 ✏️"
    assert first.created_at == at(0.123456)
    assert first.metadata["model"] == "gpt-4o"
    assert [(m.role, m.content, m.created_at) for m in first.messages] == [
        ("user", "What do שלום and سلام mean? 🙂", at(20.000001)),
        ("assistant", "Both mean “peace” — 和平 in Chinese. 🕊️", at(30.75)),
        ("user", "And in Japanese?", at(40)),  # null parts dropped
        ("assistant", "平和 (heiwa).", at(41.5)),
    ]
    assert first.skipped == {"branch": 3, "hidden": 2}
    assert first.messages[1].metadata == {"model": "gpt-4o"}
    assert tools.skipped == {"thoughts": 2, "recipient": 2}
    assert [m.role for m in tools.messages] == [
        "user", "tool", "assistant", "tool", "tool", "assistant", "assistant",
    ]  # fmt: skip
    assert tools.messages[1].extra == {"name": "python"}
    assert tools.messages[1].content == "1267650600228229401496703205376"
    assert tools.messages[4].metadata["url"] == "https://example.com/news"
    assert pictures.messages[0].metadata["attachments"][0]["asset_pointer"] == (
        "file-service://file-AbC123"
    )
    assert pictures.messages[0].metadata["files"] == ["cat.png"]
    assert pictures.messages[2].content == ""
    assert (empty.title, empty.messages) == ("New chat", [])


def test_import_round_trips_and_is_idempotent(store: SessionStore) -> None:
    report = import_conversations(store, read(FIXTURE, "chatgpt"))
    assert report.summary() == (
        "imported 4 sessions, 15 messages "
        "(9 skipped: 3 branch, 2 hidden, 2 recipient, 2 thoughts); 0 problems"
    )
    found = conversations(read(FIXTURE, "chatgpt"))
    for conversation in found:
        stored = list(store.iter_messages(conversation.session_id))
        assert [(m.uuid, m.role, m.content, m.created_at) for m in stored] == [
            (m.uuid, m.role, m.content, m.created_at) for m in conversation.messages
        ]
        session = store.get_session(conversation.session_id)
        assert session.metadata["title"] == conversation.title
        assert session.created_at == conversation.created_at
    before = store_bytes(store)
    again = import_conversations(store, read(FIXTURE, "chatgpt"))
    assert (again.sessions, again.messages, again.unchanged) == (0, 0, 4)
    assert store_bytes(store) == before


def _newer(tmp_path: Path) -> Path:
    """The fixture as a later export: a new turn in the first conversation, a new one."""
    items: list[Any] = json.loads(FIXTURE.read_text())
    mapping = items[0]["mapping"]
    mapping["m-a3"]["children"] = ["m-u4"]
    turns = [("m-u4", "m-a3", "user", "Thanks!"), ("m-a4", "m-u4", "assistant", "You're welcome.")]
    for key, parent, role, text in turns:
        content = {"content_type": "text", "parts": [text]}
        message = {"id": key, "author": {"role": role}, "create_time": T + 50, "content": content}
        mapping[key] = {"id": key, "message": message, "parent": parent, "children": []}
    items[0]["current_node"] = "m-a4"
    items.append({**items[3], "id": "new-one", "title": "Later"})
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(items))
    return path


def test_a_newer_export_adds_only_what_is_new(store: SessionStore, tmp_path: Path) -> None:
    import_conversations(store, read(FIXTURE, "chatgpt"))
    report = import_conversations(store, read(_newer(tmp_path), "chatgpt"))
    assert (report.sessions, report.messages, report.unchanged) == (2, 2, 3)
    assert [m.content for m in store.iter_messages(FIRST)][-2:] == ["Thanks!", "You're welcome."]
    assert store.get_session("chatgpt-new-one").metadata["title"] == "Later"


def test_dry_run_writes_nothing(store: SessionStore) -> None:
    report = import_conversations(store, read(FIXTURE, "chatgpt"), dry_run=True)
    assert (report.sessions, report.messages) == (4, 15)
    assert store.session_ids() == []


def test_a_prefix_names_the_sessions(store: SessionStore) -> None:
    import_conversations(store, read(FIXTURE, "chatgpt"), prefix="mine")
    prefix = "mine-chatgpt-6571a2b3-0000-4000-8000-00000000000"
    assert store.session_ids() == [f"{prefix}{i}" for i in range(1, 5)]


def test_one_conversation_takes_the_prefix_as_its_id(store: SessionStore, tmp_path: Path) -> None:
    one = tmp_path / "conversations.json"
    one.write_text(json.dumps(json.loads(FIXTURE.read_text())[:1]))
    import_conversations(store, read(one, "chatgpt"), prefix="mine")
    assert store.session_ids() == ["mine"]


def _with_bad_item(tmp_path: Path) -> Path:
    items = json.loads(FIXTURE.read_text())
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([items[0], 42, {"id": "x", "mapping": {}, "current_node": "gone"}]))
    return path


def test_bad_items_are_problems_and_strict_stops_at_the_first(
    store: SessionStore, tmp_path: Path
) -> None:
    path = _with_bad_item(tmp_path)
    report = import_conversations(store, read(path, "chatgpt"), dry_run=True)
    assert [p.reason for p in report.problems] == [
        "not a JSON object",
        "current_node does not lead to the root",
    ]
    assert str(report.problems[0]) == f"{path}: conversation 2: not a JSON object"
    with pytest.raises(ImportFailed, match="conversation 2: not a JSON object"):
        import_conversations(store, read(path, "chatgpt"), strict=True)
    assert store.session_ids() == [FIRST]


@pytest.mark.parametrize(
    "text,reason",
    [
        ('[{"id": "a", "mapping": {}}, {"id": ', "not valid JSON"),
        ('{"not": "an array"}', "not a JSON array"),
    ],
)
def test_a_malformed_file_fails_with_one_line(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(text)
    with pytest.raises(ImportFailed, match=reason) as caught:
        list(read(path, "chatgpt"))
    assert "\n" not in str(caught.value)


def test_an_unreadable_message_is_a_problem_not_a_crash(store: SessionStore) -> None:
    item = json.loads(FIXTURE.read_text())[0]
    item["mapping"]["m-a3"]["message"]["content"]["parts"] = ["\ud800"]
    from zerda.importers._chatgpt import conversation

    found = conversation(item, "here")
    assert not isinstance(found, Problem)
    report = import_conversations(store, [found])
    assert "cannot store this message" in report.problems[0].reason
    assert store.session_ids() == []
