"""Running totals of a session, carried (sealed) on the last record of every write.

With them `session_stats` reads one line instead of the whole file. A file whose
last record has no tally (written before tallies) is scanned; so is one whose tally
cannot be trusted (see `zerda.store._stats.trusted_tally`).
"""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, fields
from typing import Any

from zerda.messages import ANSWER, ASK, parse_time, role_type_of, turn_part

TALLY = "tally"
# Ends every tally as zerda writes it: `,"seal":<CRC-32 of the line before it>}}`.
SEAL = b',"seal":'
_SEAL_DIGITS = 10  # a CRC-32 has at most ten decimal digits


@dataclass
class Tally:
    """Counts over the messages so far; `pending` are those stored without a token count.

    `system` counts system messages (None when unknown: a tally written before it
    was kept), so readers know whether to look for them and when to stop. `ordered`
    is True while every message's time is at or after the one before it (so the file
    read from its end is newest first), False once one is not (an import, an explicit
    time), None when unknown (a tally written before it was kept). `at` is
    the byte offset where the line carrying the tally starts (None until a writer
    places it), so a reader can tell whether lines before it changed length.
    """

    messages: int = 0
    turns: int = 0
    chars: int = 0
    tokens: int = 0
    pending: int = 0
    first: str | None = None
    last: str | None = None
    after_user: bool = False
    system: int | None = 0
    at: int | None = None
    ordered: bool | None = True

    def add(
        self, role_type: str, part: str | None, chars: int, tokens: int | None, stamp: str | None
    ) -> None:
        """Count one message (oldest first): its role type, its `turn_part`, its length,
        tokens and ISO-8601 time with a Z."""
        self.messages += 1
        if role_type == "system" and self.system is not None:
            self.system += 1
        if tokens is None:
            self.pending += 1
        else:
            self.tokens += tokens
        if part == ASK:
            self.turns += 1
            self.after_user = True
            self.chars += chars
        elif part == ANSWER:
            self.turns += 0 if self.after_user else 1
            self.after_user = False
            self.chars += chars
        if stamp is not None:
            if self.ordered and self.last is not None and _earlier(stamp, self.last):
                self.ordered = False
            self.first = self.first or stamp
            self.last = stamp

    def add_counts(self, counts: dict[str, int]) -> None:
        """Take in a `tokens` record: counts of messages that were pending."""
        self.tokens += sum(counts.values())
        self.pending -= len(counts)

    def add_record(self, record: dict[str, Any]) -> None:
        """Take in any record about to be written."""
        if record["type"] == "message":
            kind = record.get("role_type") or role_type_of(record["role"])
            part = turn_part(kind, record.get("extra"))
            tokens, stamp = record["token_count"], record["created_at"]
            self.add(kind, part, len(record["content"]), tokens, stamp)
        elif record["type"] == "tokens":
            self.add_counts(record["counts"])

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored in the file (without its seal, which `seal` adds)."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Tally | None:
        """The tally carried by `record`, or None when it has none (or a malformed one)."""
        data = record.get(TALLY)
        if not isinstance(data, dict):
            return None
        known = {f.name for f in fields(cls)}
        try:
            unknown = {"system": None, "ordered": None}
            tally = cls(**{**unknown, **{k: v for k, v in data.items() if k in known}})
        except TypeError:
            return None
        if tally.system is not None and (type(tally.system) is not int or tally.system < 0):
            tally.system = None
        if type(tally.ordered) is not bool:
            tally.ordered = None
        numbers = (tally.messages, tally.turns, tally.chars, tally.tokens, tally.pending)
        if not all(type(n) is int and n >= 0 for n in numbers):
            return None
        return tally

    def plausible(self) -> bool:
        """True when the totals hold together: right types, and no count beyond what
        the others allow (turns and system messages are among the messages, and so on).

        Message times are in file order, which need not be time order (an imported
        message keeps its time), so `first` may be later than `last`.
        """
        if type(self.after_user) is not bool or type(self.at) is not int or self.at < 0:
            return False
        if self.messages == 0:
            empty = (self.turns, self.chars, self.tokens, self.pending, self.system or 0)
            return not any(empty) and self.first is None and self.last is None
        bounded = self.turns + (self.system or 0) <= self.messages
        return bounded and self.pending <= self.messages and _times(self.first, self.last)


def _earlier(stamp: str, than: str) -> bool:
    """True when time `stamp` is before `than`, or either cannot be compared (ISO-8601;
    as zerda writes them, they compare as text)."""
    if len(stamp) == len(than) and stamp.endswith("Z") and than.endswith("Z"):
        return stamp < than
    try:
        return parse_time(stamp) < parse_time(than)
    except (ValueError, TypeError):
        return True


def _times(*stamps: object) -> bool:
    """True when every stamp is an ISO-8601 time."""
    try:
        return all(isinstance(s, str) and parse_time(s) for s in stamps)
    except ValueError:
        return False


def seal(line: bytes) -> bytes:
    """`line` (a record whose last field is its tally, newline included) with the tally
    sealed: `"seal"`, a CRC-32 of the line before it, added as the tally's last field."""
    body = line[: -len(b"}}\n")]
    return body + SEAL + b"%d}}\n" % zlib.crc32(body)


def sealed(line: bytes) -> bool:
    """True when `line` (without its newline) ends in a seal that matches it: the line
    is as a writer wrote it. A CRC finds accidents and hand edits, not forgeries."""
    at = line.rfind(SEAL)
    digits = line[at + len(SEAL) : -2]
    if at < 0 or not line.endswith(b"}}") or not digits.isdigit():
        return False
    return len(digits) <= _SEAL_DIGITS and zlib.crc32(line[:at]) == int(digits)
