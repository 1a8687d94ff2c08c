"""The size limit of one message: what zerda's commands and chat refuse to record.

A message's text may hold at most MAX_MESSAGE_BYTES bytes of UTF-8 (16 MiB): a
pasted log or source file fits, and the token count of the largest message takes
well under a second, so no read after a write waits on it.
"""

from __future__ import annotations

from zerda.errors import MessageTooLargeError

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
_ENCODED_AT_ONCE = 1 << 20  # characters encoded at a time when measuring a long text


def utf8_size(text: str, stop_after: int | None = None) -> int:
    """Bytes of `text` in UTF-8, measured a piece at a time (no full copy); once past
    `stop_after` the measuring stops and what was counted so far is returned."""
    if len(text) <= _ENCODED_AT_ONCE:
        return len(text.encode("utf-8", errors="surrogatepass"))
    size = 0
    for start in range(0, len(text), _ENCODED_AT_ONCE):
        size += len(text[start : start + _ENCODED_AT_ONCE].encode("utf-8", "surrogatepass"))
        if stop_after is not None and size > stop_after:
            break
    return size


def size_words(size: int) -> str:
    """A byte count for people: `812 bytes`, `3.2 MiB`."""
    if size < 1024:
        return f"{size} byte{'s' * (size != 1)}"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def over_limit(text: str) -> bool:
    """True when `text` holds more than MAX_MESSAGE_BYTES bytes of UTF-8."""
    if len(text) * 4 <= MAX_MESSAGE_BYTES:
        return False  # even at 4 bytes a character it fits
    return utf8_size(text, stop_after=MAX_MESSAGE_BYTES) > MAX_MESSAGE_BYTES


def too_large(what: str) -> str:
    """The one line that refuses a message over the limit."""
    return (
        f"{what} is larger than {size_words(MAX_MESSAGE_BYTES)}, the limit per message; "
        "nothing was written"
    )


def check_message_size(text: str, what: str = "the message") -> None:
    """Raise MessageTooLargeError when `text` is over the limit, naming `what`."""
    if over_limit(text):
        raise MessageTooLargeError(too_large(what))
