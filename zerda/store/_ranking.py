"""Ranking a search's hits best first: Okapi BM25 over the messages of a store.

Each term of the query (a string is one term; `Words` has one a word, prefix or phrase)
scores `idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / average))`, where `f` is
how often it occurs in the message, `length` the message's characters, `average` that of
the store's messages, and `idf = ln(1 + (N - n + 0.5) / (n + 0.5))` with `N` the store's
messages and `n` those holding the term (an index's estimate where a store has one, never
below the true count). A term with no text of COUNTABLE characters or more (`go`, `"a b"`)
is taken as held by every message, as no trigram index can count it: it weighs next to
nothing, on every store alike. Equal scores: newest first, as an unranked search.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from zerda.messages import Message
from zerda.store._matching import Matcher

K1 = 1.2
B = 0.75
COUNTABLE = 3  # characters of a term's longest text for its messages to be counted
Scored = tuple[str, Message, float]


@dataclass(frozen=True)
class Corpus:
    """What BM25 needs of the whole store: its messages, their characters, and how many
    messages hold each term of the query."""

    messages: int
    characters: int
    holding: tuple[int, ...]

    def spread(self, terms: int, counted: Sequence[int]) -> Corpus:
        """This corpus of the `counted` terms (their indexes among `terms`), the others
        held by every message."""
        holding = [self.messages] * terms
        for n, count in zip(counted, self.holding, strict=True):
            holding[n] = count
        return Corpus(self.messages, self.characters, tuple(holding))

    def weights(self) -> list[float]:
        """Each term's inverse document frequency."""
        total = self.messages
        return [math.log(1 + (total - min(n, total) + 0.5) / (n + 0.5)) for n in self.holding]


def countable(texts: Sequence[str]) -> bool:
    """Whether how many messages hold a term of `texts` is counted (see the module)."""
    return any(len(text) >= COUNTABLE for text in texts)


def best(
    hits: Iterable[tuple[str, Message]], matcher: Matcher, corpus: Corpus, limit: int | None
) -> list[Scored]:
    """(session id, message, score) of `hits` best first, at most `limit`."""
    weights = corpus.weights()
    average = corpus.characters / corpus.messages if corpus.messages else 1.0
    average = average or 1.0

    def score(message: Message) -> float:
        norm = K1 * (1 - B + B * len(message.content) / average)
        counts = matcher.counts(message.content)
        return sum(w * f * (K1 + 1) / (f + norm) for w, f in zip(weights, counts, strict=False))

    keyed = (
        (-score(message), _age(message), n, sid, message) for n, (sid, message) in enumerate(hits)
    )
    kept = heapq.nsmallest(limit, keyed) if limit else sorted(keyed)
    return [(sid, message, -negated) for negated, _, _, sid, message in kept]


def _age(message: Message) -> float:
    at = message.created_at
    return -at.timestamp() if at is not None else math.inf
