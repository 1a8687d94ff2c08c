"""The in-memory store gives back what the other stores would: private copies, times in
UTC, metadata as JSON; the conformance suite holds it to the rest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from zerda import InMemoryStore, InvalidMessageError, Message


def test_nothing_the_caller_holds_is_shared() -> None:
    store = InMemoryStore()
    metadata = {"tags": ["a"]}
    store.add_message("s", Message("user", "hi", metadata))
    metadata["tags"].append("b")
    store.get_memory("s").messages[0].metadata["tags"].append("c")
    store.get_session("s").metadata["x"] = 1
    assert store.get_memory("s").messages[0].metadata == {"tags": ["a"]}
    assert store.get_session("s").metadata == {}
    with pytest.raises(InvalidMessageError):
        store.add_message("s", Message("user", "hi", {"o": object()}))


def test_times_come_back_in_utc_and_metadata_as_json() -> None:
    store = InMemoryStore()
    plus5 = datetime(2024, 5, 1, 17, 0, tzinfo=timezone(timedelta(hours=5)))
    stored = store.add_message("s", Message("user", "hi", {"pair": (1, 2)}, created_at=plus5))
    assert stored.created_at == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert stored.created_at.tzinfo is UTC and stored.metadata == {"pair": [1, 2]}
    naive = store.add_message("s", Message("user", "x", created_at=datetime(2024, 1, 1)))
    assert naive.created_at is not None and naive.created_at.tzinfo is UTC
    since = datetime(2000, 1, 1, tzinfo=UTC)
    assert [m.content for _, m in store.search("x", since=since)] == ["x"]


def test_creating_an_existing_session_drops_keys_given_as_none() -> None:
    store = InMemoryStore()
    store.create_session("s", metadata={"k": 1})
    assert store.create_session("s", metadata={"k": None, "j": 2}).metadata == {"k": 1, "j": 2}


def test_searching_an_unknown_session_fails_when_read() -> None:
    found = InMemoryStore().search("x", "nobody")
    with pytest.raises(LookupError):
        next(found)


def test_a_stored_empty_role_type_is_refused_as_before() -> None:
    with pytest.raises(InvalidMessageError, match="unknown role_type ''"):
        Message.from_dict({"role": "user", "content": "x", "role_type": ""})
    assert Message.from_dict({"role": "ai", "content": "x"}).role_type == "assistant"
