"""The extractor: every rule's candidates, one choice among them, merged into entities."""

from __future__ import annotations

from zerda.entities import _patterns as patterns
from zerda.entities._model import Entity, EntityMatch
from zerda.entities._proper import Words
from zerda.entities._spans import Candidate, resolve


def extract(text: str) -> list[Entity]:
    """The entities of `text` in order of first match; a name found again under the same
    label is one entity with several matches. Matches never overlap."""
    inline, fences = patterns.blocked(text)
    taken = fences + [(code.start, code.end) for code in inline]
    words = Words(text)
    found = patterns.find(text) + words.candidates()
    chosen = resolve(found, len(text), taken)
    aliases = words.aliases(chosen)
    if aliases:
        chosen = resolve(found + aliases, len(text), taken)
    return merge(text, sorted(chosen + inline))


def merge(text: str, chosen: list[Candidate]) -> list[Entity]:
    """One entity per (label, name), name being the match with its whitespace normalised."""
    found: dict[tuple[str, str], list[EntityMatch]] = {}
    for candidate in chosen:
        matched = text[candidate.start : candidate.end]
        name = " ".join(matched.split())
        match = EntityMatch(candidate.start, candidate.end, matched)
        found.setdefault((candidate.label, name), []).append(match)
    return [Entity(label, name, tuple(matches)) for (label, name), matches in found.items()]
