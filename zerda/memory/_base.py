"""BaseMemory: the shared behaviour of every conversation-memory class."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from zerda.errors import InvalidArgumentError
from zerda.formats.openai import content_text
from zerda.memory._turns import (
    MISSING,
    VALUE,
    Turn,
    plain_messages,
    stored_side,
    turn_lines,
    turn_messages,
    turn_text,
    turns_from_messages,
)
from zerda.messages import Memory, Message, Summary
from zerda.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from zerda.store.base import Store

# MISSING, VALUE, Turn, plain_messages, turn_lines and turn_text live in `zerda.memory._turns`;
# they stay importable from here, where they were first.
__all__ = [
    "MISSING",
    "VALUE",
    "BaseMemory",
    "NoState",
    "SavePoint",
    "Turn",
    "plain_messages",
    "turn_lines",
    "turn_text",
]

MemoryT = TypeVar("MemoryT", bound="BaseMemory", contravariant=True)


class SavePoint(Protocol[MemoryT]):
    """What a save may change in a memory beyond `chat_memory`, taken before the save
    changes anything (`BaseMemory._save_point`): `restore(memory)` puts it back when
    the save fails (its summarizer or its write), so the memory is as it was."""

    def restore(self, memory: MemoryT, /) -> None: ...


@dataclasses.dataclass(frozen=True)
class NoState:
    """The save point of a memory whose saves change nothing but `chat_memory`."""

    def restore(self, memory: BaseMemory, /) -> None:
        """Nothing to put back."""


NO_STATE = NoState()


class BaseMemory:
    """History of (input, output) turns, optionally bound to a store session.

    `chat_memory` holds `Turn` dicts (`{"input", "output", "timestamp"}`, see
    `zerda.memory._turns`), oldest first.
    Every public method takes the instance lock, so threads may share a memory.
    A bound memory keeps the stored (user, assistant) messages of its latest save
    in `last_stored_turn` (their uuids, times and token counts), and the session's
    system messages in `system_messages`: they open every context and are never
    trimmed by a window or a budget.
    """

    memory_type = "base"

    def __init__(
        self,
        return_messages: bool = False,
        input_key: str = "input",
        output_key: str = "output",
        memory_key: str = "history",
        *,
        store: Store | None = None,
        session_id: str | None = None,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        if (store is None) != (session_id is None):
            raise InvalidArgumentError("store and session_id must be given together")
        self.return_messages = return_messages
        self.input_key = input_key
        self.output_key = output_key
        self.memory_key = memory_key
        self.encoding = encoding
        self.store = store
        self.session_id = session_id
        self.chat_memory: list[Turn] = []
        self.last_stored_turn: tuple[Message, Message] | None = None
        self.system_messages: list[Message] = []
        self._lock = threading.RLock()
        if store is not None and session_id is not None and store.exists(session_id):
            self.system_messages = store.system_messages(session_id)
            self._restore(store, session_id)

    # -- hooks for subclasses -------------------------------------------------

    def _restore(self, store: Store, session_id: str) -> None:
        """Fill `chat_memory` from an existing session (all turns; subclasses read less)."""
        self.chat_memory.extend(turns_from_messages(store.iter_messages(session_id)))
        self._trim()

    def _trim(self) -> list[Turn]:
        """Drop and return what the memory no longer holds after a save (base: keeps all)."""
        return []

    def _absorb(self, turn: Turn, dropped: list[Turn]) -> Summary | None:
        """Fold a save into derived state; return a new summary to store with the turn.

        It may drop (and fold) more turns, appending them to `dropped`, so that a
        failed save puts them back."""
        return None

    def _save_point(self) -> SavePoint[Self]:
        """What `_absorb` may change beyond `chat_memory`, taken before a save to undo
        it if it fails (base: nothing)."""
        return NO_STATE

    def _forget_save(self, dropped: list[Turn], point: SavePoint[Self]) -> None:
        """Undo the last save in memory, after its summarizer or its write failed:
        `chat_memory` gets back the turns it dropped and loses the new one, and
        `point` puts back the rest."""
        self.chat_memory[:] = dropped + self.chat_memory
        self.chat_memory.pop()
        point.restore(self)

    # -- the documented API ---------------------------------------------------

    def save_context(
        self,
        inputs: dict[str, Any],
        outputs: dict[str, Any],
        *,
        reply_metadata: dict[str, Any] | None = None,
    ) -> None:
        """Append one turn; a missing key stores None. Bound memories also write it to disk,
        with `reply_metadata` (how the reply was made, say) on the assistant message."""
        turn: Turn = {
            "input": inputs.get(self.input_key),
            "output": outputs.get(self.output_key),
            "timestamp": time.time(),
        }
        with self._lock:
            point = self._save_point()
            self.chat_memory.append(turn)
            dropped = self._trim()
            try:  # a failed summarizer or write leaves memory and store as they were
                summary = self._absorb(turn, dropped)
                if self.store is not None and self.session_id is not None:
                    self._persist(self.store, self.session_id, turn, summary, reply_metadata)
            except BaseException:
                self._forget_save(dropped, point)
                raise

    def _persist(
        self,
        store: Store,
        session_id: str,
        turn: Turn,
        summary: Summary | None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> None:
        """Write the turn (and a new summary) in one write.

        A side saved as None is stored as an empty message marked `MISSING`, so a
        restored memory holds None there too.
        """
        reply = stored_side("assistant", turn["output"])
        if reply_metadata:
            reply = dataclasses.replace(reply, metadata={**reply_metadata, **reply.metadata})
        pair = [stored_side("user", turn["input"]), reply]
        user, assistant = store.add_memory(session_id, Memory(messages=pair, summary=summary))
        self.last_stored_turn = (user, assistant)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """`{memory_key: text}` (or the list itself with `return_messages`); `inputs` is unused."""
        with self._lock:
            if self.return_messages:
                return {self.memory_key: self.chat_memory}
            return {self.memory_key: self._format_messages_as_text()}

    def _format_messages_as_text(self) -> str:
        """System messages, then `user: {input}\nassistant: {output}` per turn."""
        return "\n".join(p for p in (self._system_text(), self._turns_text()) if p)

    def _system_text(self) -> str:
        return "\n".join(f"system: {m.content}" for m in self.system_messages)

    def _turns_text(self) -> str:
        """`user: {input}\nassistant: {output}` per turn (see `turn_lines`), joined by newlines."""
        return "\n".join(turn_lines(turn) for turn in self.chat_memory)

    def clear(self) -> None:
        """Forget every turn (and empty the bound session, keeping the session)."""
        with self._lock:
            self.chat_memory.clear()
            self.system_messages = []
            # A bound session that was never written has nothing to clear.
            store, session_id = self.store, self.session_id
            if store is not None and session_id is not None and store.exists(session_id):
                store.clear(session_id)

    def get_messages(self, limit: int | None = None) -> list[Turn]:
        """The last `limit` turns, or a copy of all when limit is None, 0 or falsy."""
        with self._lock:
            if limit:
                return list(self.chat_memory[-limit:])
            return self.chat_memory.copy()

    def get_memory_stats(self) -> dict[str, Any]:
        """type, message_count, total_characters, estimated_tokens, plus exact token counts."""
        with self._lock:
            turns = list(self.chat_memory)
        chars = sum(len(str(t["input"])) + len(str(t["output"])) for t in turns)
        from zerda.tokens import get_counter

        counter = get_counter(self.encoding)
        return {
            "type": self.memory_type,
            "message_count": len(turns),
            "total_characters": chars,
            "estimated_tokens": chars // 4,
            "token_count": sum(self.turn_tokens(t) for t in turns),
            "token_encoding": counter.encoding,
            "token_count_exact": counter.exact,
        }

    def turn_tokens(self, turn: Turn) -> int:
        """Tokens of one turn: its input text plus its output text (with a tool-call
        exchange, the text of every message it sends)."""
        if "messages" in turn:
            texts = [content_text(m.get("content")) for m in turn["messages"]]
        else:
            texts = [turn_text(turn["input"]), turn_text(turn["output"])]
        return sum(count_tokens(text, self.encoding) for text in texts)

    def context_messages(self) -> list[dict[str, Any]]:
        """What this memory hands a model, as OpenAI chat messages.

        The session's system messages come first, as stored; then each turn.
        """
        from zerda.formats.openai import to_openai

        with self._lock:
            turns = list(self.chat_memory)
            messages = [to_openai(m) for m in self.system_messages]
        for turn in turns:
            messages += turn_messages(turn)
        return messages

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """`save_context` in a worker thread."""
        import asyncio  # here, not at the top: most callers never need the event loop

        await asyncio.to_thread(self.save_context, inputs, outputs)

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """`load_memory_variables` in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.load_memory_variables, inputs)

    async def aclear(self) -> None:
        """`clear` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.clear)
