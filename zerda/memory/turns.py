"""Pairing stored messages into (input, output) turns."""

from __future__ import annotations

from collections.abc import Iterable

from zerda.memory.base import MISSING, Turn
from zerda.messages import Message


def _timestamp(message: Message) -> float:
    return message.created_at.timestamp() if message.created_at else 0.0


def _value(message: Message | None) -> str | None:
    """The turn's side: None when absent, or when it was saved as None (marked MISSING)."""
    if message is None or message.metadata.get(MISSING):
        return None
    return message.content


def turns_from_messages(messages: Iterable[Message]) -> list[Turn]:
    """Pair each user message with the assistant message after it, oldest first.

    A user message with no reply becomes a turn whose output is None, an assistant
    message with no question one whose input is None; system and tool messages are
    not turns and are left out.
    """
    turns: list[Turn] = []
    pending: Message | None = None
    for message in messages:
        if message.role == "user":
            if pending is not None:
                turns.append(
                    {"input": _value(pending), "output": None, "timestamp": _timestamp(pending)}
                )
            pending = message
        elif message.role == "assistant":
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
        if message.role not in ("user", "assistant"):
            continue
        collected.append(message)
        if message.role == "user":
            users += 1
        if users >= count:
            break
    turns = turns_from_messages(reversed(collected))
    return turns[-count:]
