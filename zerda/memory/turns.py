"""Pairing stored messages into (input, output) turns."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from zerda.formats.openai import to_openai
from zerda.memory.base import MISSING, VALUE, Turn, plain_messages, turn_text
from zerda.messages import ANSWER, ASK, INSIDE, Message

# Roles a turn's plain user/assistant pair sends as they are (Zep's aliases included).
_PLAIN_ROLES = frozenset({"user", "assistant", "human", "ai"})


def _timestamp(message: Message) -> float:
    return message.created_at.timestamp() if message.created_at else 0.0


def _value(message: Message | None) -> Any:
    """The turn's side as it was saved: None when absent or saved as None (marked
    MISSING), the original value when it was not text, else the text."""
    if message is None or message.metadata.get(MISSING):
        return None
    if VALUE in message.metadata:
        return message.metadata[VALUE]
    return message.content


def turns_from_messages(messages: Iterable[Message]) -> list[Turn]:
    """Every turn of `messages`, oldest first (see `iter_turns`)."""
    return list(iter_turns(messages))


def iter_turns(messages: Iterable[Message]) -> Iterator[Turn]:
    """Group messages into (input, output) turns, oldest first, as they stream by.

    Grouping goes by `Message.part`: a user (or a speaker of no known type, sent to a
    model as a user) asks and opens a turn; an assistant's reply closes it; a tool-call
    exchange between the two stays inside it. A question with no reply becomes a turn
    whose output is None, a reply with no question one whose input is None; system
    messages are not turns and are left out.

    A turn whose messages a model would not get back from its input and output alone
    (a tool-call exchange, a named speaker, content parts) also carries `messages`:
    them, as OpenAI chat messages, which `context_messages()` sends instead.
    """
    current: list[Message] = []
    closed = False  # `current` holds a turn already answered
    for message in messages:
        part = message.part
        if part is None:
            continue
        if part == INSIDE and closed:  # a tool message after the reply stays in that turn
            current.append(message)
            continue
        if current and (closed or part == ASK):
            yield _turn(current)
            current = []
        current.append(message)
        closed = part == ANSWER
    if current:
        yield _turn(current)


def _turn(messages: list[Message]) -> Turn:
    """One turn from its messages: the question (if any) first, then the last reply (if any)."""
    first = messages[0]
    asked = first if first.part == ASK else None
    answered = next((m for m in reversed(messages) if m.part == ANSWER), None)
    turn: Turn = {
        "input": _value(asked),
        "output": _value(answered),
        "timestamp": _timestamp(first),
    }
    if any(m.extra or m.role not in _PLAIN_ROLES for m in messages):
        sent = [to_openai(m) for m in messages if not m.metadata.get(MISSING)]
        if sent != plain_messages(turn):
            turn["messages"] = sent
    return turn


def last_turns(reversed_messages: Iterable[Message], count: int) -> list[Turn]:
    """The last `count` turns, reading messages newest first and stopping early."""
    if count <= 0:
        return []
    collected: list[Message] = []
    asked = 0
    for message in reversed_messages:
        if message.part is None:
            continue
        collected.append(message)
        asked += message.part == ASK
        if asked >= count:
            break
    turns = turns_from_messages(reversed(collected))
    return turns[-count:]


def _as_stored(value: Any) -> Any:
    """One side as it comes back from a store (see `_stored_side`): text and None as
    they are, a JSON value through JSON (tuples become lists, keys text), else its text."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return turn_text(value)


def turn_mark(turn: Turn) -> str:
    """A short fingerprint of what a turn says (its input, output and the messages it
    carries): a summary names the newest turn it covers by it, so a turn undone and
    replaced by another at the same place is told apart."""
    said = [_as_stored(turn.get("input")), _as_stored(turn.get("output")), turn.get("messages")]
    text = json.dumps(said, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
