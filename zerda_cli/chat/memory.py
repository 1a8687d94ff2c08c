"""The memory a `zerda chat` session uses: the class a spec names, bound to the session,
with its summary written offline or by the chat's own model (`--summarizer model`).

Binding is the library's `zerda.memory.spec.bind_memory`, so `zerda chat --memory` and
`ZerdaChatMessageHistory(memory=...)` build the same context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zerda.errors import SummarizerError
from zerda.memory.spec import MemorySpec, bind_memory

if TYPE_CHECKING:
    from zerda.memory.base import BaseMemory
    from zerda.store.base import Store
    from zerda.summarizers.base import Summarizer
    from zerda_cli.chat.backends import Backend
    from zerda_cli.config import ChatConfig

__all__ = ["bind_chat_memory", "bind_memory", "chat_summarizer"]


def chat_summarizer(
    config: ChatConfig, spec: MemorySpec, backend: Backend, encoding: str
) -> Summarizer | None:
    """The summarizer of summary memory: the chat's own model under `--summarizer model`
    (within the bound summary memory gives its summary), else None (the offline one)."""
    if config.summarizer != "model" or spec.kind != "summary":
        return None
    from zerda.memory.summary import summary_buffer_bound
    from zerda.summarizers.model import ModelSummarizer
    from zerda_cli.chat.backends import ManualBackend

    if isinstance(backend, ManualBackend):
        return None  # refused when the config is read: nobody to ask
    return ModelSummarizer(backend, summary_buffer_bound(spec.size), encoding=encoding)


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
