"""Memory specs (`buffer`, `window:K`, `token:N`, `summary:N`) and the memory each one binds.

One parser and one binding for every caller that picks a memory by name:
`zerda chat --memory` and `ZerdaChatMessageHistory(memory=...)` hand a model the same
context for the same spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zerda.errors import InvalidArgumentError
from zerda.memory._base import BaseMemory
from zerda.memory._buffer import ConversationBufferMemory
from zerda.memory._summary import ConversationSummaryBufferMemory
from zerda.memory._token_buffer import ConversationTokenBufferMemory
from zerda.memory._window import ConversationBufferWindowMemory
from zerda.store.base import Store
from zerda.summarizers._base import Summarizer

MEMORY_KINDS = ("buffer", "window", "token", "summary")
DEFAULT_SIZES = {"window": 10, "token": 2000, "buffer": 0, "summary": 2000}


@dataclass(frozen=True)
class MemorySpec:
    """Which memory class picks the context: `kind` and its size (turns or tokens).

    `summary N` keeps the newest turns verbatim within N tokens and folds older ones
    into a running summary (ConversationSummaryBufferMemory).
    """

    kind: str = "window"
    size: int = 10

    def describe(self) -> str:
        """Short form for people: `window 10`, `token 2000`, `buffer`, `summary 2000`."""
        if self.kind != "buffer":
            return f"{self.kind} {self.size}"
        return self.kind


def parse_memory(text: str) -> MemorySpec:
    """Parse `buffer`, `window [K]`, `token [N]` or `summary [N]` (also `window:K`).

    InvalidArgumentError says what is wrong.
    """
    parts = text.replace(":", " ").split()
    if not parts or parts[0] not in MEMORY_KINDS or len(parts) > 2:
        raise InvalidArgumentError(
            f"bad memory {text!r}: use buffer, window:K, token:N or summary:N"
        )
    kind = parts[0]
    if len(parts) == 1:
        return MemorySpec(kind, DEFAULT_SIZES[kind])
    if kind == "buffer":
        raise InvalidArgumentError(f"memory {kind} takes no size")
    try:
        size = int(parts[1])
    except ValueError:
        raise InvalidArgumentError(
            f"bad size {parts[1]!r} for memory {kind}: use a whole number"
        ) from None
    if size < 1:
        raise InvalidArgumentError(f"memory {kind} needs a size of at least 1")
    return MemorySpec(kind, size)


def bind_memory(
    spec: MemorySpec, store: Store, session_id: str, summarizer: Summarizer | None = None
) -> BaseMemory:
    """The memory class `spec` names, restored from and writing to the session.

    `summarizer` writes the summary of `summary` memory (default: the offline extractive
    one, whose summary is made again on binding; see `_resummarized`). A model's summary
    is taken as stored: it is made again only when the turns it covers were undone.
    """
    common: dict[str, Any] = {"store": store, "session_id": session_id, "encoding": store.encoding}
    if spec.kind == "window":
        return ConversationBufferWindowMemory(k=spec.size, **common)
    if spec.kind == "token":
        return ConversationTokenBufferMemory(max_token_limit=spec.size, **common)
    if spec.kind == "summary" and summarizer is not None:
        memory = ConversationSummaryBufferMemory(spec.size, summarizer, **common)
        memory.store_summary()  # what binding caught up, kept: not asked for again
        return memory
    if spec.kind == "summary":
        return _resummarized(ConversationSummaryBufferMemory(max_token_limit=spec.size, **common))
    return ConversationBufferMemory(**common)


def _resummarized(memory: ConversationSummaryBufferMemory) -> ConversationSummaryBufferMemory:
    """`memory` with a summary of exactly the session's turns it does not hold verbatim.

    The stored summary can lag the file: /undo and /retry rewrite the last turns, and
    a session written by other memories (or by a LangChain history) has none. It is
    made again from the turns (`resummarize`) and stored only when it differs.
    """
    memory.resummarize()
    return memory
