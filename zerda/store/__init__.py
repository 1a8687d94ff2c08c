"""Session stores: one interface, three implementations.

- `zerda.store.base`: the interface (`Store`): twelve primitives every store provides,
  and everything else built on them (`derived`), which a store overrides to be faster;
  `sources`, `tally` and `stats` are the parts the implementations share (what bulk
  writes read, running totals, statistics), and `copying`, `forking` and `overview` are
  written once against the interface.
- `zerda.store.inmemory`: `InMemoryStore`, the primitives alone in this process's
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
    from zerda.store.base import Store
    from zerda.store.files.store import FileStore, SessionStore
    from zerda.store.inmemory import InMemoryStore
    from zerda.store.opening import open_store

__all__ = ["FileStore", "InMemoryStore", "SessionStore", "Store", "open_store"]
_LAZY = {
    "Store": "zerda.store.base",
    "FileStore": "zerda.store.files.store",
    "SessionStore": "zerda.store.files.store",
    "InMemoryStore": "zerda.store.inmemory",
    "open_store": "zerda.store.opening",
}


def __getattr__(name: str) -> Any:
    """The package's names load with their module on first use (see `zerda`)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
