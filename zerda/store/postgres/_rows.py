"""Messages and summaries as rows of the PostgreSQL store, and back, exactly.

Text columns cannot hold NUL, so a NUL is stored as U+FFFD with its positions kept
in `nuls`; anything else the file store would refuse (lone surrogates, metadata that
is not JSON) is refused here too, before a transaction starts. Metadata is stored as
`json` (text kept as written: key order, big numbers), which cannot hold NaN or
Infinity, so those are refused as well.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import Entities, Message, Summary, entities_of

NUL = "\x00"
NUL_STAND_IN = "\ufffd"
BIGINT_MAX = (1 << 63) - 1
# The columns a message is read from, in the order `message_from_row` takes them.
MESSAGE_COLUMNS = (
    "uuid, created_at, role, role_type, content, nuls, token_count, metadata, extra, entities"
)
SUMMARY_COLUMNS = "uuid, created_at, content, nuls, token_count, metadata, entities"


def storable_text(text: str, what: str) -> tuple[str, str | None]:
    """(the text as stored, its NUL positions as JSON or None); refuses lone surrogates."""
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        raise InvalidMessageError(f"cannot store this {what}: {exc}") from None
    if NUL not in text:
        return text, None
    positions = []
    at = text.find(NUL)
    while at >= 0:
        positions.append(at)
        at = text.find(NUL, at + 1)
    return text.replace(NUL, NUL_STAND_IN), json.dumps(positions)


def restored_text(stored: str, nuls: list[int] | None) -> str:
    """The text `storable_text` was given."""
    if not nuls:
        return stored
    chars = list(stored)
    for at in nuls:
        chars[at] = NUL
    return "".join(chars)


def folded(stored: str, text: str) -> str | None:
    """What a search looks in, when it is not the ASCII lowercase of the stored text:
    the text's casefold (NULs as stored), so matching is `str.casefold`, as in files."""
    if stored.isascii():
        return None
    return text.casefold().replace(NUL, NUL_STAND_IN)


def json_text(value: Any, what: str) -> str:
    """`value` as JSON text for a `json` column; InvalidMessageError when it is not JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        text.encode()
    except (TypeError, ValueError) as exc:
        raise InvalidMessageError(f"cannot store this {what}: {exc}") from None
    return text


def utc(moment: datetime, what: str) -> datetime:
    """`moment` in UTC, as the file store writes it (a naive time is local time)."""
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidMessageError(f"cannot store this {what}'s time {moment}: {exc}") from None


def count(value: int, what: str) -> int:
    """A token count that fits the column."""
    if value > BIGINT_MAX:
        raise InvalidMessageError(f"cannot store this {what}: token_count {value} is too large")
    return value


def message_params(message: Message) -> dict[str, Any]:
    """A stamped message as the values of its row (session and position aside)."""
    assert message.uuid is not None and message.created_at is not None
    assert message.token_count is not None
    content, nuls = storable_text(message.content, "message")
    return {
        "uuid": text_value(message.uuid, "message uuid"),
        "created_at": utc(message.created_at, "message"),
        "role": message.role,
        "role_type": message.kind,
        "part": message.part,
        "content": content,
        "nuls": nuls,
        "folded": folded(content, message.content),
        "token_count": count(message.token_count, "message"),
        "metadata": json_text(message.metadata, "message's metadata"),
        "extra": json_text(message.extra, "message's extra fields") if message.extra else None,
        "entities": entities_json(message.entities),
    }


def entities_json(entities: Entities | None) -> str | None:
    """Entities as JSON text for their column; None when not extracted."""
    if entities is None:
        return None
    return json_text([entity.to_dict() for entity in entities], "entities")


def readable_entities(value: Any) -> Entities | None:
    """A column's entities; None when there are none, or none that read (they are
    derived from the text, so damaged ones are found again, never a reason to fail)."""
    try:
        return entities_of(value)
    except InvalidMessageError:
        return None


def message_from_row(row: tuple[Any, ...]) -> Message:
    """The Message of a row read with MESSAGE_COLUMNS."""
    uuid, created_at, role, role_type, content, nuls, token_count, metadata, extra, entities = row
    return Message(
        role=role,
        content=restored_text(content, nuls),
        metadata=metadata,
        uuid=uuid,
        created_at=created_at.replace(tzinfo=UTC),
        token_count=token_count,
        role_type=role_type,
        extra=extra or {},
        entities=readable_entities(entities),
    )


def summary_params(summary: Summary) -> dict[str, Any]:
    """A stamped summary as the values of its row."""
    assert summary.uuid is not None and summary.created_at is not None
    assert summary.token_count is not None
    content, nuls = storable_text(summary.content, "summary")
    return {
        "s_uuid": text_value(summary.uuid, "summary uuid"),
        "s_created_at": utc(summary.created_at, "summary"),
        "s_content": content,
        "s_nuls": nuls,
        "s_token_count": count(summary.token_count, "summary"),
        "s_metadata": json_text(summary.metadata, "summary's metadata"),
        "s_entities": entities_json(summary.entities),
    }


def summary_from_row(row: tuple[Any, ...]) -> Summary:
    """The Summary of a row read with SUMMARY_COLUMNS."""
    uuid, created_at, content, nuls, token_count, metadata, entities = row
    return Summary(
        content=restored_text(content, nuls),
        uuid=uuid,
        created_at=created_at.replace(tzinfo=UTC),
        token_count=token_count,
        metadata=metadata,
        entities=readable_entities(entities),
    )


def text_value(value: str, what: str) -> str:
    """A short text column's value (a uuid, a user id), which cannot hold NUL."""
    if NUL in value:
        raise InvalidMessageError(f"cannot store this {what}: it holds a NUL character")
    storable_text(value, what)
    return value
