"""A generated llm logs.db of many conversations, in the schema the installed llm builds
(its own `llm.migrations.migrate`), filled with sqlite3 directly as llm fills it: prompt/
reply pairs in conversations of `PER_CONVERSATION`, either in llm 0.32+'s message store
(threads, turns, messages, parts) or in the older `conversations` and `responses` tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.corpus import conversation

PER_CONVERSATION = 10
START = datetime(2025, 1, 1, tzinfo=UTC)


def _migrated(path: Path) -> sqlite3.Connection:
    """A new database holding the schema the installed llm builds."""
    import sqlite_utils
    from llm.migrations import migrate

    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    migrate(sqlite_utils.Database(path))  # type: ignore[no-untyped-call]
    return sqlite3.connect(path)


def _exchanges(count: int) -> Iterator[tuple[int, int, str, str, str]]:
    """(index, conversation, prompt, reply, time) of each generated response."""
    texts = conversation(2 * count)
    for index in range(count):
        (_, prompt), (_, reply) = next(texts), next(texts)
        at = (START + timedelta(seconds=30 * index)).isoformat()
        yield index, index // PER_CONVERSATION, prompt, reply, at


def write_threads(path: Path, count: int) -> None:
    """llm 0.32+: a thread per conversation, its turns chaining user and assistant messages."""
    db = _migrated(path)
    for index, thread, prompt, reply, at in _exchanges(count):
        asked, answered = f"b2:{2 * index:032x}", f"b2:{2 * index + 1:032x}"
        parent = None if index % PER_CONVERSATION == 0 else f"b2:{2 * index - 1:032x}"
        insert = "insert into messages (hash, parent_hash, role) values (?, ?, ?)"
        db.executemany(insert, [(asked, parent, "user"), (answered, asked, "assistant")])
        insert = "insert into parts (message_hash, position, type, text) values (?, 0, 'text', ?)"
        db.executemany(insert, [(asked, prompt), (answered, reply)])
        db.execute(
            "insert into turns (id, thread_id, parent_message_hash, tip_message_hash, model,"
            " input_tokens, output_tokens, duration_ms, datetime_utc)"
            " values (?, ?, ?, ?, 'gpt-4o-mini', ?, ?, 900, ?)",
            (f"turn{index:08d}", f"thread{thread:06d}", asked, answered, len(prompt) // 4,
             len(reply) // 4, at),
        )  # fmt: skip
        db.execute(
            "insert or replace into threads (id, name, tip_message_hash, datetime_utc)"
            " values (?, ?, ?, coalesce((select datetime_utc from threads where id = ?), ?))",
            (f"thread{thread:06d}", prompt[:32], answered, f"thread{thread:06d}", at),
        )
    db.commit()
    db.close()


def write_responses(path: Path, count: int) -> None:
    """llm before 0.32: a conversations row per conversation, a responses row per exchange."""
    db = _migrated(path)
    for index, number, prompt, reply, at in _exchanges(count):
        conversation_id = f"conv{number:06d}"
        if index % PER_CONVERSATION == 0:
            insert = "insert into conversations (id, name, model) values (?, ?, 'gpt-4o-mini')"
            db.execute(insert, (conversation_id, prompt[:32]))
        db.execute(
            "insert into responses (id, model, prompt, system, options_json, response,"
            " conversation_id, duration_ms, datetime_utc, input_tokens, output_tokens)"
            " values (?, 'gpt-4o-mini', ?, 'Be brief.', '{}', ?, ?, 900, ?, ?, ?)",
            (f"resp{index:08d}", prompt, reply, conversation_id, at, len(prompt) // 4,
             len(reply) // 4),
        )  # fmt: skip
    db.commit()
    db.close()
