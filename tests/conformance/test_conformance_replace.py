"""Replacing a session's messages, the same on every store: exactly the new ones, in
one step, the summary and the session's facts kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from zerda import InvalidMessageError, Message, NotFoundError, Summary
from zerda.store.base import Store

T = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _held(store: Store, session_id: str) -> list[tuple[str | None, str, datetime | None]]:
    return [(m.uuid, m.content, m.created_at) for m in store.iter_messages(session_id)]


def test_replace_messages_leaves_exactly_the_new_ones(store: Store) -> None:
    store.create_session("s", "ann", {"title": "Trip"})
    first, _ = store.append_turn("s", "q1", "a1")
    store.append_turn("s", "q2", "a2")
    store.set_summary("s", Summary("they talked"))
    kept = Message("user", "q1 again", uuid=first.uuid, created_at=first.created_at)
    new = Message("assistant", "a new reply", uuid="u-new", created_at=T)
    store.replace_messages("s", [kept, new, Message("user", "later")])
    held = _held(store, "s")
    assert held[:2] == [(first.uuid, "q1 again", first.created_at), ("u-new", "a new reply", T)]
    assert [c for _, c, _ in held] == ["q1 again", "a new reply", "later"]
    assert held[2][0] and held[2][2]  # a uuid and a time, as any write gives
    assert store.get_summary("s").content == "they talked"  # type: ignore[union-attr]
    assert store.get_session("s").metadata == {"title": "Trip"}
    stats = store.session_stats("s")
    assert (stats.messages, stats.turn_count) == (3, 2)
    assert all(m.token_count for m in store.iter_messages("s"))
    store.append_turn("s", "q3", "a3")  # the session takes writes as ever
    assert [c for _, c, _ in _held(store, "s")][-2:] == ["q3", "a3"]


def test_replace_messages_of_an_unknown_session_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.replace_messages("nope", [Message("user", "q")])


def test_a_message_that_cannot_be_stored_changes_nothing(store: Store) -> None:
    store.append_turn("s", "q1", "a1")
    before = _held(store, "s")
    with pytest.raises(InvalidMessageError):
        store.replace_messages("s", [Message("user", "fine"), Message("user", "bad \ud800")])
    assert _held(store, "s") == before
