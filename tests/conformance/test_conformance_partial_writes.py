"""A session written in steps (created, then its messages added), as copy and import do:
when a later step fails, a session that did not exist before is gone again, and one that
did keeps what it held. On every store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zerda import Message, SessionStore, StoreError
from zerda.importers import import_conversations
from zerda.importers._base import Conversation
from zerda.store._copying import copy_session, new_session_undone_on_failure
from zerda.store.base import Store


class FailingSource(SessionStore):
    """A file store whose `iter_messages` breaks after `good` messages (a source that
    goes away in the middle of a copy)."""

    good = 3

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        for number, message in enumerate(super().iter_messages(session_id)):
            if number == self.good:
                raise StoreError("the source went away")
            yield message


def test_a_failed_copy_leaves_no_new_session(store: Store, tmp_path: Path) -> None:
    source = FailingSource(tmp_path / "source", fsync=False)
    for turn in range(4):
        source.append_turn("s", f"q{turn}", f"a{turn}")
    with pytest.raises(StoreError, match="went away"):
        copy_session(source, store, "s")
    assert not store.exists("s")
    assert "s" not in store.session_ids()


def test_a_failed_copy_keeps_what_an_existing_session_held(store: Store, tmp_path: Path) -> None:
    store.append_turn("s", "kept question", "kept answer")
    before = [(m.uuid, m.content) for m in store.iter_messages("s")]
    source = FailingSource(tmp_path / "source", fsync=False)
    for turn in range(4):
        source.append_turn("s", f"q{turn}", f"a{turn}")
    with pytest.raises(StoreError):
        copy_session(source, store, "s")
    assert [(m.uuid, m.content) for m in store.iter_messages("s")] == before


def test_the_guard_removes_only_what_it_saw_made(store: Store) -> None:
    with pytest.raises(RuntimeError), new_session_undone_on_failure(store, "new"):
        store.create_session("new", metadata={"title": "made"})
        raise RuntimeError("the next step failed")
    assert not store.exists("new")
    store.create_session("old")
    with pytest.raises(RuntimeError), new_session_undone_on_failure(store, "old"):
        raise RuntimeError("the next step failed")
    assert store.exists("old")


def test_a_failed_import_leaves_no_new_session(store: Store) -> None:
    bad = Message("user", "fine", created_at=None)
    conversation = Conversation("chatgpt", "abc", "A title", None, [bad])

    class Refusing:
        """The store, except that adding messages fails (a full disk, a lost server)."""

        def __getattr__(self, name: str) -> object:
            return getattr(store, name)

        def import_messages(self, *args: object, **kwargs: object) -> int:
            raise StoreError("no space left on device")

    with pytest.raises(StoreError):
        import_conversations(Refusing(), iter([conversation]), strict=True)  # type: ignore[arg-type]
    assert not store.exists(conversation.session_id)


def test_what_another_writer_added_meanwhile_stays(store: Store, other_store: Store) -> None:
    with pytest.raises(RuntimeError), new_session_undone_on_failure(store, "s"):
        store.create_session("s", metadata={"title": "made by the import"})
        other_store.append_turn("s", "from another writer", "acknowledged")
        raise RuntimeError("the import failed after that")
    assert [m.content for m in store.iter_messages("s")] == ["from another writer", "acknowledged"]


def test_only_an_empty_session_is_deleted_if_empty(store: Store) -> None:
    assert store.delete_session_if_empty("missing") is False
    store.create_session("bare")
    assert store.delete_session_if_empty("bare") is True and not store.exists("bare")
    store.append_turn("full", "q", "a")
    assert store.delete_session_if_empty("full") is False and store.exists("full")
    store.create_session("summarized")
    store.set_summary("summarized", "a summary and no messages")
    assert store.delete_session_if_empty("summarized") is False
    assert store.exists("summarized")
