"""Offline entity extraction in Zep's shape: people, organisations, places, dates, times,
amounts, contacts and code found in a message by rules and built-in word lists alone.

    >>> [(e.label, e.name) for e in extract("Email ada@example.com by June 3, 2026.")]
    [('EMAIL', 'ada@example.com'), ('DATE', 'June 3, 2026')]

Stores keep what `extract` finds with each message and summary (`Message.entities`).
Importing this package is cheap: the rules are compiled on the first `extract`.
"""

from __future__ import annotations

from zerda.entities._model import LABELS, Entity, EntityMatch

EXTRACTOR = "zerda-rules-1"
# What a store reads of a text for its entities: the first SCANNED characters, cut at a
# space (the start of a pasted log or document; extraction costs about 3 us a character).
SCANNED = 20_000


def extract(text: str) -> list[Entity]:
    """The entities of `text` in order of first match; a name found again under the same
    label is one entity with several matches. Matches never overlap."""
    from zerda.entities._extractor import extract as run

    return run(text)


def stored_entities(text: str) -> tuple[Entity, ...]:
    """The entities a store keeps for `text`: those of its first SCANNED characters."""
    if len(text) > SCANNED:
        cut = max(text.rfind(" ", 0, SCANNED), text.rfind("\n", 0, SCANNED))
        text = text[: cut if cut > 0 else SCANNED]
    return tuple(extract(text))


__all__ = ["EXTRACTOR", "LABELS", "SCANNED", "Entity", "EntityMatch", "extract", "stored_entities"]
