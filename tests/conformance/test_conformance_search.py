"""Search on every store: newest first across sessions, roles, times, a limit, patterns,
and where each match is."""

from __future__ import annotations

import asyncio
import re
import warnings
from datetime import UTC, datetime, timedelta

import pytest

from zerda import InvalidArgumentError, Message, NotFoundError
from zerda.store._matching import Matcher
from zerda.store.base import Store

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["file", "postgres", "indexed"])
def kind(request: pytest.FixtureRequest) -> str:
    """Every store, and the file store answering from its archive index."""
    return str(request.param)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def put(store: Store, sid: str, role: str, content: str, minutes: int) -> None:
    store.add_message(sid, Message(role, content, created_at=at(minutes)))


@pytest.fixture
def history(store: Store) -> Store:
    """Two sessions whose messages interleave in time (minutes 0..6)."""
    put(store, "a", "system", "Rome rules apply", 0)
    put(store, "b", "human", "Tell me of rome", 1)
    put(store, "a", "user", "Where is Rome?", 2)
    put(store, "b", "ai", "ROME is in Italy", 3)
    put(store, "a", "assistant", "Rome is in Italy.", 4)
    put(store, "b", "Alice", "rome again, roam", 5)
    put(store, "a", "tool", "nothing here", 6)
    return store


def found(store: Store, query: str | re.Pattern[str], **filters: object) -> list[str]:
    return [f"{sid}:{m.content}" for sid, m in store.search(query, **filters)]  # type: ignore[arg-type]


def test_newest_first_across_sessions(history: Store) -> None:
    assert found(history, "rome") == [
        "b:rome again, roam",
        "a:Rome is in Italy.",
        "b:ROME is in Italy",
        "a:Where is Rome?",
        "b:Tell me of rome",
        "a:Rome rules apply",
    ]
    assert found(history, "rome", session_id="a") == [
        "a:Rome is in Italy.",
        "a:Where is Rome?",
        "a:Rome rules apply",
    ]


def test_newest_first_by_time_whatever_order_messages_were_added(store: Store) -> None:
    # Imports and explicit times add messages out of time order: the rule is the time
    # (created_at), newest first; equal times: sessions in id order, then the one added last.
    put(store, "a", "user", "rome 1", 5)
    put(store, "a", "user", "rome 2", 1)
    put(store, "b", "user", "rome 3", 3)
    put(store, "b", "user", "rome 4", 3)
    put(store, "a", "user", "rome 5", 3)
    put(store, "c", "user", "rome 6", 0)
    put(store, "c", "user", "rome 7", 2)
    expected = ["a:rome 1", "a:rome 5", "b:rome 4", "b:rome 3", "c:rome 7", "a:rome 2"]
    expected.append("c:rome 6")
    for query in ("rome", re.compile("ROME", re.I)):
        assert found(store, query) == expected
        for limit in range(1, 8):
            assert found(store, query, limit=limit) == expected[:limit]
        assert found(store, query, session_id="a") == [h for h in expected if h[0] == "a"]
        assert found(store, query, session_id="a", limit=2) == ["a:rome 1", "a:rome 5"]


def test_limit_keeps_the_newest(history: Store) -> None:
    assert found(history, "rome", limit=2) == ["b:rome again, roam", "a:Rome is in Italy."]
    assert found(history, "ROME", session_id="b", limit=1) == ["b:rome again, roam"]
    assert found(history, re.compile("i.aly", re.I), limit=1) == ["a:Rome is in Italy."]


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_a_bad_limit_is_refused(history: Store, limit: object) -> None:
    with pytest.raises(InvalidArgumentError):
        history.search("rome", limit=limit)  # type: ignore[arg-type]


def test_roles_match_a_role_or_a_role_type(history: Store) -> None:
    assert found(history, "rome", roles=["user"]) == [
        "a:Where is Rome?",
        "b:Tell me of rome",  # a human is a user
    ]
    assert found(history, "rome", roles=["Alice", "system"]) == [
        "b:rome again, roam",
        "a:Rome rules apply",
    ]
    assert found(history, "rome", roles=["ai"]) == ["b:ROME is in Italy"]
    assert found(history, "rome", roles=["nobody"]) == []


def test_since_is_inclusive_and_until_exclusive(history: Store) -> None:
    assert found(history, "rome", since=at(3), until=at(5)) == [
        "a:Rome is in Italy.",
        "b:ROME is in Italy",
    ]
    assert found(history, "rome", since=at(6)) == []
    assert found(history, "rome", until=at(1)) == ["a:Rome rules apply"]


def test_naive_times_are_refused(history: Store) -> None:
    with pytest.raises(InvalidArgumentError):
        history.search("rome", since=datetime(2026, 1, 1))


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (re.compile(r"\broam\b", re.I), ["b:rome again, roam"]),
        (re.compile(r"e\s+a"), ["b:rome again, roam"]),
        (
            re.compile("^rome", re.I),
            [
                "b:rome again, roam",
                "a:Rome is in Italy.",
                "b:ROME is in Italy",
                "a:Rome rules apply",
            ],
        ),
        (re.compile("^rome"), ["b:rome again, roam"]),
        (re.compile(r"\?$"), ["a:Where is Rome?"]),
        (re.compile(r"italy\.?$", re.I), ["a:Rome is in Italy.", "b:ROME is in Italy"]),
        (re.compile("(?i)WHERE"), ["a:Where is Rome?"]),
        (re.compile("o{2}"), []),
        (re.compile("x{"), []),
    ],
)
def test_patterns_match_as_python_does(
    history: Store, pattern: re.Pattern[str], expected: list[str]
) -> None:
    assert found(history, pattern) == expected
    assert found(history, pattern, limit=1) == expected[:1]


NEWEST_FIRST = [
    "a:nothing here",
    "b:rome again, roam",
    "a:Rome is in Italy.",
    "b:ROME is in Italy",
    "a:Where is Rome?",
    "b:Tell me of rome",
    "a:Rome rules apply",
]


@pytest.mark.parametrize(
    "text",
    ["o++m", "Ital?+y", "(o)*+m", "[a-z--b]ome", "[a-z&&r]ome", "[r~~x]ome", "[r||x]ome"],
)
def test_patterns_the_server_reads_otherwise_match_as_python_does(
    history: Store, text: str
) -> None:
    # Possessive quantifiers, and what Python may one day read as class set operations.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        pattern = re.compile(text)
    expected = [hit for hit in NEWEST_FIRST if pattern.search(hit.split(":", 1)[1])]
    assert found(history, pattern) == expected


def test_dollar_matches_before_a_final_newline(store: Store) -> None:
    put(store, "s", "user", "ends with newline\n", 0)
    assert found(store, re.compile("newline$")) == ["s:ends with newline\n"]


def test_patterns_fold_case_beyond_ascii(store: Store) -> None:
    put(store, "s", "user", "\u212aelvin and \u017ftraße", 0)  # Kelvin sign, long s
    put(store, "s", "user", "plain kelvin", 1)
    assert found(store, re.compile("kelvin", re.I)) == [
        "s:plain kelvin",
        "s:\u212aelvin and \u017ftraße",
    ]
    assert found(store, re.compile("STRASSE", re.I)) == []  # re folds one character to one
    assert found(store, "STRASSE") == ["s:\u212aelvin and \u017ftraße"]


def test_match_offsets_point_into_the_content(history: Store) -> None:
    queries: list[str | re.Pattern[str]] = ["rome", "ROME", re.compile("ro(me|am)", re.I)]
    for query in queries:
        matcher = Matcher(query)
        for _, message in history.search(query):
            spans = matcher.spans(message.content)
            assert spans, message.content
            for start, end in spans:
                assert message.content[start:end].casefold() in ("rome", "roam")


def test_offsets_of_folded_characters() -> None:
    assert Matcher("ss").spans("Straße ss") == [(4, 5), (7, 9)]
    assert Matcher("STRASSE").spans("x straße") == [(2, 8)]
    assert Matcher("\u212a").spans("ok K") == [(1, 2), (3, 4)]
    assert Matcher("").spans("any") == []
    assert Matcher(re.compile("a*")).spans("baa") == [(1, 3)]
    # Two matches inside one character's fold are one span, never two alike or overlapping.
    assert Matcher("s").spans("straße") == [(0, 1), (4, 5)]
    assert Matcher("sss").spans("ßßß") == [(0, 3)]


def test_a_named_session_must_exist(history: Store) -> None:
    with pytest.raises(NotFoundError):
        list(history.search("rome", session_id="nope", roles=["user"]))


def test_the_async_twin_takes_the_filters(history: Store) -> None:
    hits = asyncio.run(history.asearch("rome", roles=["assistant"], limit=5))
    assert [m.content for _, m in hits] == ["Rome is in Italy.", "ROME is in Italy"]
