"""`zerda search` as a search tool, on every store, run as a real process: newest first,
roles, times, a limit, patterns, `--json` offsets, and grep's exit statuses."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runner import process

from zerda import Message
from zerda.store.base import Store

NOWHERE = Path("/nonexistent")  # a home never used: each command names its store
NOW = datetime.now(UTC).replace(microsecond=0)


def hits(location: str, *args: str) -> list[str]:
    done = process(NOWHERE, "search", *args, "--json", "--store", location)
    assert done.code == 0, done.err
    return [f"{h['session_id']}:{h['content']}" for h in json.loads(done.out)]


@pytest.fixture
def history(store: Store) -> Store:
    """Two sessions interleaved in time: days ago 9 (oldest) .. 1 (newest)."""
    lines = [
        ("a", "system", "Rome rules apply", 9),
        ("b", "human", "Tell me of rome", 8),
        ("a", "user", "Where is Rome?", 7),
        ("b", "ai", "ROME is in Italy", 5),
        ("a", "assistant", "Rome is in Italy. ROME!", 3),
        ("b", "tool", "rome again, roam", 1),
    ]
    for sid, role, content, days in lines:
        store.add_message(sid, Message(role, content, created_at=NOW - timedelta(days=days)))
    return store


def test_newest_first_across_sessions(location: str, history: Store) -> None:
    assert hits(location, "rome") == [
        "b:rome again, roam",
        "a:Rome is in Italy. ROME!",
        "b:ROME is in Italy",
        "a:Where is Rome?",
        "b:Tell me of rome",
        "a:Rome rules apply",
    ]
    plain = process(NOWHERE, "search", "rome", "--limit", "2", "--store", location).out.splitlines()
    assert [line.split()[0] for line in plain] == ["b", "a"]


def test_filters(location: str, history: Store) -> None:
    assert hits(location, "rome", "--limit", "1") == ["b:rome again, roam"]
    assert hits(location, "rome", "--role", "user") == ["a:Where is Rome?", "b:Tell me of rome"]
    assert hits(location, "rome", "--role", "ai,system", "--role", "tool") == [
        "b:rome again, roam",
        "b:ROME is in Italy",
        "a:Rome rules apply",
    ]
    assert hits(location, "rome", "--since", "6d") == [
        "b:rome again, roam",
        "a:Rome is in Italy. ROME!",
        "b:ROME is in Italy",
    ]
    since = (NOW - timedelta(days=8)).isoformat()
    until = (NOW - timedelta(days=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert hits(location, "rome", "--since", since, "--until", until) == [
        "a:Where is Rome?",
        "b:Tell me of rome",
    ]
    assert hits(location, "rome", "--session", "a", "--until", "4d", "--limit", "1") == [
        "a:Where is Rome?"
    ]
    assert hits(location, r"ro(am|me)\b.*roam", "--regex") == ["b:rome again, roam"]
    assert hits(location, "^ROME", "--regex", "--role", "assistant") == [
        "a:Rome is in Italy. ROME!",
        "b:ROME is in Italy",
    ]


def test_json_gives_uuid_time_role_and_offsets(location: str, history: Store) -> None:
    done = process(
        NOWHERE, "search", "rome", "--json", "--session", "a", "--limit", "1", "--store", location
    )
    [hit] = json.loads(done.out)
    stored = history.get_memory("a").messages[-1]
    assert hit["uuid"] == stored.uuid and hit["role"] == "assistant"
    assert hit["created_at"] == stored.to_dict()["created_at"] and hit["session_id"] == "a"
    assert hit["matches"] == [[0, 4], [18, 22]]
    for query in (["ROME"], ["r.me", "--regex"], ["it", "--regex"]):
        for hit in json.loads(
            process(NOWHERE, "search", *query, "--json", "--store", location).out
        ):
            assert hit["matches"]
            for start, end in hit["matches"]:
                found = hit["content"][start:end].lower()
                assert found in ("rome", "it"), (query, found)


def test_exit_status_is_one_when_nothing_matches(location: str, history: Store) -> None:
    for args in (
        ["zzz"],
        ["zzz", "--json"],
        ["rome", "--role", "nobody"],
        ["r.m", "--since", "1h"],
    ):
        done = process(NOWHERE, "search", *args, "--store", location)
        assert done.code == 1, (args, done.err)
        assert done.out == ("[]\n" if "--json" in args else "")
    assert "no messages match 'zzz'" in process(NOWHERE, "search", "zzz", "--store", location).err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            [
                "",
            ],
            "the query is empty",
        ),
        (["a(b", "--regex"], "bad regular expression 'a(b'"),
        (["rome", "--limit", "0"], "--limit"),
        (["rome", "--limit", "x"], "--limit"),
        (["rome", "--since", "yesterday"], "bad time 'yesterday'"),
        (["rome", "--until", "3x"], "bad time '3x'"),
        (["rome", "--since", "2026-13-01"], "bad time"),
        (["rome", "--role", ","], "--role needs a role name"),
        (["rome", "--frobnicate"], "--frobnicate"),
        (["rome", "--regex", "--rank"], "--regex cannot go with --rank"),
        (["rome", "--regex", "--words"], "--regex cannot go with --words"),
        (["***", "--words"], "no words to search for in '***'"),
    ],
)
def test_bad_values_are_one_usage_line(
    location: str, history: Store, args: list[str], says: str
) -> None:
    before = [m.to_dict() for m in history.iter_messages("a")]
    done = process(NOWHERE, "search", *args, "--store", location)
    assert done.code == 2 and done.out == ""
    assert done.one_error_line() and says in done.err, done.err
    assert [m.to_dict() for m in history.iter_messages("a")] == before


def test_an_unknown_session_is_an_error(location: str, history: Store) -> None:
    # 2, as grep's trouble: scripts tell it from 1, nothing matched.
    done = process(NOWHERE, "search", "rome", "--session", "nope", "--store", location)
    assert done.code == 2 and done.err == "error: session not found: nope\n"


def test_words_find_whole_words_prefixes_and_phrases(location: str, history: Store) -> None:
    assert hits(location, "--words", "rome italy") == [
        "a:Rome is in Italy. ROME!",
        "b:ROME is in Italy",
    ]
    assert hits(location, "-w", '"is in italy"', "--session", "b") == ["b:ROME is in Italy"]
    assert hits(location, "--words", "ro*", "--role", "tool") == ["b:rome again, roam"]
    # a word part is not the word
    done = process(NOWHERE, "search", "--words", "rom", "--store", location)
    assert done.code == 1 and done.out == ""
    [hit] = json.loads(process(NOWHERE, "search", "-w", "roa*", "--json", "--store", location).out)
    assert hit["matches"] == [[12, 16]]  # the whole word the prefix starts


def test_rank_puts_the_best_first_with_its_score(location: str, history: Store) -> None:
    done = process(NOWHERE, "search", "rome", "--rank", "--json", "--store", location)
    ranked = json.loads(done.out)
    assert ranked[0]["content"] == "Rome is in Italy. ROME!"  # twice, where others once
    scores = [hit["score"] for hit in ranked]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    newest = {
        hit["content"]
        for hit in json.loads(process(NOWHERE, "search", "rome", "--json", "--store", location).out)
    }
    assert {hit["content"] for hit in ranked} == newest
    top = process(NOWHERE, "search", "-w", "rome", "--rank", "--limit", "1", "--store", location)
    assert top.code == 0 and top.out.startswith("a  ") and "ROME!" in top.out
