"""ConversationBufferMemory: the whole conversation, no size limit."""

from __future__ import annotations

from zerda.memory._base import BaseMemory


class ConversationBufferMemory(BaseMemory):
    """Every turn, unabridged. Prefer the window, token or summary variants for long chats."""

    memory_type = "buffer"
