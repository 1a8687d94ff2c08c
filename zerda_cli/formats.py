"""Plain renderings of sessions: text, Markdown, JSON, JSON Lines and OpenAI messages.

Machine formats (JSON, JSON Lines, OpenAI) are lossless: control characters are
JSON escapes. Human formats (text, Markdown) neutralise them. None uses colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from zerda.messages import Memory, Message, Session, format_time
from zerda_cli.sanitize import neutralize, to_json

INDENT = "  "


def stamp(message: Message) -> str:
    """The message's time as ISO-8601 UTC to the second, or `-` when it has none."""
    return format_time(message.created_at.replace(microsecond=0)) if message.created_at else "-"


def tokens_label(count: int | None) -> str:
    """`1 token`, `12 tokens`, or `? tokens` when not counted."""
    if count is None:
        return "? tokens"
    return f"{count:,} token{'' if count == 1 else 's'}"


def totals_line(messages: list[Message]) -> str:
    """`N messages, T tokens` for a transcript footer."""
    tokens = sum(m.token_count or 0 for m in messages)
    return f"{len(messages):,} message{'' if len(messages) == 1 else 's'}, {tokens_label(tokens)}"


def session_document(session: Session, memory: Memory) -> dict[str, Any]:
    """The one-document JSON form: the session, its summary and its messages."""
    return {
        "session": session.to_dict(),
        "summary": memory.summary,
        "messages": [m.to_dict() for m in memory.messages],
    }


def openai_messages(messages: Iterable[Message]) -> list[dict[str, str]]:
    """`[{"role", "content"}]`, as chat-completion APIs take them."""
    return [{"role": m.role, "content": m.content} for m in messages]


def jsonl_lines(messages: Iterable[Message]) -> Iterator[str]:
    """One JSON message a line."""
    for message in messages:
        yield to_json(message.to_dict(), indent=None) + "\n"


def text_lines(session: Session, memory: Memory) -> Iterator[str]:
    """The transcript as plain text: a heading line per message, its text indented."""
    if memory.summary:
        yield f"summary\n{_indented(memory.summary)}\n\n"
    for message in memory.messages:
        yield f"{message.role}  {stamp(message)}  {tokens_label(message.token_count)}\n"
        yield _indented(message.content) + "\n\n"
    yield f"-- {session.id}: {totals_line(memory.messages)}\n"


def markdown_lines(session: Session, memory: Memory) -> Iterator[str]:
    """The transcript as Markdown: a heading, then each message under a bold role line."""
    yield f"# Session {session.id}\n\n"
    if memory.summary:
        yield f"> **Summary:** {neutralize(memory.summary)}\n\n"
    for message in memory.messages:
        yield f"**{message.role}** · {stamp(message)} · {tokens_label(message.token_count)}\n\n"
        yield neutralize(message.content).rstrip("\n") + "\n\n"
    yield f"---\n\n*{totals_line(memory.messages)}*\n"


def _indented(text: str) -> str:
    lines = neutralize(text).split("\n") or [""]
    return "\n".join(INDENT + line if line else "" for line in lines)


def key_value_lines(rows: list[tuple[str, Any]]) -> Iterator[str]:
    """Aligned `key  value` lines."""
    width = max((len(k) for k, _ in rows), default=0)
    for key, value in rows:
        shown = "-" if value is None else str(value)
        yield f"{key.ljust(width)}  {neutralize(shown)}\n"


def table_lines(header: list[str], rows: list[list[str]]) -> Iterator[str]:
    """A whitespace-aligned table with a header line (the last column unpadded)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)]
        yield "  ".join([*cells, row[-1]]) + "\n"


def match_parts(content: str, query: str, radius: int = 40) -> tuple[str, str, str]:
    """(before, match, after) around the first case-insensitive `query` in `content`.

    Each part is one line (whitespace as spaces) and neutralised; before and after
    are cut to about `radius` characters with an ellipsis.
    """
    start = content.casefold().find(query.casefold())
    if start < 0 or len(content.casefold()) != len(content):
        start = content.lower().find(query.lower())
    if start < 0:
        return "", "", _flat(content[: radius * 2]) + ("…" if len(content) > radius * 2 else "")
    end = start + len(query)
    before = content[max(0, start - radius) : start]
    after = content[end : end + radius]
    return (
        ("…" if start > radius else "") + _flat(before),
        _flat(content[start:end]),
        _flat(after) + ("…" if end + radius < len(content) else ""),
    )


def _flat(text: str) -> str:
    return neutralize("".join(" " if c.isspace() else c for c in text))
