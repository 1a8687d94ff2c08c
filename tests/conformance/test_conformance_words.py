"""Word queries and ranked search on every store (and the file store answering from its
archive index): the same hits as a check of every message, best first by BM25."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

import pytest

from zerda import InvalidArgumentError, Message
from zerda.store._matching import Matcher
from zerda.store._ranking import K1, B
from zerda.store._words import Words
from zerda.store.base import Store

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
CONTENTS = [
    "How do I build a GIN index in PostgreSQL?",
    "CREATE INDEX ON docs USING gin (body); a GIN index on tokens",
    "Gin and tonic, then an index card",
    "indexing is slow; the indexes are big",
    "zebrafish, zebrafish, zebrafish: the zebrafish genome",
    "a zebra and a zebrafish",
    "Straße und STRASSE",
    "foo.bar() is called by foo_bar()",
    "nothing to see",
]


@pytest.fixture(params=["file", "postgres", "indexed"])
def kind(request: pytest.FixtureRequest) -> str:
    """Every store, and the file store answering from its archive index."""
    return str(request.param)


@pytest.fixture
def history(store: Store) -> Store:
    for n, content in enumerate(CONTENTS):
        when = T0 + timedelta(minutes=n)
        store.add_message(f"s{n % 3}", Message("user" if n % 2 else "ai", content, created_at=when))
    return store


def contents(hits: object) -> list[str]:
    return [hit[1].content for hit in hits]  # type: ignore[attr-defined, index]


def every_match(store: Store, query: Words) -> set[str]:
    matcher = Matcher(query)
    held = (m for sid in store.session_ids() for m in store.iter_messages(sid))
    return {m.content for m in held if matcher.found(m.content)}


@pytest.mark.parametrize(
    "query, expected",
    [
        ("gin index", {CONTENTS[0], CONTENTS[1], CONTENTS[2]}),
        ('"gin index"', {CONTENTS[0], CONTENTS[1]}),
        ("index*", {CONTENTS[0], CONTENTS[1], CONTENTS[2], CONTENTS[3]}),
        ('"the index*"', {CONTENTS[3]}),
        ("zebra", {CONTENTS[5]}),
        ("zebra*", {CONTENTS[4], CONTENTS[5]}),
        ("strasse", {CONTENTS[6]}),
        ("foo.bar", {CONTENTS[7]}),
        ("foo_bar", {CONTENTS[7]}),
        ("bar", {CONTENTS[7]}),
        ("oo", set()),
        ("postgres", set()),
    ],
)
def test_words_find_what_a_check_of_every_message_finds(
    history: Store, query: str, expected: set[str]
) -> None:
    words = Words.parse(query)
    found = contents(history.search(words))
    assert set(found) == expected == every_match(history, words)
    assert len(found) == len(expected)  # each message once


def test_words_take_the_filters(history: Store) -> None:
    words = Words.parse("gin")
    assert contents(history.search(words, roles=["user"])) == [CONTENTS[1]]
    assert contents(history.search(words, session_id="s2")) == [CONTENTS[2]]
    later = T0 + timedelta(minutes=1)
    assert contents(history.search(words, since=later, limit=1)) == [CONTENTS[2]]


def test_ranked_gives_the_hits_best_first_with_scores(history: Store) -> None:
    words = Words.parse("zebrafish")
    ranked = history.ranked(words)
    assert contents(ranked) == [CONTENTS[4], CONTENTS[5]]  # four times beats once
    scores = [score for _, _, score in ranked]
    assert scores[0] > scores[1] > 0
    assert {c for c in contents(ranked)} == set(contents(history.search(words)))


def test_ranked_scores_are_bm25_over_the_store(history: Store) -> None:
    words = Words.parse('gin "index card"')
    ranked = history.ranked(words)
    assert contents(ranked) == [CONTENTS[2]]
    messages = len(CONTENTS)
    average = sum(len(c) for c in CONTENTS) / messages
    corpus = history.corpus(Matcher(words).needles)
    assert (corpus.messages, corpus.characters) == (messages, sum(len(c) for c in CONTENTS))
    truth = [3, 1]  # messages holding "gin", and "index card"
    assert all(n >= t for n, t in zip(corpus.holding, truth, strict=True))
    norm = K1 * (1 - B + B * len(CONTENTS[2]) / average)
    idf = [math.log(1 + (messages - n + 0.5) / (n + 0.5)) for n in corpus.holding]
    expected = sum(w * (K1 + 1) / (1 + norm) for w in idf)
    assert ranked[0][2] == pytest.approx(expected)


def test_a_rarer_term_weighs_more(history: Store) -> None:
    # "tokens" is in one message, "index" in three: the one holding the rarer term first.
    ranked = history.ranked("tokens")
    assert contents(ranked) == [CONTENTS[1]]
    both = contents(history.ranked(Words.parse("index*")))
    assert set(both) == {CONTENTS[0], CONTENTS[1], CONTENTS[2], CONTENTS[3]}
    assert both[0] == CONTENTS[3]  # two words starting "index", in a short message


def test_ranked_keeps_a_limit_and_ties_go_newest_first(store: Store) -> None:
    for n in range(5):
        store.add_message("t", Message("user", "same words here", created_at=T0 + timedelta(n)))
    ranked = store.ranked(Words.parse("words"), limit=3)
    assert [m.created_at for _, m, _ in ranked] == [T0 + timedelta(n) for n in (4, 3, 2)]


def test_a_pattern_cannot_be_ranked_and_a_limit_is_checked(history: Store) -> None:
    with pytest.raises(InvalidArgumentError):
        history.ranked(re.compile("gin"))
    with pytest.raises(InvalidArgumentError):
        history.ranked("gin", limit=0)


def test_an_empty_store_ranks_nothing(store: Store) -> None:
    assert store.ranked(Words.parse("anything")) == []
