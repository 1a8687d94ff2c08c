"""PERSON, ORG, GPE and LOC: capitalised words, classified by word lists and the words
around them. A capitalised word no rule vouches for is left alone.

Rules, surest first: a known organisation or place; a title before a name ("Dr. Okafor");
a name shaped like an organisation's or a place's ("Acme Corp", "Lake Como", "University of
Leeds"); a common given name and the capitalised words after it; a name where the words
around it say it is a person's ("written by", "my sister", "X Y said"). In headings and
all-capital lines only the lists and titles count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import NamedTuple

from zerda.entities import _lists as lists
from zerda.entities import _names as names
from zerda.entities import _orgs as orgs
from zerda.entities import _places as places
from zerda.entities import _spans as spans
from zerda.entities import _words as words
from zerda.entities._spans import Candidate

TOKEN = re.compile(
    r"(?:[A-Z]\.){2,}"  # U.S., J.R.R.
    r"|[^\W\d_](?:[^\W_]|['\u2019](?=[^\W_])(?![sS]\b)|[-&](?=[^\W_]))*"  # O'Brien, AT&T, not 's
    r"|&"
)
JOINED = re.compile(r"[ \t\u00a0]{1,3}")
SENTENCE_END = re.compile(r"[.!?:;][\"'\u201d\u2019)\]]*(?:\s|$)|\n|[\"\u201c«(]\s*$")
INITIALS = re.compile(r"(?:[A-Z]\.)+")
HEADING_WORD = re.compile(r"[^\W\d_]+")
MINOR = lists.words("a an the of and or in on at to for with by from vs")


class Token(NamedTuple):
    """A word of the text; `key` is the word without the full stop an abbreviation keeps."""

    text: str
    start: int
    end: int
    key: str


def tokens(text: str) -> Iterator[Token]:
    """The words of `text`; an abbreviation or an initial takes its full stop."""
    for match in TOKEN.finditer(text):
        word, end = match.group(), match.end()
        if text.startswith(".", end) and (
            word in names.ABBREVIATIONS or (len(word) == 1 and word.isupper())
        ):
            yield Token(word + ".", match.start(), end + 1, word if len(word) > 1 else word + ".")
        else:
            yield Token(word, match.start(), end, word)


def _index(
    entries: dict[str, frozenset[str]],
) -> dict[str, list[tuple[tuple[str, ...], str, int]]]:
    """Gazetteer entries by their first word, longest first."""
    ranks = {"ORG": spans.KNOWN_ORG, "GPE": spans.KNOWN_PLACE, "LOC": spans.KNOWN_PLACE}
    index: dict[str, list[tuple[tuple[str, ...], str, int]]] = {}
    for label, entry_set in sorted(entries.items()):
        for entry in sorted(entry_set):
            keys = tuple(token.key for token in tokens(entry))
            index.setdefault(keys[0], []).append((keys, label, ranks[label]))
    for found in index.values():
        found.sort(key=lambda item: (-len(item[0]), item))
    return index


GAZETTEER = _index({"ORG": orgs.ORGANISATIONS, "GPE": places.GPE, "LOC": places.LOCATIONS})
WORDLIKE = places.WORDLIKE | orgs.WORDLIKE
NOT_NAME = words.COMMON | words.MONTHS | words.WEEKDAYS | names.HONORIFICS
NAME_ENDS = orgs.SUFFIXES | places.LOC_SUFFIXES | places.FACILITY_WORDS | words.PRODUCT_WORDS
MAX_NAME = 4


class Words:
    """The tokens of one text with what the rules ask of each: is it joined to the next
    by plain spaces, does it open a sentence, is it in a heading."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = list(tokens(text))
        gaps = [text[a.end : b.start] for a, b in pairwise(self.toks)]
        self.joined = [JOINED.fullmatch(gap) is not None for gap in gaps] + [False]
        self.opens = [True] + [SENTENCE_END.search(gap) is not None for gap in gaps]
        self.heading = _heading_flags(text, self.toks)

    def candidates(self) -> list[Candidate]:
        """Every name candidate of the text."""
        found: list[Candidate] = []
        for i, tok in enumerate(self.toks):
            if tok.key in GAZETTEER:
                found += self._known(i)
            if not tok.text[0].isupper():
                continue
            found += self._titled(i)
            if self.heading[i]:
                continue
            found += self._org_shaped(i)
            found += self._place_shaped(i)
            found += self._given(i)
            found += self._initials(i)
            found += self._in_context(i)
        return found

    def aliases(self, chosen: list[Candidate]) -> list[Candidate]:
        """A first or last name of a person found in full, where it stands alone
        ("Octavia Butler ... Butler's book")."""
        starts = {tok.start: i for i, tok in enumerate(self.toks)}
        known: set[str] = set()
        for candidate in chosen:
            first = starts.get(candidate.start)
            if candidate.label != "PERSON" or first is None:
                continue
            last = first
            while last + 1 < len(self.toks) and self.toks[last + 1].end <= candidate.end:
                last += 1
            known |= {self.toks[i].key for i in (first, last) if first < last and self._alias_ok(i)}
        return [
            self._span(i, i, "PERSON", spans.ALIAS)
            for i, tok in enumerate(self.toks)
            if tok.key in known and not self.heading[i] and self._alone(i)
        ]

    # -- the rules ---------------------------------------------------------------------

    def _known(self, i: int) -> Iterator[Candidate]:
        """Gazetteer entries starting at token i, unless the word is used as a common
        word, a place's name goes on ("Berlin Wall") or it shouts in an all-capital line."""
        for keys, label, rank in GAZETTEER.get(self.toks[i].key, ()):
            end = i + len(keys) - 1
            if not self._matches(i, keys):
                continue
            if len(keys) == 1 and keys[0] in WORDLIKE and self.opens[i]:
                continue
            if label != "ORG" and self._continues(end):
                continue
            if keys[0].isupper() and len(keys) == 1 and self._shouting(i):
                continue
            yield self._span(i, end, label, rank)

    def _titled(self, i: int) -> Iterator[Candidate]:
        """A title, then the name it belongs to: "Dr. Okafor", "Prime Minister Ardern"."""
        tok = self.toks[i]
        if self._after_name(i) and self._surname_title(i):
            return
        if tok.key in names.HONORIFICS and tok.text[0].isupper():
            first = i + 1
        elif (tok.key, self._next_key(i)) in names.HONORIFIC_PAIRS and self.joined[i]:
            first = i + 2
        else:
            return
        if (
            first < len(self.toks)
            and self.joined[first - 1]
            and self._starts_name(first)
            and self.toks[first].key not in NAME_ENDS
        ):
            yield self._span(first, self._name_end(first, NAME_ENDS), "PERSON", spans.TITLED)

    def _org_shaped(self, i: int) -> Iterator[Candidate]:
        """Capitalised words before an organisation suffix ("Acme Corp", "Acme, Inc."),
        and an organisation head with `of` and a name ("University of Leeds")."""
        tok = self.toks[i]
        if not tok.text[0].isupper():
            return
        start = i
        if tok.key in orgs.SUFFIXES or tok.text in orgs.SUFFIXES:
            start = self._name_start(i)
            if start == i and i > 0 and tok.text.rstrip(".") in orgs.COMMA_SUFFIXES:
                comma = self.text[self.toks[i - 1].end : tok.start] == ", "
                start = self._name_start(i, i - 1) if comma else i
        end = self._of_tail(i) if tok.key in orgs.OF_HEADS else i
        if start < i or end > i:
            yield self._span(start, end, "ORG", spans.ORG_SHAPE)

    def _place_shaped(self, i: int) -> Iterator[Candidate]:
        """Places by their shape: "Lake Como", "Mount Fuji", "Danube River", "Gulf of Aden"."""
        key = self.toks[i].key
        if key in places.LOC_SUFFIXES and not self._continues(i):
            start = self._name_start(i)
            if start < i:
                yield self._span(start, i, "LOC", spans.PLACE_SHAPE)
        prefix = self.toks[i].text in places.LOC_PREFIXES or key in places.LOC_PREFIXES
        if prefix and not self._after_name(i) and self._next_is_name(i):
            yield self._span(i, self._name_end(i + 1, NAME_ENDS), "LOC", spans.PLACE_SHAPE)
        if key in places.LOC_OF_HEADS and (end := self._of_tail(i)) > i:
            yield self._span(i, end, "LOC", spans.PLACE_SHAPE)

    def _given(self, i: int) -> Iterator[Candidate]:
        """A common given name and the capitalised words after it; alone only when the
        name is no everyday word."""
        key = self.toks[i].key
        if key not in names.GIVEN_NAMES and key not in names.AMBIGUOUS_GIVEN:
            return
        if i > 0 and self.joined[i - 1] and self._unknown(i - 1) and not self.opens[i - 1]:
            return  # inside a longer name: "Lockheed Martin"
        end = self._name_end(i, stop=NAME_ENDS)
        if end > i or key in names.GIVEN_NAMES:
            yield self._span(i, end, "PERSON", spans.GIVEN)

    def _initials(self, i: int) -> Iterator[Candidate]:
        """Initials and a surname: "J. K. Rowling", "J.R.R. Tolkien"."""
        if not self._initial(i) or (i > 0 and self.joined[i - 1] and self._initial(i - 1)):
            return
        last = i
        while last + 1 < len(self.toks) and self.joined[last] and self._initial(last + 1):
            last += 1
        end = self._name_end(last, stop=NAME_ENDS)
        if end > last:
            yield self._span(i, end, "PERSON", spans.GIVEN)

    def _in_context(self, i: int) -> Iterator[Candidate]:
        """A name the words around it give to a person: "a novel by X", "my sister X",
        "a woman named X", "X Y said"."""
        if not self._plain_name_word(i) or self._after_name(i):
            return
        end = self._name_end(i)
        if any(not self._plain_name_word(j) for j in range(i, end + 1) if self._name_word(j)):
            return
        before, two_before = self._word_before(i), self._word_before(i, 2)
        person = (
            (before == "by" and two_before in words.BY_WORDS)
            or before in words.RELATION_NOUNS
            or (before in ("is", "was") and two_before in words.RELATION_NOUNS)
            or (before in ("named", "called") and two_before in words.NAMED_NOUNS)
            or (end > i and self._word_after(end) in words.SPEECH_VERBS)
        )
        if person:
            yield self._span(i, end, "PERSON", spans.CONTEXT)

    # -- helpers -------------------------------------------------------------------------

    def _span(self, first: int, last: int, label: str, rank: int) -> Candidate:
        return Candidate(self.toks[first].start, self.toks[last].end, label, rank)

    def _matches(self, i: int, keys: tuple[str, ...]) -> bool:
        if i + len(keys) > len(self.toks):
            return False
        return all(
            self.toks[i + k].key == key and (k == 0 or self.joined[i + k - 1])
            for k, key in enumerate(keys)
        )

    def _next_key(self, i: int) -> str:
        return self.toks[i + 1].key if i + 1 < len(self.toks) else ""

    def _continues(self, i: int) -> bool:
        """A capitalised word no list knows follows token i: the place named so far is
        the start of a longer name ("Berlin Wall", "Chicago Bulls", "Salt Lake City")."""
        if not self._next_is_name(i):
            return False
        key = self._next_key(i)
        return key not in GAZETTEER or key in places.FACILITY_WORDS

    def _shouting(self, i: int) -> bool:
        """A neighbour in capitals too: "TELL US", not "the US"."""
        near = [j for j in (i - 1, i + 1) if 0 <= j < len(self.toks)]
        return any(len(self.toks[j].text) > 1 and self.toks[j].text.isupper() for j in near)

    def _name_word(self, i: int) -> bool:
        """A capitalised word that may be part of a name."""
        text = self.toks[i].text
        if not text[0].isupper() or self.toks[i].key in NOT_NAME or text in NOT_NAME:
            return False
        if text in names.GENERATIONAL:
            return False
        return not (text.isupper() and len(text) > 1) or self._initial(i)

    def _plain_name_word(self, i: int) -> bool:
        """A name word no list knows: context rules give only these to people."""
        key = self.toks[i].key
        return (
            self._name_word(i)
            and key not in GAZETTEER
            and key not in NAME_ENDS
            and key not in places.LOC_PREFIXES
        )

    def _unknown(self, i: int) -> bool:
        key = self.toks[i].key
        return (
            self._name_word(i)
            and key not in names.GIVEN_NAMES
            and key not in names.AMBIGUOUS_GIVEN
            and not self._initial(i)
        )

    def _initial(self, i: int) -> bool:
        text = self.toks[i].text
        return INITIALS.fullmatch(text) is not None and text not in names.NOT_INITIALS

    def _starts_name(self, i: int) -> bool:
        return self._name_word(i) or self._initial(i)

    def _surname_title(self, i: int) -> bool:
        """A title word written as a surname: "Stephen King", "Martin Luther King Jr."."""
        text = self.toks[i].text
        return text in names.HONORIFICS and text.isalpha() and len(text) > 3

    def _after_name(self, i: int) -> bool:
        return i > 0 and self.joined[i - 1] and self._name_word(i - 1)

    def _next_is_name(self, i: int) -> bool:
        return i + 1 < len(self.toks) and self.joined[i] and self._name_word(i + 1)

    def _name_end(self, first: int, stop: frozenset[str] = frozenset()) -> int:
        """The last token of the name starting at `first`: `first` and the capitalised
        words, initials, particles between them ("van Rossum") and a generational suffix
        after it, at most MAX_NAME tokens, none after `first` in `stop`."""
        end = first
        while end + 1 < len(self.toks) and end + 1 - first < MAX_NAME and self.joined[end]:
            nxt = end + 1
            if self.toks[nxt].key in stop:
                break
            if self._name_word(nxt) or self._initial(nxt) or self._surname_title(nxt):
                end = nxt
            elif self.toks[nxt].text in names.PARTICLES and self._next_is_name(nxt):
                end = nxt + 1
            elif self.toks[nxt].text in names.GENERATIONAL:
                return nxt
            else:
                break
        return end

    def _name_start(self, last: int, before: int | None = None) -> int:
        """The first of the capitalised words joined before token `last` (or from
        `before` down), at most MAX_NAME of them; `last` when there are none."""
        start = last
        i = last - 1 if before is None else before
        if before is not None and self._name_word(i):
            start, i = i, i - 1
        while i >= 0 and last - i <= MAX_NAME and self.joined[i] and start - i == 1:
            if self._name_word(i) or self.toks[i].text == "&":
                start = i
            i -= 1
        while start < last and self.toks[start].text == "&":
            start += 1
        return start

    def _of_tail(self, head: int) -> int:
        """The end of "of <Name>" after token `head` ("of Toronto", "of Arts & Sciences"),
        or `head` when no name follows."""
        of = head + 1
        if not (of + 1 < len(self.toks) and self.joined[head] and self.joined[of]):
            return head
        if self.toks[of].text not in orgs.OF_WORDS:
            return head
        first = of + 2 if self.toks[of + 1].text == "the" and self.joined[of + 1] else of + 1
        if first >= len(self.toks) or not self._name_word(first):
            return head
        end = first
        while end + 1 < len(self.toks) and end - first < MAX_NAME and self.joined[end]:
            if self._name_word(end + 1):
                end += 1
            elif self.toks[end + 1].text == "&" and self._next_is_name(end + 1):
                end += 2
            else:
                break
        return end

    def _word_before(self, i: int, back: int = 1) -> str:
        """The lower-case word `back` words before token i, when only spaces (or a
        comma, right before i) lie between."""
        j = i - back
        if j < 0:
            return ""
        for k in range(j, i):
            gap = self.text[self.toks[k].end : self.toks[k + 1].start]
            if not (self.joined[k] or (k == i - 1 and gap.strip() == ",")):
                return ""
        return self.toks[j].text.lower()

    def _word_after(self, i: int) -> str:
        return self.toks[i + 1].text if i + 1 < len(self.toks) and self.joined[i] else ""

    def _alias_ok(self, i: int) -> bool:
        key = self.toks[i].key
        return (
            len(key) >= 3
            and self._name_word(i)
            and key not in names.AMBIGUOUS_GIVEN
            and key not in GAZETTEER
            and key not in NAME_ENDS
        )

    def _alone(self, i: int) -> bool:
        """No capitalised name word joined on either side."""
        return not self._after_name(i) and not self._next_is_name(i)


def _heading_flags(text: str, toks: list[Token]) -> list[bool]:
    """For each token: is it in a heading (a `#` line, or a title-case or all-capital
    line of a text with more lines)?"""
    ranges = []
    offset = 0
    lines = text.split("\n")
    several = sum(1 for line in lines if line.strip()) > 1
    for line in lines:
        if line.strip() and _is_heading(line, several):
            ranges.append((offset, offset + len(line)))
        offset += len(line) + 1
    flags = []
    index = 0
    for tok in toks:
        while index < len(ranges) and ranges[index][1] <= tok.start:
            index += 1
        flags.append(index < len(ranges) and ranges[index][0] <= tok.start)
    return flags


def _is_heading(line: str, several: bool) -> bool:
    stripped = line.strip()
    if stripped.startswith("#"):
        return True
    found = HEADING_WORD.findall(stripped)
    if len(found) < 2 or len(stripped) > 100:
        return False
    if all(word.isupper() for word in found):
        return True
    title = all(word[0].isupper() or word in MINOR for word in found)
    return several and title and not stripped.endswith((".", "?", "!", ",", ";"))
