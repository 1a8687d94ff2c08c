"""The extracted entity, in Zep's shape: a label, a name and every place the name occurs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

from zerda.errors import InvalidMessageError

LABELS = (
    "PERSON",
    "ORG",
    "GPE",
    "LOC",
    "DATE",
    "TIME",
    "MONEY",
    "QUANTITY",
    "PERCENT",
    "EMAIL",
    "URL",
    "PHONE",
    "CODE",
)


@dataclass(frozen=True)
class EntityMatch:
    """One occurrence: `text[start:end] == self.text` in the text it was found in."""

    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """`{"start": ..., "end": ..., "text": ...}`."""
        return {"start": self.start, "end": self.end, "text": self.text}

    @classmethod
    def from_dict(cls, data: object) -> EntityMatch:
        """The inverse of `to_dict`; `InvalidMessageError` on a bad shape."""
        if not isinstance(data, dict):
            raise InvalidMessageError(f"entity match must be an object, not {_kind(data)}")
        start, end, text = data.get("start"), data.get("end"), data.get("text")
        if not _is_int(start) or not _is_int(end):
            raise InvalidMessageError("entity match start and end must be integers")
        if not 0 <= start <= end:
            raise InvalidMessageError(f"entity match offsets out of order: {start}..{end}")
        if not isinstance(text, str):
            raise InvalidMessageError("entity match text must be a string")
        return cls(start, end, text)


@dataclass(frozen=True)
class Entity:
    """A name found in a text under one label, with each of its matches left to right."""

    label: str
    name: str
    matches: tuple[EntityMatch, ...]

    def to_dict(self) -> dict[str, Any]:
        """Zep's shape: `{"label", "name", "matches": [{"start", "end", "text"}]}`."""
        return {
            "label": self.label,
            "name": self.name,
            "matches": [match.to_dict() for match in self.matches],
        }

    @classmethod
    def from_dict(cls, data: object) -> Entity:
        """The inverse of `to_dict`; `InvalidMessageError` on a bad shape. Keys other than
        the three are ignored, so a later version may add some."""
        if not isinstance(data, dict):
            raise InvalidMessageError(f"entity must be an object, not {_kind(data)}")
        label, name, matches = data.get("label"), data.get("name"), data.get("matches")
        if label not in LABELS:
            raise InvalidMessageError(f"entity label must be one of {', '.join(LABELS)}")
        if not isinstance(name, str) or not name.strip():
            raise InvalidMessageError("entity name must be a non-empty string")
        if not isinstance(matches, list) or not matches:
            raise InvalidMessageError("entity matches must be a non-empty list")
        return cls(label, name, tuple(EntityMatch.from_dict(m) for m in matches))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: object) -> str:
    return type(value).__name__
