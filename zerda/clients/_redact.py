"""Keeping a secret (the API key) out of everything zerda shows or stores.

Whole occurrences of the secret are replaced by MARK, so `Bearer sk-…` becomes
`Bearer [key]`. A streamed reply arrives in pieces that may split the secret, so
`redact_stream` holds back a tail that could still be its start.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

MARK = "[key]"


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` replaced by MARK."""
    return text.replace(secret, MARK) if secret else text


def _open_tail(text: str, secret: str) -> int:
    """Length of the longest end of `text` that is a proper beginning of `secret`."""
    for size in range(min(len(text), len(secret) - 1), 0, -1):
        if secret.startswith(text[-size:]):
            return size
    return 0


def redact_stream(pieces: Iterable[str], secret: str | None) -> Iterator[str]:
    """`pieces` redacted as one text: a secret split across pieces is caught too.

    At most len(secret)-1 characters are held back, and only while they could
    begin the secret; they are let out with the next piece or at the end.
    """
    if not secret:
        yield from pieces
        return
    held = ""
    for piece in pieces:
        parts = (held + piece).split(secret)
        keep = _open_tail(parts[-1], secret)
        held = parts[-1][len(parts[-1]) - keep :]
        parts[-1] = parts[-1][: len(parts[-1]) - keep]
        if text := MARK.join(parts):
            yield text
    if held:
        yield held
