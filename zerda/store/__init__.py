"""Session stores: one interface, two implementations.

- `zerda.store.base`: the interface (`Store`) every store provides, with what it gets
  for free (async twins, batch rules); `sources`, `tally` and `stats` are the parts
  both implementations share (what bulk writes read, running totals, statistics), and
  `copying`, `forking` and `overview` are written once against the interface.
- `zerda.store.files`: `SessionStore`, append-only JSON Lines files under `flock`, one
  a session, on this host (the default).
- `zerda.store.postgres`: `PostgresStore`, sessions on a PostgreSQL server shared by
  many processes and hosts (psycopg is imported when it first connects).
- `open_store(location)` picks one by location; `copying` moves sessions between any two.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerda.store.base import Store
    from zerda.store.files.store import SessionStore
    from zerda.store.opening import open_store

__all__ = ["SessionStore", "Store", "open_store"]
_LAZY = {
    "Store": "zerda.store.base",
    "SessionStore": "zerda.store.files.store",
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
