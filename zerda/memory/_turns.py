"""Turns: the `Turn` type and everything done with one, in one module.

A turn is one (input, output) exchange. A memory holds its turns as `Turn` dicts,
oldest first; a bound memory stores each turn as a user and an assistant message
(`stored_side`) and gets turns back by pairing stored messages (`iter_turns`,
`last_turns`). This module depends on the message types and the OpenAI format only,
never on a memory class: `zerda.memory._base` imports from here, not the other way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any, NotRequired, TypedDict

from zerda.formats.openai import to_openai
from zerda.messages import ANSWER, ASK, INSIDE, Message


class Turn(TypedDict):
    """One exchange as a memory holds it.

    `input` and `output` are the values saved (None for a side that was missing),
    `timestamp` when it was saved (seconds since the epoch; a restored turn's is its
    first message's). `messages`, only on a turn read back from a store, holds the
    OpenAI chat messages the turn sends a model when its input and output alone would
    not reproduce them (a tool-call exchange, a named speaker, content parts).
    """

    input: Any
    output: Any
    timestamp: float
    messages: NotRequired[list[dict[str, Any]]]


MISSING = "zerda.missing"  # metadata flag: this side of the turn was saved as None
VALUE = "zerda.value"  # metadata: the side's value when it was not a string (any JSON value)

# Roles a turn's plain user/assistant pair sends as they are (Zep's aliases included).
_PLAIN_ROLES = frozenset({"user", "assistant", "human", "ai"})


# -- one turn ----------------------------------------------------------------------


def turn_text(value: Any) -> str:
    """The stored text of one side of a turn: None becomes the empty string."""
    return "" if value is None else str(value)


def turn_lines(turn: Turn) -> str:
    """A turn in the text form, as the seed gives it: `user: {input}\nassistant: {output}`.

    A side saved as None reads `None`, as the formatting of the stored value gives it."""
    return f"user: {turn['input']}\nassistant: {turn['output']}"


def plain_messages(turn: Turn) -> list[dict[str, Any]]:
    """A turn as a model gets it from its input and output: a user and an assistant message.

    A side that is None (a question without a reply) is left out.
    """
    messages: list[dict[str, Any]] = []
    if turn["input"] is not None:
        messages.append({"role": "user", "content": turn_text(turn["input"])})
    if turn["output"] is not None:
        messages.append({"role": "assistant", "content": turn_text(turn["output"])})
    return messages


def turn_messages(turn: Turn) -> list[dict[str, Any]]:
    """The OpenAI chat messages a turn sends a model: the `messages` it carries, else
    its plain user and assistant messages (`plain_messages`)."""
    return turn["messages"] if "messages" in turn else plain_messages(turn)


def turn_mark(turn: Turn) -> str:
    """A short fingerprint of what a turn says (its input, output and the messages it
    carries): a summary names the newest turn it covers by it, so a turn undone and
    replaced by another at the same place is told apart."""
    said = [_as_stored(turn.get("input")), _as_stored(turn.get("output")), turn.get("messages")]
    text = json.dumps(said, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# -- a side as stored, and back ----------------------------------------------------------


def stored_side(role: str, value: Any) -> Message:
    """One side of a turn as a message; a value that is not text is kept beside its text.

    None is stored as an empty message marked MISSING, so a restored turn holds None
    there too; a JSON value other than text is kept in the metadata under VALUE."""
    if value is None:
        return Message(role, "", {MISSING: True})
    if isinstance(value, str):
        return Message(role, value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return Message(role, turn_text(value))  # not JSON: only its text can be kept
    return Message(role, turn_text(value), {VALUE: value})


def _value(message: Message | None) -> Any:
    """The turn's side as it was saved: None when absent or saved as None (marked
    MISSING), the original value when it was not text, else the text."""
    if message is None or message.metadata.get(MISSING):
        return None
    if VALUE in message.metadata:
        return message.metadata[VALUE]
    return message.content


def _as_stored(value: Any) -> Any:
    """One side as it comes back from a store (see `stored_side`): text and None as
    they are, a JSON value through JSON (tuples become lists, keys text), else its text."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return turn_text(value)


# -- turns from stored messages ----------------------------------------------------------


def _timestamp(message: Message) -> float:
    return message.created_at.timestamp() if message.created_at else 0.0


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
