"""SessionStore.replace_last_turn: the last turn swapped for a new one in one rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_store_faults import add_turns, rewrite_killed_at, session_path, strict_contents

from zerda import Message, SessionChangedError, SessionStore, StoreError
from zerda.messages import Summary


def _text(summary: Summary | None) -> str | None:
    """The text of a stored summary, or None."""
    return summary.content if summary else None


def test_the_last_turn_is_replaced_and_everything_else_kept(store: SessionStore) -> None:
    store.create_session("s", user_id="ana", metadata={"topic": "maps"})
    add_turns(store, 3)
    store.set_summary("s", "earlier talk")
    old_user = store.get_memory("s", lastn=2).messages[0]

    user, assistant = store.replace_last_turn("s", "q2", "a better a2", replaces=old_user.uuid)

    stored = list(store.iter_messages("s"))
    assert [m.content for m in stored] == ["q0", "a0", "q1", "a1", "q2", "a better a2"]
    assert [m.uuid for m in stored[-2:]] == [user.uuid, assistant.uuid]
    assert user.uuid != old_user.uuid
    assert assistant.token_count == stored[-1].token_count == 4
    assert _text(store.get_summary("s")) == "earlier talk"
    session = store.get_session("s")
    assert (session.user_id, session.metadata) == ("ana", {"topic": "maps"})


def test_a_session_that_moved_on_is_left_as_it_was(store: SessionStore) -> None:
    add_turns(store, 2)
    seen = store.get_memory("s", lastn=2).messages[0]
    store.append_turn("s", "q2", "written by another process")
    before = session_path(store).read_bytes()
    with pytest.raises(SessionChangedError) as caught:
        store.replace_last_turn("s", "q1", "new a1", replaces=seen.uuid)
    assert isinstance(caught.value, StoreError)
    assert session_path(store).read_bytes() == before


def test_a_session_without_a_user_message_gets_the_turn_appended(store: SessionStore) -> None:
    store.add_message("s", Message("system", "Be brief."))
    store.replace_last_turn("s", "q", "a")
    assert [m.content for m in store.iter_messages("s")] == ["Be brief.", "q", "a"]
    with pytest.raises(SessionChangedError):
        SessionStore(store.home).replace_last_turn("s", "q", "b", replaces="not-there")


def test_killed_at_any_step_the_file_holds_the_old_turn_or_the_new_one(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    add_turns(store, 20)
    path = session_path(store)
    original = path.read_bytes()
    old = strict_contents(home)
    new = [*old[:-2], "q19", "new a19"]
    outcomes = set()
    finished = False
    step = 0
    while not finished:
        step += 1
        path.write_bytes(original)
        finished = rewrite_killed_at(
            store, lambda: SessionStore(home).replace_last_turn("s", "q19", "new a19"), step
        )
        now = strict_contents(home)
        assert now in (old, new)
        outcomes.add("new" if now == new else "old")
    assert outcomes == {"old", "new"}  # the kill points covered the rename
