"""llm's logs.db imports as sessions: what the real llm writes, and its older tables."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from importer_helpers import conversations, store_all, store_bytes, zerda_import
from llm_logs import fill_legacy, legacy_db, run_llm

from zerda import SessionStore
from zerda.errors import ImportFailed
from zerda.importers import _llm as llm
from zerda.importers._base import Conversation, Problem

pytest.importorskip("llm_echo")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A logs.db the installed llm wrote: a continued conversation with a system prompt,
    a tool call and its result, reasoning, and an attachment."""
    home = tmp_path_factory.mktemp("llm")
    (home / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    run_llm(home, "-m", "echo", "-s", "be terse", "hello ünïcode 日本")
    run_llm(home, "-c", "second")
    run_llm(home, "-m", "echo", "-T", "llm_version", '{"tool_calls": [{"name": "llm_version"}]}')
    run_llm(home, "-m", "echo", "-o", "thinking", "1", "think")
    run_llm(home, "-m", "echo", "-a", str(home / "dot.png"), "describe")
    return home / "logs.db"


def turns(path: Path) -> list[sqlite3.Row]:
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        return list(db.execute("select * from turns order by rowid"))


def test_each_thread_is_a_conversation_of_its_messages(logs: Path) -> None:
    found = conversations(llm.read(logs))
    assert [c.title for c in found] == [
        "hello ünïcode 日本",
        '{"tool_calls": [{"name": "llm_v…',
        "think",
        "describe",
    ]
    first = found[0]
    assert [(m.role, m.content[:20]) for m in first.messages] == [
        ("system", "be terse"),
        ("user", "hello ünïcode 日本"),
        ("assistant", '{\n  "prompt": "hello'),
        ("user", "second"),
        ("assistant", '{\n  "prompt": "secon'),
    ]
    assert first.metadata["model"] == "echo"
    assert first.session_id == f"llm-{first.source_id}"


def test_times_and_usage_come_from_the_turns(logs: Path) -> None:
    first = conversations(llm.read(logs))[0]
    one, two = turns(logs)[:2]
    at = [datetime.fromisoformat(t["datetime_utc"]) for t in (one, two)]
    assert [m.created_at for m in first.messages] == [at[0], at[0], at[0], at[1], at[1]]
    assert first.messages[2].metadata == {
        "model": "echo",
        "duration_ms": one["duration_ms"],
        "usage": {"input_tokens": one["input_tokens"], "output_tokens": one["output_tokens"]},
        "llm_turn_id": one["id"],
    }
    assert all(m.created_at and m.created_at.tzinfo is not None for m in first.messages)


def test_tool_calls_reasoning_and_attachments(logs: Path) -> None:
    _, tools, think, describe = conversations(llm.read(logs))
    call, result = tools.messages[1], tools.messages[2]
    [openai_call] = call.extra["tool_calls"]
    assert openai_call["function"] == {"name": "llm_version", "arguments": "{}"}
    assert (result.role, result.extra["tool_call_id"]) == ("tool", openai_call["id"])
    assert result.metadata == {"tool": "llm_version"}
    assert result.content.startswith("0.")
    assert [m.role for m in tools.messages] == ["user", "assistant", "tool", "assistant"]
    reasoning = think.messages[1].metadata["reasoning"]
    assert reasoning == "First I consider the prompt, then I decide what to say."
    assert think.messages[1].metadata["options"] == {"thinking": True}
    [attachment] = describe.messages[0].metadata["attachments"]
    assert attachment["type"] == "image/png" and attachment["path"].endswith("dot.png")


def test_reading_leaves_the_database_alone_and_reimport_adds_nothing(
    logs: Path, tmp_path: Path
) -> None:
    before_db = logs.read_bytes()
    store = SessionStore(tmp_path / "home", fsync=False)
    assert store_all(store, conversations(llm.read(logs))) == 13
    before = store_bytes(store)
    assert store_all(store, conversations(llm.read(logs))) == 0
    assert store_bytes(store) == before
    assert logs.read_bytes() == before_db


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    path = tmp_path / "logs.db"
    fill_legacy(legacy_db(path))
    return path


def test_the_older_tables_are_read_by_conversation(legacy: Path) -> None:
    zurich, _, alone = conversations(llm.read(legacy))
    assert (zurich.title, zurich.source_id, zurich.metadata["model"]) == (
        "Ask about Zürich", "01conv-a", "gpt-4o-mini",
    )  # fmt: skip
    assert [(m.role, m.content) for m in zurich.messages] == [
        ("system", "Sei kurz."),
        ("user", "Wetter in Zürich?"),
        ("assistant", "Regen, 18 °C."),
        ("user", "Und morgen? 🌦"),
        ("assistant", "Sonne."),
        ("system", "Be brief."),
        ("user", "English now"),
        ("assistant", "Sure."),
    ]
    assert zurich.messages[0].created_at == datetime(2024, 5, 1, 10, 0, 0, 1, tzinfo=UTC)
    assert zurich.created_at == zurich.messages[0].created_at
    assert zurich.messages[2].metadata == {
        "model": "gpt-4o-mini",
        "resolved_model": "gpt-4o-mini-2024-07-18",
        "duration_ms": 812,
        "options": {"temperature": 0.5},
        "usage": {"input_tokens": 9, "output_tokens": 4, "details": {"cached_tokens": 2}},
        "llm_response_id": "01r1",
        "reasoning": "Look it up.",
    }
    assert (alone.source_id, alone.title, len(alone.messages)) == ("01r6", None, 2)


def test_older_tool_calls_and_results(legacy: Path) -> None:
    tools = conversations(llm.read(legacy))[1]
    assert [m.role for m in tools.messages] == ["user", "assistant", "tool", "assistant"]
    call, result = tools.messages[1], tools.messages[2]
    assert call.extra == {
        "content": None,
        "tool_calls": [
            {"id": "call_9", "type": "function",
             "function": {"name": "llm_version", "arguments": "{}"}},
        ],
    }  # fmt: skip
    assert (result.content, result.extra, result.metadata) == (
        "0.26", {"tool_call_id": "call_9"}, {"tool": "llm_version"},
    )  # fmt: skip
    assert tools.messages[0].created_at == datetime(2025, 6, 1, 12, tzinfo=UTC)


def test_a_database_from_before_tools_and_usage(tmp_path: Path) -> None:
    db = legacy_db(tmp_path / "logs.db", "m012_attachments_tables")
    db["responses"].insert(
        {"id": "r", "model": "gpt-3.5-turbo", "prompt": "hi", "system": None,
         "response": "hello", "conversation_id": "c", "duration_ms": 5,
         "datetime_utc": "2023-07-01T09:00:00.5"}
    )  # fmt: skip
    [found] = conversations(llm.read(tmp_path / "logs.db"))
    assert found.messages[1].metadata == {
        "model": "gpt-3.5-turbo", "duration_ms": 5, "llm_response_id": "r",
    }  # fmt: skip


def test_a_response_also_recorded_as_a_turn_is_read_once(tmp_path: Path, logs: Path) -> None:
    path = tmp_path / "logs.db"
    path.write_bytes(logs.read_bytes())
    first = turns(path)[0]
    with sqlite3.connect(path) as db:
        db.execute(
            "insert into responses (id, prompt, response, conversation_id) values (?, ?, ?, ?)",
            (first["id"], "hello", "dup", first["thread_id"]),
        )
    assert len(conversations(llm.read(path))) == 4


def test_an_empty_thread_and_a_broken_one(tmp_path: Path, logs: Path) -> None:
    path = tmp_path / "logs.db"
    path.write_bytes(logs.read_bytes())
    with sqlite3.connect(path) as db:
        insert = "insert into threads (id, name, tip_message_hash, datetime_utc) values (?,?,?,?)"
        db.execute(insert, ("t-empty", "nothing yet", None, "2026-01-01 00:00:00+00:00"))
        db.execute(insert, ("t-lost", "lost", "b2:gone", "2026-01-02 00:00:00+00:00"))
        db.execute("update parts set payload = '{not json' where type = 'tool_call'")
    found = list(llm.read(path))
    problems = [str(p) for p in found if isinstance(p, Problem)]
    assert len(problems) == 2
    assert problems[0] == "logs.db: thread t-lost: KeyError: 'its tip message b2:gone is missing'"
    assert problems[1].startswith("logs.db: thread ") and "JSONDecodeError" in problems[1]
    empty = [c for c in found if isinstance(c, Conversation) and c.source_id == "t-empty"]
    assert [(c.title, c.messages) for c in empty] == [("nothing yet", [])]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"not a database at all" * 100, "not an llm logs database: file is not a database"),
        (b"", "not an llm logs database \\(no responses or threads table\\)"),
    ],
)
def test_a_file_that_is_not_a_logs_db_is_one_clear_error(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "logs.db"
    path.write_bytes(content)
    with pytest.raises(ImportFailed, match=reason):
        list(llm.read(path))


def test_a_truncated_database_is_one_clear_error(tmp_path: Path, legacy: Path) -> None:
    data = legacy.read_bytes()
    path = tmp_path / "cut.db"
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(ImportFailed, match=r"cut\.db: "):
        list(llm.read(path))


def test_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="no such file"):
        list(llm.read(tmp_path / "nowhere.db"))


def test_zerda_import_from_llm(logs: Path, tmp_path: Path) -> None:
    first = zerda_import(tmp_path / "home", "--from", "llm", str(logs))
    assert (first.code, first.out) == (0, "")
    assert first.err == "imported 4 sessions, 13 messages; 0 problems\n"
    again = zerda_import(tmp_path / "home", str(logs))  # told from the file
    assert "0 messages; 4 sessions already up to date" in again.err
    (tmp_path / "junk.db").write_bytes(b"junk" * 100)
    bad = zerda_import(tmp_path / "home", "--from", "llm", str(tmp_path / "junk.db"))
    assert (bad.code, bad.out) == (1, "")
    assert (
        bad.err
        == f"error: {tmp_path / 'junk.db'}: not an llm logs database: file is not a database\n"
    )


def test_an_older_conversation_llm_went_on_with_is_one_session(tmp_path: Path) -> None:
    db = legacy_db(tmp_path / "logs.db")
    fill_legacy(db)
    db.close()
    [before, *_] = conversations(llm.read(tmp_path / "logs.db"))
    run_llm(tmp_path, "-m", "echo", "--cid", "01conv-a", "weiter?")
    found = conversations(llm.read(tmp_path / "logs.db"))
    assert [c.source_id for c in found] == ["01conv-b", "01r6", "01conv-a"]
    after = found[-1]
    assert (after.title, after.created_at) == (before.title, before.created_at)
    assert after.messages[:8] == before.messages
    assert [(m.role, m.content[:6]) for m in after.messages[8:]] == [
        ("user", "weiter"), ("assistant", '{\n  "p'),
    ]  # fmt: skip


def test_a_wal_mode_database_is_read_without_files_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "logs.db"
    db = legacy_db(path)
    fill_legacy(db)
    db.execute("PRAGMA journal_mode=wal")
    db.conn.close()
    assert path.read_bytes()[18] == 2
    before = sorted(p.name for p in tmp_path.iterdir())
    found = conversations(llm.read(path))
    assert len(found) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["logs.db"]
