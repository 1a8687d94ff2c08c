"""Copying sessions between stores, losslessly and idempotently, written once against the
store interface: files to a server, a server to files, or any store to any other.

Everything a session holds goes across: its user, metadata and creation time, every
message with its uuid, time, role, role type, content, token count, metadata and extra
fields, and its summary with its uuid, time and count. Messages are matched by uuid,
so copying again replaces them in place and adds nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from zerda.errors import ZerdaError
from zerda.messages import Message

if TYPE_CHECKING:
    from zerda.store._sources import UuidSet
    from zerda.store.base import Store

# Told how many messages of a session have been read so far (on each pass over them).
Progress = Callable[[int], None]


class StoreSource:
    """A session of a store as a `MessageSource` (zerda.store._sources): its messages, oldest
    first, read afresh on each pass, keyed by position.

    `at` walks forward from the last message it gave, so keys asked for in order (as a
    merge asks for them) cost one pass in all.
    """

    holds_uuids = True  # every stored message has one

    def __init__(self, store: Store, session_id: str, progress: Progress | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.progress = progress
        self._cursor: Iterator[tuple[int, Message]] | None = None
        self._at = -1
        self._message: Message | None = None

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        for key, message in enumerate(self.store.iter_messages(self.session_id)):
            if self.progress is not None and key % 1000 == 999:
                self.progress(key + 1)
            yield key, message

    def at(self, key: int) -> Message:
        if self._cursor is None or key < self._at:
            self._cursor = iter(enumerate(self.store.iter_messages(self.session_id)))
            self._at, self._message = -1, None
        while self._at < key:
            self._at, self._message = next(self._cursor)
        assert self._message is not None
        return self._message

    def may_hold(self, uuid: bytes) -> bool:
        return True  # a wrong yes costs the target a lookup, never data

    def latest(self, uuids: UuidSet) -> dict[str, int]:
        if not uuids:
            return {}
        return {
            message.uuid: key
            for key, message in self
            if message.uuid and message.uuid.encode() in uuids
        }


def copy_session(
    source: Store, target: Store, session_id: str, progress: Progress | None = None
) -> int:
    """Copy one session from `source` into `target`; returns how many messages it holds.

    The target's session is created with the source's facts (or, if it exists, has
    them merged in, as `create_session` does); the messages and the summary go in one
    write (`import_messages`): a copy that fails leaves the target's messages as they were,
    and a session it created removed again.
    """
    facts = source.get_session(session_id)
    summary = source.get_summary(session_id)
    with new_session_undone_on_failure(target, session_id):
        target.create_session(
            session_id, facts.user_id, facts.metadata, created_at=facts.created_at
        )
        return target.import_messages(
            session_id, StoreSource(source, session_id, progress), summary
        )


@contextlib.contextmanager
def new_session_undone_on_failure(store: Store, session_id: str) -> Iterator[None]:
    """For a session written in more than one step (created, then its messages added):
    should a step fail, a session that did not exist before is removed again if it is
    still empty, so a failed copy or import leaves no empty session behind, and what
    another writer added to it meanwhile stays. The step's error is raised."""
    created = not store.exists(session_id)
    try:
        yield
    except BaseException:
        if created:
            with contextlib.suppress(ZerdaError):  # the step's own error is the one to see
                store.delete_session_if_empty(session_id)
        raise
