"""What a store gets from its primitives alone (see `zerda.store.base.Store`): searching by
reading every message, the last turn of a list of messages, the overview of a session.
The file and PostgreSQL stores answer these faster their own way; these are the
reference the conformance suite holds them to."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from zerda.errors import NotFoundError
from zerda.messages import ASK, Message
from zerda.store._matching import Filters, Matcher
from zerda.store._overview import SessionOverview, opening_of, title_of

if TYPE_CHECKING:
    from zerda.store.base import Store


def found_in(
    store: Store, matcher: Matcher, filters: Filters, session_id: str | None
) -> Iterator[tuple[str, Message]]:
    """Every (session id, message) `matcher` finds that `filters` admit, newest first: by
    time, then session id, then the later message first. Sessions are read one at a time;
    only the hits are held. NotFoundError when `session_id` is given and does not exist."""
    hits: list[tuple[float, str, int, Message]] = []
    for sid in [session_id] if session_id is not None else store.session_ids():
        try:
            for at, message in enumerate(store.iter_messages(sid)):
                if filters.admits(message) and matcher.found(message.content):
                    stamp = message.created_at.timestamp() if message.created_at else 0.0
                    hits.append((-stamp, sid, -at, message))
        except NotFoundError:
            if session_id is not None:
                raise
    hits.sort(key=lambda hit: hit[:3])
    for _, sid, _, message in hits:
        yield sid, message


def last_ask(messages: list[Message]) -> int | None:
    """Where the last turn starts: the index of the last message that asks (a user's, or
    a speaker's of no known type), None when none does."""
    for at in range(len(messages) - 1, -1, -1):
        if messages[at].part == ASK:
            return at
    return None


def overview_of(store: Store, session_id: str) -> SessionOverview:
    """The session as a listing shows it: stats, title, creation time, opening words."""
    session = store.get_session(session_id)
    return SessionOverview(
        store.session_stats(session_id),
        title_of(session.metadata),
        session.created_at,
        opening_of(store.iter_messages(session_id)),
    )
