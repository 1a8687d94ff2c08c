"""Parsing files for `zerda import`: zerda's JSONL and JSON exports, OpenAI message arrays.

Everything is validated before anything is written: the first problem is an
InputError naming the line or item, and the session is left untouched. A zerda
export brings its session facts (user, metadata, creation time) and summary along.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from zerda.errors import InvalidMessageError
from zerda.formats.openai import from_openai
from zerda.messages import Message, Session, Summary
from zerda_cli.inputs import InputError

# Records of a raw session file that carry nothing to import.
SKIPPED_RECORDS = frozenset({"session_update", "tokens"})


@dataclass
class Imported:
    """What an import file holds: messages, and the session and summary if it says."""

    messages: list[Message] = field(default_factory=list)
    session: Session | None = None
    summary: Summary | None = None


def parse_import(text: str, source: str) -> Imported:
    """The contents of `text`: one JSON document (array or export object) or JSON Lines."""
    if not text.strip():
        raise InputError(f"{source} is empty; nothing was imported")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return _from_lines(text, source)
    except (RecursionError, ValueError) as exc:
        raise InputError(f"{source}: {_why(exc)}; nothing was imported") from None
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return _from_document(document, source)
    if isinstance(document, list):
        return _nonempty(_from_items(document, source, Imported()), source)
    return _from_lines(text, source)


def _from_document(document: dict[str, Any], source: str) -> Imported:
    """zerda's JSON export: `{"session", "summary", "messages"}`."""
    found = Imported()
    session, summary = document.get("session"), document.get("summary")
    if session is not None:
        _take(found, {**_object(session), "type": "session"}, f"{source}: session", True)
    if summary is not None:
        _take(found, {**_object(summary), "type": "summary"}, f"{source}: summary", True)
    return _nonempty(_from_items(document["messages"], source, found), source)


def _object(value: Any) -> dict[str, Any]:
    """A session or summary object; a bare summary string is its content."""
    return value if isinstance(value, dict) else {"content": value}


def _from_items(items: list[Any], source: str, found: Imported) -> Imported:
    for number, item in enumerate(items, 1):
        _take(found, item, f"{source}: item {number}", False)
    return found


def _from_lines(text: str, source: str) -> Imported:
    found = Imported()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source}: line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
        except (RecursionError, ValueError) as exc:
            raise InputError(f"{where}: {_why(exc)}") from None
        _take(found, item, where, True)
    return _nonempty(found, source)


def _why(exc: Exception) -> str:
    """A short reason for a JSON document Python cannot decode (too deep, huge numbers)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return "holds a number too long to read"


def _nonempty(found: Imported, source: str) -> Imported:
    if not found.messages and found.session is None:
        raise InputError(f"{source} holds no messages; nothing was imported")
    return found


def _take(found: Imported, item: Any, where: str, records: bool) -> None:
    """Add one item: a message (zerda's or OpenAI's), or a session or summary record."""
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a JSON object with role and content")
    kind = item.get("type")
    try:
        if kind in SKIPPED_RECORDS and records:
            return
        if kind == "session" and records:
            found.session = Session.from_dict(item)
        elif kind == "summary" and records:
            found.summary = Summary.coerce({k: v for k, v in item.items() if k != "type"})
        elif kind in (None, "message"):
            found.messages.append(from_openai(item))
        else:
            raise InputError(f"{where}: unknown record type {kind!r}")
    except (InvalidMessageError, TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"{where}: {exc}") from None
