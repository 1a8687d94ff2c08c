"""What `zerda add` checks and counts before it writes: no empty message, none over the
size limit, and the tokens of a long one counted now, with progress, so no later read
waits on them."""

from __future__ import annotations

import dataclasses

from zerda.limits import over_limit, too_large
from zerda.messages import Memory, Message
from zerda.store.base import Store
from zerda.tokens import PIECE, get_counter
from zerda_cli.basics import UsageProblem
from zerda_cli.render.progress import ProgressLine


def check_texts(values: list[str], names: list[str]) -> None:
    """A usage error for an empty text or one over the size limit; nothing is written."""
    for value, name in zip(values, names, strict=True):
        if not value.strip():
            raise UsageProblem(f"{name} is empty; nothing was written", "add")
        if over_limit(value):
            raise UsageProblem(too_large(name), "add")


def counted(messages: list[Message], encoding: str) -> list[Message]:
    """`messages`, those longer than a piece given their token count now (a progress
    line on stderr if counting takes over a second); short ones are left to the store."""
    done = []
    for message in messages:
        if len(message.content) > PIECE:
            with ProgressLine(f"counting the tokens of the {message.role} message") as progress:
                count = get_counter(encoding).count(message.content, progress)
            message = dataclasses.replace(message, token_count=count)
        done.append(message)
    return done


def record(
    store: Store, session_id: str, role: str | None, values: list[str], metadata: dict[str, object]
) -> list[Message]:
    """Write one message from `role` or (without one) a user message and its reply, in one
    write; the texts are checked first and long ones counted."""
    if role is not None:
        check_texts(values, ["CONTENT"])
        messages = [Message(role, values[0], dict(metadata))]
    else:
        check_texts(values, ["INPUT", "OUTPUT"])
        messages = [
            Message("user", values[0], dict(metadata)),
            Message("assistant", values[1], dict(metadata)),
        ]
    return store.add_memory(session_id, Memory(messages=counted(messages, store.encoding)))
