"""A query of words, as a search engine reads one: every term must be in the message, as
whole words in any case (`str.casefold`). A term is a word (`index`), a prefix (`tok*`:
a word that starts so), or a phrase in double quotes (`"gin index"`: the words one after
another, anything but word characters between them; `"gin ind*"` ends in a prefix). A
word with other characters inside (`foo.bar`, `don't`) is the phrase of its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zerda.errors import InvalidArgumentError

_TERM = re.compile(r'"([^"]*)"?|(\S+)')
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Term:
    """One term: its words (casefolded), the last a prefix when `prefix`."""

    words: tuple[str, ...]
    prefix: bool = False
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = r"\W+".join(re.escape(word) for word in self.words)
        end = r"\w*" if self.prefix else r"(?!\w)"  # a prefix's match is its whole word
        object.__setattr__(self, "regex", re.compile(rf"(?<!\w){body}{end}"))

    def __str__(self) -> str:
        text = " ".join(self.words) + ("*" if self.prefix else "")
        return f'"{text}"' if len(self.words) > 1 else text


@dataclass(frozen=True)
class Words:
    """A parsed query of words (see the module docstring); `Words.parse(text)`."""

    terms: tuple[Term, ...]

    @classmethod
    def parse(cls, text: str) -> Words:
        """The terms of `text`; InvalidArgumentError when it holds no word."""
        terms = []
        for match in _TERM.finditer(text):
            raw = match.group(1) if match.group(1) is not None else match.group(2)
            words = tuple(_WORD.findall(raw.casefold()))
            if words:
                terms.append(Term(words, raw.rstrip().endswith("*")))
        if not terms:
            raise InvalidArgumentError(f"no words to search for in {text!r}")
        return cls(tuple(dict.fromkeys(terms)))

    def __str__(self) -> str:
        return " ".join(str(term) for term in self.terms)
