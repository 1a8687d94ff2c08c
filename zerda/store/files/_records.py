"""The session file format: JSON records, one a line, and how they decode."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.messages import (
    Entities,
    Message,
    Session,
    Summary,
    entities_of,
    format_time,
    parse_time,
    role_type_in,
    utc_now,
)
from zerda.store._tally import TALLY, Tally, seal

# Version 2: roles as given with a `role_type`, `extra` on messages, summaries with a
# uuid and token count. Version 1 files still read (their roles were all role types).
# Messages and summaries may carry `entities`, which readers that predate them ignore.
FORMAT_VERSION = 2
HEADER = "session"
MESSAGE = "message"
UPDATE = "session_update"
SUMMARY = "summary"
TOKENS = "tokens"
KINDS = frozenset({HEADER, MESSAGE, UPDATE, SUMMARY, TOKENS})
# On the last record of every write: the byte offset of the latest summary record,
# or null when the file has none, so finding the summary never scans the whole file.
SUMMARY_AT = "summary_at"
# Likewise for the latest session_update (which holds the session's full facts).
SESSION_AT = "session_at"
POINTERS = {SUMMARY: SUMMARY_AT, UPDATE: SESSION_AT}
Pointers = dict[str, int | None]


def dumps(record: dict[str, Any]) -> bytes:
    """One record as a UTF-8 line. Non-ASCII stays raw; control characters are escaped."""
    return (
        json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        + b"\n"
    )


def check_storable(records: list[dict[str, Any]]) -> None:
    """Raise InvalidMessageError for a record that cannot be written as UTF-8 JSON
    (text with lone surrogates, metadata that is not JSON), before any file is touched."""
    for record in records:
        try:
            dumps(record)
        except (TypeError, ValueError) as exc:
            kind = record.get("type", "record")
            raise InvalidMessageError(f"cannot store this {kind}: {exc}") from None


def loads(line: bytes) -> dict[str, Any]:
    """Decode one line; raise ValueError with a short reason when it is not a record."""
    try:
        record = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc.__class__.__name__})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if not isinstance(record, dict) or record.get("type") not in KINDS:
        raise ValueError("not a zerda record")
    _check_shape(record)
    if (b"\\ud" in line or b"\\uD" in line) and _holds_surrogate(record):
        raise ValueError("holds a lone surrogate (\\ud800-\\udfff), which zerda never stores")
    return record


def _holds_surrogate(record: dict[str, Any]) -> bool:
    """True when a string of `record` holds a lone surrogate: text that cannot be written
    as UTF-8, so no export nor rewrite could carry it. Asked only of a line holding an
    escape that may be one (a pair decodes to one character, and passes)."""
    try:
        dumps(record)
    except ValueError:
        return True
    return False


_FIELDS: dict[str, tuple[tuple[str, type | tuple[type, ...]], ...]] = {
    HEADER: (("id", str), ("user_id", (str, type(None))), ("metadata", (dict, type(None)))),
    UPDATE: (("user_id", (str, type(None))), ("metadata", (dict, type(None)))),
    SUMMARY: (("content", str),),
    TOKENS: (("counts", dict),),
}


# Kinds whose every field above must be present: without them the record says nothing.
_REQUIRED = frozenset({SUMMARY, TOKENS})


def _check_shape(record: dict[str, Any]) -> None:
    """Refuse records whose fields have the wrong types (messages are checked by Message)."""
    for name, kind in _FIELDS.get(record["type"], ()):
        required = record["type"] in _REQUIRED
        if (name in record or required) and not isinstance(record.get(name), kind):
            raise ValueError(f"bad {record['type']} record: field {name!r}")
    if record["type"] == HEADER:
        _check_header(record)
    for field in POINTERS.values():
        at = record.get(field)
        if at is not None and (type(at) is not int or at < 0):
            raise ValueError(f"bad {record['type']} record: field {field!r}")


def _check_header(record: dict[str, Any]) -> None:
    if not isinstance(record.get("id"), str):
        raise ValueError("bad session record: field 'id'")
    version = record.get("version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise ValueError(f"unsupported session file version {version!r}")
    created = record.get("created_at")
    try:
        if created is not None:
            parse_time(created)
    except (TypeError, ValueError, AttributeError):
        raise ValueError("bad session record: field 'created_at'") from None


def render(
    records: list[dict[str, Any]],
    offset: int,
    pointers: Pointers,
    tally: Tally | None,
) -> bytes:
    """Encode one write's records, starting at byte `offset` of the file.

    `pointers` holds, for each kind in POINTERS, where the file's latest record of
    that kind starts (None when it has none; a missing key when unknown: a file
    written before that pointer existed). `tally` is the file's running totals so
    far, None when unknown. The last record carries both, updated for `records`; the
    tally also says where that record starts, and is sealed.
    """
    return b"".join(render_stream(records, offset, pointers, tally))


def render_stream(
    records: Iterable[dict[str, Any]],
    offset: int,
    pointers: Pointers,
    tally: Tally | None,
) -> Iterator[bytes]:
    """`render`, a line at a time as `records` come: each line is made once the next
    record is known, so the last one (found looking one ahead) carries the pointers
    and the tally. Memory holds two records, whatever the write's size."""
    pointers = dict(pointers)
    held: dict[str, Any] | None = None
    for record in records:
        if held is not None:
            line = dumps(held)
            offset += len(line)
            yield line
        if record["type"] in POINTERS:
            pointers[POINTERS[record["type"]]] = offset
        if tally is not None:
            tally.add_record(record)
        held = record
    if held is not None:
        yield _last_line(held, offset, pointers, tally)


def _last_line(
    record: dict[str, Any], offset: int, pointers: Pointers, tally: Tally | None
) -> bytes:
    """The last record of a write, starting at `offset`, with the pointers and tally."""
    extra: dict[str, Any] = {
        field: at for field, at in pointers.items() if POINTERS.get(record["type"]) != field
    }
    if tally is None:
        return dumps({**record, **extra})
    tally.at = offset
    extra[TALLY] = tally.to_dict()
    return seal(dumps({**record, **extra}))  # the tally is the line's last field


def pointers_of(last: dict[str, Any], last_offset: int) -> Pointers:
    """The pointers carried by a file whose last record is `last`, at `last_offset`."""
    found: Pointers = {}
    for kind, field in POINTERS.items():
        if last["type"] == kind:
            found[field] = last_offset
        elif field in last:
            found[field] = last[field]
    return found


def summary_record(summary: Summary) -> dict[str, Any]:
    """A running summary of the session (the latest one wins), already stamped."""
    return {"type": SUMMARY, **summary.to_dict()}


def summary_from(record: dict[str, Any]) -> Summary | None:
    """The Summary of a summary record (version 1 ones hold only content and time)."""
    try:
        found = Summary.coerce({k: v for k, v in record.items() if k in _SUMMARY_FIELDS})
    except InvalidMessageError:
        return Summary(str(record["content"]))
    if found is not None and found.entities is None and "entities" in record:
        return replace(found, entities=readable_entities(record))
    return found


_SUMMARY_FIELDS = frozenset({"uuid", "created_at", "content", "token_count", "metadata"})


def readable_entities(record: dict[str, Any]) -> Entities | None:
    """A record's entities; None when it has none, or none that read: they are derived
    from the text, so damaged ones are found again, never a reason to lose the text."""
    try:
        return entities_of(record.get("entities"))
    except InvalidMessageError:
        return None


def header_record(session: Session, encoding: str) -> dict[str, Any]:
    """The first record of every file."""
    return {
        "type": HEADER,
        "version": FORMAT_VERSION,
        "id": session.id,
        "created_at": format_time(session.created_at or utc_now()),
        "user_id": session.user_id,
        "metadata": session.metadata,
        "encoding": encoding,
    }


def message_record(message: Message) -> dict[str, Any]:
    """A stored message (already stamped)."""
    return {"type": MESSAGE, **message.to_dict()}


def message_from(record: dict[str, Any]) -> Message:
    """The Message of a message record; ValueError if malformed."""
    try:
        return Message(
            role=record["role"],
            content=record["content"],
            metadata=record.get("metadata") or {},
            uuid=record["uuid"],
            created_at=parse_time(record["created_at"]),
            token_count=record.get("token_count"),
            role_type=role_type_in(record),
            extra=record.get("extra") or {},
            entities=readable_entities(record) if "entities" in record else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError, InvalidMessageError) as exc:
        raise ValueError(f"bad message record ({exc})") from None


def session_from(header: dict[str, Any], updates: list[dict[str, Any]]) -> Session:
    """The Session described by a header and later updates (last wins)."""
    user_id = header.get("user_id")
    metadata = header.get("metadata") or {}
    for update in updates:
        if "user_id" in update:
            user_id = update["user_id"]
        if "metadata" in update:
            metadata = update["metadata"] or {}
    created = header.get("created_at")
    return Session(
        id=header["id"],
        user_id=user_id,
        metadata=metadata,
        created_at=parse_time(created) if created else None,
    )
