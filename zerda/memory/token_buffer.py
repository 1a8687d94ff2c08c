"""ConversationTokenBufferMemory: the newest turns that fit a token budget."""

from __future__ import annotations

from typing import Any

from zerda.errors import InvalidArgumentError
from zerda.memory.base import BaseMemory, Turn
from zerda.messages import ASK
from zerda.tokens import count_tokens


class ConversationTokenBufferMemory(BaseMemory):
    """Drops the oldest turns until the rest fit `max_token_limit` (exact tokens).

    The newest turn is always kept, even when it alone is over the budget: a model
    should never lose the exchange that was just had. `get_memory_stats()` then
    reports `over_budget: True`.
    """

    memory_type = "token"

    def __init__(self, max_token_limit: int = 2000, *args: Any, **kwargs: Any) -> None:
        if type(max_token_limit) is not int or max_token_limit < 0:
            raise InvalidArgumentError(
                f"max_token_limit must be an integer >= 0, not {max_token_limit!r}"
            )
        self.max_token_limit = max_token_limit
        self._counted: list[Turn] = []  # the turns `_counts` counted, aligned with chat_memory
        self._counts: list[int] = []
        super().__init__(*args, **kwargs)

    def _restore(self, store: Any, session_id: str) -> None:
        from zerda.memory.turns import turns_from_messages

        kept: list[Any] = []
        total = 0
        for message in store.iter_messages_reversed(session_id):
            if message.part is None:
                continue
            kept.append(message)
            total += count_tokens(message.content, self.encoding)
            if total > self.max_token_limit and message.part == ASK:
                break
        self.chat_memory.extend(turns_from_messages(reversed(kept)))
        self._drop_over_budget()

    def _trim(self) -> list[Turn]:
        return self._drop_over_budget()

    def _sync_counts(self) -> list[int]:
        """Tokens of each held turn, counting only turns added since the last call.

        `chat_memory` is public and may change behind our back (clear, user code):
        when its ends no longer match what was counted, everything is counted again.
        """
        turns, counted = self.chat_memory, self._counted
        n = len(counted)
        if n and (n > len(turns) or turns[0] is not counted[0] or turns[n - 1] is not counted[-1]):
            counted.clear()
            self._counts.clear()
        new = turns[len(counted) :]
        counted.extend(new)
        self._counts.extend(self.turn_tokens(t) for t in new)
        return self._counts

    def _drop_over_budget(self) -> list[Turn]:
        """Remove and return the oldest turns that do not fit the budget."""
        counts = self._sync_counts()
        total = sum(counts)
        drop = 0
        while total > self.max_token_limit and drop < len(counts) - 1:
            total -= counts[drop]
            drop += 1
        dropped = self.chat_memory[:drop]
        del self.chat_memory[:drop]
        del counts[:drop]
        del self._counted[:drop]
        return dropped

    def get_memory_stats(self) -> dict[str, Any]:
        """The base stats plus the budget and whether the held turns exceed it."""
        stats = super().get_memory_stats()
        stats["max_token_limit"] = self.max_token_limit
        stats["over_budget"] = stats["token_count"] > self.max_token_limit
        return stats
