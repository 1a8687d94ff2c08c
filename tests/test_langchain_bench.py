"""The LangChain history benchmark runs (quick sizes) and puts the three histories side by side."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from bench.langchain_history import PEERS, QUICK_COUNTS, SECTION, langchain_history
from bench.suites import QUICK


def test_quick_langchain_rows(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    rows = langchain_history(QUICK, tmp_path / "cache", tmp_path)
    peers = all(importlib.util.find_spec(m) for m in ("langchain_community", "sqlalchemy"))
    assert {row.section for row in rows} == {SECTION}
    assert all(row.zerda and row.zerda > 0 for row in rows)
    for count in QUICK_COUNTS:
        for case in ("add_messages (one turn)", "messages (every message)"):
            found = [r for r in rows if r.case.startswith(f"{count:,} msgs: {case}")]
            if peers:
                assert sorted(r.peer_name for r in found) == sorted(PEERS.values())
                assert all(r.peer and r.peer > 0 for r in found)
            else:
                assert [r.note for r in found] == ["peer not installed"]
