"""What the MCP tools answer: messages, sessions and transcripts as JSON-ready dicts and
text, each bounded so that one answer fits in a model's context.

Stored content is the person's data: it goes back as it was stored (only cut to size),
never read as instructions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zerda.messages import Message, Summary, format_time
from zerda.store._matching import Span
from zerda.store._overview import SessionOverview

MAX_CONTENT = 4_000  # characters of one message's content in an answer
MAX_ANSWER = 60_000  # characters of content in one answer, all its messages together
MAX_ENTITIES = 50  # entities named with one message (their label and name)


def clipped(content: str, around: int = 0) -> dict[str, Any]:
    """`content` whole, or MAX_CONTENT characters of it from a little before `around`
    (an offset in it), with where the cut part lies and a note saying so."""
    if len(content) <= MAX_CONTENT:
        return {"content": content}
    start = min(max(0, around - MAX_CONTENT // 4), len(content) - MAX_CONTENT)
    end = start + MAX_CONTENT
    note = f"cut: characters {start}-{end} of {len(content)} shown"
    return {"content": content[start:end], "cut": {"start": start, "end": end, "note": note}}


def message(
    session_id: str, found: Message, index: int | None = None, around: int = 0
) -> dict[str, Any]:
    """One stored message: where it is, who said it, when, its content (clipped around
    `around`), its tokens and metadata, and the entities stored with it (label and name)."""
    at = format_time(found.created_at) if found.created_at else None
    where = {"session_id": session_id} | ({"index": index} if index is not None else {})
    who = {"uuid": found.uuid, "created_at": at, "role": found.role, "role_type": found.role_type}
    rest: dict[str, Any] = {"token_count": found.token_count, "metadata": found.metadata}
    if found.entities is not None:
        named = [{"label": e.label, "name": e.name} for e in found.entities]
        rest["entities"] = named[:MAX_ENTITIES]
    return where | who | clipped(found.content, around) | rest


def hit(session_id: str, found: Message, spans: Sequence[Span]) -> dict[str, Any]:
    """A search match: the message, its content clipped around the first match, and the
    [start, end) offsets of every match in the whole content."""
    data = message(session_id, found, around=spans[0][0] if spans else 0)
    data["matches"] = [list(span) for span in spans]
    return data


def session(overview: SessionOverview) -> dict[str, Any]:
    """One session as a listing shows it."""
    stats = overview.stats
    created = format_time(overview.created_at) if overview.created_at else None
    return {
        "session_id": overview.session_id,
        "title": overview.title,
        "messages": stats.messages,
        "turns": stats.turn_count,
        "tokens": stats.token_count,
        "created_at": created,
        "first_activity": stats.first_activity,
        "last_activity": stats.last_activity,
        "opening": overview.opening,
    }


def summary(found: Summary | None) -> dict[str, Any] | None:
    """The session's stored summary, or None."""
    return found.to_dict() if found else None


def fitting(items: list[dict[str, Any]], newest: bool) -> list[dict[str, Any]]:
    """The first `items` (the last, when `newest`) whose contents add up to at most
    MAX_ANSWER characters; always at least one."""
    ordered = reversed(items) if newest else iter(items)
    kept: list[dict[str, Any]] = []
    total = 0
    for item in ordered:
        total += len(item["content"])
        if kept and total > MAX_ANSWER:
            break
        kept.append(item)
    return kept[::-1] if newest else kept


def transcript(
    session_id: str, items: list[dict[str, Any]], skipped: int, about: Summary | None
) -> str:
    """The session as text: a header, the summary if any, then each message as
    `[time] role:` and its content."""
    lines = [f"Session {session_id}"]
    if about is not None:
        lines += ["", f"Summary: {about.content}"]
    if skipped:
        lines += ["", f"({skipped} earlier messages not shown)"]
    for item in items:
        lines += ["", f"[{item['created_at']}] {item['role']}:", item["content"]]
        if "cut" in item:
            lines.append(f"({item['cut']['note']})")
    return "\n".join(lines) + "\n"
