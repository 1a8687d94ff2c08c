"""The conversation-memory classes, all on one base class."""

from zerda.memory._base import BaseMemory
from zerda.memory._budget import chat_tokens
from zerda.memory._buffer import ConversationBufferMemory
from zerda.memory._summary import (
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    summarize_session,
)
from zerda.memory._token_buffer import ConversationTokenBufferMemory
from zerda.memory._turns import Turn
from zerda.memory._window import ConversationBufferWindowMemory

__all__ = [
    "BaseMemory",
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
    "ConversationSummaryBufferMemory",
    "ConversationSummaryMemory",
    "ConversationTokenBufferMemory",
    "Turn",
    "chat_tokens",
    "summarize_session",
]
