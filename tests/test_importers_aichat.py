"""aichat session files import as sessions, compressed messages first."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from importer_helpers import conversations, store_all, store_bytes, zerda_import

from zerda import SessionStore
from zerda.errors import ImportFailed
from zerda.formats.openai import to_openai
from zerda.importers import _aichat as aichat
from zerda.importers._base import Problem

FIXTURE = Path(__file__).parent / "fixtures" / "importers" / "aichat" / "sessions"
WRITTEN = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """A copy of the fixture sessions directory, its files written at WRITTEN."""
    path = tmp_path / "sessions"
    shutil.copytree(FIXTURE, path)
    for file in path.iterdir():
        os.utime(file, (WRITTEN.timestamp(), WRITTEN.timestamp()))
    return path


def test_a_session_file_is_one_conversation(sessions: Path) -> None:
    [session] = conversations(aichat.read(sessions / "rust-help.yaml"))
    assert (session.session_id, session.title, session.created_at) == (
        "aichat-rust-help", "rust-help", WRITTEN,
    )  # fmt: skip
    assert session.metadata == {
        "source": "aichat",
        "source_id": "rust-help",
        "title": "rust-help",
        "source_title": "rust-help",
        "model": "openai:gpt-4o-mini",
        "temperature": 0.2,
        "use_tools": "get_current_weather",
        "save_session": True,
        "compress_threshold": 2000,
        "role_name": "coder",
    }
    assert session.skipped == {"data_urls": 1}
    assert {m.created_at for m in session.messages} == {WRITTEN}
    assert len({m.uuid for m in session.messages}) == len(session.messages) == 14


def test_compressed_messages_come_first_and_are_marked(sessions: Path) -> None:
    [session] = conversations(aichat.read(sessions / "rust-help.yaml"))
    first = session.messages[:4]
    assert [(m.role, m.metadata) for m in first] == [
        ("system", {"compressed": True}),
        ("user", {"compressed": True}),
        ("assistant", {"compressed": True}),
        ("system", {}),
    ]
    assert first[3].content.endswith("the user asked how to read a file in Rust.")


def test_parts_tools_unicode_and_yaml_1_2_scalars(sessions: Path) -> None:
    [session] = conversations(aichat.read(sessions / "rust-help.yaml"))
    image, tools = session.messages[4], session.messages[7:9]
    assert image.content == "What does this screenshot show?"
    assert to_openai(image)["content"][1] == {
        "type": "image_url", "image_url": {"url": "/home/ana/shot.png"},
    }  # fmt: skip
    assert [to_openai(m) for m in tools] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_abc", "type": "function",
                 "function": {"name": "get_current_weather",
                              "arguments": '{"location": "Zürich"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc",
         "content": '{"temperature": 18, "sky": "Regen"}'},
    ]  # fmt: skip
    assert session.messages[6].content == "And the weather in Zürich? 🌦"
    assert [m.content for m in session.messages[-4:]] == ["yes", "12:30", "2024-01-01", "yes"]


def test_compression_keeps_every_uuid(sessions: Path, tmp_path: Path) -> None:
    [before] = conversations(aichat.read(sessions / "rust-help.yaml"))
    text = (sessions / "rust-help.yaml").read_text()
    compressed = text.replace(
        "messages:\n- role: system\n  content: |-", "- role: system\n  content: |-", 1
    )
    compressed = compressed.replace(
        "data_urls:", "messages:\n- role: system\n  content: all of it\ndata_urls:"
    )
    (sessions / "rust-help.yaml").write_text(compressed)
    [after] = conversations(aichat.read(sessions / "rust-help.yaml"))
    assert [m.uuid for m in after.messages][:14] == [m.uuid for m in before.messages]
    assert all(m.metadata.get("compressed") for m in after.messages[:14])
    assert after.messages[14].content == "all of it"


def test_the_directory_and_reimport(sessions: Path, tmp_path: Path) -> None:
    (sessions / "notes.txt").write_text("not a session")
    found = conversations(aichat.read(sessions))
    assert [(c.source_id, len(c.messages)) for c in found] == [("empty", 0), ("rust-help", 14)]
    store = SessionStore(tmp_path / "home", fsync=False)
    assert store_all(store, found) == 14
    before = store_bytes(store)
    assert store_all(store, conversations(aichat.read(sessions))) == 0
    assert store_bytes(store) == before


def test_malformed_messages_are_one_problem_each(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "model: x\nmessages:\n- role: user\n  content: hi\n- just text\n"
        "- role: tool\n  content: {tool_results: 3}\n- role: user\n  content: [1, 2]\n"
    )
    found = list(aichat.read(path))
    assert [str(p) for p in found if isinstance(p, Problem)] == [
        "bad.yaml: messages item 2: a message must be a mapping with role and content",
        "bad.yaml: messages item 3: a tool message's content must hold a list of tool_results",
        "bad.yaml: messages item 4: content must be a string, null or a list of content parts",
    ]
    [session] = [c for c in found if not isinstance(c, Problem)]
    assert [m.content for m in session.messages] == ["hi"]
    assert session.skipped == {"malformed": 3}


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (BOMB + "messages: []\n", "invalid YAML \\(aliases are not allowed"),
        ("model: x\nmessages: [\n", "invalid YAML"),
        ("- role: user\n", "no list of messages"),
        ("model: x\n", "no list of messages"),
        ("model: x\ncompressed_messages: 3\nmessages: []\n", "compressed_messages is not a list"),
        ("!!python/object/apply:os.system ['true']\n", "invalid YAML"),
    ],
)
def test_a_file_that_is_not_a_session_is_one_clear_error(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ImportFailed, match=reason):
        list(aichat.read(path))


def test_in_a_directory_a_bad_file_is_a_problem(sessions: Path) -> None:
    (sessions / "broken.yaml").write_bytes(b"\xff\xfe")
    found = list(aichat.read(sessions))
    assert [str(p).split(":")[0] for p in found if isinstance(p, Problem)] == ["broken.yaml"]


def test_zerda_import_from_aichat(sessions: Path, tmp_path: Path) -> None:
    first = zerda_import(tmp_path / "home", "--from", "aichat", str(sessions))
    assert (first.code, first.out) == (0, "")
    assert first.err == "imported 2 sessions, 14 messages (1 skipped: 1 data_urls); 0 problems\n"
    again = zerda_import(tmp_path / "home", "--from", "aichat", str(sessions / "rust-help.yaml"))
    assert "1 session already up to date; 0 problems" in again.err
