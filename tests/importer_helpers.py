"""What the importer tests share: storing what a reader found, and the store's bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from zerda import SessionStore
from zerda.importers.base import Conversation, Found, Problem
from zerda.messages import Message
from zerda.store.rewrites import ListSource

ZERDA = Path(sys.executable).with_name("zerda")


def conversations(found: Iterable[Found]) -> list[Conversation]:
    """The conversations of `found`, asserting there was no problem."""
    items = list(found)
    problems = [str(item) for item in items if isinstance(item, Problem)]
    assert problems == []
    return [item for item in items if isinstance(item, Conversation)]


def store_all(store: SessionStore, found: Iterable[Conversation]) -> int:
    """Store every conversation as its session, writing only what the store does not
    hold as it is; returns how many messages were written."""
    written = 0
    for conversation in found:
        sid = conversation.session_id
        if not store.exists(sid):
            store.create_session(
                sid, metadata=conversation.metadata, created_at=conversation.created_at
            )
        held = {m.uuid: _kept(m) for m in store.iter_messages(sid)}
        new = [m for m in conversation.messages if held.get(m.uuid) != _kept(m)]
        if new:
            written += store.import_messages(sid, ListSource(new), conversation.summary)
    return written


def _kept(message: Message) -> tuple[object, ...]:
    """What an import gives a message (the store adds its token count)."""
    m = message
    return (m.role, m.role_type, m.content, m.metadata, m.created_at, m.extra)


def store_bytes(store: SessionStore) -> dict[str, bytes]:
    """Every session file of `store`, by name."""
    return {p.name: p.read_bytes() for p in sorted(Path(store.sessions_dir).iterdir())}


def zerda_import(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed `zerda import ARGS` on data directory `home`, as a real subprocess."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZERDA_HOME", "ZERDA_STORE")}
    command = [str(ZERDA), "import", "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
