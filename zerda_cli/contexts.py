"""The memory classes as `zerda window` and `zerda context` load them from a session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.errors import NotFoundError

if TYPE_CHECKING:
    from zerda.memory.base import BaseMemory
    from zerda.storebase import Store


def load_memory(store: Store, session_id: str, kind: str, *, k: int, max_tokens: int) -> BaseMemory:
    """The memory of `kind` bound to the session, as a program using it would load it.

    A summary memory over a session that has no stored summary yet (recorded by
    `zerda add`, say) is given the session's turns to fold, so it shows the summary
    it would hold, without writing anything.
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
        return _summarized(m.ConversationSummaryMemory(**bound), m.ConversationSummaryMemory())
    if kind == "summary-buffer":
        return _summarized(
            m.ConversationSummaryBufferMemory(max_token_limit=max_tokens, **bound),
            m.ConversationSummaryBufferMemory(max_token_limit=max_tokens),
        )
    return m.ConversationBufferMemory(**bound)


def _summarized(bound: Any, unbound: Any) -> BaseMemory:
    """`bound` if the session has a summary; else `unbound` fed every turn of the session."""
    from zerda.memory import ConversationBufferMemory

    if bound.summary:
        return bound  # type: ignore[no-any-return]
    everything = ConversationBufferMemory(store=bound.store, session_id=bound.session_id)
    unbound.system_messages = everything.system_messages
    for turn in everything.chat_memory:
        unbound.save_context({"input": turn["input"]}, {"output": turn["output"]})
    return unbound  # type: ignore[no-any-return]
