"""zerda: conversation memory classes and a durable per-session chat-history store."""

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
from zerda.messages import Memory, Message, Session, Summary
from zerda.store.base import Store
from zerda.store.files.store import SessionStore
from zerda.store.opening import open_store
from zerda.store.stats import SessionStats
from zerda.summarizers import ExtractiveSummarizer, Summarizer
from zerda.tokens import TokenCounter, count_tokens, get_counter

__version__ = "0.1.0"

__all__ = [
    "ClientError",
    "CorruptSessionError",
    "ExtractiveSummarizer",
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


def __getattr__(name: str) -> object:
    """`PostgresStore` loads with its module on first use: `import zerda` stays light."""
    if name == "PostgresStore":
        from zerda.store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'zerda' has no attribute {name!r}")
