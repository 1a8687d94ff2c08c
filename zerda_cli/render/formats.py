"""Plain renderings of sessions: text, Markdown, JSON, JSON Lines and OpenAI messages.

Machine formats (JSON, JSON Lines, OpenAI) are lossless: control characters are
JSON escapes. Human formats (text, Markdown) neutralise them. None uses colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC
from typing import Any

from zerda.messages import Message, Session, Summary
from zerda_cli.render.provenance import provenance_label
from zerda_cli.render.sanitize import neutralize, one_line, to_json

INDENT = "  "
JSON_INDENT = "  "  # what `to_json` indents by


def stamp(message: Message) -> str:
    """The message's time as ISO-8601 UTC to the second, or `-` when it has none."""
    if message.created_at is None:
        return "-"
    return message.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def tokens_label(count: int | None) -> str:
    """`1 token`, `12 tokens`, or `? tokens` when not counted."""
    if count is None:
        return "? tokens"
    return f"{count:,} token{'' if count == 1 else 's'}"


def entities_label(message: Message) -> str:
    """`PERSON Ada Lovelace · GPE Paris`: one line, terminal-safe; `none` when none found."""
    found = message.entities or ()
    return " · ".join(one_line(f"{e.label} {e.name}") for e in found) or "none"


class Totals:
    """Message and token counts (and first and last message) of a stream, kept as it passes."""

    def __init__(self) -> None:
        self.messages = 0
        self.tokens = 0
        self.first: Message | None = None
        self.last: Message | None = None

    def counted(self, messages: Iterable[Message]) -> Iterator[Message]:
        """`messages`, unchanged, adding each to the totals as it goes by."""
        for message in messages:
            self.messages += 1
            self.tokens += message.token_count or 0
            self.first = self.first or message
            self.last = message
            yield message

    def line(self) -> str:
        """`N messages, T tokens` for a transcript footer."""
        plural = "" if self.messages == 1 else "s"
        return f"{self.messages:,} message{plural}, {tokens_label(self.tokens)}"


def _nested_json(data: Any, depth: int) -> str:
    """`to_json(data)` laid out as it would be `depth` levels down in an indented document."""
    return to_json(data).replace("\n", "\n" + JSON_INDENT * depth)


def _json_array(items: Iterable[Any], depth: int) -> Iterator[str]:
    """A JSON array `depth` levels down, one element at a time, as `to_json` would lay it out."""
    pad = JSON_INDENT * (depth + 1)
    opened = False
    for item in items:
        yield ("," if opened else "[") + "\n" + pad + _nested_json(item, depth + 1)
        opened = True
    yield "\n" + JSON_INDENT * depth + "]" if opened else "[]"


def json_document(
    session: Session, summary: Summary | None, messages: Iterable[Message]
) -> Iterator[str]:
    """The one-document JSON form (the session, its summary and its messages), streamed."""
    summary_data = summary.to_dict() if summary else None
    yield "{\n"
    yield f'{JSON_INDENT}"session": {_nested_json(session.to_dict(), 1)},\n'
    yield f'{JSON_INDENT}"summary": {_nested_json(summary_data, 1)},\n'
    yield f'{JSON_INDENT}"messages": '
    yield from _json_array((m.to_dict() for m in messages), 1)
    yield "\n}\n"


def openai_document(messages: Iterable[Message]) -> Iterator[str]:
    """The messages as chat-completion APIs take them (tool calls and all), streamed."""
    from zerda.formats.openai import to_openai

    return json_array(to_openai(m) for m in messages)


def json_array(items: Iterable[Any]) -> Iterator[str]:
    """A JSON array as one document (with its newline), one element at a time, laid out
    as `to_json` lays out the whole list."""
    yield from _json_array(items, 0)
    yield "\n"


def jsonl_lines(
    session: Session, summary: Summary | None, messages: Iterable[Message]
) -> Iterator[str]:
    """JSON Lines: a `session` record, the `summary` record if any, then one message a line."""
    yield to_json({"type": "session", **session.to_dict()}, indent=None) + "\n"
    if summary is not None:
        yield to_json({"type": "summary", **summary.to_dict()}, indent=None) + "\n"
    yield from message_lines(messages)


def message_lines(messages: Iterable[Message]) -> Iterator[str]:
    """JSON Lines: one message a line, nothing else (`zerda show --jsonl`)."""
    for message in messages:
        yield to_json(message.to_dict(), indent=None) + "\n"


def text_lines(
    session: Session, summary: str | None, messages: Iterable[Message], entities: bool = False
) -> Iterator[str]:
    """The transcript as plain text: a heading line per message, its text indented (and,
    with `entities`, a line naming what it mentions)."""
    if summary:
        yield f"summary\n{_indented(summary)}\n\n"
    totals = Totals()
    for message in totals.counted(messages):
        heading = f"{one_line(message.role)}  {stamp(message)}  {tokens_label(message.token_count)}"
        made = provenance_label(message)
        yield heading + (f"  ({made})" if made else "") + "\n"
        yield _indented(message.content) + "\n"
        yield f"{INDENT}entities: {entities_label(message)}\n\n" if entities else "\n"
    yield f"-- {one_line(session.id)}: {totals.line()}\n"


def markdown_lines(
    session: Session, summary: str | None, messages: Iterable[Message], entities: bool = False
) -> Iterator[str]:
    """The transcript as Markdown: a heading, then each message under a bold role line."""
    yield f"# Session {one_line(session.id)}\n\n"
    if summary:
        yield f"> **Summary:** {neutralize(summary)}\n\n"
    totals = Totals()
    for message in totals.counted(messages):
        role = one_line(message.role)
        made = provenance_label(message)
        how = f" · {made}" if made else ""
        yield f"**{role}** · {stamp(message)} · {tokens_label(message.token_count)}{how}\n\n"
        yield neutralize(message.content).rstrip("\n") + "\n\n"
        if entities:
            yield f"*Entities:* {entities_label(message)}\n\n"
    yield f"---\n\n*{totals.line()}*\n"


def _indented(text: str) -> str:
    lines = neutralize(text).split("\n") or [""]
    return "\n".join(INDENT + line if line else "" for line in lines)


def key_value_lines(rows: list[tuple[str, Any]]) -> Iterator[str]:
    """Aligned `key  value` lines, each value on one line and neutralised."""
    width = max((len(k) for k, _ in rows), default=0)
    for key, value in rows:
        shown = "-" if value is None else str(value)
        yield f"{key.ljust(width)}  {one_line(shown)}\n"


def table_lines(header: list[str], rows: list[list[str]]) -> Iterator[str]:
    """A whitespace-aligned table with a header line (the last column unpadded).

    Cells are neutralised and flattened first (they hold ids and times read from
    files), so they are measured as they are shown and cannot break a row.
    """
    rows = [[one_line(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)]
        yield "  ".join([*cells, row[-1]]) + "\n"


def match_parts(
    content: str, span: tuple[int, int] | None, radius: int = 40
) -> tuple[str, str, str]:
    """(before, match, after) around `span` (character offsets of a match) in `content`.

    Each part is one line (whitespace as spaces) and neutralised; before and after
    are cut to about `radius` characters with an ellipsis. Without a span, the start
    of the content.
    """
    if span is None:
        return "", "", _flat(content[: radius * 2]) + ("…" if len(content) > radius * 2 else "")
    start, end = span
    before = content[max(0, start - radius) : start]
    after = content[end : end + radius]
    return (
        ("…" if start > radius else "") + _flat(before),
        _flat(content[start:end]),
        _flat(after) + ("…" if end + radius < len(content) else ""),
    )


def _flat(text: str) -> str:
    return neutralize("".join(" " if c.isspace() else c for c in text))
