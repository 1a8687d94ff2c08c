"""Candidate spans and the choice among them: longest first, then the more specific label,
never two overlapping."""

from __future__ import annotations

from typing import NamedTuple


class Candidate(NamedTuple):
    """A labelled span some rule proposes; a lower `rank` wins a tie of length."""

    start: int
    end: int
    label: str
    rank: int


# Ranks: a pattern with punctuation in it is surer than one of plain words, and a
# name found by its title or in a list surer than one guessed from its shape.
EMAIL, URL, PHONE, MONEY, PERCENT, DATE, TIME, QUANTITY, CODE = range(9)
TITLED, KNOWN_ORG, ALIAS, KNOWN_PLACE, ORG_SHAPE, PLACE_SHAPE, GIVEN, CONTEXT = range(10, 18)


def resolve(
    candidates: list[Candidate], size: int, taken: list[tuple[int, int]]
) -> list[Candidate]:
    """The non-overlapping choice in a text of `size` characters, left to right: longer
    spans first, then lower rank, then the leftmost. `taken` spans (code blocks) are out."""
    used = bytearray(size)
    for start, end in taken:
        used[start:end] = b"\1" * (end - start)
    chosen = []
    for candidate in sorted(set(candidates), key=_preference):
        start, end = candidate.start, candidate.end
        if start < end and used.find(1, start, end) < 0:
            used[start:end] = b"\1" * (end - start)
            chosen.append(candidate)
    return sorted(chosen)


def _preference(candidate: Candidate) -> tuple[int, int, int, str]:
    return (candidate.start - candidate.end, candidate.rank, candidate.start, candidate.label)
