"""Per-session statistics: from the running totals when they can be trusted, else counted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from zerda.messages import ANSWER, ASK, Message, format_time, parse_time
from zerda.store.files.records import MESSAGE, loads, message_from
from zerda.store.tally import Tally, sealed

# The shortest line a message record can be (content aside): every field it must have,
# each as short as it can be. A file holds at least this much per message.
MIN_MESSAGE_LINE = len(
    b'{"type":"message","uuid":null,"created_at":"20250105","role":"x","content":""}\n'
)


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
    """A tally's time in the form `format_time` writes, or None (unknown) when it has no
    such form: a message time at the ends of the calendar, which has no UTC form, must
    not make stats fail."""
    if not isinstance(stamp, str):
        return None
    try:
        return format_time(parse_time(stamp))
    except (ValueError, OverflowError):  # OverflowError: a time at the ends of the calendar
        return None


def tally_of(messages: Iterable[Message]) -> Tally:
    """The running totals of `messages` (oldest first); those without a count are pending."""
    tally = Tally()
    for m in messages:
        stamp = _stamp(m.created_at) if m.created_at is not None else None
        tally.add(m.kind, m.part, len(m.content), m.token_count, stamp)
    return tally


def _stamp(moment: datetime) -> str:
    try:
        return format_time(moment)
    except OverflowError:  # no UTC form: kept as it is, and shown as unknown
        return moment.isoformat()


def collect_stats(session_id: str, messages: Iterable[Message]) -> SessionStats:
    """Fold messages (oldest first) into a SessionStats."""
    return stats_from_tally(session_id, tally_of(messages))


def trusted_tally(line: bytes, at: int) -> Tally | None:
    """The running totals on a file's last line (without its newline, starting at byte
    `at`), or None when they cannot be trusted, so the caller counts instead.

    What one line can vouch for is checked: the line is exactly as a writer wrote it
    (its seal matches), it starts where its tally says (no line before it was added,
    removed, cut or changed length), the totals hold together (`Tally.plausible`), the
    file is big enough for that many messages and characters, and the record's own
    message agrees with them (time, turn, count). Not checked, since it would take
    reading the file: a change to an earlier line that keeps its length.
    """
    if not sealed(line):
        return None
    try:
        record = loads(line)
        message = message_from(record) if record["type"] == MESSAGE else None
    except ValueError:
        return None
    tally = Tally.from_record(record)
    if tally is None or tally.at != at or not tally.plausible():
        return None
    if at + len(line) + 1 < tally.messages * MIN_MESSAGE_LINE + tally.chars:
        return None
    return tally if message is None or _agrees(tally, message) else None


def _agrees(tally: Tally, message: Message) -> bool:
    """True when `message`, the last one counted, fits `tally`."""
    if tally.last is None or message.created_at is None:
        return False
    if _stamp(parse_time(tally.last)) != _stamp(message.created_at):
        return False
    if message.token_count is None and not tally.pending:
        return False
    if (message.token_count or 0) > tally.tokens:
        return False
    if message.kind == "system" and tally.system == 0:
        return False
    if message.part in (ASK, ANSWER):
        closes = tally.after_user == (message.part == ASK)
        return closes and tally.turns > 0 and len(message.content) <= tally.chars
    return True
