"""The memory a `zerda chat` session uses: the class a spec names, bound to the session,
with its summary written offline or by the chat's own model (`--summarizer model`).

Binding is the library's `zerda.memory._spec.bind_memory`, so `zerda chat --memory` and
`ZerdaChatMessageHistory(memory=...)` build the same context.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from zerda.clients._base import Ending, Messages, Reply
from zerda.errors import ClientError, SummarizerError
from zerda.memory._spec import MemorySpec, bind_memory
from zerda_cli.chat.streaming import in_background
from zerda_cli.chat.terminal import sigint_raises

if TYPE_CHECKING:
    from zerda.memory._base import BaseMemory
    from zerda.store.base import Store
    from zerda.summarizers._base import Summarizer
    from zerda_cli.chat.backends import Backend
    from zerda_cli.chat.config import ChatConfig

__all__ = ["Cancellable", "bind_chat_memory", "bind_memory", "chat_summarizer"]


def chat_summarizer(
    config: ChatConfig, spec: MemorySpec, backend: Backend, encoding: str
) -> Summarizer | None:
    """The summarizer of summary memory: the chat's own model under `--summarizer model`
    (within the bound summary memory gives its summary), else None (the offline one)."""
    if config.summarizer != "model" or spec.kind != "summary":
        return None
    from zerda.memory._summary import summary_buffer_bound
    from zerda.summarizers._model import ModelSummarizer
    from zerda_cli.chat.backends import ManualBackend

    if isinstance(backend, ManualBackend):
        return None  # refused when the config is read: nobody to ask
    bound = summary_buffer_bound(spec.size)
    return ModelSummarizer(Cancellable(backend), bound, encoding=encoding)


class Cancellable:
    """The chat's backend as its summarizer asks it: Ctrl-C during a summary request ends
    that request (the program is stopped, the connection closed) and fails the summary,
    as any error of the model does, even while a turn is being saved (when Ctrl-C is
    otherwise held off). The turn is recorded all the same; see `Chat.record`."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.name = backend.name
        self.model = backend.model

    def reply(self, messages: Messages) -> Reply:
        inner = self.backend.reply(messages)

        def produce(ending: Ending) -> Iterator[str]:
            # Read in a worker thread (see `streaming`), so Ctrl-C is raised at once even
            # while the backend stalls; the request is then ended by `cancel`.
            with sigint_raises():
                try:
                    text = "".join(in_background(inner, self.backend.cancel))
                except KeyboardInterrupt:
                    raise ClientError("cancelled (Ctrl-C)") from None
            ending.model = inner.provenance.model if inner.provenance else None
            yield text

        return Reply(self.backend.name, self.backend.model, produce)

    def cancel(self) -> None:
        self.backend.cancel()


def bind_chat_memory(
    spec: MemorySpec, store: Store, session_id: str, summarizer: Summarizer | None
) -> tuple[BaseMemory, SummarizerError | None]:
    """The memory `spec` names, bound to the session; and None, or the error of a
    summarizer that could not bring the summary up to date on binding.

    Then the chat goes on with the newest turns that fit the same budget (token
    memory) until a later binding succeeds: nothing stored is lost or rewritten.
    """
    try:
        return bind_memory(spec, store, session_id, summarizer), None
    except SummarizerError as exc:
        return bind_memory(MemorySpec("token", spec.size), store, session_id), exc
