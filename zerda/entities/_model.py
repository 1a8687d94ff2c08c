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

    def __post_init__(self) -> None:
        if not _is_int(self.start) or not _is_int(self.end):
            raise InvalidMessageError("entity match start and end must be integers")
        if not 0 <= self.start <= self.end:
            raise InvalidMessageError(
                f"entity match offsets out of order: {self.start}..{self.end}"
            )
        if not isinstance(self.text, str):
            raise InvalidMessageError("entity match text must be a string")

    def to_dict(self) -> dict[str, Any]:
        """`{"start": ..., "end": ..., "text": ...}`."""
        return {"start": self.start, "end": self.end, "text": self.text}

    @classmethod
    def from_dict(cls, data: object) -> EntityMatch:
        """The inverse of `to_dict`; `InvalidMessageError` on a bad shape."""
        if not isinstance(data, dict):
            raise InvalidMessageError(f"entity match must be an object, not {_kind(data)}")
        return cls(data.get("start"), data.get("end"), data.get("text"))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Entity:
    """A name found in a text under one label, with each of its matches left to right.

    zerda's extractor uses LABELS; entities given by a caller may carry any label (a
    statistical model's `NORP`, `WORK_OF_ART`): they are kept as given."""

    label: str
    name: str
    matches: tuple[EntityMatch, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label.strip():
            raise InvalidMessageError("entity label must be a non-empty string")
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidMessageError("entity name must be a non-empty string")
        if type(self.matches) is not tuple:
            if not isinstance(self.matches, list):
                raise InvalidMessageError("entity matches must be a non-empty list")
            object.__setattr__(self, "matches", tuple(self.matches))
        if not self.matches or not all(isinstance(m, EntityMatch) for m in self.matches):
            raise InvalidMessageError("entity matches must be a non-empty list of matches")

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
        if not isinstance(matches, list):
            raise InvalidMessageError("entity matches must be a non-empty list")
        found = tuple(EntityMatch.from_dict(m) for m in matches)
        return cls(label, name, found)  # type: ignore[arg-type]  # checked by Entity


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: object) -> str:
    return type(value).__name__
