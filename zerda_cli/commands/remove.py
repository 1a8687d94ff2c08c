"""`zerda clear` and `zerda delete`: remove a session's messages, or the session itself,
once confirmed."""

from __future__ import annotations

import warnings

from zerda.errors import CorruptSessionError, SkippedLineWarning
from zerda.store.base import Store
from zerda_cli import render
from zerda_cli.options.params import HomeOpt, SessionArg, StoreOpt, YesOpt, confirm, open_store


def clear(
    session: SessionArg, yes: YesOpt = False, home: HomeOpt = None, location: StoreOpt = None
) -> None:
    """Remove every message of a session (the session and its metadata stay)."""
    store = open_store(home, location)
    count = store.message_count(session)
    confirm(f"Remove {_all_messages(count)} of session {session}?", yes)
    store.clear(session)
    render.note(f"cleared session {session}: {_messages(count)} removed")


def delete(
    session: SessionArg, yes: YesOpt = False, home: HomeOpt = None, location: StoreOpt = None
) -> None:
    """Delete a session and its file (a damaged one too)."""
    store = open_store(home, location)
    confirm(f"Delete session {session} and its {_readable_messages(store, session)}?", yes)
    store.delete_session(session)
    render.note(f"deleted session {session}")


def _messages(count: int) -> str:
    return f"{count:,} message{'s' * (count != 1)}"


def _readable_messages(store: Store, session: str) -> str:
    """`5 messages`, counted leniently: a damaged file can still be deleted."""
    try:
        return _messages(store.message_count(session))
    except CorruptSessionError:
        from zerda.store.files._store import SessionStore

        if not isinstance(store, SessionStore):  # only session files hold damaged lines
            raise
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedLineWarning)
            count = SessionStore(store.home, lenient=True).message_count(session)
        return f"{_messages(count)} that can be read (the file is damaged)"


def _all_messages(count: int) -> str:
    """`the only message`, `both messages`, `all 3 messages`."""
    return {1: "the only message", 2: "both messages"}.get(count, f"all {_messages(count)}")
