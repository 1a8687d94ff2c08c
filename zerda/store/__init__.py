"""Session stores: one interface, three implementations.

- `zerda.store.base`: the interface (`Store`): twelve primitives every store provides,
  and everything else built on them (`derived`), which a store overrides to be faster;
  `sources`, `tally` and `stats` are the parts the implementations share (what bulk
  writes read, running totals, statistics), and `copying`, `forking` and `overview` are
  written once against the interface.
- `zerda.store._inmemory`: `InMemoryStore`, the primitives alone in this process's
  memory: the reference the conformance suite holds the others to, and a test double.
- `zerda.store.files`: `FileStore` (first named `SessionStore`), append-only JSON Lines
  files under `flock`, one a session, on this host (the default).
- `zerda.store.postgres`: `PostgresStore`, sessions on a PostgreSQL server shared by
  many processes and hosts (psycopg is imported when it first connects).
- `open_store(location)` picks one by location; `copying` moves sessions between any two.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerda.store._checks import Finding, Repair
    from zerda.store._copying import copy_session
    from zerda.store._inmemory import InMemoryStore
    from zerda.store._matching import Matcher
    from zerda.store._opening import open_store
    from zerda.store._overview import SessionOverview
    from zerda.store._sources import MessageSource
    from zerda.store._stats import SessionStats
    from zerda.store._words import Words
    from zerda.store.base import Store
    from zerda.store.files._store import FileStore, SessionStore

__all__ = [
    "FileStore",
    "Finding",
    "InMemoryStore",
    "Matcher",
    "MessageSource",
    "Repair",
    "SessionOverview",
    "SessionStats",
    "SessionStore",
    "Store",
    "Words",
    "copy_session",
    "open_store",
]
_LAZY = {
    "Store": "zerda.store.base",
    "FileStore": "zerda.store.files._store",
    "SessionStore": "zerda.store.files._store",
    "InMemoryStore": "zerda.store._inmemory",
    "open_store": "zerda.store._opening",
    "Finding": "zerda.store._checks",
    "Repair": "zerda.store._checks",
    "copy_session": "zerda.store._copying",
    "Matcher": "zerda.store._matching",
    "MessageSource": "zerda.store._sources",
    "SessionOverview": "zerda.store._overview",
    "SessionStats": "zerda.store._stats",
    "Words": "zerda.store._words",
}


def __getattr__(name: str) -> Any:
    """The package's names load with their module on first use (see `zerda`)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
