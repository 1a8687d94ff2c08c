"""What the commands print, compared whole: each case's exit code, stdout and stderr are
tests/renders/CASE.txt exactly, on a home of two sessions written record by record (so
every uuid, time and count is known).

The plain cases are what a pipe gets; the terminal cases are what an 80-column terminal
gets (Rich, styles without colour; ESC is written ␛ in the files). After a deliberate
change of output, write the files anew with
`ZERDA_TEST_WRITE_RENDERS=1 python -m pytest tests/test_renders.py` (the files it writes
fail, so run it again without) and read the diff.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import Result, Runner

RENDERS = Path(__file__).resolve().parent / "renders"
WRITE = os.environ.get("ZERDA_TEST_WRITE_RENDERS") == "1"


def message(uuid: str, at: str, role: str, content: str, tokens: int) -> dict[str, object]:
    return {
        "type": "message",
        "uuid": uuid,
        "created_at": at,
        "role": role,
        "content": content,
        "token_count": tokens,
        "metadata": {},
    }


SESSIONS = {
    "trip": (
        {"title": "Trip to Rome"},
        [
            message("a1", "2024-05-01T08:00:01Z", "user", "Which trains go from Paris to Rome?", 9),
            message(
                "a2",
                "2024-05-01T08:00:02Z",
                "assistant",
                "The night train via Milan; about 11 hours.\nBook early in summer.",
                15,
            ),
        ],
    ),
    "gin": (
        {},
        [
            message("b1", "2024-06-02T09:30:00Z", "user", "How does a GIN index find words?", 9),
            message(
                "b2",
                "2024-06-02T09:30:05Z",
                "assistant",
                "It maps each word to the rows holding it, so a search reads only those rows.",
                18,
            ),
        ],
    ),
}

PLAIN = {
    "sessions": ["sessions"],
    "sessions-json": ["sessions", "--json"],
    "search": ["search", "train"],
    "search-words": ["search", "--words", "ROWS search"],
    "search-json": ["search", "Rome", "--json"],
    "search-nothing": ["search", "zebra"],
    "stats": ["stats", "trip"],
    "context": ["context", "trip"],
    "window": ["window", "gin", "--k", "1"],
    "title": ["title", "trip"],
    "show": ["show", "trip"],
    "show-entities": ["show", "trip", "--entities"],
    "show-markdown": ["show", "gin", "--format", "markdown"],
    "show-missing": ["show", "nosuch"],
    "usage-error": ["show", "trip", "--last", "many"],
}
TERMINAL = {
    "terminal-sessions": ["sessions"],
    "terminal-show": ["show", "trip"],
    "terminal-stats": ["stats", "trip"],
    "terminal-search": ["search", "train"],
}


@pytest.fixture
def archive(home: Path) -> Iterator[Path]:
    """`home` holding SESSIONS, read in UTC."""
    (home / "sessions").mkdir(parents=True)
    for session_id, (metadata, messages) in SESSIONS.items():
        header = {
            "type": "session",
            "version": 1,
            "id": session_id,
            "created_at": "2024-05-01T08:00:00Z",
            "user_id": "ada",
            "metadata": metadata,
            "encoding": "cl100k_base",
        }
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *messages]]
        path = home / "sessions" / f"{session_id}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        path.chmod(0o600)
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield home
    if zone is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = zone
    time.tzset()


def rendered(done: Result) -> str:
    """The run as its file holds it: ESC shown as ␛, so that styles read in the file."""
    text = f"exit {done.code}\n--- stdout\n{done.out}--- stderr\n{done.err}"
    assert "␛" not in text
    return text.replace("\x1b", "␛")


def compare(case: str, done: Result) -> None:
    """The run against its file; with ZERDA_TEST_WRITE_RENDERS=1 a file that differs is
    written anew and the test fails all the same, so that a run writing files never passes."""
    path = RENDERS / f"{case}.txt"
    text = rendered(done)
    if WRITE and (not path.exists() or path.read_text(encoding="utf-8") != text):
        path.write_text(text, encoding="utf-8")
        pytest.fail(f"wrote {path.name} anew: read the diff, then run again without the variable")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", sorted(PLAIN))
def test_plain_output(case: str, archive: Path, zerda: Runner) -> None:
    compare(case, zerda(*PLAIN[case]))


@pytest.mark.parametrize("case", sorted(TERMINAL))
def test_terminal_output(
    case: str, archive: Path, zerda: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    terminal = {"TERM": "xterm", "COLUMNS": "80", "LINES": "200", "NO_COLOR": "1"}
    terminal |= {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "TTY_INTERACTIVE": None}
    compare(case, zerda(*TERMINAL[case], env=terminal))


def test_every_render_file_is_a_case() -> None:
    assert sorted(p.stem for p in RENDERS.glob("*.txt")) == sorted({**PLAIN, **TERMINAL})
