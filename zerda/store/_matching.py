"""What a search matches, for every store: a query (any case), roles, a time range, and
where in a message's content each match is."""

from __future__ import annotations

import heapq
import re
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from zerda.errors import InvalidArgumentError
from zerda.messages import Message
from zerda.store._words import Words

Query = str | re.Pattern[str] | Words
Hit = tuple[str, Message]
Span = tuple[int, int]
Heap = list[tuple[float, int, Hit, Iterator[Hit]]]


class Matcher:
    """Finds `query` in message content: a string in any case (`str.casefold`, so `ß`
    finds `SS`), a compiled pattern as it was compiled (`re.IGNORECASE` for any case), or
    `Words` (every term as whole words, in any case)."""

    def __init__(self, query: Query) -> None:
        self.pattern = query if isinstance(query, re.Pattern) else None
        self.needle = query.casefold() if isinstance(query, str) else None
        self.words = query if isinstance(query, Words) else None

    @property
    def needles(self) -> tuple[tuple[str, ...], ...]:
        """For each term, the casefolded texts every match of it holds (a string is one
        term of one text; a pattern has none): what an index may narrow a search by."""
        if self.words is not None:
            return tuple(term.words for term in self.words.terms)
        return ((self.needle,),) if self.needle else ()

    @property
    def longest(self) -> str | None:
        """The longest text every match holds (None when there is none)."""
        texts = [text for term in self.needles for text in term]
        return max(texts, key=len) if texts else None

    def found(self, content: str) -> bool:
        """True when `content` holds a match."""
        if self.pattern is not None:
            return self.pattern.search(content) is not None
        if self.words is not None:
            folded = content.casefold()
            return all(term.regex.search(folded) for term in self.words.terms)
        return self.needle is not None and self.needle in content.casefold()

    def counts(self, content: str) -> list[int]:
        """How often each term occurs in `content` (a string or a pattern is one term)."""
        if self.pattern is not None:
            return [sum(1 for m in self.pattern.finditer(content) if m.end() > m.start())]
        folded = content.casefold()
        if self.words is not None:
            return [sum(1 for _ in term.regex.finditer(folded)) for term in self.words.terms]
        return [folded.count(self.needle)] if self.needle else [0]

    def spans(self, content: str) -> list[Span]:
        """(start, end) character offsets in `content` of each match, left to right, none
        overlapping (an empty query or pattern match has none)."""
        if self.pattern is not None:
            return [m.span() for m in self.pattern.finditer(content) if m.end() > m.start()]
        folded = content.casefold()
        if self.words is not None:
            found = [m.span() for t in self.words.terms for m in t.regex.finditer(folded)]
        else:
            found = _needle_spans(folded, self.needle or "")
        return _in_content(content, folded, sorted(found))


def _needle_spans(folded: str, needle: str) -> list[Span]:
    """Where `needle` occurs in `folded`, left to right, none overlapping."""
    spans: list[Span] = []
    at = folded.find(needle) if needle else -1
    while at >= 0:
        spans.append((at, at + len(needle)))
        at = folded.find(needle, at + len(needle))
    return spans


def _in_content(content: str, folded: str, found: list[Span]) -> list[Span]:
    """Spans of `folded` (`content` casefolded, in order) as offsets in `content`: a match
    that starts or ends inside a character's fold (`ß` is `ss`) takes in all of it, and
    matches that then share a character are one span."""
    if len(folded) == len(content):  # every character folds to one: offsets carry over
        owners: range | list[int] = range(len(content))
    else:  # the index in `content` of each character of the fold
        owners = [index for index, char in enumerate(content) for _ in char.casefold()]
    spans: list[Span] = []
    for at, end in found:
        if end <= at:
            continue
        start, stop = owners[at], owners[end - 1] + 1
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(stop, spans[-1][1]))
        else:
            spans.append((start, stop))
    return spans


@dataclass(frozen=True)
class Filters:
    """Which messages a search keeps besides the query: any of `roles` (a role as given
    or a role type; empty: all), created at or after `since` and before `until`."""

    roles: frozenset[str] = frozenset()
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def of(cls, roles: Collection[str], since: datetime | None, until: datetime | None) -> Filters:
        """The filters, checked: times must be timezone-aware."""
        for moment in (since, until):
            if moment is not None and moment.tzinfo is None:
                raise InvalidArgumentError("since and until must be timezone-aware datetimes")
        return cls(frozenset(roles), since, until)

    def admits(self, message: Message) -> bool:
        """True when `message` passes every filter."""
        if self.roles and message.role not in self.roles and message.kind not in self.roles:
            return False
        at = message.created_at
        if at is None:
            return self.since is None and self.until is None
        return (self.since is None or at >= self.since) and (self.until is None or at < self.until)


def check_limit(limit: int | None) -> None:
    """InvalidArgumentError unless `limit` is None or a positive integer."""
    if limit is not None and (type(limit) is not int or not 1 <= limit <= sys.maxsize):
        raise InvalidArgumentError(
            f"limit must be a positive integer up to {sys.maxsize}, not {limit!r}"
        )


def newest_first(
    sessions: Iterable[tuple[str, float | None]], hits_of: Callable[[str], Iterator[Hit]]
) -> Iterator[Hit]:
    """The hits of every session merged newest first (ties: sessions in the given order).

    `sessions` pairs each id with the time (a POSIX timestamp) of its newest message, or
    None when unknown; `hits_of(id)` gives a session's hits newest first. A session is
    opened only when its newest message could be the next hit, so few are open at once
    and a caller that stops early (a limit) never reads the older ones at all.
    """
    waiting = deque(
        sorted(
            (-(newest if newest is not None else float("inf")), rank, sid)
            for rank, (sid, newest) in enumerate(sessions)
        )
    )
    heap: Heap = []
    while waiting or heap:
        while waiting and (not heap or waiting[0][:2] <= heap[0][:2]):
            _, rank, sid = waiting.popleft()
            _push(heap, rank, hits_of(sid))
        if heap:
            _, rank, hit, rest = heapq.heappop(heap)
            yield hit
            _push(heap, rank, rest)


def _push(heap: Heap, rank: int, hits: Iterator[Hit]) -> None:
    hit = next(hits, None)
    if hit is not None:
        at = hit[1].created_at
        heapq.heappush(heap, (-at.timestamp() if at else float("inf"), rank, hit, hits))
