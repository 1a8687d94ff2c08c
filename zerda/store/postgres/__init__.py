"""The PostgreSQL store: sessions on a server, shared by processes on many hosts.

`import zerda.store.postgres` needs nothing beyond zerda; psycopg (the `postgres` extra:
`pip install 'zerda[postgres]'`) is imported when a store first connects.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerda.store.postgres._store import PostgresStore

__all__ = ["PostgresStore"]


def __getattr__(name: str) -> Any:
    """`PostgresStore` loads with its module on first use: choosing a store by URL (which
    imports `zerda.store.postgres._urls`) loads none of it."""
    if name == "PostgresStore":
        from zerda.store.postgres._store import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"PostgresStore"})
