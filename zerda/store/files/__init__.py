"""The file store: one append-only JSON Lines file a session (`store.FileStore`, also
known by its first name, `SessionStore`).

`sessionfile` is one file on disk (locked appends, line reads, safe rewrites), `records`
the file format, `reader` turns a file into records, `search` scans files fast.
"""

from zerda.store.files._store import FileStore, SessionStore

__all__ = ["FileStore", "SessionStore"]
