"""The conversation-memory classes, all on one base class."""

from zerda.memory.base import BaseMemory
from zerda.memory.buffer import ConversationBufferMemory
from zerda.memory.summary import ConversationSummaryBufferMemory, ConversationSummaryMemory
from zerda.memory.token_buffer import ConversationTokenBufferMemory
from zerda.memory.window import ConversationBufferWindowMemory

__all__ = [
    "BaseMemory",
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
    "ConversationSummaryBufferMemory",
    "ConversationSummaryMemory",
    "ConversationTokenBufferMemory",
]
