"""Offline entity extraction in Zep's shape: people, organisations, places, dates, times,
amounts, contacts and code found in a message by rules and built-in word lists alone.

    >>> [(e.label, e.name) for e in extract("Email ada@example.com by June 3, 2026.")]
    [('EMAIL', 'ada@example.com'), ('DATE', 'June 3, 2026')]

`EXTRACTOR` names this extractor and its version; store it with results, so that a later
version can tell which results it made itself.
"""

from __future__ import annotations

from zerda.entities.extractor import extract
from zerda.entities.model import LABELS, Entity, EntityMatch

EXTRACTOR = "zerda-rules-1"

__all__ = ["EXTRACTOR", "LABELS", "Entity", "EntityMatch", "extract"]
