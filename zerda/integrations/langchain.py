"""`ZerdaChatMessageHistory`: a LangChain chat message history on any zerda store.

Needs langchain-core (`pip install 'zerda[langchain]'`). Messages are mapped by
`zerda.formats.langchain`, so every LangChain message comes back exactly as it was
added, and the session stays a zerda session (`zerda show`, search, export, chat).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Sequence
from typing import Any

try:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "zerda.integrations.langchain needs langchain-core: pip install 'zerda[langchain]'"
    ) from exc

from zerda._paths import validate_session_id
from zerda.errors import InvalidMessageError, NotFoundError
from zerda.formats.langchain import from_langchain, to_langchain
from zerda.formats.openai import from_openai, to_openai
from zerda.memory._spec import MemorySpec, bind_memory, parse_memory
from zerda.memory._turns import MISSING
from zerda.messages import Memory, Message
from zerda.store.base import Store

__all__ = ["ZerdaChatMessageHistory"]


class ZerdaChatMessageHistory(BaseChatMessageHistory):
    """The messages of one zerda session, as LangChain's `BaseChatMessageHistory`.

    `store` is any zerda store (default: a `SessionStore` on the default home).
    `memory` takes the specs of `zerda chat --memory` (`buffer`, `window:K`, `token:N`,
    `summary:N`): writes always keep every message, while `messages` returns what that
    memory class hands a model (the session's system messages, the summary, the turns
    it keeps). A session never written reads as `[]`; it is created on first write.
    """

    def __init__(
        self,
        session_id: str,
        store: Store | None = None,
        *,
        memory: str | MemorySpec | None = None,
    ) -> None:
        super().__init__()
        self.session_id = validate_session_id(session_id)
        if store is None:
            from zerda.store.files._store import SessionStore

            store = SessionStore()
        self.store: Store = store
        self.memory = parse_memory(memory) if isinstance(memory, str) else memory

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """Every message of the session, oldest first (with `memory`: the context it picks)."""
        if self.memory is not None:
            return self._context(self.memory)
        try:
            stored = self.store.get_memory(self.session_id).messages
        except NotFoundError:
            return []
        return _langchain_messages(stored)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append the messages to the session in one write (nothing is written for none)."""
        batch = _zerda_messages(messages)
        if batch:
            self.store.add_memory(self.session_id, Memory(messages=batch))

    def clear(self) -> None:
        """Empty the session; a session never written has nothing to clear."""
        with contextlib.suppress(NotFoundError):
            self.store.clear(self.session_id)

    async def aget_messages(self) -> list[BaseMessage]:
        """`messages`, through the store's async methods."""
        if self.memory is not None:
            return await asyncio.to_thread(self._context, self.memory)
        try:
            stored = (await self.store.aget_memory(self.session_id)).messages
        except NotFoundError:
            return []
        return _langchain_messages(stored)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """`add_messages`, through the store's async methods."""
        batch = _zerda_messages(messages)
        if batch:
            await self.store.aadd_memory(self.session_id, Memory(messages=batch))

    async def aclear(self) -> None:
        """`clear`, through the store's async methods."""
        with contextlib.suppress(NotFoundError):
            await self.store.aclear(self.session_id)

    def _context(self, spec: MemorySpec) -> list[BaseMessage]:
        """What the memory `spec` names hands a model, as LangChain messages.

        `context_messages()` gives OpenAI's form; the session's system messages and
        the turns' stored messages are given back as they were added instead.
        """
        memory = bind_memory(spec, self.store, self.session_id)
        head = len(memory.system_messages)
        sent = memory.context_messages()[head:]
        originals = self._stored_tail(sent)
        derived = [from_openai(item) for item in sent[: len(sent) - len(originals)]]
        return _langchain_messages([*memory.system_messages, *derived, *originals])

    def _stored_tail(self, sent: list[dict[str, Any]]) -> list[Message]:
        """The stored messages that the end of `sent` was made from, oldest first.

        Read newest first, they match `sent` from its end until one does not (the
        summary, or a message written by another process since the memory was read).
        """
        if not sent:
            return []
        matched: list[Message] = []
        wanted = reversed(sent)
        try:
            for message in self.store.iter_messages_reversed(self.session_id):
                if message.part is None or message.metadata.get(MISSING):
                    continue  # not in a turn: system messages and sides saved as None
                if to_openai(message) != next(wanted, None):
                    break
                matched.append(message)
                if len(matched) == len(sent):
                    break
        except NotFoundError:
            return []
        return matched[::-1]


def _zerda_messages(messages: Iterable[BaseMessage]) -> list[Message]:
    return [from_langchain(message_to_dict(m)) for m in messages]


def _langchain_messages(stored: Iterable[Message]) -> list[BaseMessage]:
    """LangChain messages of stored ones; sides a memory saved as None are not messages."""
    items = [to_langchain(m) for m in stored if not m.metadata.get(MISSING)]
    try:
        return messages_from_dict(items)
    except ValueError as exc:  # pydantic's ValidationError is one
        raise InvalidMessageError(f"a stored message is not a LangChain message: {exc}") from None
