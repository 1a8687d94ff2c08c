"""Forking a session: a new session holding the first turns of another, written once
against the store interface (see `Store.fork_session`).

The copy is streamed (`import_messages` reads a `MessageSource` over the source
session), so memory stays flat however long the session is. Messages keep their
role, content, time, token count and extra fields; each gets a new uuid (a uuid
names one message of the store), derived from the fork (one random salt per fork)
and its original, so every pass over the source gives the same ones, and the
original is kept in the message's metadata under `forked_from`.

The copy is made under a session id of its own (`fork-<hex>`) and renamed to the new
id in one step, which refuses an id taken meanwhile: a session someone else creates
under it is never written to. A process killed before the rename leaves that
`fork-<hex>` session behind.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from zerda.errors import InvalidArgumentError, SessionExistsError
from zerda.messages import ANSWER, ASK, Message, Session, Summary, covered_turns
from zerda.store._copying import StoreSource

if TYPE_CHECKING:
    from zerda.store._sources import UuidSet
    from zerda.store.base import Store

FORKED_FROM = "forked_from"  # session metadata: where the fork came from; message: its uuid
_NAMESPACE = uuidlib.UUID("6f1c3c52-2a43-4d6c-9a51-1e4a2b7c0f35")


def fork(store: Store, source: str, new: str, turns: int | None) -> Session:
    """Make session `new` from the first `turns` turns of `source` (None: all of them).

    Checked before anything is written: `source` exists (NotFoundError), `new` does not
    (SessionExistsError), `turns` is between 1 and the turns `source` holds
    (InvalidArgumentError). Returns the new session.
    """
    facts = store.get_session(source)
    held = store.session_stats(source).turn_count
    if turns is not None and (type(turns) is not int or not 1 <= turns <= held):
        raise InvalidArgumentError(
            f"cannot fork session {source} at turn {turns}: it has {held} turn(s)"
        )
    if store.exists(new):
        raise SessionExistsError(new)
    cut, salt = (held if turns is None else turns), uuidlib.uuid4().hex
    messages = FirstTurns(store, source, salt, cut)
    origin = {"session": source, "turn": cut, "message": messages.last_uuid()}
    draft = f"fork-{salt}"
    store.create_session(draft, facts.user_id, {**facts.metadata, FORKED_FROM: origin})
    try:
        summary = _summary_within(store.get_summary(source), cut, held)
        store.import_messages(draft, messages, summary)
        store.rename_session(draft, new)
    except BaseException:
        store.delete_session(draft)  # ours alone: its id is random
        raise
    return store.get_session(new)


def _summary_within(summary: Summary | None, turns: int, held: int) -> Summary | None:
    """The summary, renewed, when it covers no more than `turns` turns (one that does
    not say what it covers only when every turn is taken), else None."""
    if summary is None:
        return None
    covered = covered_turns(summary)
    fits = turns == held if covered is None else covered <= turns
    return replace(summary, uuid=None) if fits else None


class FirstTurns(StoreSource):
    """The messages of a session's first `turns` turns (and what sits between them),
    with uuids of their own for the fork `salt` names: a `MessageSource`.

    A turn opens with a message that asks, or with an answer no question opened (as
    the running totals count turns); the copy stops before the one opening turn
    `turns + 1`.
    """

    holds_uuids = True

    def __init__(self, store: Store, session_id: str, salt: str, turns: int) -> None:
        super().__init__(store, session_id)
        self.salt = salt
        self.turns = turns

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        for key, message in self._kept():
            yield key, self._renamed(message)

    def at(self, key: int) -> Message:
        return self._renamed(super().at(key))

    def may_hold(self, uuid: bytes) -> bool:
        return False  # a new session holds nothing to replace

    def latest(self, uuids: UuidSet) -> dict[str, int]:
        return {}

    def last_uuid(self) -> str | None:
        """The original uuid of the last message the fork takes."""
        last = None
        for _, message in self._kept():
            last = message.uuid
        return last

    def _kept(self) -> Iterator[tuple[int, Message]]:
        opened, asked = 0, False
        for key, message in super().__iter__():
            part = message.part
            if part == ASK or (part == ANSWER and not asked):
                opened += 1
            if opened > self.turns:
                return
            asked = part == ASK or (asked and part != ANSWER)
            yield key, message

    def _renamed(self, message: Message) -> Message:
        original = message.uuid or ""
        metadata: dict[str, Any] = {**message.metadata, FORKED_FROM: original}
        uuid = str(uuidlib.uuid5(_NAMESPACE, f"{self.salt}/{original}"))
        return replace(message, uuid=uuid, metadata=metadata)
