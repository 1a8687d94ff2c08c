"""Word queries: how a text is read into terms, and where in a message each matches."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zerda.errors import InvalidArgumentError
from zerda.store._matching import Matcher
from zerda.store._words import Term, Words


@pytest.mark.parametrize(
    "text, terms",
    [
        ("gin index", [Term(("gin",)), Term(("index",))]),
        ('"gin index" tok*', [Term(("gin", "index")), Term(("tok",), True)]),
        ('"gin ind*"', [Term(("gin", "ind"), True)]),
        ("Foo.Bar don't", [Term(("foo", "bar")), Term(("don", "t"))]),
        ('"unclosed phrase here', [Term(("unclosed", "phrase", "here"))]),
        ("ÉTÉ Straße", [Term(("été",)), Term(("strasse",))]),
        ("gin gin GIN", [Term(("gin",))]),
        ("foo_bar", [Term(("foo_bar",))]),
    ],
)
def test_terms_of_a_text(text: str, terms: list[Term]) -> None:
    assert list(Words.parse(text).terms) == terms


@pytest.mark.parametrize("text", ["", "   ", "***", '""', "-- !"])
def test_a_text_without_words_is_refused(text: str) -> None:
    with pytest.raises(InvalidArgumentError, match="no words"):
        Words.parse(text)


def test_the_words_are_printed_as_they_are_read() -> None:
    assert str(Words.parse('GIN "a  b" c*')) == 'gin "a b" c*'


@pytest.mark.parametrize(
    "query, content, spans",
    [
        ("gin", "Gin, gin and ginger", [(0, 3), (5, 8)]),
        ("gin*", "Gin and ginger", [(0, 3), (8, 14)]),
        ('"gin and"', "GIN  and tonic; gin-and", [(0, 8), (16, 23)]),
        ("strasse", "die Straße", [(4, 10)]),
        ("ss", "Straße", []),
        ("index gin", "the GIN index", [(4, 7), (8, 13)]),
        ("gin ind*", "a gin index", [(2, 5), (6, 11)]),
    ],
)
def test_where_words_match(query: str, content: str, spans: list[tuple[int, int]]) -> None:
    matcher = Matcher(Words.parse(query))
    assert matcher.spans(content) == spans
    assert matcher.found(content) == bool(spans)


def test_every_term_must_be_found() -> None:
    matcher = Matcher(Words.parse("gin tonic"))
    assert matcher.found("Gin and tonic") and not matcher.found("gin and soda")
    assert matcher.counts("gin, gin, tonic") == [2, 1]


@given(st.lists(st.sampled_from(["gin", "Gin", "ginger", "x", " ", ".", "ß", "SS", "ss"])))
def test_a_match_is_always_the_casefolded_word(parts: list[str]) -> None:
    content = "".join(parts)
    for query in ("gin", "ss", "gin*"):
        matcher = Matcher(Words.parse(query))
        for start, end in matcher.spans(content):
            word = content[start:end].casefold()
            assert word.startswith(query.rstrip("*")), (content, query, word)
            assert query.endswith("*") or word == query.rstrip("*")
            before, after = content[start - 1 : start], content[end : end + 1]
            assert not before.isalnum() and not after.isalnum()


def test_each_word_of_a_message_is_found_by_its_own_query() -> None:
    rng = random.Random(7)
    words = ["alpha", "Beta", "gamma_1", "δέλτα", "ÉPÉE", "x2"]
    for _ in range(200):
        content = " ".join(rng.choice(words) for _ in range(6))
        for word in content.split():
            assert Matcher(Words.parse(word)).found(content)
