"""Zep's v1 JSON shapes, both ways: what the zep-python client (1.5) sends and parses.

Pure functions from a request's parsed JSON to zerda's values and back; the shapes are
those of zep-python's `memory/models.py` and `message/models.py`. A key Zep left out
when empty (a message's `metadata`) is left out here too, so a message comes back as
it went in. Entities go where Zep's extractor put them, under `metadata.system.entities`,
in its shape (`Label`, `Name`, `Matches` of `Start`, `End`, `Text`).
"""

from __future__ import annotations

from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import Entities, Memory, Message, Session, Summary, format_time, parse_time

Json = dict[str, Any]


def message_out(message: Message) -> Json:
    """A stored message as Zep gives it: uuid, time, role, content, tokens, metadata (if
    any, or entities)."""
    data = message.to_dict()
    data.pop("extra", None)  # fields of a foreign format: not Zep's
    data.pop("entities", None)
    data["metadata"] = with_entities(message.metadata, message.entities)
    if not data["metadata"]:
        del data["metadata"]
    return data


def with_entities(metadata: Json, entities: Entities | None) -> Json:
    """`metadata` with `entities` under `system.entities` in Zep's shape; as it is when
    none were found (or extracted), or when the caller's own metadata holds a `system`
    that is not an object or already has `entities`: what was stored comes back."""
    system = metadata.get("system", {})
    if not entities or not isinstance(system, dict) or "entities" in system:
        return metadata
    found = [
        {
            "Label": entity.label,
            "Name": entity.name,
            "Matches": [{"Start": m.start, "End": m.end, "Text": m.text} for m in entity.matches],
        }
        for entity in entities
    ]
    return {**metadata, "system": {**system, "entities": found}}


def summary_out(summary: Summary) -> Json:
    """A summary as Zep gives it; `recent_message_uuid` when the summary says which."""
    recent = summary.metadata.get("recent_message_uuid")
    return {
        "uuid": summary.uuid,
        "created_at": format_time(summary.created_at) if summary.created_at else None,
        "content": summary.content,
        "recent_message_uuid": recent if isinstance(recent, str) else "",
        "token_count": summary.token_count,
        "metadata": with_entities(summary.metadata, summary.entities),
    }


def memory_out(memory: Memory) -> Json:
    """A session's memory: its messages, oldest first, and its summary (or none)."""
    summary = summary_out(memory.summary) if memory.summary else None
    return {"messages": [message_out(m) for m in memory.messages], "summary": summary}


def session_out(session: Session) -> Json:
    """A session as Zep gives it: `session_id`, user, metadata and creation time."""
    data: Json = {
        "session_id": session.id,
        "metadata": session.metadata,
        "created_at": format_time(session.created_at) if session.created_at else None,
    }
    if session.user_id is not None:
        data["user_id"] = session.user_id
    return data


def hit_out(message: Message, score: float) -> Json:
    """One search result: the message and its score (`dist`, as Zep named it: higher is
    a better match)."""
    return {"message": message_out(message), "dist": score, "score": score}


def summary_hit_out(summary: Summary, score: float) -> Json:
    """A search result of the summary scope."""
    return {"summary": summary_out(summary), "dist": score, "score": score}


def memory_in(body: Json) -> Memory:
    """The memory a client posts: its messages and, if given, a summary's text (the
    client fills a summary's other fields with placeholders, so only its text counts)."""
    messages = body.get("messages") or []
    if not isinstance(messages, list):
        raise InvalidMessageError("messages must be a list")
    summary = body.get("summary")
    text = summary.get("content") if isinstance(summary, dict) else None
    return Memory(messages=[message_in(m) for m in messages], summary=text)


def message_in(data: object) -> Message:
    """One posted message: role and content, metadata, and the uuid, time and token
    count a client may send back (a uuid the session holds replaces that message)."""
    if not isinstance(data, dict):
        raise InvalidMessageError("each message must be an object")
    created = data.get("created_at")
    if created is not None and not isinstance(created, str):
        raise InvalidMessageError("message created_at must be an ISO-8601 string")
    try:
        at = parse_time(created) if created else None
    except ValueError:
        raise InvalidMessageError(f"message created_at {created!r} is not a time") from None
    return Message(
        role=data.get("role"),  # type: ignore[arg-type]  # Message checks it
        content=data.get("content"),  # type: ignore[arg-type]
        metadata=data.get("metadata") or {},
        uuid=data.get("uuid"),
        created_at=at,
        token_count=data.get("token_count"),
    )


def metadata_in(body: Json) -> dict[str, Any]:
    """The metadata of a message update (`{"metadata": {...}}`, a message's shape)."""
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        raise InvalidMessageError('expected {"metadata": {...}}')
    return metadata
