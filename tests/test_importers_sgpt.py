"""shell_gpt chat cache files import as sessions, again and again to the same uuids."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from importer_helpers import conversations, store_all, store_bytes, zerda_import

from zerda import SessionStore
from zerda.errors import ImportFailed
from zerda.formats.openai import to_openai
from zerda.importers import _sgpt as sgpt
from zerda.importers._base import Problem

FIXTURE = Path(__file__).parent / "fixtures" / "importers" / "sgpt" / "chat_cache"
WRITTEN = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A copy of the fixture cache directory, its files written at WRITTEN."""
    path = tmp_path / "chat_cache"
    shutil.copytree(FIXTURE, path)
    for file in path.iterdir():
        os.utime(file, (WRITTEN.timestamp(), WRITTEN.timestamp()))
    return path


def test_a_chat_file_is_one_conversation_of_its_openai_messages(cache: Path) -> None:
    [chat] = conversations(sgpt.read(cache / "python_tips"))
    original = json.loads((cache / "python_tips").read_text())
    assert (chat.source_id, chat.title, chat.session_id) == ("python_tips",) * 2 + (
        "sgpt-python_tips",
    )
    assert chat.metadata == {
        "source": "sgpt",
        "source_id": "python_tips",
        "title": "python_tips",
        "source_title": "python_tips",
    }
    assert [to_openai(m) for m in chat.messages] == original
    assert [m.role for m in chat.messages] == [
        "system", "user", "assistant", "function", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert chat.messages[5].content == "Привет! what is 日本語 for 'hello'? 👋"
    assert {m.created_at for m in chat.messages} == {WRITTEN} == {chat.created_at}
    assert len({m.uuid for m in chat.messages}) == 7


def test_the_directory_gives_every_chat_by_name(cache: Path) -> None:
    found = conversations(sgpt.read(cache))
    assert [(c.source_id, len(c.messages)) for c in found] == [("empty", 0), ("python_tips", 7)]


def test_reimport_adds_nothing_and_leaves_the_files_alone(cache: Path, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", fsync=False)
    assert store_all(store, conversations(sgpt.read(cache))) == 7
    before = store_bytes(store)
    store_all(store, conversations(sgpt.read(cache)))
    assert store_bytes(store) == before
    assert store.message_count("sgpt-python_tips") == 7
    assert [m.content for m in store.iter_messages("sgpt-python_tips")][
        -1
    ] == "こんにちは (konnichiwa)."


def test_a_cache_cut_to_its_last_messages_imports_onto_the_session(
    cache: Path, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "home", fsync=False)
    chat = cache / "python_tips"
    store_all(store, conversations(sgpt.read(chat)))
    held = list(store.iter_messages("sgpt-python_tips"))
    grown = [*json.loads(chat.read_text())[3:], {"role": "user", "content": "thanks"}]
    chat.write_text(json.dumps(grown))
    assert store_all(store, conversations(sgpt.read(chat))) == 1
    now = list(store.iter_messages("sgpt-python_tips"))
    assert [m.uuid for m in now[:-1]] == [m.uuid for m in held]
    assert [m.content for m in now] == [*(m.content for m in held), "thanks"]


def test_a_repeated_message_keeps_one_uuid_each(tmp_path: Path) -> None:
    chat = tmp_path / "again"
    chat.write_text(json.dumps([{"role": "user", "content": "yes"}] * 3))
    [found] = conversations(sgpt.read(chat))
    assert len({m.uuid for m in found.messages}) == 3


def test_a_byte_order_mark_before_the_json_is_no_text(tmp_path: Path) -> None:
    chat = tmp_path / "marked"
    sent = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    chat.write_bytes(b"\xef\xbb\xbf" + json.dumps(sent).encode())
    [found] = conversations(sgpt.read(chat))
    assert [to_openai(m) for m in found.messages] == sent


def test_a_malformed_message_is_one_problem_and_the_rest_imports(tmp_path: Path) -> None:
    chat = tmp_path / "bad"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}, 7, {"role": "", "content": ""}]))
    found = list(sgpt.read(chat))
    problems = [str(p) for p in found if isinstance(p, Problem)]
    assert problems == [
        "bad: message 2: a message must be a JSON object with role and content",
        "bad: message 3: message role must be a non-empty string",
    ]
    [conversation] = [c for c in found if not isinstance(c, Problem)]
    assert [m.content for m in conversation.messages] == ["hi"]
    assert conversation.skipped == {"malformed": 2}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"role": "user"}', "the JSON is an object, not a list"),
        ("[{]", "invalid JSON"),
        ("[NaN]", "invalid JSON"),
    ],
)
def test_a_file_that_is_not_a_chat_is_one_clear_error(
    tmp_path: Path, text: str, reason: str
) -> None:
    chat = tmp_path / "chat"
    chat.write_text(text)
    with pytest.raises(ImportFailed, match=reason):
        list(sgpt.read(chat))


def test_in_a_directory_a_file_that_is_not_a_chat_is_a_problem(cache: Path) -> None:
    (cache / "broken").write_bytes(b"\xff\xfe not json")
    found = list(sgpt.read(cache))
    assert [str(p).split(":")[0] for p in found if isinstance(p, Problem)] == ["broken"]
    assert len([c for c in found if not isinstance(c, Problem)]) == 2


def test_a_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="no such file or directory"):
        list(sgpt.read(tmp_path / "nowhere"))


def test_zerda_import_from_sgpt(cache: Path, tmp_path: Path) -> None:
    first = zerda_import(tmp_path / "home", "--from", "sgpt", str(cache))
    assert (first.code, first.out) == (0, "")
    assert first.err == "imported 2 sessions, 7 messages; 0 problems\n"
    again = zerda_import(tmp_path / "home", "--from", "sgpt", str(cache))
    assert "0 messages; 2 sessions already up to date" in again.err
