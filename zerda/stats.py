"""Per-session statistics, gathered in one pass over the messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from zerda.messages import ROLE_TYPES, Message, format_time, parse_time, role_type_of, turn_part
from zerda.records import MESSAGE, TOKENS, loads
from zerda.tally import Tally


@dataclass(frozen=True)
class SessionStats:
    """What `zerda stats` and `zerda sessions` show about one session.

    `message_count`, `total_characters` and `estimated_tokens` follow the memory
    classes' definitions over turns; `messages` counts every stored message.
    """

    session_id: str
    messages: int = 0
    turn_count: int = 0
    total_characters: int = 0
    token_count: int = 0
    first_activity: str | None = None
    last_activity: str | None = None
    file_size: int = 0
    encoding: str = ""

    @property
    def message_count(self) -> int:
        """Turns held, as `get_memory_stats()['message_count']` counts them."""
        return self.turn_count

    @property
    def estimated_tokens(self) -> int:
        """total_characters // 4, as the memory classes estimate."""
        return self.total_characters // 4

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, including the derived fields."""
        data = asdict(self)
        data["message_count"] = self.message_count
        data["estimated_tokens"] = self.estimated_tokens
        return data


def stats_from_tally(session_id: str, tally: Tally) -> SessionStats:
    """The SessionStats of a session whose running totals are `tally`."""
    return SessionStats(
        session_id=session_id,
        messages=tally.messages,
        turn_count=tally.turns,
        total_characters=tally.chars,
        token_count=tally.tokens,
        first_activity=_known_time(tally.first),
        last_activity=_known_time(tally.last),
    )


def _known_time(stamp: object) -> str | None:
    """A tally's time in the form `format_time` writes, or None (unknown) when it is not an
    ISO-8601 time: a hand-edited file must not make stats fail, sort wrongly or carry
    arbitrary text (escape sequences) to whoever shows the stats."""
    if not isinstance(stamp, str):
        return None
    try:
        return format_time(parse_time(stamp))
    except (ValueError, OverflowError):  # OverflowError: a time at the ends of the calendar
        return None


def collect_stats(session_id: str, messages: Iterable[Message]) -> SessionStats:
    """Fold messages (oldest first) into a SessionStats."""
    tally = Tally()
    for m in messages:
        stamp = format_time(m.created_at) if m.created_at is not None else None
        tally.add(m.kind, m.part, len(m.content), m.token_count or 0, stamp)
    return stats_from_tally(session_id, tally)


# A message line as zerda writes it, up to the start of the content string.
_MESSAGE_HEAD = re.compile(
    rb'\{"type":"message","uuid":"([0-9a-f-]+)","created_at":"([0-9T:.Z+-]+)",'
    rb'"role":"([^"\\]+)"(?:,"role_type":"([a-z]+)")?,"content":"'
)
# What follows the content string; `","token_count":` cannot occur inside it (quotes
# there are escaped), so its first occurrence ends the content.
_CONTENT_END = b'","token_count":'
_MESSAGE_TAIL = re.compile(rb'(null|[0-9]+),"metadata":\{.*\}\s*', re.DOTALL)
_ROLE_TYPES = {r.encode(): r for r in ROLE_TYPES}


def scan_stats(session_id: str, chunks: Iterable[tuple[int, bytes]]) -> SessionStats | None:
    """collect_stats over raw lines, without building records or Messages.

    Reads message lines in the form zerda writes and decodes only other records;
    returns None at anything else (or counts it cannot resolve), so the caller
    falls back to decoding every record, which also reports damage properly.
    """
    tally = Tally()
    uncounted: list[str] = []
    counts: dict[str, Any] = {}
    try:
        for _, chunk in chunks:
            for line in chunk.split(b"\n")[:-1]:
                if not _scan_line(line, tally, uncounted, counts):
                    return None
        tally.tokens += sum(counts[uuid] for uuid in uncounted)
        if tally.first is not None and tally.last is not None:
            tally.first = format_time(parse_time(tally.first))
            tally.last = format_time(parse_time(tally.last))
    except (ValueError, KeyError, TypeError):
        return None
    return stats_from_tally(session_id, tally)


def _scan_line(line: bytes, tally: Tally, uncounted: list[str], counts: dict[str, Any]) -> bool:
    """Add one raw line to `tally`; False when it must be decoded the slow way."""
    head = _MESSAGE_HEAD.match(line)
    if head is None:
        return not line.strip() or _other_record(line, counts)
    start = head.end()
    end = line.find(_CONTENT_END, start)
    tail = _MESSAGE_TAIL.fullmatch(line, end + len(_CONTENT_END)) if end > 0 else None
    role = _ROLE_TYPES.get(head[4]) if head[4] else _role_type_of(head[3])
    if tail is None or role is None:
        return False
    if b'"extra":' in line[end:]:
        return False  # a tool call may change how it counts: decoded the slow way
    count = tail[1]
    if count == b"null":
        uncounted.append(head[1].decode())
    tokens = 0 if count == b"null" else int(count)
    tally.add(role, turn_part(role, None), _json_length(line[start:end]), tokens, head[2].decode())
    return True


def _role_type_of(raw: bytes) -> str | None:
    """The role type of a version-1 line's role (None when it is not plain text)."""
    try:
        return role_type_of(raw.decode())
    except UnicodeDecodeError:
        return None


def _other_record(line: bytes, counts: dict[str, Any]) -> bool:
    """Decode a non-message line; keep token counts. False when it is not a record."""
    record = loads(line)
    if record["type"] == MESSAGE:
        return False
    if record["type"] == TOKENS:
        counts.update(record.get("counts") or {})
    return True


def _json_length(raw: bytes) -> int:
    """The length of the string whose JSON-escaped UTF-8 form (without quotes) is `raw`."""
    if b"\\" not in raw:
        return len(raw.decode())
    if b"\\u" in raw:
        return len(json.loads(b'"' + raw + b'"'))
    # Each escape shortens the text by one: `\\\\` uses two backslashes, the rest one.
    return len(raw.decode()) - raw.count(b"\\") + raw.count(b"\\\\")
