"""ConversationTokenBufferMemory: the newest turns whose context fits a token budget."""

from __future__ import annotations

from typing import Any

from zerda.errors import InvalidArgumentError
from zerda.memory._base import BaseMemory
from zerda.memory._budget import REPLY_PRIMING, chat_tokens, message_tokens
from zerda.memory._turns import Turn, turn_lines, turn_messages, turns_from_messages
from zerda.messages import ASK
from zerda.tokens import count_tokens, get_counter

Cost = tuple[int, int]  # tokens as text, tokens as chat messages
NEAR = 2  # tokens a meeting of two pieces of text may add (1 seen in 10^6 random tries)


class ConversationTokenBufferMemory(BaseMemory):
    """Drops the oldest turns until what a model gets fits `max_token_limit`.

    The budget bounds both forms of the context, counted exactly with the memory's
    encoding: the `load_memory_variables` text, and `context_messages()` as the chat
    API counts them (per-message framing included; see `zerda.memory._budget`). The
    session's system messages count against it and are never dropped. The newest
    turn is always kept, even when it (with the system messages) is over the budget:
    a model should never lose the exchange that was just had. `get_memory_stats()`
    then reports `over_budget: True`.
    """

    memory_type = "token"

    def __init__(self, max_token_limit: int = 2000, *args: Any, **kwargs: Any) -> None:
        if type(max_token_limit) is not int or max_token_limit < 0:
            raise InvalidArgumentError(
                f"max_token_limit must be an integer >= 0, not {max_token_limit!r}"
            )
        self.max_token_limit = max_token_limit
        self._counted: list[Turn] = []  # the turns `_costs` counted, aligned with chat_memory
        self._costs: list[Cost] = []
        super().__init__(*args, **kwargs)

    def _restore(self, store: Any, session_id: str) -> None:
        self.chat_memory.extend(self._newest_turns(store, session_id))
        self._drop_over_budget()

    def _newest_turns(self, store: Any, session_id: str) -> list[Turn]:
        """The newest turns of the session whose content alone could fit the budget
        (their context costs more), read from the file's end."""
        kept: list[Any] = []
        total = 0
        for message in store.iter_messages_reversed(session_id):
            if message.part is None:
                continue
            kept.append(message)
            total += count_tokens(message.content, self.encoding)
            if total > self.max_token_limit and message.part == ASK:
                break
        return turns_from_messages(reversed(kept))

    def _trim(self) -> list[Turn]:
        return self._drop_over_budget()

    # -- what the context costs --------------------------------------------------

    def _prefix_text(self) -> str:
        """The text before the turns: the system lines."""
        return self._system_text()

    def _prefix_messages(self) -> list[dict[str, Any]]:
        """The messages before the turns: the session's system messages."""
        from zerda.formats.openai import to_openai

        return [to_openai(m) for m in self.system_messages]

    def _context_text(self) -> str:
        """Exactly the text `load_memory_variables` returns."""
        return "\n".join(p for p in (self._prefix_text(), self._turns_text()) if p)

    def _prefix_cost(self) -> Cost:
        prefix = self._prefix_text()
        text = count_tokens(prefix, self.encoding) if prefix else 0
        chat = REPLY_PRIMING + sum(
            message_tokens(m, self.encoding) for m in self._prefix_messages()
        )
        return text, chat

    def _turn_cost(self, turn: Turn) -> Cost:
        """A turn's tokens in the text (its lines, after a newline) and as chat messages."""
        text = count_tokens("\n" + turn_lines(turn), self.encoding)
        return text, sum(message_tokens(m, self.encoding) for m in turn_messages(turn))

    def _sync_costs(self) -> list[Cost]:
        """The cost of each held turn, counting only turns added since the last call.

        `chat_memory` is public and may change behind our back (clear, user code):
        when its ends no longer match what was counted, everything is counted again.
        """
        turns, counted = self.chat_memory, self._counted
        n = len(counted)
        if n and (n > len(turns) or turns[0] is not counted[0] or turns[n - 1] is not counted[-1]):
            counted.clear()
            self._costs.clear()
        new = turns[len(counted) :]
        counted.extend(new)
        self._costs.extend(self._turn_cost(t) for t in new)
        return self._costs

    def _drop_count(self, reserve: Cost = (0, 0)) -> int:
        """How many of the oldest turns must go for the rest to fit (the newest stays)."""
        costs = self._sync_costs()
        prefix = self._prefix_cost()
        text = prefix[0] + reserve[0] + sum(c[0] for c in costs)
        chat = prefix[1] + reserve[1] + sum(c[1] for c in costs)
        drop = 0
        while drop < len(costs) - 1 and max(text, chat) > self.max_token_limit:
            text -= costs[drop][0]
            chat -= costs[drop][1]
            drop += 1
        return drop

    def _drop(self, count: int) -> list[Turn]:
        """Remove and return the `count` oldest turns."""
        dropped = self.chat_memory[:count]
        del self.chat_memory[:count]
        del self._costs[:count]
        del self._counted[:count]
        return dropped

    def _drop_over_budget(self) -> list[Turn]:
        """Remove and return the oldest turns that do not fit the budget."""
        dropped = self._drop(self._drop_count())
        while len(self.chat_memory) > 1 and not self._text_fits():
            dropped += self._drop(1)
        return dropped

    def _text_fits(self) -> bool:
        """Whether the exact text is within the budget.

        The pieces' counts add up to the text's, give or take a token where two pieces
        meet (a newline after punctuation or blanks may merge with it): the text is
        counted whole only when their sum comes within NEAR tokens a piece of the budget.
        """
        pieces = len(self._sync_costs()) + 2
        estimate = self._prefix_cost()[0] + sum(c[0] for c in self._costs)
        if estimate + NEAR * pieces <= self.max_token_limit:
            return True
        return self._text_tokens() <= self.max_token_limit

    def _text_tokens(self) -> int:
        # Not memoised: each save makes a new text, which would only crowd the cache.
        return get_counter(self.encoding).count(self._context_text())

    def context_tokens(self) -> int:
        """Tokens of what this memory hands a model: the larger of its text's count and
        its `context_messages()` counted as the chat API counts them."""
        with self._lock:
            return max(self._text_tokens(), chat_tokens(self.context_messages(), self.encoding))

    def get_memory_stats(self) -> dict[str, Any]:
        """The base stats plus the budget, the context's tokens and whether they exceed it."""
        stats = super().get_memory_stats()
        stats["max_token_limit"] = self.max_token_limit
        stats["context_tokens"] = self.context_tokens()
        stats["over_budget"] = stats["context_tokens"] > self.max_token_limit
        return stats
