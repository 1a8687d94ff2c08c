"""The memory classes as `zerda window` and `zerda context` load them from a session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.errors import NotFoundError

if TYPE_CHECKING:
    from zerda.memory._base import BaseMemory
    from zerda.store.base import Store


def load_memory(store: Store, session_id: str, kind: str, *, k: int, max_tokens: int) -> BaseMemory:
    """The memory of `kind` bound to the session, as a program using it would load it.

    A summary memory whose stored summary does not cover every turn (recorded by
    `zerda add`, say, or no summary yet) folds the rest as it is made, reading the
    session as it goes: it shows the summary it would hold, and writes nothing.
    """
    from zerda import memory as m

    if not store.exists(session_id):
        raise NotFoundError(session_id)
    bound: dict[str, Any] = {"store": store, "session_id": session_id}
    if kind == "window":
        return m.ConversationBufferWindowMemory(k=k, **bound)
    if kind == "token":
        return m.ConversationTokenBufferMemory(max_token_limit=max_tokens, **bound)
    if kind == "summary":
        return m.ConversationSummaryMemory(**bound)
    if kind == "summary-buffer":
        return m.ConversationSummaryBufferMemory(max_token_limit=max_tokens, **bound)
    return m.ConversationBufferMemory(**bound)
