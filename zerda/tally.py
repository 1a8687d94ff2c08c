"""Running totals of a session, carried on the last record of every write.

With them `session_stats` reads one line instead of the whole file. A file whose
last record has no tally (written before tallies, or hand-edited) is scanned.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from zerda.messages import ANSWER, ASK, role_type_of, turn_part

TALLY = "tally"


@dataclass
class Tally:
    """Counts over the messages so far; `pending` are those stored without a token count.

    `system` counts system messages (None when unknown: a tally written before it
    was kept), so readers know whether to look for them and when to stop.
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
        """The JSON form stored in the file."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Tally | None:
        """The tally carried by `record`, or None when it has none (or a malformed one)."""
        data = record.get(TALLY)
        if not isinstance(data, dict):
            return None
        try:
            tally = cls(**{"system": None, **data})
        except TypeError:
            return None
        if tally.system is not None and (type(tally.system) is not int or tally.system < 0):
            tally.system = None
        numbers = (tally.messages, tally.turns, tally.chars, tally.tokens, tally.pending)
        if not all(type(n) is int and n >= 0 for n in numbers):
            return None
        return tally
