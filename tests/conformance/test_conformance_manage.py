"""Managing sessions, the same on every store: rename, fork, and the overviews a listing shows."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from zerda import (
    InvalidArgumentError,
    Memory,
    Message,
    NotFoundError,
    Session,
    SessionExistsError,
    Summary,
)
from zerda.store._overview import OPENING_CHARS
from zerda.store.base import Store


def add_turns(store: Store, session_id: str, n: int) -> None:
    for i in range(n):
        store.append_turn(session_id, f"q{i}", f"a{i}")


def contents(store: Store, session_id: str) -> list[str]:
    return [m.content for m in store.iter_messages(session_id)]


def snapshot(store: Store) -> dict[str, tuple[object, ...]]:
    """Everything each session holds, for before-and-after comparisons."""
    return {
        sid: (store.get_session(sid), store.get_memory(sid), store.session_stats(sid))
        for sid in store.session_ids()
    }


# -- rename ------------------------------------------------------------------------


def test_rename_moves_everything_to_the_new_id(store: Store) -> None:
    store.create_session("old", "ann", {"title": "Trip"})
    add_turns(store, "old", 3)
    store.set_summary("old", Summary("they talked", metadata={"turns": 2}))
    before = store.get_memory("old")
    stats = store.session_stats("old")
    store.rename_session("old", "new")
    assert store.session_ids() == ["new"]
    assert not store.exists("old")
    session = store.get_session("new")
    assert (session.id, session.user_id, session.metadata) == ("new", "ann", {"title": "Trip"})
    assert store.get_memory("new") == before
    after = store.session_stats("new")
    assert (after.messages, after.turn_count, after.token_count) == (
        stats.messages,
        stats.turn_count,
        stats.token_count,
    )
    store.append_turn("new", "q3", "a3")  # the renamed session takes writes as ever
    assert contents(store, "new")[-2:] == ["q3", "a3"]


def test_rename_refuses_a_taken_id_and_an_unknown_one_changing_nothing(store: Store) -> None:
    add_turns(store, "a", 2)
    add_turns(store, "b", 1)
    before = snapshot(store)
    with pytest.raises(SessionExistsError):
        store.rename_session("a", "b")
    with pytest.raises(NotFoundError):
        store.rename_session("missing", "c")
    assert snapshot(store) == before


def test_a_write_waiting_on_a_rename_is_not_lost(store: Store, other_store: Store) -> None:
    add_turns(store, "old", 50)
    done = threading.Event()

    def write() -> None:
        other_store.append_turn("old", "late question", "late answer")
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    store.rename_session("old", "new")
    writer.join(60)
    assert done.is_set()
    found = contents(store, "new") + (contents(store, "old") if store.exists("old") else [])
    assert found.count("late question") == 1 and len(found) == 102


# -- fork --------------------------------------------------------------------------


def test_fork_takes_the_first_turns_with_new_uuids_and_says_where_from(store: Store) -> None:
    store.create_session("src", "ann", {"title": "Trip"})
    store.add_memory("src", Memory([Message("system", "Be brief.")]))
    add_turns(store, "src", 4)
    original = list(store.iter_messages("src"))
    forked = store.fork_session("src", "copy", turns=2)
    copied = list(store.iter_messages("copy"))
    assert [m.content for m in copied] == ["Be brief.", "q0", "a0", "q1", "a1"]
    assert [m.created_at for m in copied] == [m.created_at for m in original[:5]]
    assert [m.metadata["forked_from"] for m in copied] == [m.uuid for m in original[:5]]
    assert not {m.uuid for m in copied} & {m.uuid for m in original}
    origin = {"session": "src", "turn": 2, "message": original[4].uuid}
    assert forked.metadata == {"title": "Trip", "forked_from": origin}
    assert forked.user_id == "ann"
    assert store.session_stats("copy").turn_count == 2
    assert contents(store, "src") == [m.content for m in original]


def test_fork_takes_every_turn_by_default_and_a_summary_that_fits(store: Store) -> None:
    add_turns(store, "src", 3)
    store.set_summary("src", Summary("first two", metadata={"turns": 2}))
    store.fork_session("src", "all")
    assert contents(store, "all") == contents(store, "src")
    summary = store.get_summary("all")
    assert summary is not None and summary.content == "first two"
    assert summary.uuid != store.get_summary("src").uuid  # type: ignore[union-attr]
    store.fork_session("src", "two", turns=2)
    assert store.get_summary("two") is not None
    store.fork_session("src", "one", turns=1)
    assert store.get_summary("one") is None  # it covers more than the fork holds


def test_a_summary_that_does_not_say_what_it_covers_goes_only_with_every_turn(
    store: Store,
) -> None:
    add_turns(store, "src", 2)
    store.set_summary("src", "no coverage")
    store.fork_session("src", "all")
    store.fork_session("src", "part", turns=1)
    assert store.get_summary("all") is not None and store.get_summary("part") is None


@pytest.mark.parametrize("turns", [0, -1, 4])
def test_fork_refuses_turns_out_of_range_creating_nothing(store: Store, turns: int) -> None:
    add_turns(store, "src", 3)
    before = snapshot(store)
    with pytest.raises(InvalidArgumentError):
        store.fork_session("src", "new", turns=turns)
    assert snapshot(store) == before


def test_fork_refuses_a_taken_id_and_an_unknown_source(store: Store) -> None:
    add_turns(store, "src", 1)
    add_turns(store, "taken", 1)
    before = snapshot(store)
    with pytest.raises(SessionExistsError):
        store.fork_session("src", "taken")
    with pytest.raises(NotFoundError):
        store.fork_session("missing", "new")
    assert snapshot(store) == before


def test_each_fork_gives_its_messages_uuids_of_their_own(store: Store) -> None:
    add_turns(store, "src", 2)
    store.fork_session("src", "f")
    store.rename_session("f", "g")
    store.fork_session("src", "f")
    assert not {m.uuid for m in store.iter_messages("f")} & {
        m.uuid for m in store.iter_messages("g")
    }


def test_a_session_created_meanwhile_under_the_new_id_is_left_alone(
    store: Store, other_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_turns(store, "src", 2)
    create = store.create_session

    def racing(session_id: str, *args: Any, **kwargs: Any) -> Session:
        if not other_store.exists("f"):  # another process creates f first
            other_store.create_session("f", metadata={"mine": True})
            other_store.append_turn("f", "my question", "my answer")
        return create(session_id, *args, **kwargs)

    monkeypatch.setattr(store, "create_session", racing)
    with pytest.raises(SessionExistsError):
        store.fork_session("src", "f")
    assert store.get_session("f").metadata == {"mine": True}
    assert contents(store, "f") == ["my question", "my answer"]
    assert sorted(store.session_ids()) == ["f", "src"]


def test_a_fork_that_fails_leaves_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    add_turns(store, "src", 2)
    before = snapshot(store)

    def broken(*args: Any, **kwargs: Any) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(store, "import_messages", broken)
    with pytest.raises(OSError):
        store.fork_session("src", "f")
    assert snapshot(store) == before


def test_a_fork_of_a_fork_names_its_own_source(store: Store) -> None:
    add_turns(store, "a", 2)
    store.fork_session("a", "b")
    store.fork_session("b", "c", turns=1)
    b_uuids = [m.uuid for m in store.iter_messages("b")]
    assert [m.metadata["forked_from"] for m in store.iter_messages("c")] == b_uuids[:2]
    assert store.get_session("c").metadata["forked_from"]["session"] == "b"


# -- overviews ---------------------------------------------------------------------


def test_overviews_give_title_opening_words_and_totals(store: Store) -> None:
    store.create_session("titled", metadata={"title": "Trip to Lisbon"})
    store.append_turn("titled", "Where in May?", "Lisbon.")
    store.add_memory("plain", Memory([Message("system", "Be brief.")]))
    store.append_turn("plain", "x" * 500, "ok")
    store.create_session("empty", metadata={"title": 7})
    store.create_session("blank", metadata={"title": ""})
    found = {o.session_id: o for o in store.list_overviews()}
    assert set(found) == {"titled", "plain", "empty", "blank"}
    assert found["blank"].title is None  # an empty title is none, on every store
    assert found["titled"].title == "Trip to Lisbon"
    assert found["titled"].opening == "Where in May?"
    assert found["plain"].title is None and found["plain"].opening == "x" * OPENING_CHARS
    assert found["empty"].title is None and found["empty"].opening is None
    assert found["plain"].stats.messages == 3 and found["plain"].stats.turn_count == 1
    assert found["titled"].created_at == store.get_session("titled").created_at
    data = found["titled"].to_dict()
    assert data["title"] == "Trip to Lisbon" and data["messages"] == 2


def test_overviews_come_most_recently_active_first(store: Store) -> None:
    for name, day in [("mid", 2), ("old", 1), ("new", 3)]:
        when = datetime(2026, 1, day, tzinfo=UTC)
        store.add_memory(name, Memory([Message("user", name, created_at=when)]))
    assert [o.session_id for o in store.list_overviews()] == ["new", "mid", "old"]


# -- deleting inactive sessions ----------------------------------------------------

LONG_AGO = datetime(2024, 1, 1, tzinfo=UTC)
CUTOFF = datetime(2025, 1, 1, tzinfo=UTC)


def old_session(store: Store, session_id: str, created_at: datetime = LONG_AGO) -> None:
    store.create_session(session_id, created_at=created_at)
    store.add_message(session_id, Message("user", "old", created_at=LONG_AGO))


def test_an_inactive_session_is_deleted(store: Store) -> None:
    old_session(store, "s")
    assert store.delete_session_if_inactive("s", CUTOFF) is True
    assert not store.exists("s")
    assert store.delete_session_if_inactive("s", CUTOFF) is False


def test_a_session_written_to_since_is_kept(store: Store, other_store: Store) -> None:
    old_session(store, "s")
    other_store.append_turn("s", "new", "turn")  # after a prune listed it
    assert store.delete_session_if_inactive("s", CUTOFF) is False
    assert contents(store, "s") == ["old", "new", "turn"]


def test_a_session_created_since_from_old_messages_is_kept(store: Store) -> None:
    old_session(store, "s", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert store.delete_session_if_inactive("s", CUTOFF) is False
    assert store.exists("s")
