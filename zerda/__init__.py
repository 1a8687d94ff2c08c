"""zerda: conversation memory classes and a durable per-session chat-history store.

Names load with their module on first use (`zerda.SessionStore`, `from zerda import
Message`): `import zerda` itself costs only the error classes, so a command that needs
one store never pays for the other, nor for summarizers or the token encoder.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from zerda.errors import (
    ClientError,
    CorruptSessionError,
    InvalidArgumentError,
    InvalidMessageError,
    InvalidSessionIdError,
    NotFoundError,
    SessionChangedError,
    SessionExistsError,
    SkippedLineWarning,
    StorageWriteError,
    StoreError,
    SummarizerError,
    UnsafePathError,
    ZerdaError,
    ZerdaWarning,
)

if TYPE_CHECKING:
    from zerda.memory import (
        BaseMemory,
        ConversationBufferMemory,
        ConversationBufferWindowMemory,
        ConversationSummaryBufferMemory,
        ConversationSummaryMemory,
        ConversationTokenBufferMemory,
    )
    from zerda.messages import Memory, Message, Session, Summary
    from zerda.store._inmemory import InMemoryStore
    from zerda.store._opening import open_store
    from zerda.store._stats import SessionStats
    from zerda.store.base import Store
    from zerda.store.files._store import FileStore, SessionStore
    from zerda.store.postgres._store import PostgresStore
    from zerda.summarizers import ExtractiveSummarizer, Summarizer
    from zerda.tokens import TokenCounter, count_tokens, get_counter

__version__ = "0.1.0"

# Each lazily loaded name, and the module it comes from.
_LAZY = {
    "Memory": "zerda.messages",
    "Message": "zerda.messages",
    "Session": "zerda.messages",
    "Summary": "zerda.messages",
    "Store": "zerda.store.base",
    "FileStore": "zerda.store.files._store",
    "SessionStore": "zerda.store.files._store",
    "InMemoryStore": "zerda.store._inmemory",
    "BaseMemory": "zerda.memory",
    "ConversationBufferMemory": "zerda.memory",
    "ConversationBufferWindowMemory": "zerda.memory",
    "ConversationSummaryBufferMemory": "zerda.memory",
    "ConversationSummaryMemory": "zerda.memory",
    "ConversationTokenBufferMemory": "zerda.memory",
    "PostgresStore": "zerda.store.postgres._store",
    "open_store": "zerda.store._opening",
    "SessionStats": "zerda.store._stats",
    "ExtractiveSummarizer": "zerda.summarizers",
    "Summarizer": "zerda.summarizers",
    "TokenCounter": "zerda.tokens",
    "count_tokens": "zerda.tokens",
    "get_counter": "zerda.tokens",
}

__all__ = [
    "BaseMemory",
    "ClientError",
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
    "ConversationSummaryBufferMemory",
    "ConversationSummaryMemory",
    "ConversationTokenBufferMemory",
    "CorruptSessionError",
    "ExtractiveSummarizer",
    "FileStore",
    "InMemoryStore",
    "InvalidArgumentError",
    "InvalidMessageError",
    "InvalidSessionIdError",
    "Memory",
    "Message",
    "NotFoundError",
    "PostgresStore",
    "Session",
    "SessionChangedError",
    "SessionExistsError",
    "SessionStats",
    "SessionStore",
    "SkippedLineWarning",
    "StorageWriteError",
    "Store",
    "StoreError",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "TokenCounter",
    "UnsafePathError",
    "ZerdaError",
    "ZerdaWarning",
    "__version__",
    "count_tokens",
    "get_counter",
    "open_store",
]


def __getattr__(name: str) -> Any:
    """A lazily loaded name, from its module (kept as an attribute once loaded)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'zerda' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
