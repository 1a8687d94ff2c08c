"""`Store.check` and `Store.repair` on every store, and `zerda doctor` on the server:
its running totals against the counted rows, recounted in one transaction."""

from __future__ import annotations

from typing import Any

import pytest
from cli_runner import process

from zerda import NotFoundError
from zerda.store.base import Store


def test_a_healthy_store_has_no_findings(store: Store) -> None:
    assert store.check() == []
    store.append_turn("a", "q", "a")
    store.append_turn("b", "q", "a")
    assert store.check() == [] and store.check("a") == []
    done = store.repair()
    assert (done.fixed, done.saved, done.left) == ([], [], [])


def test_a_named_session_must_exist(store: Store) -> None:
    store.append_turn("a", "q", "a")
    with pytest.raises(NotFoundError):
        store.check("nope")
    with pytest.raises(NotFoundError):
        store.repair("nope")


def skew(store: Any, sid: str) -> None:
    with store.server.connection() as conn:
        conn.execute("UPDATE zerda_sessions SET messages = 99, tokens = 1 WHERE id = %s", (sid,))


def test_totals_that_disagree_with_the_rows_are_recounted(pg: Store) -> None:
    pg.append_turn("a", "q", "a")
    pg.append_turn("b", "question", "answer")
    right = pg.session_stats("b")
    skew(pg, "b")
    [finding] = pg.check()
    assert (finding.kind, finding.session_id) == ("totals", "b")
    assert "messages 99, counted 2" in finding.problem and "tokens 1, counted" in finding.problem
    assert pg.check("a") == []
    done = pg.repair()
    assert done.fixed == [finding] and done.left == []
    assert pg.check() == [] and pg.session_stats("b") == right


def test_zerda_doctor_on_the_server(pg: Store, postgres_url: str) -> None:
    pg.append_turn("a", "q", "a")
    assert process(None, "doctor", "--store", postgres_url).code == 0
    skew(pg, "a")
    found = process(None, "doctor", "--store", postgres_url)
    assert found.code == 1
    assert found.out.startswith("session a at ") and "messages 99, counted 2" in found.out
    assert found.out.count("\n") == 1
    repaired = process(None, "doctor", "a", "--repair", "--store", postgres_url)
    assert repaired.code == 0 and repaired.out.startswith("repaired: session a at ")
    assert process(None, "doctor", "--store", postgres_url).code == 0
