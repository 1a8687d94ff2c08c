"""Ranking on the file store: what one damaged session, a repeated uuid or a short term
does to a ranked search, and the same scores with and without the archive index."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_runner import Result, process

from zerda import Message, SessionStore
from zerda.store._words import Words


def zerda(home: Path, *args: str) -> Result:
    """`zerda ARGS` on `home` as a real process, colour off, on a plain PATH."""
    return process(home, *args, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def test_a_damaged_session_elsewhere_does_not_stop_a_ranked_search(home: Path) -> None:
    store = SessionStore(home)
    store.append_turn("a1", "hello tok world", "answer")
    store.append_turn("b1", "other", "x")
    with open(home / "sessions" / "b1.jsonl", "ab") as file:
        file.write(b'{"type":"message", broken\n')
    for args in (["tok", "--rank"], ["tok", "--rank", "--session", "a1"], ["-w", "tok", "--rank"]):
        done = zerda(home, "search", *args, "--json")
        assert done.code == 0, done.err
        assert [hit["content"] for hit in json.loads(done.out)] == ["hello tok world"]
    assert zerda(home, "search", "broken").code == 2  # a damaged line a search must read


def test_each_hit_has_its_own_score_when_uuids_repeat(home: Path) -> None:
    store = SessionStore(home)
    store.add_message("s", Message("user", "alpha beta"))
    store.add_message("s", Message("user", "alpha alpha alpha alpha beta"))
    path = home / "sessions" / "s.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    second = json.loads(lines[-1])
    twin = {k: v for k, v in second.items() if k in ("type", "uuid", "role", "content")}
    twin.update(created_at=second["created_at"], content="alpha beta beta beta")
    with open(path, "ab") as file:
        file.write(json.dumps(twin).encode() + b"\n")
    ranked = json.loads(zerda(home, "search", "alpha", "--rank", "--json").out)
    scores = [hit["score"] for hit in ranked]
    assert ranked[0]["content"] == "alpha alpha alpha alpha beta"
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)


@pytest.mark.parametrize("query", ["go gin", "go", '"go to" gin', "gin tonic*"])
def test_the_index_gives_the_same_scores_as_the_files(tmp_path: Path, query: str) -> None:
    indexed = SessionStore(tmp_path, fsync=False)
    indexed.index_from = 0
    texts = ["go gin", "gin and tonic", "go to the gin bar", "go go go", "nothing", "Gin, go!"]
    for n in range(80):
        indexed.add_message(f"s{n}", Message("user", texts[n % len(texts)] + f" {n}"))
    plain = SessionStore(tmp_path, fsync=False, use_index=False)
    words = Words.parse(query)
    with_index = [(sid, m.uuid, round(s, 9)) for sid, m, s in indexed.ranked(words)]
    without = [(sid, m.uuid, round(s, 9)) for sid, m, s in plain.ranked(words)]
    assert with_index == without and with_index


def test_a_limit_too_large_for_any_store_is_one_line(home: Path) -> None:
    SessionStore(home).append_turn("s", "tok", "x")
    done = zerda(home, "search", "tok", "--limit", str(sys.maxsize + 1))
    assert done.code == 2 and done.one_error_line() and "limit" in done.err
