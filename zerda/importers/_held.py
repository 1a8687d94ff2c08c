"""What a re-import takes from what the store already holds: the session a
conversation went to, the title the user gave it, and, for sources that cannot say it
themselves, the times of messages already imported (a source that records no times)
and the uuid of the first message of a cache that dropped older ones (a source whose
uuids depend on the message before)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zerda.importers._base import Conversation
from zerda.messages import Message
from zerda.store.base import Store


def session_id_of(
    store: Store, conversation: Conversation, prefix: str | None, single: bool
) -> str:
    """The session of `conversation`: `<its session id>`, or with `prefix`,
    `PREFIX-<that>`, or `PREFIX` itself for the only conversation of an export; but
    either of those two when it already holds this conversation (an import of one
    conversation, then of more, or the other way round, finds it)."""
    if prefix is None:
        return conversation.session_id
    named = f"{prefix}-{conversation.session_id}"
    for candidate in (prefix, named):
        if store.exists(candidate) and _holds(store, candidate, conversation):
            return candidate
    return prefix if single else named


def _holds(store: Store, session_id: str, conversation: Conversation) -> bool:
    held = store.get_session(session_id).metadata
    return (held.get("source"), held.get("source_id")) == (
        conversation.source,
        conversation.source_id,
    )


def metadata_for(held: dict[str, Any] | None, conversation: Conversation) -> dict[str, Any]:
    """The metadata to write for `conversation` into a session holding `held` (None: a
    new session): without `title` when the user changed it in zerda (it differs from the
    source's title last imported), so a re-import never undoes `zerda title`."""
    if held is None or held.get("title") in (None, held.get("source_title")):
        return conversation.metadata
    return {k: v for k, v in conversation.metadata.items() if k != "title"}


def lined_up(conversation: Conversation, held: list[Message]) -> list[Message]:
    """The conversation's messages with the times and uuids they take from `held`."""
    messages = conversation.messages
    if conversation.rolling:
        messages = _first_uuids(messages, held)
    if not conversation.timed:
        messages = _held_times(messages, held)
    return messages


def _held_times(messages: list[Message], held: list[Message]) -> list[Message]:
    """Each message the session holds keeps the time it was stored with: only new
    messages take the source's (the file's) time."""
    times = {m.uuid: m.created_at for m in held}
    return [replace(m, created_at=times.get(m.uuid) or m.created_at) for m in messages]


def _first_uuids(messages: list[Message], held: list[Message]) -> list[Message]:
    """`messages` whose first held message (at `k` in `held`) follows messages whose
    uuids could not be derived (their predecessors were dropped): those take the uuids
    of the held messages before `k` when they say the same."""
    place = {m.uuid: k for k, m in enumerate(held)}
    for j, message in enumerate(messages):
        k = place.get(message.uuid)
        if k is None:
            continue
        before = held[k - j : k]
        if j == 0 or k < j or list(map(_said, before)) != list(map(_said, messages[:j])):
            return messages
        return [
            replace(m, uuid=h.uuid) for m, h in zip(messages[:j], before, strict=True)
        ] + messages[j:]
    return messages


def _said(m: Message) -> tuple[object, ...]:
    return (m.role, m.content, m.extra)
