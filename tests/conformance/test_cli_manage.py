"""rename, fork, title, sessions, prune and the --since/--until filters of show and export,
run as the installed command on every store: each bad value is one error line with the
right exit code, and leaves every session as it was."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runner import process

from zerda import Memory, Message, Summary
from zerda.store.base import Store

NOW = datetime.now(UTC)


def at(days_ago: float) -> datetime:
    return NOW - timedelta(days=days_ago)


def seed(store: Store) -> None:
    """trip: 3 turns 10, 5 and 1 days ago (titled); old: 1 turn 100 days ago."""
    store.create_session("trip", metadata={"title": "Trip planning"})
    for n, days in enumerate([10, 5, 1]):
        when = at(days)
        store.add_memory(
            "trip",
            Memory(
                [Message("user", f"q{n}", created_at=when), Message("ai", f"a{n}", created_at=when)]
            ),
        )
    store.create_session("old", created_at=at(100))
    store.add_memory(
        "old",
        Memory(
            [
                Message("user", "An old\nquestion", created_at=at(100)),
                Message("ai", "ok", created_at=at(100)),
            ]
        ),
    )


def state(store: Store, home: Path) -> object:
    """What the store holds: every session's facts, messages, summary and stats, and (for
    files) every file's bytes."""
    held = {
        sid: (store.get_session(sid), store.get_memory(sid), store.session_stats(sid))
        for sid in store.session_ids()
    }
    sessions = home / "sessions"
    files = {p.name: p.read_bytes() for p in sessions.iterdir()} if sessions.is_dir() else {}
    return held, files


def the_tests_home() -> Path:
    """The test's home: the `home` fixture (which `seeded` and `location` use) exports it."""
    return Path(os.environ["ZERDA_HOME"])


def fails(code: int, *args: str, location: str, text: str = "") -> str:
    """Run a command that must fail with `code` and one error line; that line."""
    done = process(the_tests_home(), *args, "--store", location)
    assert done.code == code, done.err
    assert done.out == "" and done.one_error_line(), done.err
    assert done.err.startswith("error: ") and text in done.err
    return done.err


def ok(*args: str, location: str) -> str:
    done = process(the_tests_home(), *args, "--store", location)
    assert done.code == 0, done.err
    return done.out


@pytest.fixture
def seeded(store: Store, home: Path) -> Store:
    seed(store)
    return store


# -- rename ------------------------------------------------------------------------


def test_rename(seeded: Store, location: str) -> None:
    before = seeded.get_memory("trip")
    ok("rename", "trip", "lisbon", location=location)
    assert seeded.session_ids() == ["lisbon", "old"]
    assert seeded.get_memory("lisbon") == before
    assert seeded.get_session("lisbon").metadata["title"] == "Trip planning"


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("trip", "old"), "session already exists: old"),
        (("missing", "new"), "session not found: missing"),
    ],
)
def test_rename_refusals(
    seeded: Store, home: Path, location: str, args: tuple[str, ...], text: str
) -> None:
    before = state(seeded, home)
    fails(1, "rename", *args, location=location, text=text)
    assert state(seeded, home) == before


def test_rename_to_a_bad_id_is_a_usage_error(seeded: Store, home: Path, location: str) -> None:
    before = state(seeded, home)
    fails(2, "rename", "trip", "../x", location=location)
    assert state(seeded, home) == before


# -- fork --------------------------------------------------------------------------


def test_fork_at_a_turn_and_whole(seeded: Store, location: str) -> None:
    seeded.set_summary("trip", Summary("first turn", metadata={"turns": 1}))
    ok("fork", "trip", "early", "--at", "2", location=location)
    assert [m.content for m in seeded.iter_messages("early")] == ["q0", "a0", "q1", "a1"]
    origin = seeded.get_session("early").metadata["forked_from"]
    assert (origin["session"], origin["turn"]) == ("trip", 2)
    assert seeded.get_summary("early") is not None
    ok("fork", "trip", "all", location=location)
    assert seeded.session_stats("all").turn_count == 3
    shown = ok("show", "all", "--json", location=location)
    assert json.loads(shown)["session"]["metadata"]["forked_from"]["turn"] == 3


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (("--at", "4"), 2, "it has 3 turn(s)"),
        (("--at", "0"), 2, "--at must be 1 or more"),
        (("--at", "-1"), 2, "--at must be 1 or more"),
        (("--at", "x"), 2, "--at"),
    ],
)
def test_fork_refuses_a_turn_out_of_range(
    seeded: Store, home: Path, location: str, args: tuple[str, ...], code: int, text: str
) -> None:
    before = state(seeded, home)
    fails(code, "fork", "trip", "new", *args, location=location, text=text)
    assert state(seeded, home) == before


def test_fork_refuses_a_taken_id_and_a_missing_source(
    seeded: Store, home: Path, location: str
) -> None:
    before = state(seeded, home)
    fails(1, "fork", "trip", "old", location=location, text="session already exists: old")
    fails(1, "fork", "missing", "new", location=location, text="session not found: missing")
    assert state(seeded, home) == before


# -- title -------------------------------------------------------------------------


def test_title_set_print_and_clear(seeded: Store, home: Path, location: str) -> None:
    assert ok("title", "trip", location=location) == "Trip planning\n"
    ok("title", "old", "  Old things ", location=location)
    assert ok("title", "old", location=location) == "Old things\n"
    ok("title", "old", "-", location=location)
    assert ok("title", "old", location=location) == ""
    ok("title", "trip", "--clear", location=location)
    assert "title" not in seeded.get_session("trip").metadata
    before = state(seeded, home)
    fails(2, "title", "trip", "x", "--clear", location=location, text="not both")
    fails(2, "title", "trip", " ", location=location, text="the title is empty")
    fails(1, "title", "missing", "x", location=location, text="session not found")
    assert state(seeded, home) == before


# -- sessions ----------------------------------------------------------------------


def listed(*args: str, location: str) -> list[str]:
    return [s["session_id"] for s in json.loads(ok("sessions", "--json", *args, location=location))]


def test_sessions_shows_titles_or_opening_words(seeded: Store, location: str) -> None:
    lines = ok("sessions", location=location).splitlines()
    assert lines[0].split() == ["SESSION", "MESSAGES", "TOKENS", "LAST_ACTIVITY", "TITLE"]
    assert lines[1].startswith("trip") and lines[1].endswith("Trip planning")
    assert lines[2].startswith("old") and lines[2].endswith("An old question")
    data = json.loads(ok("sessions", "--json", location=location))
    assert [(d["title"], d["opening"]) for d in data] == [
        ("Trip planning", "q0"),
        (None, "An old\nquestion"),
    ]


def test_sessions_filters_sorts_and_cuts(seeded: Store, location: str) -> None:
    seeded.append_turn("fresh", "x" * 80, "y")
    assert listed(location=location) == ["fresh", "trip", "old"]
    assert listed("--since", "7d", location=location) == ["fresh", "trip"]
    assert listed("--until", "2d", location=location) == ["old"]
    since = at(200).date().isoformat()
    assert listed("--since", since, "--until", "7d", location=location) == ["old"]
    assert listed("--limit", "1", location=location) == ["fresh"]
    assert listed("--reverse", location=location) == ["old", "trip", "fresh"]
    assert listed("--sort", "name", location=location) == ["fresh", "old", "trip"]
    assert listed("--sort", "messages", "-n", "1", location=location) == ["trip"]
    assert listed("--sort", "tokens", "--reverse", location=location)[-1] == "trip"
    assert listed("--sort", "created", location=location)[0] == "fresh"
    line = ok("sessions", "--sort", "name", location=location).splitlines()[1]
    assert line.endswith("x" * 49 + "…")


@pytest.mark.parametrize(
    "args",
    [("--since", "7x"), ("--until", "yesterday"), ("--limit", "0"), ("--sort", "size")],
)
def test_sessions_bad_values(
    seeded: Store, home: Path, location: str, args: tuple[str, ...]
) -> None:
    before = state(seeded, home)
    fails(2, "sessions", *args, location=location, text=args[0])
    assert state(seeded, home) == before


# -- show and export --since/--until -------------------------------------------------


def test_show_and_export_keep_the_messages_in_range(seeded: Store, location: str) -> None:
    def shown(*args: str) -> list[str]:
        lines = ok("show", "trip", "--jsonl", *args, location=location).splitlines()
        return [json.loads(line)["content"] for line in lines if '"content"' in line]

    assert shown("--since", "7d") == ["q1", "a1", "q2", "a2"]
    assert shown("--until", "7d") == ["q0", "a0"]
    assert shown("--since", "7d", "--until", "2d") == ["q1", "a1"]
    assert shown("--since", "7d", "--last", "1") == ["a2"]
    assert shown("--since", "1h") == []
    exported = ok("export", "trip", "--format", "openai", "--since", "2d", location=location)
    assert [m["content"] for m in json.loads(exported)] == ["q2", "a2"]


@pytest.mark.parametrize("command", ["show", "export"])
@pytest.mark.parametrize("args", [("--since", "30q"), ("--until", "2026-13-01")])
def test_show_and_export_bad_times(
    seeded: Store, home: Path, location: str, command: str, args: tuple[str, ...]
) -> None:
    before = state(seeded, home)
    fails(2, command, "trip", *args, location=location, text=args[0])
    assert state(seeded, home) == before


# -- prune -------------------------------------------------------------------------


def test_prune_dry_run_lists_and_deletes_nothing(seeded: Store, home: Path, location: str) -> None:
    before = state(seeded, home)
    done = process(home, "prune", "--older-than", "30d", "--dry-run", "--store", location)
    assert done.code == 0, done.err
    assert [line.split()[0] for line in done.out.splitlines()] == ["SESSION", "old"]
    assert "would delete 1 session" in done.err
    assert state(seeded, home) == before


def test_prune_deletes_with_yes(seeded: Store, home: Path, location: str) -> None:
    done = process(home, "prune", "--older-than", "30d", "--yes", "--store", location)
    assert done.code == 0 and "deleted 1 session" in done.err
    assert seeded.session_ids() == ["trip"]
    again = process(home, "prune", "--older-than", "30d", "--yes", "--store", location)
    assert again.code == 0 and "no session to prune" in again.err


def test_prune_keeps_a_session_created_since_from_old_messages(
    seeded: Store, location: str
) -> None:
    seeded.add_message("imported", Message("user", "q", created_at=at(700)))  # an import
    ok("prune", "--older-than", "30d", "--yes", location=location)
    assert seeded.session_ids() == ["imported", "trip"]


def test_prune_uses_the_retention_setting(seeded: Store, home: Path, location: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[history]\nretention = "7d"\n')
    ok("prune", "--yes", location=location)
    assert seeded.session_ids() == ["trip"]  # its last activity was a day ago


@pytest.mark.parametrize(
    ("args", "config", "text"),
    [
        (("--older-than", "30 days", "--yes"), None, "bad duration"),
        (("--older-than", "30d"), None, "pass --yes or --dry-run"),
        (("--yes",), None, "--older-than 30d, or retention"),
        (("--yes",), 'retention = "soon"', "retention under [history]"),
        (("--yes",), "retention = 7", "retention in [history] must be a span"),
    ],
)
def test_prune_refusals(
    seeded: Store, home: Path, location: str, args: tuple[str, ...], config: str | None, text: str
) -> None:
    if config:
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(f"[history]\n{config}\n")
    before = state(seeded, home)
    fails(2, "prune", *args, location=location, text=text)
    assert state(seeded, home) == before
