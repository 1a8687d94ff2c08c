"""How the word-list modules write their lists: words apart by spaces, or names apart by
commas (and line ends) when a name holds spaces."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """The space-separated words of `text`."""
    return frozenset(text.split())


def rows(text: str) -> frozenset[str]:
    """The comma- or line-separated entries of `text`."""
    return frozenset(e.strip() for e in text.replace("\n", ",").split(",") if e.strip())
