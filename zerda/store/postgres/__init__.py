"""The PostgreSQL store: sessions on a server, shared by processes on many hosts.

`import zerda.store.postgres` needs nothing beyond zerda; psycopg (the `postgres` extra:
`pip install 'zerda[postgres]'`) is imported when a store first connects.
"""

from zerda.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
