"""Pairing stored messages into (input, output) turns."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zerda.memory.base import MISSING, VALUE, Turn
from zerda.messages import Message
from zerda.tally import ANSWERING, ASKING


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
    """Pair each user message with the assistant message after it, oldest first.

    Pairing goes by role type: a user (or a speaker of no known type, sent to a model
    as a user) asks, an assistant answers. A question with no reply becomes a turn
    whose output is None, a reply with no question one whose input is None; system,
    tool and function messages are not turns and are left out.
    """
    turns: list[Turn] = []
    pending: Message | None = None
    for message in messages:
        if message.kind in ASKING:
            if pending is not None:
                turns.append(
                    {"input": _value(pending), "output": None, "timestamp": _timestamp(pending)}
                )
            pending = message
        elif message.kind in ANSWERING:
            source = pending or message
            turns.append(
                {
                    "input": _value(pending),
                    "output": _value(message),
                    "timestamp": _timestamp(source),
                }
            )
            pending = None
    if pending is not None:
        turns.append({"input": _value(pending), "output": None, "timestamp": _timestamp(pending)})
    return turns


def last_turns(reversed_messages: Iterable[Message], count: int) -> list[Turn]:
    """The last `count` turns, reading messages newest first and stopping early."""
    if count <= 0:
        return []
    collected: list[Message] = []
    users = 0
    for message in reversed_messages:
        if message.kind not in ASKING | ANSWERING:
            continue
        collected.append(message)
        if message.kind in ASKING:
            users += 1
        if users >= count:
            break
    turns = turns_from_messages(reversed(collected))
    return turns[-count:]
