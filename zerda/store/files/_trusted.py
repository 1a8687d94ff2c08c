"""Whether a session file's running totals can be trusted: what its last line vouches for."""

from __future__ import annotations

from zerda.messages import ANSWER, ASK, Message, parse_time
from zerda.store._stats import tally_time
from zerda.store._tally import Tally, sealed
from zerda.store.files._records import MESSAGE, loads, message_from

# The shortest line a message record can be (content aside): every field it must have,
# each as short as it can be. A file holds at least this much per message.
MIN_MESSAGE_LINE = len(
    b'{"type":"message","uuid":null,"created_at":"20250105","role":"x","content":""}\n'
)


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
    if tally_time(parse_time(tally.last)) != tally_time(message.created_at):
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
