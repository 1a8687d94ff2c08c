"""Summarizers that ask a model, through any `zerda.clients` client: HTTP or a command.

The model is asked to rewrite the summary so far with the new turns, within a word
count that fits the token budget; turns are sent in batches of at most
`batch_tokens`, each batch folded into the summary the previous one made. Whatever
the model writes is cut to the budget. A client failure (connection refused, HTTP
error, a stream cut short, a program's non-zero exit) or an empty reply raises
SummarizerError (a ZerdaError; the client's error is its cause), and the memory keeps
its previous summary.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from zerda.errors import SummarizerError, ZerdaError
from zerda.summarizers._base import (
    DEFAULT_SUMMARY_TOKENS,
    TurnLike,
    check_budget,
    fit,
    turns_as_lines,
)
from zerda.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from zerda.clients._base import ChatClient

KEY_VARIABLES = ("ZERDA_API_KEY", "OPENAI_API_KEY")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
BATCH_TOKENS = 6000
WORDS_PER_TOKEN = 0.75  # English prose: about three words for every four tokens
INSTRUCTIONS = (
    "You keep a running summary of a conversation between a user and an assistant. "
    "Rewrite the summary so far so that it also covers the new lines. Keep names, "
    "numbers, dates, decisions and what the user said about themselves; drop small "
    "talk and repetition. Write plain sentences, oldest first, in at most {words} "
    "words. Reply with the summary only."
)


def api_key_from_environment() -> str | None:
    """The API key from ZERDA_API_KEY or OPENAI_API_KEY (never a file, never an argument)."""
    for name in KEY_VARIABLES:
        if os.environ.get(name):
            return os.environ[name]
    return None


class ModelSummarizer:
    """Folds turns into the summary by asking `client` (a `zerda.clients` ChatClient).

    `describe()` names the client (`openai`, `command`) and its model, for the stored
    summary's metadata.
    """

    def __init__(
        self,
        client: ChatClient,
        max_summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
        *,
        batch_tokens: int = BATCH_TOKENS,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        self.client = client
        self.max_summary_tokens = check_budget(max_summary_tokens)
        self.batch_tokens = check_budget(batch_tokens)
        self.encoding = encoding

    @property
    def name(self) -> str:
        """The client's name: `openai` or `command`."""
        return self.client.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.client!r})"

    def describe(self) -> dict[str, Any]:
        """`{"summarizer": client name, "model": its model}` for the stored summary."""
        found: dict[str, Any] = {"summarizer": self.client.name}
        if self.client.model:
            found["model"] = self.client.model
        return found

    def __call__(self, previous_summary: str, new_turns: Sequence[TurnLike]) -> str:
        return self.summarize(previous_summary, new_turns, self.max_summary_tokens)

    def summarize(
        self, previous_summary: str, new_turns: Sequence[TurnLike], max_tokens: int
    ) -> str:
        """The summary of `previous_summary` and `new_turns` within `max_tokens` (and
        never more than `max_summary_tokens`): one request per batch of turns."""
        budget = min(max_tokens, self.max_summary_tokens)
        summary = previous_summary
        for lines in self._batches(new_turns):
            summary = self._ask(summary, lines, budget)
        return summary

    def _batches(self, turns: Sequence[TurnLike]) -> Iterator[str]:
        """The turns as `user:`/`assistant:` lines, in batches of at most `batch_tokens`
        (a turn longer than that alone is cut to it)."""
        batch: list[str] = []
        size = 0
        for turn in turns:
            lines = fit(turns_as_lines([turn]), self.batch_tokens, self.encoding)
            if not lines:
                continue
            cost = count_tokens(lines, self.encoding) + 1
            if batch and size + cost > self.batch_tokens:
                yield "\n".join(batch)
                batch, size = [], 0
            batch.append(lines)
            size += cost
        if batch:
            yield "\n".join(batch)

    def _ask(self, previous: str, lines: str, budget: int) -> str:
        words = max(1, int(budget * WORDS_PER_TOKEN))
        request = (
            f"Summary so far:\n{previous or '(nothing yet)'}\n\n"
            f"New lines of the conversation:\n{lines}"
        )
        messages = [
            {"role": "system", "content": INSTRUCTIONS.format(words=words)},
            {"role": "user", "content": request},
        ]
        try:
            text = self.client.reply(messages).read().strip()
        except ZerdaError as exc:  # the client's error (never the key), as a summarizer's
            raise SummarizerError(
                f"the {self.client.name} summarizer failed: {exc}; the summary is unchanged"
            ) from exc
        if not text:
            raise SummarizerError(
                f"the {self.client.name} summarizer got an empty reply; the summary is unchanged"
            )
        return fit(text, budget, self.encoding)


class OpenAISummarizer(ModelSummarizer):
    """A model behind an OpenAI-compatible `/chat/completions` endpoint.

    The key is read from ZERDA_API_KEY or OPENAI_API_KEY when the summarizer is made,
    and goes only to `base_url`'s origin, as for `zerda chat --backend openai`.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = DEFAULT_MODEL,
        max_summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
        *,
        timeout: float = 60.0,
        batch_tokens: int = BATCH_TOKENS,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        from zerda.clients._openai import OpenAIClient

        client = OpenAIClient(base_url, model, api_key_from_environment(), timeout)
        super().__init__(client, max_summary_tokens, batch_tokens=batch_tokens, encoding=encoding)


class CommandSummarizer(ModelSummarizer):
    """A program run per batch of turns, as `zerda chat --command` runs one per reply:
    the request on its stdin (`{"messages": [...]}` JSON, or `role: content` lines with
    `text_format`), its stdout the new summary. It must exit with status 0; the API
    key it inherits is redacted from what it prints."""

    def __init__(
        self,
        command: str | Sequence[str],
        max_summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
        *,
        text_format: bool = False,
        batch_tokens: int = BATCH_TOKENS,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        from zerda.clients._command import CommandClient

        client = CommandClient(command, text_format=text_format, secret=api_key_from_environment())
        super().__init__(client, max_summary_tokens, batch_tokens=batch_tokens, encoding=encoding)
