"""Claude.ai's export imported: text, blocks, attachments, the current branch, once."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from importer_helpers import conversations, store_bytes

from zerda import SessionStore
from zerda.importers import detect, import_conversations, read

FIXTURE = Path(__file__).parent / "fixtures" / "importers" / "claude" / "conversations.json"


def test_the_fixture_is_detected_as_claude() -> None:
    assert detect(FIXTURE) == detect(FIXTURE.parent) == "claude"


def test_messages_attachments_and_blocks_are_read() -> None:
    files, weather, empty = conversations(read(FIXTURE, "claude"))
    assert files.title == "Notes on a file — ملاحظات 📎"
    assert files.created_at == datetime(2024, 3, 4, 9, 10, 11, 123456, UTC)
    assert [(m.role, m.content) for m in files.messages] == [
        ("user", "Summarise this file, please. 日本語でも。"),
        ("assistant", "Two lines: one and two. 二行です。"),
        ("user", ""),
        ("assistant", "A diagram with three boxes."),
    ]
    assert files.messages[0].metadata["attachments"] == [
        {"file_name": "notes.txt", "file_size": 42, "file_type": "text/plain",
         "extracted_content": "Line one\nLine two ✓"},
    ]  # fmt: skip
    assert files.messages[2].metadata == {"files": ["diagram.png"]}
    assert files.messages[3].created_at == datetime(2024, 3, 4, 9, 11, 5, 250000, UTC)
    assert [m.content for m in weather.messages] == [
        "What's the weather in Paris?",
        "It is sunny in Paris, 21 °C. ☀️",
        "And in תל אביב?",
        "Warm and clear.\n\nAbout 27 °C.",
    ]
    assert weather.skipped == {"branch": 1, "thinking": 1}
    tools = weather.messages[1].metadata["tools"]
    assert [t["type"] for t in tools] == ["tool_use", "tool_result"]
    assert tools[0]["input"] == {"query": "Paris weather"}
    assert (empty.title, empty.messages) == (None, [])


def test_import_round_trips_and_is_idempotent(store: SessionStore, tmp_path: Path) -> None:
    report = import_conversations(store, read(FIXTURE, "claude"))
    assert report.summary() == (
        "imported 3 sessions, 8 messages (2 skipped: 1 branch, 1 thinking); 0 problems"
    )
    for conversation in conversations(read(FIXTURE, "claude")):
        stored = list(store.iter_messages(conversation.session_id))
        assert [(m.uuid, m.role, m.content, m.created_at, m.metadata) for m in stored] == [
            (m.uuid, m.role, m.content, m.created_at, m.metadata) for m in conversation.messages
        ]
    before = store_bytes(store)
    assert import_conversations(store, read(FIXTURE, "claude")).messages == 0
    assert store_bytes(store) == before
    items = json.loads(FIXTURE.read_text())
    items[0]["chat_messages"].append(
        {**items[0]["chat_messages"][1], "uuid": "c1-m5", "text": "More."}
    )
    newer = tmp_path / "conversations.json"
    newer.write_text(json.dumps(items))
    report = import_conversations(store, read(newer, "claude"))
    assert (report.sessions, report.messages) == (1, 1)
