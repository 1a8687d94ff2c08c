"""The memory a `zerda chat` session uses: the class a spec names, bound to the session file."""

from __future__ import annotations

from typing import Any

from zerda.memory import (
    BaseMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationTokenBufferMemory,
)
from zerda.memory.turns import turns_from_messages
from zerda.store import SessionStore
from zerda_cli.config import MemorySpec


def bind_memory(spec: MemorySpec, store: SessionStore, session_id: str) -> BaseMemory:
    """The memory class `spec` names, restored from and writing to the session."""
    common: dict[str, Any] = {"store": store, "session_id": session_id, "encoding": store.encoding}
    if spec.kind == "window":
        return ConversationBufferWindowMemory(k=spec.size, **common)
    if spec.kind == "token":
        return ConversationTokenBufferMemory(max_token_limit=spec.size, **common)
    if spec.kind == "summary":
        return _resummarized(ConversationSummaryBufferMemory(max_token_limit=spec.size, **common))
    return ConversationBufferMemory(**common)


def _resummarized(memory: ConversationSummaryBufferMemory) -> ConversationSummaryBufferMemory:
    """`memory` with a summary of exactly the session's turns it does not hold verbatim.

    The stored summary can lag the file: /undo and /retry rewrite the last turns, and
    a session written by other memories has none. It is recomputed from the turns
    (offline and deterministic) and stored only when it differs.
    """
    store, session_id = memory.store, memory.session_id
    if store is None or session_id is None or not store.exists(session_id):
        return memory
    turns = turns_from_messages(store.iter_messages(session_id))
    older = turns[: len(turns) - len(memory.chat_memory)]
    summary = memory.summarizer("", older) if older else ""
    if summary != memory.summary:
        store.set_summary(session_id, summary)
        memory.summary = summary
    return memory
