"""`zerda chat` without a terminal: one message per stdin line, each recorded turn to stdout."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from zerda.limits import MAX_MESSAGE_BYTES, too_large
from zerda.messages import Message
from zerda_cli.chat.backends import BackendError
from zerda_cli.chat.repl import Answer, Chat, StoredTurn
from zerda_cli.chat.streaming import ReplyTooLarge, within_limit
from zerda_cli.options.inputs import decode
from zerda_cli.render.sanitize import neutralize, to_json

Emit = Callable[[int, StoredTurn], None]


def run_piped(chat: Chat, lines: Iterable[bytes], emit: Emit) -> int:
    """One message per line, each recorded turn to `emit`; 1 if any turn failed, else 0."""
    failures = 0
    for number, raw in enumerate(lines, 1):
        if len(raw.rstrip(b"\r\n")) > MAX_MESSAGE_BYTES:
            chat.view.error(f"line {number}: {too_large('the message')}")
            failures += 1
            continue
        text = decode(raw, f"stdin line {number}").rstrip("\r\n")
        if not text.strip():
            continue
        reply = chat.backend.reply(chat.context(text))
        try:
            answer = Answer("".join(within_limit(reply)), reply.provenance)
        except BackendError as exc:
            chat.view.error(f"line {number}: {exc}; nothing recorded")
            failures += 1
            continue
        except ReplyTooLarge:
            reply.close()
            chat.view.error(f"line {number}: {too_large('the reply')}")
            failures += 1
            continue
        if not answer.text.strip():
            chat.view.error(f"line {number}: empty reply; nothing recorded")
            failures += 1
            continue
        chat.say_if_truncated(answer)
        stored = chat.record(text, answer)
        if stored is None:
            failures += 1
            continue
        emit(number, stored)
    return 1 if failures else 0


def reply_writer(out: IO[str]) -> Emit:
    """Piped output for people and simple scripts: each reply, ending in a newline."""

    def emit(number: int, turn: StoredTurn) -> None:
        reply = turn[1].content
        shown = neutralize(reply) if out.isatty() else reply
        out.write(shown if shown.endswith("\n") else shown + "\n")
        out.flush()

    return emit


def turn_writer(out: IO[str], session_id: str) -> Emit:
    """Piped output with `--jsonl`: each recorded turn as one JSON object a line."""

    def emit(number: int, turn: StoredTurn) -> None:
        user, assistant = turn
        out.write(to_json(turn_object(session_id, number, user, assistant), indent=None) + "\n")
        out.flush()

    return emit


def turn_object(session_id: str, line: int, user: Message, assistant: Message) -> dict[str, Any]:
    """The `--jsonl` shape of one recorded turn (see README, zerda chat, For scripts)."""
    return {
        "session": session_id,
        "line": line,
        "input": user.content,
        "output": assistant.content,
        "user_uuid": user.uuid,
        "assistant_uuid": assistant.uuid,
        "created_at": assistant.to_dict()["created_at"],
        "input_tokens": user.token_count,
        "output_tokens": assistant.token_count,
    }


def stdin_lines(source: IO[bytes] | None = None) -> Iterator[bytes]:
    """Stdin's lines as bytes (decoded per line, so a bad byte names its line).

    A line over the size limit is not held whole: its first MAX_MESSAGE_BYTES + 1
    bytes stand for it (enough to refuse it) and the rest is read past.
    """
    stream = source or sys.stdin.buffer
    while line := stream.readline(MAX_MESSAGE_BYTES + 1):
        if len(line) > MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
            while (rest := stream.readline(MAX_MESSAGE_BYTES)) and not rest.endswith(b"\n"):
                pass
        yield line
