"""A store that keeps its sessions in this process's memory: the twelve primitives of
`Store` and nothing more, so it is the reference implementation the conformance suite
holds the file and PostgreSQL stores to, and a test double for code written against
`Store`. Everything is lost when the process ends.

    >>> store = InMemoryStore()
    >>> first, second = store.append_turn("s", "Hi", "Hello!")
    >>> [m.content for m in store.get_memory("s").messages]
    ['Hi', 'Hello!']
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, overload

from zerda._paths import validate_session_id
from zerda.errors import (
    InvalidArgumentError,
    InvalidMessageError,
    NotFoundError,
    SessionExistsError,
)
from zerda.messages import Memory, Message, Session, Summary, utc_now
from zerda.store.base import Store, last_wins, merged_metadata
from zerda.tokens import DEFAULT_ENCODING, count_tokens


@dataclass
class _Held:
    """One session: its facts, its messages in order, its latest summary."""

    session: Session
    messages: list[Message] = field(default_factory=list)
    summary: Summary | None = None


class InMemoryStore(Store):
    """Sessions in a dict, each call one step under one lock (threads may share it)."""

    def __init__(self, *, encoding: str = DEFAULT_ENCODING, extract_entities: bool = True):
        self.encoding = encoding
        self.extract_entities = extract_entities
        self._sessions: dict[str, _Held] = {}
        self._lock = threading.RLock()

    def _one_step(self) -> AbstractContextManager[object]:
        return self._lock

    def _held(self, session_id: str) -> _Held:
        validate_session_id(session_id)
        found = self._sessions.get(session_id)
        if found is None:
            raise NotFoundError(session_id)
        return found

    # -- sessions ----------------------------------------------------------------

    def create_session(
        self,
        session_id: str,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: datetime | None = None,
    ) -> Session:
        """Create the session, or update it as `update_session` does if it exists."""
        validate_session_id(session_id)
        with self._lock:
            facts = merged_metadata({}, _metadata(metadata))
            if session_id in self._sessions:
                return self.update_session(session_id, user_id, facts)
            made = _kept(Session(session_id, user_id, facts, created_at or utc_now()))
            self._sessions[session_id] = _Held(made)
            return _kept(made)

    def update_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Set the user (when given) and merge `metadata` (a key set to None is removed)."""
        with self._lock:
            held = self._held(session_id)
            old = held.session
            facts = merged_metadata(old.metadata, _metadata(metadata))
            user = old.user_id if user_id is None else user_id
            held.session = _kept(Session(old.id, user, facts, old.created_at))
            return _kept(held.session)

    def get_session(self, session_id: str) -> Session:
        """The session's id, user, metadata and creation time."""
        with self._lock:
            return _kept(self._held(session_id).session)

    def session_ids(self) -> list[str]:
        """The ids of all sessions, sorted."""
        with self._lock:
            return sorted(self._sessions)

    def delete_session(self, session_id: str) -> None:
        """Remove the session and everything in it."""
        with self._lock:
            self._held(session_id)
            del self._sessions[session_id]

    def rename_session(self, old: str, new: str) -> None:
        """Give session `old` the id `new`, in one step."""
        validate_session_id(new)
        with self._lock:
            held = self._held(old)
            if new in self._sessions:
                raise SessionExistsError(new)
            held.session = replace(held.session, id=new)
            self._sessions[new] = self._sessions.pop(old)

    # -- messages ----------------------------------------------------------------

    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Add the messages (a uuid the session holds replaces that message in place,
        its time kept unless given) and the summary, in one step."""
        validate_session_id(session_id)
        batch = [_kept(m) for m in last_wins(memory.messages)]
        summary = self._stamp_summary(memory.summary)
        summary = _kept(summary) if summary is not None else None
        with self._lock:
            held = self._sessions.get(session_id) or _Held(Session(session_id, None, {}, utc_now()))
            where = {m.uuid: n for n, m in enumerate(held.messages)}
            messages = list(held.messages)
            stored = []
            for message in batch:
                at = where.get(message.uuid) if message.uuid else None
                if at is None:
                    stored.append(_kept(self._stamp(message)))
                    messages.append(stored[-1])
                else:
                    stored.append(_kept(self._revised(messages[at], message)))
                    messages[at] = stored[-1]
            held.messages = messages
            held.summary = summary or held.summary
            self._sessions[session_id] = held
        return [_kept(m) for m in stored]

    def _revised(self, old: Message, new: Message) -> Message:
        """`new` in place of `old`: old's time unless new has one, counted now."""
        new = self._with_entities(new)
        count = count_tokens(new.content, self.encoding) if new.token_count is None else None
        return replace(
            new,
            created_at=new.created_at or old.created_at,
            token_count=new.token_count if count is None else count,
        )

    def set_summary(self, session_id: str, summary: Summary | str) -> Summary:
        """Record the session's running summary (the latest one wins)."""
        validate_session_id(session_id)
        stamped = self._stamp_summary(summary)
        assert stamped is not None
        stored = _kept(stamped)
        with self._lock:
            if session_id not in self._sessions:
                self._sessions[session_id] = _Held(Session(session_id, None, {}, utc_now()))
            self._sessions[session_id].summary = stored
        return _kept(stored)

    def get_summary(self, session_id: str) -> Summary | None:
        """The latest summary, or None."""
        with self._lock:
            found = self._held(session_id).summary
        return _kept(found) if found is not None else None

    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """Every message, oldest first (as they were when asked)."""
        with self._lock:
            held = list(self._held(session_id).messages)
        return (_kept(m) for m in held)

    def replace_messages(self, session_id: str, messages: list[Message]) -> None:
        """Make the session's messages exactly `messages`, in one step."""
        stored = [_kept(self._stamp(m)) for m in last_wins(messages)]
        with self._lock:
            self._held(session_id).messages = stored

    def clear(self, session_id: str) -> None:
        """Empty the session (messages and summary); the session and its metadata stay."""
        with self._lock:
            held = self._held(session_id)
            held.messages, held.summary = [], None


def _metadata(metadata: object) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidArgumentError("session metadata must be a dict")
    return metadata


@overload
def _kept(value: Message) -> Message: ...
@overload
def _kept(value: Session) -> Session: ...
@overload
def _kept(value: Summary) -> Summary: ...
def _kept(value: Message | Session | Summary) -> Message | Session | Summary:
    """A copy of `value` as the other stores give it back: through its JSON form, so
    nothing the caller holds is shared, times are in UTC and metadata is JSON (tuples
    become lists). What they cannot keep either is refused: values that are not JSON,
    text that is not UTF-8 (a lone surrogate), NaN and infinities."""
    what = type(value).__name__.lower()
    try:
        text = json.dumps(value.to_dict(), ensure_ascii=False, allow_nan=False)
        text.encode()
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidMessageError(f"cannot store this {what}: {exc}") from None
    data = json.loads(text)
    if isinstance(value, Message):
        return Message.from_dict(data)
    if isinstance(value, Session):
        return Session.from_dict(data)
    found = Summary.coerce(data)
    assert found is not None
    return found
