"""Deterministic chat text and pre-built stores: zerda, LangChain's JSON file, llm's logs.db.

Messages have realistic lengths: user messages 40-520 characters (mean about 280),
assistant replies 200-2,000 (mean about 1,100), prose in paragraphs with some code,
punctuation and a little non-ASCII text. One message in 10,000 holds the word
`zebrafish`, which the search benchmarks look for.
"""

from __future__ import annotations

import functools
import json
import random
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zerda.messages import Message, Session
from zerda.store._tally import Tally
from zerda.store.files._records import (
    SESSION_AT,
    SUMMARY_AT,
    dumps,
    header_record,
    message_record,
    render,
)

NEEDLE = "zebrafish"
NEEDLE_EVERY = 10_000
USER_CHARS = (40, 520)
ASSISTANT_CHARS = (200, 2_000)
POOL_CHARS = 4_000_000
START = datetime(2024, 1, 1, tzinfo=UTC)

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "or",
    "from",
    "at",
    "an",
    "which",
    "have",
    "not",
    "can",
    "will",
    "use",
    "more",
    "one",
    "all",
    "would",
    "there",
    "their",
    "what",
    "so",
    "if",
    "about",
    "when",
    "them",
    "function",
    "value",
    "file",
    "memory",
    "session",
    "message",
    "model",
    "token",
    "context",
    "window",
    "buffer",
    "python",
    "list",
    "dict",
    "string",
    "return",
    "import",
    "class",
    "error",
    "result",
    "request",
    "response",
    "data",
    "user",
    "assistant",
    "example",
    "because",
    "however",
    "first",
    "then",
    "should",
    "could",
    "also",
    "each",
    "other",
    "write",
    "read",
    "append",
    "store",
    "index",
    "query",
    "search",
    "count",
    "time",
    "system",
    "test",
    "please",
    "thanks",
    "explain",
    "how",
    "why",
    "need",
    "want",
    "help",
    "code",
    "line",
    "output",
    "input",
    "number",
    "format",
    "json",
    "text",
]
ACCENTED = ["café", "naïve", "façade", "résumé", "→", "—", "“quoted”", "Zürich", "日本語", "🙂"]
CODE = "\n\n```python\ndef add(a, b):\n    return a + b\n\nprint(add(2, 3))\n```\n\n"


@functools.cache
def text_pool(seed: int = 7, size: int = POOL_CHARS) -> str:
    """A long run of prose-like text to cut messages from."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 22)))
        if rng.random() < 0.05:
            sentence += " " + rng.choice(ACCENTED)
        piece = sentence.capitalize() + rng.choice([". ", "? ", ", ", ". "])
        if rng.random() < 0.08:
            piece += "\n\n"
        if rng.random() < 0.005:
            piece += CODE
        parts.append(piece)
        total += len(piece)
    return "".join(parts)


def conversation(count: int, seed: int = 11) -> Iterator[tuple[str, str]]:
    """`count` (role, content) pairs alternating user, assistant."""
    pool = text_pool()
    rng = random.Random(seed)
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        low, high = USER_CHARS if role == "user" else ASSISTANT_CHARS
        length = rng.randint(low, high)
        start = rng.randrange(len(pool) - length)
        content = pool[start : start + length].strip() or "ok"
        if index % NEEDLE_EVERY == NEEDLE_EVERY // 2:
            middle = len(content) // 2
            content = f"{content[:middle]} {NEEDLE} {content[middle:]}"
        yield role, content


def stamp(index: int) -> datetime:
    """The creation time of message `index`: one every ten seconds from 2024-01-01."""
    return START + timedelta(seconds=10 * index)


def write_zerda_session(path: Path, count: int, session_id: str) -> int:
    """Write a version-1 zerda session file of `count` messages directly; returns text bytes.

    Token counts are the chars/4 estimate (counting a million messages exactly would
    dominate the set-up; the benchmarks only read the stored numbers). The last record
    carries the summary pointer and sealed running totals, rendered as zerda's own
    writes render them.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text_bytes = 0
    tally = Tally()
    session = Session(id=session_id, created_at=START)
    with path.open("wb") as out:
        offset = out.write(dumps(header_record(session, "cl100k_base")))
        for index, (role, content) in enumerate(conversation(count)):
            message = Message(
                role,
                content,
                uuid=uuid.UUID(int=index + 1).hex,
                created_at=stamp(index),
                token_count=len(content) // 4,
            )
            record = message_record(message)
            if index == count - 1:  # the last record of a write: summary pointer, totals
                out.write(render([record], offset, {SUMMARY_AT: None, SESSION_AT: None}, tally))
            else:
                tally.add_record(record)
                offset += out.write(dumps(record))
            text_bytes += len(content.encode())
    path.chmod(0o600)
    return text_bytes


def write_langchain_file(path: Path, count: int) -> None:
    """Write what `FileChatMessageHistory` holds after `count` add_message calls."""
    path.parent.mkdir(parents=True, exist_ok=True)
    items = [
        {
            "type": "human" if role == "user" else "ai",
            "data": {
                "content": content,
                "additional_kwargs": {},
                "response_metadata": {},
                "type": "human" if role == "user" else "ai",
                "name": None,
                "id": None,
                **({"example": False} if role == "user" else _ai_extra()),
            },
        }
        for role, content in conversation(count)
    ]
    path.write_text(json.dumps(items), encoding="utf-8")


def _ai_extra() -> dict[str, object]:
    return {"example": False, "tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None}


def write_llm_logs(path: Path, count: int, migrate: object) -> int:
    """An llm logs.db holding `count` messages as count/2 logged prompt/response pairs.

    `migrate` is `llm.migrations.migrate`; rows go into `responses` (the table `llm logs`
    reads and searches through `responses_fts`), one conversation, as llm writes them.
    """
    import sqlite_utils

    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    migrate(sqlite_utils.Database(path))  # type: ignore[operator]
    db = sqlite3.connect(path)
    conversation_id = "01j0000000000000000000conv"
    db.execute(
        "insert into conversations (id, name, model) values (?, ?, ?)",
        (conversation_id, "benchmark", "gpt-4o-mini"),
    )
    db.executemany(
        "insert into responses (id, model, prompt, system, prompt_json, options_json, response,"
        " response_json, conversation_id, duration_ms, datetime_utc, input_tokens, output_tokens,"
        " token_details, schema_id, resolved_model) values"
        " (?, 'gpt-4o-mini', ?, null, ?, '{}', ?, ?, ?, ?, ?, ?, ?, null, null, null)",
        _llm_rows(count, conversation_id),
    )
    db.commit()
    db.execute("vacuum")
    db.close()
    return sum(len(content.encode()) for _, content in conversation(count - count % 2))


def _llm_rows(count: int, conversation_id: str) -> Iterator[tuple[object, ...]]:
    messages = conversation(count - count % 2)
    for index, ((_, prompt), (_, reply)) in enumerate(zip(messages, messages, strict=False)):
        prompt_json = json.dumps({"messages": [{"role": "user", "content": prompt}]})
        response_json = json.dumps({"content": reply, "finish_reason": "stop"})
        yield (
            f"01j{index:023d}",
            prompt,
            prompt_json,
            reply,
            response_json,
            conversation_id,
            900,
            stamp(2 * index).isoformat(),
            len(prompt) // 4,
            len(reply) // 4,
        )
