"""Reading what users hand the `zerda` command: arguments, `-` for stdin, files."""

from __future__ import annotations

import os
import sys

from zerda.limits import MAX_MESSAGE_BYTES, over_limit, too_large
from zerda_cli.options.errors import InputError

SLACK = 64  # bytes read past the limit: a BOM and trailing newlines, which are dropped


def decode(data: bytes, source: str) -> str:
    """`data` as strict UTF-8 (a BOM is dropped); InputError naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise InputError(
            f"{source} is not valid UTF-8 (byte 0x{bad} at offset {exc.start}); nothing was written"
        ) from None


def argument(text: str, source: str) -> str:
    """A command-line argument as strict UTF-8: bytes the OS could not decode (kept by
    Python as surrogate escapes) become the InputError that `decode` raises."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return decode(os.fsencode(text), source)
    return text


def read_stdin() -> str:
    """All of stdin as text, with trailing newlines dropped (as `$(...)` does).

    More than one message may hold (MAX_MESSAGE_BYTES) is refused unread: at most a
    little over the limit is ever held.
    """
    data = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + SLACK)
    if len(data) == MAX_MESSAGE_BYTES + SLACK and sys.stdin.buffer.read(1):
        raise InputError(too_large("stdin"))
    text = decode(data, "stdin").rstrip("\r\n")
    if not text.strip():
        raise InputError("stdin was empty; nothing was written")
    if over_limit(text):
        raise InputError(too_large("stdin"))
    return text


def resolve_texts(texts: list[str]) -> list[str]:
    """Replace a `-` among `texts` with stdin (callers allow at most one); check the rest."""
    return [
        read_stdin() if t == "-" else argument(t, f"argument {n}")
        for n, t in enumerate(texts, start=1)
    ]
