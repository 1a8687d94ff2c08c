"""ConversationSummaryMemory and ConversationSummaryBufferMemory: a running summary."""

from __future__ import annotations

from typing import Any

from zerda.memory.base import BaseMemory, Turn
from zerda.memory.token_buffer import ConversationTokenBufferMemory
from zerda.summarize import ExtractiveSummarizer, Summarizer


class _SummaryMixin(BaseMemory):
    """A running summary kept beside the turns; bound sessions persist it."""

    summary: str
    summarizer: Summarizer

    def _init_summary(self, summarizer: Summarizer | None) -> None:
        self.summarizer = summarizer or ExtractiveSummarizer()
        self.summary = ""

    def _fold(self, turns: list[Turn]) -> str | None:
        """Fold `turns` into the summary; the new summary, or None when nothing changed."""
        if not turns:
            return None
        self.summary = self.summarizer(self.summary, turns)
        return self.summary

    def _derived_state(self) -> Any:
        return self.summary

    def _forget_save(self, dropped: list[Turn], state: Any) -> None:
        super()._forget_save(dropped, state)
        self.summary = state

    def _summary_line(self) -> str:
        return f"summary: {self.summary}" if self.summary else ""

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Text: the summary, then any turns held verbatim; `return_messages` adds key `summary`."""
        with self._lock:
            if self.return_messages:
                return {self.memory_key: self.chat_memory, "summary": self.summary}
            parts = [self._system_text(), self._summary_line(), self._turns_text()]
            return {self.memory_key: "\n".join(p for p in parts if p)}

    def _restore(self, store: Any, session_id: str) -> None:
        super()._restore(store, session_id)
        stored = store.get_summary(session_id)
        self.summary = stored.content if stored else ""

    def _summary_messages(self) -> list[dict[str, Any]]:
        """The summary as one system message; none while there is no summary."""
        if not self.summary:
            return []
        return [
            {"role": "system", "content": f"Summary of the conversation so far:\n{self.summary}"}
        ]

    def context_messages(self) -> list[dict[str, Any]]:
        """The system messages, the summary as a system message, then the verbatim turns."""
        messages = super().context_messages()
        at = len(self.system_messages)
        return messages[:at] + self._summary_messages() + messages[at:]

    def clear(self) -> None:
        """Forget turns and summary."""
        with self._lock:
            self.summary = ""
            super().clear()

    def get_memory_stats(self) -> dict[str, Any]:
        """The base stats plus the summary's length."""
        stats = super().get_memory_stats()
        stats["summary_characters"] = len(self.summary)
        return stats


class ConversationSummaryMemory(_SummaryMixin):
    """Folds every turn into a running summary; the summary is what it hands a model.

    `chat_memory` still keeps the turns (for `get_messages` and stats).
    """

    memory_type = "summary"

    def __init__(self, summarizer: Summarizer | None = None, *args: Any, **kwargs: Any) -> None:
        self._init_summary(summarizer)
        super().__init__(*args, **kwargs)

    def _absorb(self, turn: Turn, dropped: list[Turn]) -> str | None:
        return self._fold([turn])

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Text: the summary alone; `return_messages`: the turns plus key `summary`."""
        with self._lock:
            if self.return_messages:
                return {self.memory_key: self.chat_memory, "summary": self.summary}
            parts = [self._system_text(), self._summary_line()]
            return {self.memory_key: "\n".join(p for p in parts if p)}

    def context_messages(self) -> list[dict[str, Any]]:
        """The session's system messages, then the summary as a system message."""
        from zerda.formats.openai import to_openai

        return [to_openai(m) for m in self.system_messages] + self._summary_messages()


class ConversationSummaryBufferMemory(_SummaryMixin, ConversationTokenBufferMemory):
    """Recent turns verbatim within `max_token_limit`; older turns folded into a summary."""

    memory_type = "summary_buffer"

    def __init__(
        self,
        max_token_limit: int = 2000,
        summarizer: Summarizer | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        self._init_summary(summarizer)
        super().__init__(max_token_limit, *args, **kwargs)

    def _absorb(self, turn: Turn, dropped: list[Turn]) -> str | None:
        return self._fold(dropped)
