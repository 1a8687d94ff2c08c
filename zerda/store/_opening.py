"""Choosing a store by where its sessions are: a directory (or nothing) for session files,
a `postgresql://` URL for a PostgreSQL server."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from zerda.errors import InvalidArgumentError
from zerda.store.postgres._urls import is_url, redact

if TYPE_CHECKING:
    from zerda.store.base import Store


def open_store(
    location: str | os.PathLike[str] | None = None,
    *,
    fsync: bool = True,
    count_on_write: bool = True,
    lenient: bool = False,
    extract_entities: bool = True,
) -> Store:
    """The store at `location`: a `postgresql://` (or `postgres://`) URL opens a
    PostgresStore; a directory, or None for the default home, a SessionStore.

    `fsync`, `count_on_write` and `lenient` are the file store's options (see
    SessionStore); a server makes every commit durable, counts every message as it is
    written and holds no damaged lines. `extract_entities=False` stores messages and
    summaries without their entities, on either store.
    """
    if is_url(location):
        from zerda.store.postgres import PostgresStore

        return PostgresStore(str(location), extract_entities=extract_entities)
    if isinstance(location, str) and "://" in location:
        scheme = location.partition("://")[0]
        raise InvalidArgumentError(
            f"unknown store {redact(location)!r}: {scheme}:// is not a store zerda knows "
            "(use postgresql://USER@HOST/DB, or a directory for session files)"
        )
    from zerda.store.files._store import SessionStore

    return SessionStore(
        location,
        fsync=fsync,
        count_on_write=count_on_write,
        lenient=lenient,
        extract_entities=extract_entities,
    )
