"""The bench harness still runs (quick mode); zerda's fast search agrees with a full scan."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from bench.__main__ import main
from zerda import SessionStore

TRICKY = [
    ("hello world", 'quoted "text" and a back\\slash'),
    ("línea\nnueva\ttab", "emoji 🙂 and 日本語"),
    ("\u017ftraße", "Kelvin \u212a and \ufb01ne"),
    ("control \x01 char", ""),
]


def test_quick_run_writes_every_section(tmp_path: Path) -> None:
    """Every section of `python -m bench --quick`, run as it is: about 45 s alone on 2 cores
    (a minute beside other work), marked slow. The sizes are already tiny; the time is what
    the sections start and time: zerda's start-up, a PostgreSQL server, `zerda serve`, the
    browser under tmux. Checking that each section still runs takes running it."""
    assert main(["--quick", "--out", str(tmp_path), "--cache", str(tmp_path / "cache")]) == 0
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert {row["section"] for row in rows} == {
        "start-up",
        "appends",
        "last-10 read",
        "stats/search",
        "disk",
        "tokens",
        "flat memory",
        "langchain history",
        "postgres",
        "summaries",
        "import",
        "archive",
        "browse",
        "serve",
        "entities",
    }
    for section in ("archive", "browse"):
        found = [r for r in rows if r["section"] == section]
        assert found and all(r["zerda"] for r in found), found
    summaries = [r for r in rows if r["section"] == "summaries"]
    assert len(summaries) == 6 and all(r["zerda"] > 0 for r in summaries)
    for row in (r for r in rows if r["section"] == "flat memory"):
        assert row["zerda"] > 0, row["case"]
    peer = importlib.util.find_spec("langchain_community") is not None
    for row in (r for r in rows if r["section"] == "appends"):
        assert row["zerda"] > 0
        assert (row["peer"] is not None) == peer
        assert peer or row["note"] == "peer not installed"
    imported = [r for r in rows if r["section"] == "import"]
    assert imported and all(r["zerda"] > 0 for r in imported)
    assert "| section |" in (tmp_path / "results.md").read_text()


@pytest.mark.parametrize(
    "query", ["STRASSE", "fine", "kelvin k", "🙂", "日本", "nueva", '"text"', "x"]
)
def test_search_prefilter_finds_what_a_full_scan_finds(tmp_path: Path, query: str) -> None:
    store = SessionStore(tmp_path, fsync=False)
    for user, assistant in TRICKY:
        store.append_turn("s", user, assistant)
    needle = query.casefold()
    expected = [m.content for m in store.iter_messages("s") if needle in m.content.casefold()]
    assert [m.content for _, m in store.search(query)] == expected[::-1]  # newest first
