"""What every importer produces: conversations of zerda messages, read one at a time.

A reader (one module per source format) turns a peer's export into `Conversation`s,
yielded one at a time so a big export is never held whole. Each carries the
source's own ids, so importing it again finds the same session and the same
message uuids (`stable_uuid`) and adds nothing. A conversation that cannot be read
is a `Problem` (where it is and why), yielded in its place: the run reports it and
goes on, or stops under `strict`.
"""

from __future__ import annotations

import hashlib
import re
import uuid as uuidlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from zerda.errors import ZerdaError
from zerda.messages import Message, Summary

# uuid5 namespace of every message uuid an importer derives (fixed forever: re-imports
# of the same source must land on the same uuids).
NAMESPACE = uuidlib.UUID("6f1b3a52-4d1e-5c1a-9e0b-7a2d0c9e4f31")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
SLUG_MAX = 100  # leaves room under zerda's 128-character session ids


def stable_uuid(source: str, *parts: str) -> str:
    """The uuid of a message from `source` (a format name) known by `parts` (its
    conversation's id and its own id or position): the same on every import."""
    return str(uuidlib.uuid5(NAMESPACE, "\x1f".join((source, *parts))))


def session_slug(source: str, source_id: str) -> str:
    """A valid, stable session id for conversation `source_id` of `source`.

    `chatgpt-<id>` when the id is already safe; otherwise its safe characters plus a
    short hash of the id itself, so two ids that clean to the same text never collide.
    """
    cleaned = _UNSAFE.sub("-", source_id).strip("-.")[:SLUG_MAX] or "conversation"
    slug = f"{source}-{cleaned}"
    if cleaned != source_id:
        digest = hashlib.sha256(source_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug}-{digest}"
    return slug


@dataclass
class Conversation:
    """One conversation of a source, ready to be a session.

    `metadata` becomes the session's metadata; it holds at least `source` (the format),
    `source_id` and, when the source has one, `title` and `source_title` (the same: a
    title changed in zerda is told by differing from it, and stays). Messages carry their source
    times and `stable_uuid`s; `skipped` counts what was left out, by reason.
    `off_path` holds the uuids of the conversation's messages that are not on its
    current path (edits and regenerations left behind): a session still holding
    them is rewritten to the current path. `timed` is False for a source that records
    no times (its messages carry the file's): a message already held keeps its time.
    `rolling` is True for a source that drops its oldest messages and derives a uuid
    from the message before: a first message whose uuid could not be derived takes
    the held one's (`zerda.importers._held`).
    """

    source: str
    source_id: str
    title: str | None
    created_at: datetime | None
    messages: list[Message]
    metadata: dict[str, Any] = field(default_factory=dict)
    summary: Summary | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    session_id: str = ""
    off_path: set[str] = field(default_factory=set)
    timed: bool = True
    rolling: bool = False

    def __post_init__(self) -> None:
        if not self.session_id:
            self.session_id = session_slug(self.source, self.source_id)
        self.metadata = {
            "source": self.source,
            "source_id": self.source_id,
            **({"title": self.title, "source_title": self.title} if self.title else {}),
            **self.metadata,
        }

    def skip(self, reason: str, count: int = 1) -> None:
        """Count `count` items left out for `reason` (e.g. "hidden", "branch")."""
        self.skipped[reason] = self.skipped.get(reason, 0) + count


@dataclass(frozen=True)
class Problem:
    """A conversation (or item) that cannot be imported: where it is, and why."""

    where: str  # "conversations.json: conversation 3 (id abc)"
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


# What a reader yields.
Found = Conversation | Problem
Reader = Iterator[Found]

# What reading a value of an unexpected shape raises (nesting past the interpreter's
# limit included): one item's problem, never the run's end.
UNREADABLE = (TypeError, ValueError, KeyError, AttributeError, RecursionError)


def once(found: Iterable[Found]) -> Iterator[Found]:
    """`found`, where a conversation whose id came before (files of a split export that
    overlap) is a Problem: the first is the one imported."""
    seen: set[str] = set()
    for item in found:
        if isinstance(item, Conversation):
            if item.source_id in seen:
                where = f"{item.source} conversation {item.source_id!r}"
                yield Problem(where, "its id comes twice in the export; the first was imported")
                continue
            seen.add(item.source_id)
        yield item


def guarded(read: Callable[[Any, str], Found], item: Any, where: str) -> Found:
    """`read(item, where)`, or the Problem of an item of a shape it did not expect."""
    try:
        return read(item, where)
    except UNREADABLE as exc:
        return Problem(where, unreadable(exc))


def unreadable(exc: BaseException) -> str:
    """One line saying why a value of an unexpected shape (or a message zerda refuses:
    its own error's words) cannot be read."""
    if isinstance(exc, ZerdaError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "cannot be read: nested too deeply"
    detail = " ".join(str(exc).split())[:120]
    return f"cannot be read: {type(exc).__name__}: {detail}"
