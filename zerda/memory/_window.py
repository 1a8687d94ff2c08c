"""ConversationBufferWindowMemory: only the last k turns."""

from __future__ import annotations

from typing import Any

from zerda.errors import InvalidArgumentError
from zerda.memory._base import BaseMemory
from zerda.memory._turns import Turn, last_turns


class ConversationBufferWindowMemory(BaseMemory):
    """The last `k` turns. Bound to a store, it reads only those from the file's end."""

    memory_type = "window"

    def __init__(self, k: int = 5, *args: Any, **kwargs: Any) -> None:
        if type(k) is not int or k < 0:
            raise InvalidArgumentError(f"k must be an integer >= 0, not {k!r}")
        self.k = k
        super().__init__(*args, **kwargs)

    def _restore(self, store: Any, session_id: str) -> None:
        self.chat_memory.extend(last_turns(store.iter_messages_reversed(session_id), self.k))

    def _trim(self) -> list[Turn]:
        excess = max(0, len(self.chat_memory) - self.k)
        dropped = self.chat_memory[:excess]
        del self.chat_memory[:excess]
        return dropped
